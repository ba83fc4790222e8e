//! A database changed in place under a running `query`: truncated (as
//! `truncate -s` does) or rewritten with other bytes of the same size. The
//! process must never die of it (SIGBUS), and never answer a value the
//! layout's checks reject: the lines that need what was lost are
//! "database corrupted", the others are answered as before, and the exit
//! status is 3.

use std::io::{BufRead, BufReader, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use boardsolve::core::NoProgress;
use boardsolve::db::header::HEADER_SIZE;
use boardsolve::registry::AnyGame;

use crate::common::{json_lines, positions};

/// A database of `name` `variant` in `dir`, packed or not.
fn database(dir: &Path, name: &str, variant: &str, packed: bool) -> PathBuf {
    let game = AnyGame::new(name, variant).unwrap();
    let solved = game.solve(&NoProgress).unwrap();
    let path = dir.join(format!("{name}-{variant}-{packed}.db"));
    boardsolve::db::write_database(&path, game.game().descriptor(), &solved).unwrap();
    if packed {
        let db = boardsolve::Database::open(&path).unwrap();
        let (body, header) =
            boardsolve::db::pack::pack_database(&db, game.game(), Default::default(), &NoProgress)
                .unwrap();
        boardsolve::db::pack::write_packed(&path, &header, &body).unwrap();
    }
    path
}

/// What happens to the file while `query` has it open.
#[derive(Clone, Copy, Debug)]
enum Change {
    /// Cut to half its length, plus a byte (the new end mid-page).
    Half,
    /// Cut to its header (`truncate -s 4096`).
    Header,
    /// The bytes after the header replaced by noise, in place.
    Noise,
}

fn change(path: &Path, how: Change) {
    let len = std::fs::metadata(path).unwrap().len();
    let file = std::fs::OpenOptions::new().write(true).open(path).unwrap();
    match how {
        Change::Half => file.set_len(len / 2 + 1).unwrap(),
        Change::Header => file.set_len(HEADER_SIZE as u64).unwrap(),
        Change::Noise => {
            let mut seed = 0x2545_f491_4f6c_dd1du64;
            let noise: Vec<u8> = (HEADER_SIZE as u64..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            use std::os::unix::fs::FileExt;
            file.write_all_at(&noise, HEADER_SIZE as u64).unwrap();
            file.sync_all().unwrap();
        }
    }
}

#[test]
fn a_file_changed_under_batch_mode_is_corruption_never_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        ("british-square", "4x4", false),
        ("british-square", "4x4", true),
        ("dots-and-boxes", "2x3", false),
        ("dots-and-boxes", "2x3", true),
    ];
    for (name, variant, packed) in cases {
        let good = database(dir.path(), name, variant, packed);
        let asked = positions(name, variant, 300, 5);
        let input: String = asked.iter().map(|p| format!("{p}\n")).collect();
        for how in [Change::Half, Change::Header, Change::Noise] {
            if matches!(how, Change::Noise) && name == "dots-and-boxes" && !packed {
                // Any byte is a dense entry: noise is caught where a value
                // is out of range or contradicts its moves, not always.
                continue;
            }
            let what = format!("{name} {variant} (packed: {packed}), {how:?}");
            let path = dir.path().join("changing.db");
            std::fs::copy(&good, &path).unwrap();
            let mut child = Command::new(env!("CARGO_BIN_EXE_query"))
                .arg("--db")
                .arg(&path)
                // No block kept in memory: each lookup reads the file.
                .args(["--cache", "0", "--json", "-"])
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap();
            let mut stdin = child.stdin.take().unwrap();
            let mut stdout = BufReader::new(child.stdout.take().unwrap());
            let mut read = |n: usize| -> Vec<serde_json::Value> {
                let mut text = Vec::new();
                for _ in 0..n {
                    let mut line = String::new();
                    assert!(
                        stdout.read_line(&mut line).unwrap() > 0,
                        "{what}: output ended"
                    );
                    text.extend_from_slice(line.as_bytes());
                }
                json_lines(&text)
            };
            // The answers of the intact file, then the file changes and the
            // same positions are asked again.
            stdin.write_all(input.as_bytes()).unwrap();
            stdin.flush().unwrap();
            let before = read(asked.len());
            change(&path, how);
            stdin.write_all(input.as_bytes()).unwrap();
            drop(stdin);
            let after = read(asked.len());
            let out = child.wait_with_output().unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.signal(), None, "{what}: killed: {stderr}");
            let (mut same, mut corrupt) = (0, 0);
            for (b, a) in before.iter().zip(&after) {
                if a == b {
                    same += usize::from(b.get("error").is_none());
                    continue;
                }
                let error = a["error"].as_str().unwrap_or_default();
                assert!(
                    error.starts_with("database corrupted"),
                    "{what}: {a} where {b} was answered"
                );
                assert!(b.get("error").is_none(), "{what}: {a} for {b}");
                corrupt += 1;
            }
            assert!(corrupt > 0, "{what}: nothing found corrupted");
            assert_eq!(out.status.code(), Some(3), "{what}: {stderr}");
            if let Change::Half = how {
                // What the file still holds is answered.
                assert!(same > 0, "{what}: nothing answered");
            }
        }
    }
}

#[test]
fn a_valid_header_over_random_records_is_database_corrupted() {
    let dir = tempfile::tempdir().unwrap();
    let good = database(dir.path(), "british-square", "4x4", false);
    change(&good, Change::Noise);
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(&good)
        .args(["start", "b2 c3"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(stderr.contains("database corrupted"), "{stderr}");
    assert!(!stderr.contains("cannot be reached"), "{stderr}");
}
