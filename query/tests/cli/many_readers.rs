//! Many readers while the database is replaced: 8 `query` processes at a
//! time answer positions from one path while this test replaces the file
//! there back and forth with `write_database` (the generator's own atomic
//! code path). Every process must exit 0, and its whole output must be
//! exactly the answers of one of the two files: never a mix, never an error.
//!
//! The two files are British Square 4x4 (10,206 records, 84 KiB) and
//! `3x3,center-allowed` (76 records, 5 KiB): different sizes and different
//! answers to every position asked, so a reader that saw one file's header
//! with the other's records, or a torn file, would be caught.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use boardsolve::core::{NoProgress, Solution};
use boardsolve::games::british_square::BritishSquare;
use boardsolve::solve::solve;
use boardsolve::Game;

/// Positions legal on both boards, answered differently by the two files.
const POSITIONS: [&str; 5] = ["start", "a1", "b2", "a1 c3", "c1 a3 b1"];
/// Reader processes at a time.
const READERS: usize = 8;
/// How long the file is replaced while they read.
const REPLACING: Duration = Duration::from_secs(6);
/// Times each position is repeated on a batch reader's stdin.
const BATCH_REPEAT: usize = 40;

/// One way of asking: positions as arguments (`--json`), or repeated on
/// stdin (`--json --pv -`).
#[derive(Clone, Copy)]
enum Mode {
    Args,
    Batch,
}

/// Runs `query` on `db` in `mode`: its exit status and output.
fn ask(db: &Path, mode: Mode) -> (std::process::ExitStatus, String, String) {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.arg("--db").arg(db).arg("--json");
    c.stdout(Stdio::piped()).stderr(Stdio::piped());
    match mode {
        Mode::Args => {
            c.args(POSITIONS).stdin(Stdio::null());
        }
        Mode::Batch => {
            c.args(["--pv", "-"]).stdin(Stdio::piped());
        }
    }
    let mut child = c.spawn().expect("query starts");
    if let Mode::Batch = mode {
        // Small enough for the pipe's buffer: no deadlock with the output.
        let mut input = String::new();
        for _ in 0..BATCH_REPEAT {
            for p in POSITIONS {
                input.push_str(p);
                input.push('\n');
            }
        }
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(input.as_bytes()).unwrap();
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status,
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A solution and the answers of its file in both modes.
struct Side {
    label: &'static str,
    game: BritishSquare,
    solution: Solution,
    answers: [String; 2],
}

fn side(label: &'static str, variant: &str, dir: &Path) -> Side {
    let game = BritishSquare::from_variant(variant).unwrap();
    let solution = solve(&game, &NoProgress).unwrap();
    let path = dir.join(format!("{label}.db"));
    boardsolve::db::write_database(&path, game.descriptor(), &solution.clone().into()).unwrap();
    let answers = [Mode::Args, Mode::Batch].map(|mode| {
        let (status, out, err) = ask(&path, mode);
        assert!(status.success(), "{label}: {err}");
        out
    });
    Side {
        label,
        game,
        solution,
        answers,
    }
}

#[test]
fn eight_readers_see_the_old_file_or_the_new_one_while_it_is_replaced() {
    let t0 = Instant::now();
    let dir = tempfile::tempdir().unwrap();
    let sides = [
        side("a", "4x4", dir.path()),
        side("b", "3x3,center-allowed", dir.path()),
    ];
    // Every position is answered differently by the two files.
    let lines = |s: &Side| s.answers[0].lines().map(str::to_owned).collect::<Vec<_>>();
    let (la, lb) = (lines(&sides[0]), lines(&sides[1]));
    assert_eq!(la.len(), POSITIONS.len());
    assert_eq!(lb.len(), POSITIONS.len());
    for (i, p) in POSITIONS.iter().enumerate() {
        let (a, b): (serde_json::Value, serde_json::Value) = (
            serde_json::from_str(&la[i]).unwrap(),
            serde_json::from_str(&lb[i]).unwrap(),
        );
        assert!(a.get("error").is_none() && b.get("error").is_none(), "{p}");
        assert!(
            a["value"] != b["value"] || a["best"] != b["best"],
            "{p}: the same answer from both files"
        );
    }
    for s in &sides {
        assert_eq!(s.answers[1].lines().count(), POSITIONS.len() * BATCH_REPEAT);
    }

    let path = dir.path().join("shared.db");
    let publish = |s: &Side| {
        boardsolve::db::write_database(&path, s.game.descriptor(), &s.solution.clone().into())
            .unwrap()
    };
    publish(&sides[0]);

    let stop = AtomicBool::new(false);
    let seen = [AtomicUsize::new(0), AtomicUsize::new(0)];
    let started: [AtomicUsize; READERS] = std::array::from_fn(|_| AtomicUsize::new(0));
    let mut replacements = 0usize;
    std::thread::scope(|scope| {
        let readers: Vec<_> = (0..READERS)
            .map(|r| {
                let (stop, seen, sides, path) = (&stop, &seen, &sides, &path);
                let started = &started[r];
                scope.spawn(move || {
                    let mode = if r % 2 == 0 { Mode::Args } else { Mode::Batch };
                    let mut processes = 0usize;
                    while !stop.load(Ordering::Relaxed) {
                        let (status, out, err) = ask(path, mode);
                        processes += 1;
                        started.store(processes, Ordering::Relaxed);
                        assert!(
                            status.success(),
                            "reader {r}, process {processes}: {status}: {err}"
                        );
                        let m = mode as usize;
                        let from = sides.iter().position(|s| s.answers[m] == out);
                        match from {
                            Some(i) => {
                                seen[i].fetch_add(1, Ordering::Relaxed);
                            }
                            None => panic!(
                                "reader {r}, process {processes}: an answer from neither \
                                 file:\n{out}\nexpected either:\n{}\nor:\n{}",
                                sides[0].answers[m], sides[1].answers[m]
                            ),
                        }
                    }
                    processes
                })
            })
            .collect();
        // For REPLACING at least, and on until there were 20 replacements
        // and 5 readers each: counts, not a speed, so that a busy machine
        // takes longer rather than fails (two minutes at most).
        let start = Instant::now();
        let enough = |replacements: usize| {
            start.elapsed() >= REPLACING
                && replacements >= 20
                && started.iter().all(|c| c.load(Ordering::Relaxed) >= 5)
        };
        while !enough(replacements) && start.elapsed() < Duration::from_secs(120) {
            replacements += 1;
            publish(&sides[replacements % 2]);
        }
        stop.store(true, Ordering::Relaxed);
        let counts: Vec<usize> = readers
            .into_iter()
            .map(|h| h.join().expect("a reader failed"))
            .collect();
        println!("reader processes: {counts:?}");
        assert!(counts.iter().all(|&c| c >= 5), "{counts:?}");
    });
    let seen = seen.map(AtomicUsize::into_inner);
    println!(
        "{replacements} replacements; answers from {}: {}, from {}: {}; {:.1} s in all",
        sides[0].label,
        seen[0],
        sides[1].label,
        seen[1],
        t0.elapsed().as_secs_f64()
    );
    assert!(replacements >= 20, "{replacements}");
    assert!(seen[0] > 0 && seen[1] > 0, "{seen:?}");
    // The writer left nothing behind.
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["a.db", "b.db", "shared.db"]);
}
