//! Connect Four: exact scores of the public benchmark positions.
//!
//! The three sets checked here are copied into `tests/vectors/connect-four`
//! (the public sets, unchanged; all six are in
//! `../shared/benchmarks/connect-four` beside the repository, which the
//! benchmark reads); each line is `MOVES SCORE`. The late-game set and the easier middle-game
//! set are checked whole, the harder middle-game set on a sample (every
//! tenth position), so the file runs in a few seconds; the early-game sets
//! are the benchmark's (`cargo bench --bench connect_four`).

use std::path::PathBuf;

use boardsolve::games::connect_four::{Bitboard, Solver, Variant};

fn bench_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/vectors/connect-four")
}

/// The positions and scores of a set, every `step`-th line.
fn load(set: &str, step: usize) -> Vec<(String, Bitboard, i32)> {
    let path = bench_dir().join(set);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the Connect Four benchmark set {}: {e}",
            path.display()
        )
    });
    let out: Vec<_> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .step_by(step)
        .map(|line| {
            let (moves, score) = line
                .split_once(' ')
                .unwrap_or_else(|| panic!("{set}: malformed line {line:?}"));
            let p = Bitboard::from_moves(Variant::STANDARD, moves)
                .unwrap_or_else(|e| panic!("{set}: {e}"));
            let s = score
                .trim()
                .parse()
                .unwrap_or_else(|_| panic!("{set}: bad score in {line:?}"));
            (moves.to_owned(), p, s)
        })
        .collect();
    assert!(!out.is_empty(), "{set} is empty");
    out
}

fn check(set: &str, step: usize) {
    let mut solver = Solver::new();
    let mut wrong = Vec::new();
    for (moves, p, want) in load(set, step) {
        // Each position from a clear table, as the benchmark runs them.
        solver.clear();
        let got = solver.solve(&p);
        if got != want {
            wrong.push(format!("{moves}: expected {want}, got {got}"));
        }
        solver.clear();
        let weak = solver.solve_weak(&p);
        if weak != want.signum() {
            wrong.push(format!(
                "{moves}: weak: expected {}, got {weak}",
                want.signum()
            ));
        }
    }
    assert!(wrong.is_empty(), "{set}:\n{}", wrong.join("\n"));
}

#[test]
fn late_game_set_l3_r1() {
    check("Test_L3_R1", 1);
}

#[test]
fn middle_game_set_l2_r1() {
    check("Test_L2_R1", 1);
}

#[test]
fn middle_game_set_l2_r2_sample() {
    check("Test_L2_R2", 10);
}
