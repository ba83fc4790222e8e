//! The solver's tests: finished positions, solvers sharing a table,
//! searches on several threads and in a pool, the static bounds on a
//! public benchmark set, guesses, score tests, books and table sizes.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;

use super::parallel::PARALLEL_EMPTY;
use super::settle::claimeven_bound;
use super::{BookScores, Solver};
use crate::games::connect_four::bits;
use crate::games::connect_four::board::{Bitboard, Variant};

fn pos(s: &str) -> Bitboard {
    Bitboard::from_moves(Variant::STANDARD, s).expect("legal")
}

#[test]
fn finished_and_immediate_positions() {
    let mut s = Solver::with_table_bits(20).expect("size");
    // X to move wins at once with its fourth stone: (42 + 1 - 6) / 2.
    assert_eq!(s.solve(&pos("121212")), 18);
    // X just won: O to move has lost, by X's score one move earlier.
    assert_eq!(s.solve(&pos("1212121")), -18);
    assert_eq!(s.solve_weak(&pos("1212121")), -1);
    assert_eq!(s.column_scores(&pos("1212121")), vec![None; 7]);
}

#[test]
fn solvers_sharing_a_table_agree_with_a_lone_one() {
    // Late positions from the public benchmark (Test_L3_R1).
    let positions = [
        "2252576253462244111563365343671351441",
        "7422341735647741166133573473242566",
        "23163416124767223154467471272416755633",
        "67152117737262713366376314254446",
        "4444443322",
        "44444433",
    ];
    let mut lone = Solver::with_table_bits(20).expect("size");
    let expected: Vec<i32> = positions.iter().map(|m| lone.solve(&pos(m))).collect();
    let first = Solver::with_table_bits(20).expect("size");
    let mut solvers = [first.sharing(), first.sharing(), first];
    std::thread::scope(|scope| {
        for (t, solver) in solvers.iter_mut().enumerate() {
            let expected = &expected;
            scope.spawn(move || {
                // Each thread walks the list from another start.
                for i in 0..positions.len() {
                    let j = (i + 2 * t) % positions.len();
                    assert_eq!(solver.solve(&pos(positions[j])), expected[j]);
                }
            });
        }
    });
}

#[test]
fn a_search_on_several_threads_gives_the_lone_score() {
    // Early enough for helpers to start (PARALLEL_EMPTY), quick enough
    // for a test.
    let positions = ["4453312", "445362", "3344552", "1726354"];
    let mut lone = Solver::with_table_bits(20).expect("size");
    let mut together = Solver::with_table_bits(20).expect("size");
    together.set_threads(3);
    for m in positions {
        let p = pos(m);
        assert!(42 - p.moves() as i32 >= PARALLEL_EMPTY, "{m}");
        lone.clear();
        together.clear();
        assert_eq!(together.solve(&p), lone.solve(&p), "{m}");
        assert_eq!(together.solve_weak(&p), lone.solve_weak(&p), "{m}");
        assert_eq!(together.column_scores(&p), lone.column_scores(&p), "{m}");
    }
}

#[test]
fn a_helper_runs_while_its_pool_leaves_it_a_thread() {
    // About 2.4 million nodes: long past the start of the helpers
    // (LONG_SEARCH) and a node report, with time left to join.
    let p = pos("44531");
    let mut lone = Solver::with_table_bits(22).expect("size");
    let expected = lone.solve(&p);
    // A pool whose other searcher is busy leaves no thread to help.
    let busy = Arc::new(AtomicUsize::new(2));
    let mut pooled = Solver::with_table_bits(22).expect("size");
    pooled.set_threads(2);
    pooled.set_busy(Some(Arc::clone(&busy)));
    assert_eq!(pooled.solve(&p), expected);
    assert_eq!(pooled.helper_nodes(), 0, "no helper ran");
    // Once the other search ends, the helper joins this one.
    pooled.clear();
    let counter = Arc::new(AtomicU64::new(0));
    pooled.set_node_counter(Some(Arc::clone(&counter)));
    std::thread::scope(|scope| {
        scope.spawn(|| {
            while counter.load(Ordering::Relaxed) == 0 {
                std::thread::sleep(std::time::Duration::from_millis(1));
            }
            busy.store(1, Ordering::Relaxed);
        });
        assert_eq!(pooled.solve(&p), expected);
    });
    assert!(pooled.helper_nodes() > 0, "the helper joined");
}

#[test]
fn static_bounds_hold() {
    // The claimeven bound and the no-four bound never cut below the
    // score: checked on positions of the public late and middle sets.
    let text = include_str!("../../../../tests/vectors/connect-four/Test_L2_R1");
    let mut s = Solver::with_table_bits(20).expect("size");
    let (mut checked, mut deeper) = (0usize, 0usize);
    for line in text.lines().take(200) {
        let mut parts = line.split_whitespace();
        let (Some(m), Some(score)) = (parts.next(), parts.next()) else {
            continue;
        };
        let p = pos(m);
        let score: i32 = score.parse().expect("a score");
        assert_eq!(s.solve(&p), score, "{m}");
        // The position, its children and their children: the bound
        // (a loss's latest stone too) never cuts below the score.
        let mut family = vec![p];
        for _ in 0..2 {
            let next: Vec<Bitboard> = family
                .iter()
                .flat_map(|q| (0..7).filter_map(|c| q.play(c).ok()))
                .filter(|q| !q.is_over())
                .collect();
            family.extend(next);
        }
        family.dedup();
        for q in family {
            if q.moves().is_multiple_of(2) && !q.can_win_next() && !q.is_over() {
                let bound = claimeven_bound(bits::Standard, q.current(), q.mask());
                let score = s.solve(&q);
                assert!(score <= bound, "{q}: {score} above claimeven's {bound}");
                checked += 1;
                deeper += usize::from(bound < -1);
            }
        }
    }
    // Enough positions whose bound is a loss before the last stone.
    assert!(
        checked > 1000 && deeper > 10,
        "{checked} checked, {deeper} deeper"
    );
}

/// Positions of 8 to 37 stones with scores of both signs, each solved
/// within milliseconds.
const QUICK: [&str; 5] = [
    "2252576253462244111563365343671351441",
    "7422341735647741166133573473242566",
    "67152117737262713366376314254446",
    "4444443322",
    "44444433",
];

#[test]
fn a_guess_changes_the_work_not_the_score() {
    let mut s = Solver::with_table_bits(20).expect("size");
    for m in QUICK {
        let p = pos(m);
        let score = s.solve(&p);
        for guess in -22..=22 {
            s.clear();
            assert_eq!(s.solve_near(&p, guess), score, "{m} from {guess}");
        }
        // Again, from a table that has the score pinned (and, for its
        // children, bounds).
        for guess in -22..=22 {
            assert_eq!(s.solve_near(&p, guess), score, "{m} again from {guess}");
        }
    }
}

#[test]
fn a_score_test_says_yes_only_to_the_exact_score() {
    let mut s = Solver::with_table_bits(20).expect("size");
    for m in QUICK.into_iter().chain(["444444333", "1212121"]) {
        let p = pos(m);
        let score = s.solve(&p);
        // From a fresh table, and from one that holds the position's
        // bounds, for every score a board can have and a few it cannot.
        for fresh in [true, false] {
            for test in -23..=23 {
                if fresh {
                    s.clear();
                }
                assert_eq!(s.is_score(&p, test), test == score, "{m}: {test}");
            }
        }
    }
    // A finished game: its score is the rules'.
    let won = pos("1212121");
    assert!(won.is_won());
    let score = s.solve(&won);
    assert!(s.is_score(&won, score));
}

#[test]
fn a_book_is_taken_at_the_root_and_inside_the_search() {
    // 5x4: every position of 4 to 6 stones, scored by the solver (the
    // shallower ones are searched, down to the book).
    let v = Variant::new(5, 4).expect("fits");
    let mut plain = Solver::with_table_bits(20).expect("size");
    let mut layer = vec![Bitboard::new(v)];
    let mut entries = Vec::new();
    for _ in 0..=6 {
        let mut next = Vec::new();
        for p in &layer {
            if p.is_over() {
                continue;
            }
            if p.moves() >= 4 {
                entries.push((p.canonical_key(), plain.solve(p)));
            }
            next.extend((0..5).filter_map(|c| p.play(c).ok()));
        }
        layer = next;
    }
    let book = Arc::new(BookScores::new(v, entries));
    assert_eq!(book.depth(), 6);
    let mut with = Solver::with_table_bits(20).expect("size");
    with.set_book(Some(Arc::clone(&book)));
    let (mut nodes_with, mut nodes_plain) = (0, 0);
    for m in ["", "3", "33", "323", "3232", "12345", "331"] {
        let p = Bitboard::from_moves(v, m).expect("legal");
        plain.clear();
        with.clear();
        plain.reset_nodes();
        with.reset_nodes();
        assert_eq!(with.solve(&p), plain.solve(&p), "{m}");
        assert_eq!(with.column_scores(&p), plain.column_scores(&p), "{m}");
        nodes_with += with.nodes();
        nodes_plain += plain.nodes();
    }
    // Searches stop at the book.
    assert!(
        nodes_with * 10 < nodes_plain,
        "{nodes_with} vs {nodes_plain}"
    );
    // A book of another board is not used.
    let mut other = Solver::with_table_bits(20).expect("size");
    other.set_book(Some(book));
    let p = pos("4444443322");
    assert_eq!(other.solve(&p), plain.solve(&p));
}

#[test]
fn table_size_is_checked() {
    assert!(Solver::with_table_bits(8).is_err());
    assert!(Solver::with_table_bits(40).is_err());
}
