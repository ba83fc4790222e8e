//! Dots and Boxes' heuristics, tested by `query stats`.

use super::DotsAndBoxes;
use crate::core::{Edge, Heuristic, Move};

/// The heuristics of Dots and Boxes.
pub(crate) const HEURISTICS: &[Heuristic<DotsAndBoxes>] = &[Heuristic {
    name: "greedy",
    description: "take a box when you can, else avoid drawing a box's third side",
    choose: greedy,
}];

/// Dots and Boxes' "greedy": every move that completes a box, if any; else
/// every move that draws no box's third side, if any; else every move.
pub(crate) fn greedy(g: &DotsAndBoxes, _state: u64, moves: &[Edge], out: &mut Vec<Move>) {
    let from = out.len();
    out.extend(moves.iter().filter(|e| e.reward > 0).map(|e| e.mv));
    if out.len() > from {
        return;
    }
    let third_side = |e: &Edge| {
        g.box_masks()
            .iter()
            .any(|&b| b >> e.mv.0 & 1 != 0 && (e.child & b).count_ones() == 3)
    };
    out.extend(moves.iter().filter(|e| !third_side(e)).map(|e| e.mv));
    if out.len() == from {
        out.extend(moves.iter().map(|e| e.mv));
    }
}
