//! Lookups against the records written, and files damaged or truncated
//! under their reader.

use super::*;
use crate::core::NoProgress;
use crate::core::{Corrupted, Game};
use crate::db::DbError;
use crate::games::british_square::BritishSquare;
use crate::solve::solve;

#[test]
fn indexed_and_plain_lookups_agree_on_every_key() {
    let game = BritishSquare::from_variant("4x4").unwrap();
    let sol = solve(&game, &NoProgress).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("t.db");
    crate::db::write_database(&path, game.descriptor(), &sol.clone().into()).unwrap();
    let layout = Database::open(&path).unwrap().header().layout;
    let keys: Vec<u64> = sol.records.iter().map(|&r| layout.key(r)).collect();
    // The index of every stride the machine may choose.
    let mut stride = lookup::Fences::MIN_STRIDE;
    while stride <= lookup::Fences::MAX_STRIDE {
        all_lookups_agree(&path, &keys, &sol, stride);
        stride *= 2;
    }
}

/// Every lookup of `keys` (the records of `sol`, in the file at `path`)
/// and of keys that are not there, without and with an index of
/// `stride`.
fn all_lookups_agree(path: &Path, keys: &[u64], sol: &crate::core::Solution, stride: usize) {
    let db = Database::open(path).unwrap();
    let plain: Vec<_> = keys.iter().map(|&k| db.find(k)).collect();
    // Neighbours of real keys that are not keys themselves.
    let absent: Vec<u64> = keys
        .iter()
        .flat_map(|&k| [k.wrapping_sub(1), k + 1])
        .chain([u64::MAX, 1 << 40, (1 << 33) - 1])
        .filter(|k| keys.binary_search(k).is_err())
        .collect();
    let mut many = Vec::new();
    for indexed in [false, true] {
        if indexed {
            db.build_index_strided(stride);
        }
        let all: Vec<u64> = keys.iter().chain(&absent).copied().collect();
        db.get_many(&all, &mut many).unwrap();
        let one: Vec<_> = all.iter().map(|&k| db.get(k).unwrap()).collect();
        assert_eq!(many, one, "indexed: {indexed}, stride {stride}");
        assert_eq!(many.iter().filter(|v| v.is_some()).count(), keys.len());
    }
    for (i, &k) in keys.iter().enumerate() {
        assert_eq!(plain[i], Some(i));
        assert_eq!(db.find(k), Some(i));
        assert_eq!(db.get(k), Ok(sol.get(k)));
    }
    for k in absent {
        assert_eq!(db.find(k), None, "{k:#x}");
    }
}

#[test]
fn the_index_is_as_fine_as_the_last_level_cache_allows() {
    use crate::core::platform::CacheSizes;
    let epyc = CacheSizes {
        l3: 32 << 20,
        ..CacheSizes::ASSUMED
    };
    let stride = |records| lookup::Fences::stride_for(records, epyc);
    // British Square 5x5: 8.7 M records, an index of 2.2 MB within 4 MiB.
    assert_eq!(stride(8_659_987), 32);
    assert_eq!(stride(0), 32);
    // An index of every 64th record of 32 M records is 4 MiB: it fits.
    assert_eq!(stride(32 << 20), 32 * 2);
    assert_eq!(stride((32 << 20) + 64), 128);
    // However large the file, a block stays 2 KiB.
    assert_eq!(stride(1 << 40), 256);
    // A machine with no last-level cache reported beyond its L2.
    let small = CacheSizes { l3: 0, ..epyc };
    assert_eq!(lookup::Fences::stride_for(8_659_987, small), 256);
}

/// A database of `game` written to `dir`, with the canonical keys it
/// holds (every key, for a dense file).
fn written(dir: &Path, name: &str, variant: &str, packed: bool) -> (PathBuf, Vec<u64>) {
    let game = crate::registry::AnyGame::new(name, variant).unwrap();
    let solved = game.solve(&NoProgress).unwrap();
    let path = dir.join(format!("{name}-{variant}.db"));
    crate::db::write_database(&path, game.game().descriptor(), &solved).unwrap();
    let db = Database::open(&path).unwrap();
    let keys: Vec<u64> = match db.header().kind {
        LayoutKind::Sorted => db
            .raw_records()
            .iter()
            .map(|&r| db.header().layout.key(u64::from_le(r)))
            .collect(),
        LayoutKind::Dense => (0..db.len()).collect(),
    };
    if packed {
        let (body, header) =
            crate::db::pack::pack_database(&db, game.game(), Default::default(), &NoProgress)
                .unwrap();
        crate::db::pack::write_packed(&path, &header, &body).unwrap();
    }
    (path, keys)
}

/// Every key's lookup, one at a time.
fn each(db: &Database, keys: &[u64]) -> Vec<Result<Option<Value>, Corrupted>> {
    keys.iter().map(|&k| db.get(k)).collect()
}

fn truncate(path: &Path, len: u64) {
    std::fs::OpenOptions::new()
        .write(true)
        .open(path)
        .unwrap()
        .set_len(len)
        .unwrap();
}

#[test]
fn a_file_truncated_under_its_reader_answers_what_it_still_holds() {
    let dir = tempfile::tempdir().unwrap();
    for (name, variant) in [("british-square", "4x4"), ("dots-and-boxes", "2x3")] {
        for (indexed, cut) in [(false, 2), (true, 2), (false, 3), (true, 0)] {
            let (path, keys) = written(dir.path(), name, variant, false);
            let db = Database::open(&path).unwrap();
            if indexed {
                db.build_index();
            }
            let before = each(&db, &keys);
            assert!(before.iter().all(|v| matches!(v, Ok(Some(_)))));
            // From the end: the first read past the new end faults, and
            // the reader knows what is lost before it reads the zeros
            // after the new end in its last page, which fault nowhere.
            let keys: Vec<u64> = keys.iter().rev().copied().collect();
            let before: Vec<_> = before.into_iter().rev().collect();
            let len = db.file_len();
            // Half the file, a third of it and a byte (mid-page), or
            // the header alone.
            let kept = match cut {
                0 => HEADER_SIZE as u64,
                n => len / n + 1,
            };
            truncate(&path, kept);
            let after = each(&db, &keys);
            let mut answered = 0;
            for (i, (b, a)) in before.iter().zip(&after).enumerate() {
                let at = HEADER_SIZE as u64
                    + match db.header().kind {
                        LayoutKind::Sorted => 8 * (keys.len() - 1 - i) as u64,
                        LayoutKind::Dense => keys[i],
                    };
                match a {
                    Ok(v) => {
                        assert_eq!(Ok(*v), *b);
                        assert!(
                            at < kept,
                            "{name} {variant}: key {i} answered from lost bytes"
                        );
                        answered += 1;
                    }
                    Err(e) => assert!(e.reason.contains("truncated"), "{e}"),
                }
            }
            // Below the cut, lookups go on (in a sorted file, those
            // whose search stays below it).
            if cut != 0 {
                assert!(answered > keys.len() / 8, "{name} {variant}: {answered}");
            } else {
                assert_eq!(answered, 0);
            }
            assert!(db.check_intact().is_err());
            assert!(matches!(db.verify_checksum(), Err(DbError::Corrupted(_))));
        }
    }
}

#[test]
fn a_packed_file_truncated_under_its_reader_fails_only_the_lost_blocks() {
    let dir = tempfile::tempdir().unwrap();
    let (path, keys) = written(dir.path(), "british-square", "4x4", true);
    let game = crate::registry::AnyGame::new("british-square", "4x4").unwrap();
    let plain = {
        let solved = game.solve(&NoProgress).unwrap();
        let p = dir.path().join("plain.db");
        crate::db::write_database(&p, game.game().descriptor(), &solved).unwrap();
        Database::open(&p).unwrap()
    };
    let db = Database::open(&path).unwrap();
    assert!(db.is_packed());
    truncate(&path, db.file_len() / 2);
    let after = each(&db, &keys);
    let want = each(&plain, &keys);
    let answered = after.iter().filter(|a| a.is_ok()).count();
    assert!(answered > 0 && answered < keys.len());
    for (a, w) in after.iter().zip(&want) {
        if a.is_ok() {
            assert_eq!(a, w);
        }
    }
}

/// A generator of the same bytes on every run.
fn noise(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[test]
fn records_rewritten_in_place_are_corruption_not_unknown_positions() {
    let dir = tempfile::tempdir().unwrap();
    for (fill, packed) in [
        ("random", false),
        ("zeros", false),
        ("ones", false),
        ("random", true),
    ] {
        let (path, keys) = written(dir.path(), "british-square", "4x4", packed);
        let mut db = Database::open(&path).unwrap();
        // No block kept: each lookup reads the file.
        db.set_cache_limit(0);
        let want = each(&db, &keys);
        // The same size, the header kept: another program writes over
        // the records in place.
        let mut bytes = std::fs::read(&path).unwrap();
        let body_end = match &db.packed {
            Some(p) => p.info().index_offset as usize,
            None => bytes.len(),
        };
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        for chunk in bytes[HEADER_SIZE..body_end].chunks_mut(8) {
            let word = match fill {
                "zeros" => 0,
                "ones" => u64::MAX,
                _ => noise(&mut seed),
            };
            chunk.copy_from_slice(&word.to_le_bytes()[..chunk.len()]);
        }
        use std::io::{Seek, Write};
        let mut f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
        f.seek(std::io::SeekFrom::Start(0)).unwrap();
        f.write_all(&bytes).unwrap();
        f.sync_all().unwrap();
        let after = each(&db, &keys);
        for (i, (a, w)) in after.iter().zip(&want).enumerate() {
            match a {
                Err(_) => {}
                Ok(v) => panic!("{fill} (packed: {packed}): key {i}: {v:?}, was {w:?}"),
            }
        }
        // Batches too, with the index.
        db.build_index();
        let mut out = Vec::new();
        assert!(db.get_many(&keys, &mut out).is_err());
    }
}

/// Work that reads the whole file ends by asking whether it is intact:
/// a file shorter than it was mapped is not, though no read has faulted
/// (the bytes cut from its last page fault nowhere).
#[test]
fn a_file_shorter_than_mapped_is_not_intact_before_any_fault() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = written(dir.path(), "dots-and-boxes", "2x2", false);
    let db = Database::open(&path).unwrap();
    db.check_intact().unwrap();
    truncate(&path, db.file_len() - 1);
    assert!(db.check_intact().unwrap_err().reason.contains("truncated"));
}

/// Packed files of small and large blocks, read with caches that hold
/// none, one, a few or all of their blocks: every batch of lookups (keys
/// in any order, repeated, absent) answers as the plain file does.
#[test]
fn packed_lookups_agree_with_the_plain_file_whatever_the_cache_holds() {
    let dir = tempfile::tempdir().unwrap();
    for (name, variant) in [("british-square", "4x4"), ("dots-and-boxes", "2x2")] {
        let (path, keys) = written(dir.path(), name, variant, false);
        let plain = Database::open(&path).unwrap();
        let game = crate::registry::AnyGame::new(name, variant).unwrap();
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut all: Vec<u64> = keys
            .iter()
            .flat_map(|&k| [k, k + 1, k.wrapping_sub(1)])
            .chain([u64::MAX, 1 << 40])
            .collect();
        // Shuffled, then some repeated next to each other.
        for i in (1..all.len()).rev() {
            all.swap(i, (noise(&mut seed) % (i as u64 + 1)) as usize);
        }
        all.truncate(6000);
        let repeated: Vec<u64> = all.iter().take(500).flat_map(|&k| [k, k]).collect();
        all.extend(repeated);
        let mut want = Vec::new();
        plain.get_many(&all, &mut want).unwrap();
        for block_entries in [64u32, 256, 4096] {
            let options = crate::db::pack::PackOptions {
                block_entries,
                ..Default::default()
            };
            let (body, header) =
                crate::db::pack::pack_database(&plain, game.game(), options, &NoProgress).unwrap();
            let packed_path = dir.path().join(format!("{name}-{block_entries}.db"));
            crate::db::pack::write_packed(&packed_path, &header, &body).unwrap();
            for cache in [0, 1, 5, 1 << 30] {
                let (mut db, _) = crate::registry::AnyGame::open(&packed_path).unwrap();
                let block_bytes = 8 * block_entries as usize + 4096;
                db.set_cache_limit(cache * block_bytes);
                for batch in [1, 7, 32, 33, all.len()] {
                    let mut got = Vec::new();
                    let mut out = Vec::new();
                    // One key at a time: a prefix only (each lookup may
                    // decode a block).
                    let len = if batch == 1 { 400 } else { all.len() };
                    for chunk in all[..len].chunks(batch) {
                        db.get_many(chunk, &mut out).unwrap();
                        got.extend_from_slice(&out);
                    }
                    assert!(
                        got == want[..len],
                        "{name} {variant}: blocks of {block_entries}, cache of {cache} \
                         blocks, batches of {batch}"
                    );
                }
            }
        }
    }
}

/// Threads looking up at once in a packed file whose cache holds a few of
/// its blocks (each keeping some and letting others go) all answer as the
/// plain file does.
#[test]
fn threads_share_a_packed_files_cache() {
    let dir = tempfile::tempdir().unwrap();
    let (plain_path, keys) = written(dir.path(), "british-square", "4x4", false);
    let plain = Database::open(&plain_path).unwrap();
    let (path, _) = written(dir.path(), "british-square", "4x4", true);
    let (mut db, _) = crate::registry::AnyGame::open(&path).unwrap();
    db.set_cache_limit(6 * (8 << 12));
    let mut want = Vec::new();
    plain.get_many(&keys, &mut want).unwrap();
    std::thread::scope(|s| {
        for t in 0..4usize {
            let (db, keys, want) = (&db, &keys, &want);
            s.spawn(move || {
                let mut out = Vec::new();
                for round in 0..3 {
                    // Each thread its own order of the runs.
                    let at = (t * 997 + round * 131) % keys.len();
                    for (from, chunk) in (at..keys.len())
                        .step_by(50)
                        .chain((0..at).step_by(50))
                        .map(|i| (i, &keys[i..keys.len().min(i + 50)]))
                    {
                        db.get_many(chunk, &mut out).unwrap();
                        assert_eq!(out[..], want[from..from + chunk.len()]);
                    }
                }
            });
        }
    });
}
