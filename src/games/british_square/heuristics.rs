//! British Square's heuristics, tested by `query stats`.

use super::BritishSquare;
use crate::core::{Edge, Game, Heuristic, Move, Player};

/// The heuristics of British Square.
pub(crate) const HEURISTICS: &[Heuristic<BritishSquare>] = &[Heuristic {
    name: "greedy",
    description: "every move that denies the opponent the most cells",
    choose: greedy,
}];

/// British Square's "greedy", as the original analysis of the game defined
/// it: among the legal moves, every move that denies the opponent the most
/// cells. A cell is denied by a move when the opponent could place a piece
/// there before the move and cannot after it: the cell itself, and the empty
/// cells beside it that no piece of the mover touched yet. What the opponent
/// could place is [`BritishSquare::legal_cells`] for the opponent on the
/// board as it stands, whoever is to move; its opening rule (X not in the
/// centre on an empty board) never applies, since a move is on the board
/// after the first one.
pub(crate) fn greedy(g: &BritishSquare, state: u64, moves: &[Edge], out: &mut Vec<Move>) {
    let (x, o) = (g.x(state), g.o(state));
    let me = g.to_move(state);
    let them = me.opponent();
    let before = g.legal_cells(x, o, them);
    let denied = |mv: Move| -> u32 {
        if mv == Move::PASS {
            return 0;
        }
        let bit = 1u64 << mv.0;
        let after = match me {
            Player::First => g.legal_cells(x | bit, o, them),
            Player::Second => g.legal_cells(x, o | bit, them),
        };
        (before & !after).count_ones()
    };
    let most = moves.iter().map(|e| denied(e.mv)).max().unwrap_or(0);
    out.extend(moves.iter().map(|e| e.mv).filter(|&m| denied(m) == most));
}
