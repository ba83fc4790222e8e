//! Dots and Boxes: the dense solver against a plain reference, and the
//! published result for 3x3.
//!
//! The reference is memoised negamax over raw edge sets: no symmetry, no
//! layers, its own box bookkeeping from the published edge numbering. It
//! computes the value with the same tie-break as the database (a higher net
//! score; at equal scores the side that is level or ahead takes the shortest
//! way to the end, the side behind the longest).

use std::collections::HashMap;

use boardsolve::core::NoProgress;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::solve::dense::solve_dense;
use boardsolve::Game;
use boardsolve::Value;

/// The boxes of an `r x c` board as lists of their four edges.
fn boxes(r: u32, c: u32) -> Vec<[u32; 4]> {
    let h = (r + 1) * c;
    let mut out = Vec::new();
    for i in 0..r {
        for j in 0..c {
            out.push([
                i * c + j,
                (i + 1) * c + j,
                h + i * (c + 1) + j,
                h + i * (c + 1) + j + 1,
            ]);
        }
    }
    out
}

struct Reference {
    edges: u32,
    boxes: Vec<[u32; 4]>,
    memo: HashMap<u64, (i32, u32)>,
}

impl Reference {
    fn new(r: u32, c: u32) -> Reference {
        Reference {
            edges: (r + 1) * c + r * (c + 1),
            boxes: boxes(r, c),
            memo: HashMap::new(),
        }
    }

    fn complete(&self, s: u64) -> i32 {
        self.boxes
            .iter()
            .filter(|b| b.iter().all(|&e| s >> e & 1 == 1))
            .count() as i32
    }

    /// (net boxes for the mover from here on, plies to the end).
    fn value(&mut self, s: u64) -> (i32, u32) {
        if let Some(&v) = self.memo.get(&s) {
            return v;
        }
        let mut best: Option<(i32, u32)> = None;
        for e in 0..self.edges {
            if s >> e & 1 == 1 {
                continue;
            }
            let child = s | 1 << e;
            let gained = self.complete(child) - self.complete(s);
            let (net, rem) = self.value(child);
            let mine = if gained > 0 { gained + net } else { -net };
            let cand = (mine, rem + 1);
            let better = match best {
                None => true,
                Some((bn, br)) => {
                    cand.0 > bn
                        || (cand.0 == bn && (if bn >= 0 { cand.1 < br } else { cand.1 > br }))
                }
            };
            if better {
                best = Some(cand);
            }
        }
        let v = best.unwrap_or((0, 0));
        self.memo.insert(s, v);
        v
    }
}

#[test]
fn every_state_of_small_boards_matches_the_reference() {
    for (r, c) in [
        (1, 1),
        (1, 2),
        (2, 1),
        (1, 3),
        (2, 2),
        (1, 4),
        (2, 3),
        (3, 2),
    ] {
        let game = DotsAndBoxes::new(r, c).unwrap();
        let sol = solve_dense(&game, &NoProgress).unwrap();
        let mut reference = Reference::new(r, c);
        // Every edge set is reachable, and the table holds each of them.
        assert_eq!(sol.values().len(), 1 << game.edge_count());
        for s in 0..1u64 << game.edge_count() {
            let want = reference.value(s);
            let got = sol.get(s).expect("every edge set is in the table");
            assert_eq!(
                (got.net, got.remoteness),
                want,
                "{r}x{c} state {}",
                game.format_position(s)
            );
            assert_eq!(sol.get(game.canonical(s)), Some(got), "{r}x{c} symmetry");
        }
    }
}

#[test]
fn three_by_three_is_a_win_by_three_for_the_second_player() {
    let game = DotsAndBoxes::new(3, 3).unwrap();
    let sol = solve_dense(&game, &NoProgress).unwrap();
    let start = sol.get(game.start()).unwrap();
    assert_eq!(start.net, -3);
    // Random samples against the reference (memoised, so each sample's
    // subtree is solved once): late positions keep it quick.
    let mut reference = Reference::new(3, 3);
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    for _ in 0..300 {
        let mut s = 0u64;
        while s.count_ones() < 14 {
            rng ^= rng << 13;
            rng ^= rng >> 7;
            rng ^= rng << 17;
            s |= 1 << (rng % 24);
        }
        let want = reference.value(s);
        let got: Value = sol.get(s).unwrap();
        assert_eq!(
            (got.net, got.remoteness),
            want,
            "{}",
            game.format_position(s)
        );
        for sym in 0..game.symmetry_count() {
            assert_eq!(sol.get(game.transform(s, sym)), Some(got));
        }
    }
}

/// The root values in `tests/vectors/dots_and_boxes.txt`.
#[test]
fn root_values_match_the_vector_file() {
    let mut checked = 0;
    for line in include_str!("../vectors/dots_and_boxes.txt").lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            [] => {}
            [w, ..] if w.starts_with('#') => {}
            ["value", variant, position, net] => {
                let game = DotsAndBoxes::from_variant(variant).unwrap();
                let sol = solve_dense(&game, &NoProgress).unwrap();
                let s = game.parse_position(position).unwrap();
                let want: i32 = net.parse().unwrap();
                assert_eq!(sol.get(s).unwrap().net, want, "{variant} {position}");
                checked += 1;
            }
            _ => panic!("bad vector line {line:?}"),
        }
    }
    assert!(checked >= 14, "the vector file was read");
}
