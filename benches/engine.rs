//! Benchmarks of the engine: lookups, analysis, canonicalisation, solving
//! (British Square and the dense Dots and Boxes table).
//!
//! `cargo bench --bench engine`. The lookup benchmarks need the 5x5
//! database: they use `bsq.db` in the repository root, or solve and write it
//! there first if it is missing.

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use boardsolve::core::NoProgress;
use boardsolve::games::british_square::BritishSquare;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::solve::dense::solve_dense;
use boardsolve::solve::{bucketed, solve};
use boardsolve::{analyze, Database, Game};
use criterion::{criterion_group, criterion_main, Criterion};

/// Reachable 5x5 positions from deterministic random playouts.
fn positions(game: &BritishSquare, count: usize) -> Vec<u64> {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut edges = Vec::new();
    (0..count)
        .map(|_| {
            let mut s = game.start();
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            for _ in 0..seed % 24 {
                edges.clear();
                game.moves(s, &mut edges);
                if edges.is_empty() {
                    break;
                }
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                s = edges[(seed % edges.len() as u64) as usize].child;
            }
            s
        })
        .collect()
}

fn database(game: &BritishSquare) -> Database {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("bsq.db");
    if Database::open(&path).is_err() {
        let sol = bucketed::solve(game, &NoProgress).expect("solve");
        boardsolve::db::write_database(&path, game.descriptor(), &sol.into())
            .expect("write bsq.db");
    }
    Database::open(&path).expect("open bsq.db")
}

fn lookups(c: &mut Criterion) {
    let game = BritishSquare::from_variant("").unwrap();
    let db = database(&game);
    let keys: Vec<u64> = positions(&game, 4096)
        .iter()
        .map(|&s| game.canonical(s))
        .collect();
    let start = game.canonical(game.start());
    c.bench_function("lookup/warm (same key)", |b| {
        b.iter(|| db.get(black_box(start)))
    });
    let mut i = 0;
    c.bench_function("lookup/random key", |b| {
        b.iter(|| {
            i = (i + 1) % keys.len();
            db.get(black_box(keys[i]))
        })
    });
    db.build_index();
    c.bench_function("lookup/random key, indexed", |b| {
        b.iter(|| {
            i = (i + 1) % keys.len();
            db.get(black_box(keys[i]))
        })
    });
    // Many keys at once, as batch answers make them: a million reachable
    // positions' keys, far more than the caches hold, 512 a call.
    let many: Vec<u64> = positions(&game, 1 << 20)
        .iter()
        .map(|&s| game.canonical(s))
        .collect();
    let mut group = c.benchmark_group("lookup");
    group.throughput(criterion::Throughput::Elements(512));
    let mut out = Vec::with_capacity(512);
    let mut at = 0;
    group.bench_function("get_many/512 random keys of a million, indexed", |b| {
        b.iter(|| {
            at = (at + 512) % many.len();
            db.get_many(black_box(&many[at..at + 512]), &mut out)
        })
    });
    group.finish();
    let states = positions(&game, 4096);
    c.bench_function("analyze/random position, indexed", |b| {
        b.iter(|| {
            i = (i + 1) % states.len();
            analyze(&game, &db, black_box(states[i])).map(|a| a.value)
        })
    });
}

fn canonicalisation(c: &mut Criterion) {
    let game = BritishSquare::from_variant("").unwrap();
    let states = positions(&game, 4096);
    let mut edges = Vec::with_capacity(32);
    let mut i = 0;
    c.bench_function("canonical_children/random position", |b| {
        b.iter(|| {
            i = (i + 1) % states.len();
            edges.clear();
            game.canonical_children(black_box(states[i]), &mut edges);
            edges.len()
        })
    });
    c.bench_function("canonical/random position", |b| {
        b.iter(|| {
            i = (i + 1) % states.len();
            game.canonical(black_box(states[i]))
        })
    });
}

fn solving(c: &mut Criterion) {
    let game = BritishSquare::from_variant("4x4").unwrap();
    c.bench_function("solve/4x4", |b| {
        b.iter(|| bucketed::solve(&game, &NoProgress).map(|s| s.records.len()))
    });
    c.bench_function("solve/4x4 (plain solver)", |b| {
        b.iter(|| solve(&game, &NoProgress).map(|s| s.records.len()))
    });
    // The whole game in-process (no file): the generator's main work.
    let game = BritishSquare::from_variant("").unwrap();
    let mut group = c.benchmark_group("british-square");
    group.sample_size(10);
    group.bench_function("solve/5x5", |b| {
        b.iter(|| bucketed::solve(&game, &NoProgress).map(|s| s.records.len()))
    });
    group.bench_function("solve/5x5 (plain solver)", |b| {
        b.iter(|| solve(&game, &NoProgress).map(|s| s.records.len()))
    });
    group.finish();
    // The dense table of Dots and Boxes 3x3: 2^24 keys, every one solved.
    let dab = DotsAndBoxes::from_variant("3x3").unwrap();
    let mut group = c.benchmark_group("dots-and-boxes");
    group.sample_size(10);
    group.bench_function("solve/3x3", |b| {
        b.iter(|| solve_dense(&dab, &NoProgress).map(|s| s.values()[0]))
    });
    group.finish();
}

fn dots_and_boxes_lookups(c: &mut Criterion) {
    let game = DotsAndBoxes::from_variant("3x3").unwrap();
    let dir = std::env::temp_dir().join(format!("boardsolve-bench-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join("dab3x3.db");
    let sol = solve_dense(&game, &NoProgress).expect("3x3 solves");
    boardsolve::db::write_database(&path, game.descriptor(), &sol.into()).expect("writes");
    let db = Database::open(&path).expect("opens");
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let keys: Vec<u64> = (0..4096)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x & ((1 << 24) - 1)
        })
        .collect();
    let mut i = 0;
    c.bench_function("dots-and-boxes/analyze 3x3 random position", |b| {
        b.iter(|| {
            i = (i + 1) % keys.len();
            analyze(&game, &db, black_box(keys[i])).map(|a| a.value)
        })
    });
    drop(db);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `query stats` on the full bsq.db: states by layer and value, ends, the
/// complete games and the greedy heuristic (target: under 5 s of CPU; the
/// figure is wall time, on both cores).
fn statistics(c: &mut Criterion) {
    let game = BritishSquare::from_variant("").unwrap();
    let db = database(&game);
    let any = boardsolve::registry::AnyGame::from_header(db.header()).expect("a known game");
    let mut group = c.benchmark_group("stats");
    group.sample_size(10);
    group.bench_function("bsq.db (everything)", |b| {
        b.iter(|| {
            boardsolve::analysis::stats::compute(
                any.game(),
                any.heuristics(),
                &db,
                &boardsolve::analysis::stats::Options::all(),
            )
            .map(|s| s.states)
        })
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().measurement_time(Duration::from_secs(3)).warm_up_time(Duration::from_secs(1));
    targets = lookups, canonicalisation, solving, dots_and_boxes_lookups, statistics
}
criterion_main!(benches);
