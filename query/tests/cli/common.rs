//! What several of the query's tests share.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

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

/// The JSON objects of output that holds one per line.
pub(crate) fn json_lines(out: &[u8]) -> Vec<serde_json::Value> {
    std::str::from_utf8(out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}
