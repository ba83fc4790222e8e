//! The Dots and Boxes search against the dense tables: random edge sets of
//! 3x3 and 3x4 at every number of drawn edges and random endgames of chains
//! and loops, and boards past the tables
//! (3x5, 4x4, 4x5) near their end against a plain negamax over the free
//! edges (`DotsAndBoxes::plain_value`).

use crate::core::NoProgress;
use crate::games::dots_and_boxes::search::Solver;
use crate::games::dots_and_boxes::DotsAndBoxes;
use crate::solve::dense::solve_dense;

/// xorshift64: the same positions on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A random set of `drawn` of `edges` edges.
    fn edges(&mut self, edges: u32, drawn: u32) -> u64 {
        let mut state = 0u64;
        while state.count_ones() < drawn {
            state |= 1 << (self.next() % u64::from(edges));
        }
        state
    }
}

/// A random endgame where every box has at most two free edges (chains and
/// loops, some perhaps opened): from the full board, edges are rubbed out
/// in a random order while each box beside keeps two free edges at most.
fn loony_endgame(rng: &mut Rng, game: &DotsAndBoxes) -> u64 {
    let edges = game.edge_count();
    let mut state = (1u64 << edges) - 1;
    let tries = rng.next() % u64::from(2 * edges);
    for _ in 0..tries {
        let e = rng.next() % u64::from(edges);
        let bit = 1u64 << e;
        let room = game
            .box_masks()
            .iter()
            .filter(|&&b| b & bit != 0)
            .all(|&b| (b & !state).count_ones() < 2);
        if room {
            state &= !bit;
        }
    }
    state
}

/// Searches `per_count(drawn)` random edge sets of each number of drawn
/// edges and `loony` random endgames of chains and loops
/// ([`loony_endgame`]), and checks each against the board's dense table;
/// returns how many.
fn against_the_table(variant: &str, per_count: impl Fn(u32) -> usize, loony: usize) -> usize {
    let game = DotsAndBoxes::from_variant(variant).unwrap();
    let table = solve_dense(&game, &NoProgress).unwrap();
    let mut solver = Solver::new(&game, 20);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut checked = 0;
    for drawn in 0..=game.edge_count() {
        for _ in 0..per_count(drawn) {
            let state = rng.edges(game.edge_count(), drawn);
            let want = i32::from(table.values()[state as usize]);
            assert_eq!(
                solver.value(state),
                want,
                "{variant}, edges {state:#x}: search against table"
            );
            checked += 1;
        }
    }
    let mut simple = 0;
    for _ in 0..loony {
        let state = loony_endgame(&mut rng, &game);
        let want = i32::from(table.values()[state as usize]);
        assert_eq!(
            solver.value(state),
            want,
            "{variant}, edges {state:#x}: search of chains and loops against table"
        );
        let boxes = game.box_masks().iter().map(|&b| (b & !state).count_ones());
        simple += usize::from(boxes.clone().all(|f| f == 0 || f == 2) && boxes.max() == Some(2));
        checked += 1;
    }
    // Some of them have every box left with two free edges: the endgames
    // valued without a search.
    assert!(loony == 0 || simple > loony / 20, "{simple} of {loony}");
    checked
}

#[test]
fn search_agrees_with_the_3x3_table_at_every_edge_count() {
    assert_eq!(against_the_table("3x3", |_| 100, 500), 3000);
}

#[test]
fn search_agrees_with_the_3x4_table_at_every_edge_count() {
    // Near the start a search is nearly the whole game (seconds); from
    // seven edges on, milliseconds. `cargo bench --bench dots_and_boxes --
    // --check 3x4` runs as many as asked at every count.
    let n = against_the_table("3x4", |drawn| if drawn < 7 { 2 } else { 100 }, 1000);
    assert_eq!(n, 7 * 2 + 25 * 100 + 1000);
}

#[test]
fn boards_past_the_tables_agree_with_plain_negamax_near_their_end() {
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    for (variant, positions) in [("3x5", 60), ("4x4", 60), ("4x5", 30)] {
        let game = DotsAndBoxes::from_variant(variant).unwrap();
        assert!(!game.has_table());
        let edges = game.edge_count();
        let mut solver = Solver::new(&game, 18);
        for i in 0..positions {
            // 6 to 16 free edges: a plain search of up to 2^16 edge sets.
            let free = 6 + i % 11;
            let state = rng.edges(edges, edges - free);
            let want = game.plain_value(state);
            assert_eq!(
                solver.value(state),
                want,
                "{variant}, edges {state:#x}: search against plain negamax"
            );
        }
    }
}

#[test]
fn the_plain_reference_agrees_with_the_2x3_table() {
    let game = DotsAndBoxes::from_variant("2x3").unwrap();
    let table = solve_dense(&game, &NoProgress).unwrap();
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for drawn in [0, 3, 6, 9, 12, 15, 17] {
        let state = rng.edges(game.edge_count(), drawn);
        assert_eq!(
            game.plain_value(state),
            i32::from(table.values()[state as usize]),
            "2x3, edges {state:#x}"
        );
    }
}
