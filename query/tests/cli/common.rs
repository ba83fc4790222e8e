//! What several of the query's tests share.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock};

use boardsolve::db::header::{Header, HEADER_SIZE};
use boardsolve::games::british_square::BritishSquare;
use boardsolve::Game;

/// A British Square 4x4 database, written once per test run.
pub(crate) fn bsq4_db() -> &'static Path {
    static DB: OnceLock<(tempfile::TempDir, PathBuf)> = OnceLock::new();
    &DB.get_or_init(|| {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bsq4.db");
        let game = BritishSquare::from_variant("4x4").unwrap();
        let sol = boardsolve::solve::solve(&game, &boardsolve::core::NoProgress).unwrap();
        boardsolve::db::write_database(&path, game.descriptor(), &sol.into()).unwrap();
        (dir, path)
    })
    .1
}

/// A solved database of a game and variant, written once per test run.
pub(crate) fn solved_db(game: &str, variant: &str) -> PathBuf {
    static DIR: OnceLock<tempfile::TempDir> = OnceLock::new();
    static LOCK: Mutex<()> = Mutex::new(());
    let dir = DIR.get_or_init(|| tempfile::tempdir().unwrap()).path();
    let path = dir.join(format!("{game}-{variant}.db"));
    let _guard = LOCK.lock().unwrap_or_else(|e| e.into_inner());
    if !path.exists() {
        let g = boardsolve::registry::AnyGame::new(game, variant).unwrap();
        let sol = g.solve(&boardsolve::core::NoProgress).unwrap();
        boardsolve::db::write_database(&path, g.game().descriptor(), &sol).unwrap();
    }
    path
}

/// The JSON objects of output that holds one per line.
pub(crate) fn json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    std::str::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The file with its header decoded, edited and encoded again (checksum
/// recomputed): a lie a checksum cannot catch.
pub(crate) fn resealed(good: &[u8], edit: impl FnOnce(&mut Header)) -> Vec<u8> {
    let mut h = Header::decode(good).unwrap();
    edit(&mut h);
    let mut out = good.to_vec();
    out[..HEADER_SIZE].copy_from_slice(&h.encode().unwrap());
    out
}

/// The file with its records edited, and the records checksum and header
/// resealed to match.
pub(crate) fn records_resealed(good: &[u8], edit: impl FnOnce(&mut [u8])) -> Vec<u8> {
    let mut out = good.to_vec();
    edit(&mut out[HEADER_SIZE..]);
    let sum = xxhash_rust::xxh3::xxh3_128(&out[HEADER_SIZE..]);
    resealed(&out, |h| h.records_checksum = sum)
}

/// The sorted file `good` with the record of `key` given `value`, both
/// checksums recomputed: damage no checksum can see.
pub(crate) fn with_value(good: &[u8], key: u64, value: boardsolve::Value) -> Vec<u8> {
    let layout = Header::decode(good).unwrap().layout;
    records_resealed(good, |records| {
        let at = records
            .chunks_exact(8)
            .position(|r| layout.key(u64::from_le_bytes(r.try_into().unwrap())) == key)
            .expect("the key is stored");
        let raw = layout.pack(key, value).unwrap();
        records[at * 8..at * 8 + 8].copy_from_slice(&raw.to_le_bytes());
    })
}

/// `n` positions from random games, in the notation `query` prints, with
/// a few the parser must refuse.
pub(crate) fn positions(name: &str, variant: &str, n: usize, seed: u64) -> Vec<String> {
    let game = boardsolve::registry::AnyGame::new(name, variant).unwrap();
    let g = game.present();
    let mut rng = seed;
    let mut next = |k: usize| {
        rng = rng
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((rng >> 33) as usize) % k
    };
    let mut out = vec!["start".to_owned(), "not a position".to_owned()];
    let mut edges: Vec<boardsolve::Edge> = Vec::new();
    while out.len() < n {
        let mut s = g.start();
        loop {
            out.push(g.format_position(s));
            edges.clear();
            g.moves(s, &mut edges);
            if edges.is_empty() || out.len() >= n {
                break;
            }
            s = edges[next(edges.len())].child;
        }
    }
    out
}
