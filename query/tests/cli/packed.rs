//! Packed files (`format-spec.md`, section 3c) as users meet them: `query
//! pack` and `query unpack` give back every game's file byte for byte,
//! every command answers from a packed file exactly as from the plain one,
//! and damage anywhere in a packed file is reported, never answered from.

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::OnceLock;

use assert_cmd::Command;
use boardsolve::core::NoProgress;
use boardsolve::db::header::{Header, HEADER_SIZE};
use boardsolve::registry::AnyGame;
use boardsolve::solve::book::BookOptions;
use boardsolve_probe::Tablebase;

use crate::common::positions;

fn query() -> Command {
    Command::new(env!("CARGO_BIN_EXE_query"))
}

/// Every game, in each layout its files come in: complete sorted files,
/// dense tables, and opening books (of games with books and of boards
/// solved completely), small enough to build in a test.
const CASES: &[(&str, &str, Option<u32>)] = &[
    ("british-square", "4x4", None),
    ("british-square", "3x3,center-allowed", None),
    ("dots-and-boxes", "2x3", None),
    ("dots-and-boxes", "1x1", None),
    ("dots-and-boxes", "1x11", Some(2)),
    ("connect-four", "4x4", None),
    ("connect-four", "5x4", Some(4)),
    ("dandelions", "3x3", None),
    ("dandelions", "3x3", Some(4)),
];

/// Writes the plain database of `name` `variant` (a book of `depth` when
/// given).
fn write_plain(dir: &Path, name: &str, variant: &str, depth: Option<u32>) -> PathBuf {
    let game = AnyGame::new(name, variant).unwrap();
    let solved = match depth {
        Some(d) => {
            let mut o = BookOptions::new(d);
            // 2^22 entries: the 1x11 book's searches take three times as
            // long with 2^20.
            o.table_bits = 22;
            game.build_book(&o, &NoProgress).unwrap().unwrap().into()
        }
        None => game.solve(&NoProgress).unwrap(),
    };
    let depth = depth.map_or(String::new(), |d| format!("-d{d}"));
    let path = dir.join(format!("{name}-{variant}{depth}.db"));
    boardsolve::db::write_database(&path, game.game().descriptor(), &solved).unwrap();
    path
}

/// The plain database of `CASES[i]`, written once for all the tests of
/// this process (the books take seconds to build), into a directory they
/// share and never write to.
fn case_file(i: usize) -> &'static Path {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    static FILES: [OnceLock<PathBuf>; CASES.len()] = [const { OnceLock::new() }; CASES.len()];
    FILES[i].get_or_init(|| {
        let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap());
        let (name, variant, depth) = CASES[i];
        write_plain(dir.path(), name, variant, depth)
    })
}

/// `query pack IN -o OUT` with `args` besides.
fn pack(input: &Path, output: &Path, args: &[&str]) {
    query()
        .arg("pack")
        .arg(input)
        .arg("-o")
        .arg(output)
        .args(["--quiet"])
        .args(args)
        .assert()
        .success();
}

/// `query --json -` (with `args` besides) over `input`: what it prints
/// and its exit status.
fn batch(db: &Path, args: &[&str], input: &[String]) -> Output {
    let mut stdin = input.join("\n");
    stdin.push('\n');
    query()
        .arg("--db")
        .arg(db)
        .args(["--json"])
        .args(args)
        .arg("-")
        .write_stdin(stdin)
        .output()
        .unwrap()
}

/// The output with the database's path taken out (the two files differ
/// in name only).
fn without_path(out: &[u8], path: &Path) -> String {
    String::from_utf8_lossy(out).replace(&path.display().to_string(), "DB")
}

#[test]
fn every_game_packs_and_unpacks_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    for (i, &(name, variant, depth)) in CASES.iter().enumerate() {
        let plain = case_file(i);
        for block in ["64", "4096"] {
            let packed = dir.path().join("packed.db");
            pack(plain, &packed, &["--block-entries", block]);
            let h = Header::decode(&std::fs::read(&packed).unwrap()).unwrap();
            let info = h.packed.expect("a packed header");
            assert_eq!(info.block_entries.to_string(), block);
            let back = dir.path().join("back.db");
            query()
                .arg("unpack")
                .arg(&packed)
                .arg("-o")
                .arg(&back)
                .assert()
                .success();
            assert!(
                std::fs::read(plain).unwrap() == std::fs::read(&back).unwrap(),
                "{name} {variant} {depth:?}: unpacked file differs (blocks of {block})"
            );
            // The packed file is the smaller, but for the tiniest.
            let (p, q) = (
                std::fs::metadata(plain).unwrap().len(),
                std::fs::metadata(&packed).unwrap().len(),
            );
            assert!(
                q < p || p < 3 * HEADER_SIZE as u64,
                "{name} {variant}: {q} >= {p}"
            );
        }
    }
}

#[test]
fn every_answer_from_a_packed_file_is_the_plain_files() {
    let dir = tempfile::tempdir().unwrap();
    for (i, &(name, variant, depth)) in CASES.iter().enumerate() {
        let plain = case_file(i);
        let packed = dir.path().join(format!("packed-{i}.db"));
        // Small blocks: many of them, so lookups cross block boundaries.
        pack(plain, &packed, &["--block-entries", "64"]);
        // Positions past a book are searched, by both files alike: fewer
        // of them (a book's early positions take the longest: a Dots and
        // Boxes 1x11 one takes about 40 ms).
        let count = if depth.is_some() { 40 } else { 300 };
        let input = positions(name, variant, count, i as u64 + 3);
        // The lines of play past a book are searched, which the plain file
        // does alike: a book's lines are left out for time.
        let modes: &[&[&str]] = if depth.is_some() {
            &[&[], &["--weak"]]
        } else {
            &[&[], &["--pv"], &["--weak"]]
        };
        for &args in modes {
            let want = batch(plain, args, &input);
            // Without a cache every lookup decodes its block afresh.
            let caches: &[&str] = if args.is_empty() {
                &["64", "0"]
            } else {
                &["64"]
            };
            for &cache in caches {
                let mut with = args.to_vec();
                with.extend(["--cache", cache]);
                let got = batch(&packed, &with, &input);
                assert_eq!(
                    got.status.code(),
                    want.status.code(),
                    "{name} {variant} {args:?}"
                );
                assert!(
                    got.stdout == want.stdout,
                    "{name} {variant} {depth:?} {args:?} --cache {cache}: the answers differ"
                );
            }
        }
    }
}

#[test]
fn info_verify_stats_and_play_read_packed_files() {
    let dir = tempfile::tempdir().unwrap();
    for (name, variant) in [("british-square", "4x4"), ("dots-and-boxes", "2x2")] {
        let plain = write_plain(dir.path(), name, variant, None);
        let packed = dir.path().join(format!("{name}.packed.db"));
        pack(&plain, &packed, &[]);
        // info: the packed layout, the records it holds, the same start.
        let out = query()
            .args(["info", "--json", "--db"])
            .arg(&packed)
            .output()
            .unwrap();
        assert!(out.status.success());
        let j: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(j["layout_kind"], "packed");
        let plain_info: serde_json::Value = serde_json::from_slice(
            &query()
                .args(["info", "--json", "--db"])
                .arg(&plain)
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap();
        assert_eq!(j["packed"]["records_layout"], plain_info["layout_kind"]);
        for field in [
            "records",
            "start_value",
            "start_remoteness",
            "layout",
            "generator",
        ] {
            assert_eq!(j[field], plain_info[field], "{field}");
        }
        assert_eq!(
            j["packed"]["bytes"].as_u64(),
            Some(std::fs::metadata(&packed).unwrap().len())
        );
        // verify, stats and play print what they print for the plain file.
        for args in [
            &["verify", "--quiet"][..],
            &["stats"],
            &["stats", "--json"],
            &["play", "--ai", "both"],
        ] {
            let run = |db: &Path| {
                let out = query().args(args).arg("--db").arg(db).output().unwrap();
                assert!(out.status.success(), "{args:?} {}", db.display());
                without_path(&out.stdout, db)
            };
            assert_eq!(run(&packed), run(&plain), "{name} {args:?}");
        }
    }
}

#[test]
fn the_probe_answers_from_packed_files() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write_plain(dir.path(), "british-square", "4x4", None);
    let packed = dir.path().join("packed.db");
    pack(&plain, &packed, &["--block-entries", "128"]);
    let a = Tablebase::open(&plain).unwrap();
    let b = Tablebase::open(&packed).unwrap().with_cache_limit(1 << 16);
    assert!(b.is_packed() && !a.is_packed());
    let input = positions("british-square", "4x4", 300, 5);
    assert_eq!(
        format!("{:?}", a.probe_many(&input)),
        format!("{:?}", b.probe_many(&input))
    );
    let start = a.parse("start").unwrap();
    assert_eq!(a.line(&start).unwrap(), b.line(&start).unwrap());
}

/// Flips bit `bit` of byte `at` of the file at `path` into `to`.
fn flipped(path: &Path, at: usize, bit: u8, to: &Path) {
    let mut bytes = std::fs::read(path).unwrap();
    bytes[at] ^= 1 << bit;
    std::fs::write(to, bytes).unwrap();
}

#[test]
fn damage_in_a_packed_file_is_reported_never_answered_from() {
    let dir = tempfile::tempdir().unwrap();
    for (name, variant) in [("british-square", "3x3"), ("dots-and-boxes", "1x2")] {
        let plain = write_plain(dir.path(), name, variant, None);
        let packed = dir.path().join(format!("{name}.packed.db"));
        pack(&plain, &packed, &["--block-entries", "64"]);
        let input = positions(name, variant, 120, 1);
        let want = batch(&plain, &[], &input);
        let want_lines: Vec<&[u8]> = want.stdout.split(|&b| b == b'\n').collect();
        let len = std::fs::metadata(&packed).unwrap().len() as usize;
        let bad = dir.path().join("bad.db");
        // Every byte after the header (blocks and index), one bit each.
        for at in HEADER_SIZE..len {
            flipped(&packed, at, (at % 8) as u8, &bad);
            // verify sees every flipped bit.
            let v = query()
                .args(["verify", "--quiet", "--db"])
                .arg(&bad)
                .output()
                .unwrap();
            assert_eq!(
                v.status.code(),
                Some(3),
                "{name}: byte {at} flipped, verify"
            );
            // Lookups give the plain file's answer, or say the database is
            // corrupted (exit 3): never another answer.
            let got = batch(&bad, &["--cache", "0"], &input);
            if got.status.code() == Some(0) {
                assert!(got.stdout == want.stdout, "{name}: byte {at} flipped");
                continue;
            }
            assert_eq!(got.status.code(), Some(3), "{name}: byte {at} flipped");
            let stderr = String::from_utf8_lossy(&got.stderr);
            assert!(stderr.contains("corrupted"), "{name}: byte {at}: {stderr}");
            // An index found damaged on opening answers nothing at all.
            let lines = got.stdout.split(|&b| b == b'\n').filter(|l| !l.is_empty());
            for (line, good) in lines.zip(&want_lines) {
                let text = String::from_utf8_lossy(line);
                assert!(
                    line == *good || text.contains("corrupted"),
                    "{name}: byte {at} flipped: {text}"
                );
            }
        }
    }
}

#[test]
fn pack_and_unpack_refuse_what_does_not_apply() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write_plain(dir.path(), "british-square", "3x3", None);
    let packed = dir.path().join("p.db");
    for (args, status, says) in [
        (&["--block-entries", "100"][..], 2, "power of two"),
        (&["--block-entries", "32"], 2, "power of two"),
        (&["--level", "0"], 2, "level"),
    ] {
        query()
            .arg("pack")
            .arg(&plain)
            .arg("-o")
            .arg(&packed)
            .args(args)
            .assert()
            .code(status)
            .stderr(predicates::str::contains(says));
    }
    // The same file in and out; a plain file to unpack; --db.
    query()
        .arg("pack")
        .arg(&plain)
        .arg("-o")
        .arg(&plain)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("same file"));
    query()
        .arg("unpack")
        .arg(&plain)
        .arg("-o")
        .arg(&packed)
        .assert()
        .code(2)
        .stderr(predicates::str::contains("not packed"));
    query()
        .args(["pack", "--db"])
        .arg(&plain)
        .arg(&plain)
        .arg("-o")
        .arg(&packed)
        .assert()
        .code(2);
    // A damaged plain file is not packed: its damage would be sealed in.
    let mut bytes = std::fs::read(&plain).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 4;
    let bad = dir.path().join("bad.db");
    std::fs::write(&bad, bytes).unwrap();
    query()
        .arg("pack")
        .arg(&bad)
        .arg("-o")
        .arg(&packed)
        .assert()
        .code(3)
        .stderr(predicates::str::contains("checksum"));
    assert!(!packed.exists());
}
