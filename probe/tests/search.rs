//! The live search behind a tablebase (feature `search`): one set of
//! searchers and tables for the tablebase's life, searches stopped through
//! a [`Cancel`], and table sizes refused before anything is allocated.
#![cfg(feature = "search")]

use std::path::{Path, PathBuf};

use boardsolve::core::NoProgress;
use boardsolve::games::connect_four::ConnectFour;
use boardsolve::solve::book::{build_book, BookOptions};
use boardsolve::Game;
use boardsolve_probe::{Cancel, ProbeError, Tablebase};

/// A Connect Four book of one stone on 6x5, written in `dir`: positions
/// past it take a few hundred thousand nodes of search.
fn c4_book(dir: &Path) -> PathBuf {
    let game = ConnectFour::from_variant("6x5").unwrap();
    let mut options = BookOptions::new(1);
    options.table_bits = 20;
    let book = build_book(&game, &options, &NoProgress).unwrap();
    let path = dir.join("c4-6x5.db");
    boardsolve::db::write_database(&path, game.descriptor(), &book.into()).unwrap();
    path
}

#[test]
fn searches_in_a_row_share_one_table() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(c4_book(dir.path()))
        .unwrap()
        .with_search(20)
        .unwrap();
    assert_eq!(tb.search_nodes(), Some(0), "the searchers are made at once");
    assert!(tb.search_memory().is_some_and(|b| b >= 8 << 20));
    let first = tb.probe("3434").unwrap();
    let after_first = tb.search_nodes().unwrap();
    assert!(after_first > 0, "the first answer is searched");
    // The same position again: the table that answered it is kept, so
    // the search finds its bounds there at once.
    let second = tb.probe("3434").unwrap();
    let after_second = tb.search_nodes().unwrap();
    assert_eq!(first, second);
    assert!(
        after_second - after_first < after_first / 4,
        "{after_first} nodes, then {} more",
        after_second - after_first
    );
    // A cache limit set later keeps the answers.
    let tb = tb.with_cache_limit(1 << 20);
    assert_eq!(tb.probe("3434").unwrap(), first);
}

#[test]
fn a_stopped_search_is_a_typed_error_and_the_next_call_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(c4_book(dir.path()))
        .unwrap()
        .with_search(20)
        .unwrap();
    let cancel = Cancel::new();
    cancel.cancel();
    let e = cancel.run(|| tb.probe("3434")).unwrap_err();
    assert!(e.is_stopped(), "{e}");
    assert!(matches!(e, ProbeError::Stopped));
    assert_eq!(e.to_string(), "the search was stopped before it finished");
    // Every position of a batch says so.
    let all = cancel.run(|| tb.probe_many(["3434", "3", "start"]));
    assert!(all[0].as_ref().is_err_and(ProbeError::is_stopped));
    let positions = [tb.parse("3434").unwrap(), tb.parse("343").unwrap()];
    let evals = cancel.run(|| tb.evals(&positions));
    assert!(evals
        .iter()
        .all(|e| e.as_ref().is_err_and(ProbeError::is_stopped)));
    // Positions the book answers need no search.
    assert!(cancel.run(|| tb.eval(&tb.parse("3").unwrap())).is_ok());
    // A deadline that passed is a time-out.
    let late = Cancel::with_time_limit(std::time::Duration::ZERO);
    let e = late.run(|| tb.probe("3434")).unwrap_err();
    assert!(matches!(e, ProbeError::TimedOut), "{e}");
    assert!(e.is_stopped());
    // Outside the stopped flag, the same tablebase answers.
    let plain = Tablebase::open(c4_book(dir.path()))
        .unwrap()
        .with_search(20)
        .unwrap();
    assert_eq!(tb.probe("3434").unwrap(), plain.probe("3434").unwrap());
}

#[test]
fn table_sizes_are_refused_before_anything_is_allocated() {
    let dir = tempfile::tempdir().unwrap();
    let path = c4_book(dir.path());
    let e = Tablebase::open(&path).unwrap().with_search(40).unwrap_err();
    assert_eq!(
        e.to_string(),
        "cannot search: table bits 40: connect-four 6x5 takes 20 to 32"
    );
    // 32 bits: 32 GiB of table, refused where the machine has less.
    let needed = 8u64 << 32;
    if boardsolve::solve::memory::available().is_some_and(|a| a < needed) {
        let e = Tablebase::open(&path).unwrap().with_search(32).unwrap_err();
        assert!(e.to_string().contains("more than the"), "{e}");
    }
}

#[test]
fn keys_past_a_book_are_searched_and_without_search_not_in_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let path = c4_book(dir.path());
    let plain = Tablebase::open(&path).unwrap();
    let deep = plain.parse("3434").unwrap();
    assert!(matches!(
        plain.probe_key(deep.key()),
        Err(ProbeError::NotInBook { .. })
    ));
    let tb = plain.with_search(20).unwrap();
    let eval = tb.eval(&deep).unwrap();
    assert_eq!(tb.probe_key(deep.key()).unwrap(), eval);
    let start = tb.parse("start").unwrap();
    let both = tb.probe_keys(&[deep.key(), start.key()]);
    assert_eq!(both[0].as_ref().unwrap(), &eval);
    assert_eq!(both[1].as_ref().unwrap(), &tb.eval(&start).unwrap());
    // A stopped search stops the lookup by key too.
    let cancel = Cancel::new();
    cancel.cancel();
    let fresh = tb.parse("3535").unwrap();
    assert!(cancel
        .run(|| tb.probe_key(fresh.key()))
        .is_err_and(|e| e.is_stopped()));
}
