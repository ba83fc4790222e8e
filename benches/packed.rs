//! Benchmarks of packed files (`format-spec.md`, section 3c): the trade-off
//! of the block size between the file's size, the time to decode one block
//! and the time of a lookup, with every block in the cache (one key a call,
//! and many) and with none.
//!
//! `cargo bench --bench packed`. Uses `bsq.db` and `dab.db` in the
//! repository root, solving and writing them there first if they are
//! missing; the packed files go to a temporary directory. Prints the size of
//! each packed file, in bits a position, before the timings.

use std::hint::black_box;
use std::path::{Path, PathBuf};
use std::time::Duration;

use boardsolve::core::NoProgress;
use boardsolve::db::pack::{pack_database, write_packed, PackOptions};
use boardsolve::registry::AnyGame;
use boardsolve::{Database, Game};
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

/// Keys a call of the batch lookups.
const BATCH: usize = 256;

/// The game's default file in the repository root, written if missing.
fn plain(name: &str) -> PathBuf {
    let game = AnyGame::new(name, "").expect("a registry game");
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(game.default_file_name());
    if AnyGame::open(&path).is_err() {
        let solved = game.solve(&NoProgress).expect("solve");
        boardsolve::db::write_database(&path, game.game().descriptor(), &solved)
            .expect("write the default file");
    }
    path
}

/// Keys of the records or canonical entries of `db`, a spread sample.
fn sample_keys(db: &Database, game: &dyn Game, count: usize) -> Vec<u64> {
    let mut seed = 0x9E37_79B9_7F4A_7C15u64;
    let n = db.len();
    (0..count)
        .map(|_| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let i = seed % n;
            match db.record(i as usize) {
                Some(r) => db.header().layout.key(r),
                None => game.canonical(i),
            }
        })
        .collect()
}

fn packed_lookups(c: &mut Criterion) {
    let dir = tempfile::tempdir().expect("a temporary directory");
    for name in ["british-square", "dots-and-boxes"] {
        let path = plain(name);
        let (db, game) = AnyGame::open(&path).expect("open");
        let keys = sample_keys(&db, game.game(), 1 << 14);
        let mut group = c.benchmark_group(format!("packed {name}"));
        group.measurement_time(Duration::from_secs(3));
        group.warm_up_time(Duration::from_secs(1));
        for block_entries in [1024u32, 4096, 16384] {
            let options = PackOptions {
                block_entries,
                ..PackOptions::default()
            };
            let (body, header) =
                pack_database(&db, game.game(), options, &NoProgress).expect("pack");
            let out = dir.path().join(format!("{name}-{block_entries}.db"));
            write_packed(&out, &header, &body).expect("write");
            let bits = 8.0 * body.file_size() as f64 / header.record_count as f64;
            println!(
                "{name}, blocks of {block_entries}: {} bytes, {bits:.2} bits a position",
                body.file_size()
            );
            let (mut packed, _) = AnyGame::open(&out).expect("open packed");
            {
                let store = packed.packed().expect("packed");
                let blocks = store.block_count() as usize;
                let mut b = 0;
                group.bench_function(BenchmarkId::new("decode a block", block_entries), |bench| {
                    bench.iter(|| {
                        b = (b + 7919) % blocks;
                        black_box(store.decode_block(packed.file_bytes(), b).expect("a block"))
                    })
                });
            }
            // Every block in the cache: each lookup finds its block there.
            packed.set_cache_limit(1 << 30);
            for &k in &keys {
                let _ = packed.get(k);
            }
            let mut i = 0;
            group.bench_function(
                BenchmarkId::new("lookup, block cached", block_entries),
                |bench| {
                    bench.iter(|| {
                        i = (i + 1) % keys.len();
                        packed.get(black_box(keys[i])).expect("intact")
                    })
                },
            );
            // Many keys a call, as `query --json -`, Python's `values` and
            // the server look them up: the keys of one call are searched
            // in lockstep.
            let mut out = Vec::new();
            let mut at = 0;
            group.throughput(Throughput::Elements(BATCH as u64));
            group.bench_function(
                BenchmarkId::new("lookups in batches, blocks cached", block_entries),
                |bench| {
                    bench.iter(|| {
                        at = (at + BATCH) % (keys.len() - BATCH);
                        packed
                            .get_many(black_box(&keys[at..at + BATCH]), &mut out)
                            .expect("intact");
                    })
                },
            );
            group.throughput(Throughput::Elements(1));
            // No cache: each lookup decodes its block.
            packed.set_cache_limit(0);
            group.bench_function(
                BenchmarkId::new("lookup, block decoded", block_entries),
                |bench| {
                    bench.iter(|| {
                        i = (i + 1) % keys.len();
                        packed.get(black_box(keys[i])).expect("intact")
                    })
                },
            );
        }
        group.finish();
    }
}

criterion_group!(benches, packed_lookups);
criterion_main!(benches);
