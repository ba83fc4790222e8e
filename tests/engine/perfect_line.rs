//! The line of perfect play, walked by testing one move's value at a time
//! (`principal_variation`), against the walk that analyses every step in
//! full and takes the first move of its order: the same moves, from a live
//! Connect Four search with and without a book, and from a live Dots and
//! Boxes search, whose moves score and play again.

use boardsolve::core::{Game, Move, NoProgress};
use boardsolve::games::connect_four::{Bitboard, ConnectFour, Variant};
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::solve::book::{build_book, BookOptions};
use boardsolve::solve::live::LiveSearch;
use boardsolve::{analyze, principal_variation, Database, Oracle};

/// The line as the full analysis of every step gives it.
fn analysed_walk(game: &dyn Game, db: &dyn Oracle, state: u64) -> Vec<(Move, u64)> {
    let mut line = Vec::new();
    let mut s = state;
    loop {
        let a = analyze(game, db, s).expect("an answer");
        let Some(m) = a.moves.first() else {
            return line;
        };
        line.push((m.mv, m.child));
        s = m.child;
    }
}

fn same_line(game: &dyn Game, db: &dyn Oracle, state: u64) {
    let tested = principal_variation(game, db, state).expect("a line");
    let value = analyze(game, db, state).expect("an answer").value;
    assert_eq!(tested.len() as u32, value.remoteness);
    assert_eq!(
        tested,
        analysed_walk(game, db, state),
        "{}",
        game.format_position(state)
    );
}

#[test]
fn connect_four_lines_by_test_are_the_analysed_ones() {
    let g = ConnectFour::from_variant("7x6").expect("variant");
    let live = LiveSearch::with_searchers(g.clone(), None, 20, 2).expect("live");
    for seq in [
        "2252576253462244111563365343671351441",
        "7422341735647741166133573473242566",
        "67152117737262713366376314254446",
        "4444443322",
        "444444333",
    ] {
        let p = Bitboard::from_moves(Variant::STANDARD, seq).expect("legal");
        same_line(&g, &live, p.key());
    }
}

#[test]
fn a_line_through_a_book_and_past_it_is_the_analysed_one() {
    // 5x4 with a book of 4 stones: the line starts in the book and goes on
    // by search, and each step tests the book's values first.
    let g = ConnectFour::from_variant("5x4").expect("variant");
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("c4-5x4.db");
    let mut options = BookOptions::new(4);
    options.searchers = 2;
    options.table_bits = 20;
    let sol = build_book(&g, &options, &NoProgress).expect("book");
    boardsolve::db::write_database(&path, g.descriptor(), &sol.into()).expect("written");
    let db = Database::open(&path).expect("opens");
    let live = LiveSearch::new(g.clone(), Some(&db), 20).expect("live");
    let v = Variant::new(5, 4).expect("fits");
    for seq in ["", "3", "33", "1234", "3333", "32415"] {
        let p = Bitboard::from_moves(v, seq).expect("legal");
        same_line(&g, &live, p.key());
    }
    let none = LiveSearch::with_searchers(g.clone(), None, 20, 1).expect("live");
    same_line(&g, &none, g.start());
}

#[test]
fn dots_and_boxes_lines_by_test_are_the_analysed_ones() {
    // Boxes completed along the way: moves that score and move again.
    let g = DotsAndBoxes::from_variant("2x3").expect("variant");
    let live = LiveSearch::with_searchers(g.clone(), None, 16, 1).expect("live");
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let edges = g.edge_count();
    let mut starts = vec![g.start()];
    for drawn in [3, 6, 9, 12] {
        let mut state = 0u64;
        while state.count_ones() < drawn {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            state |= 1 << (rng % u64::from(edges));
        }
        starts.push(state);
    }
    for s in starts {
        same_line(&g, &live, s);
    }
}
