//! Win, draw or loss only: Connect Four's weak answers, from the book when
//! it holds a position and by the weak solver otherwise.

use super::board::Position;
use super::game::ConnectFour;
use crate::solver::live::LiveSearch;

/// A position answered as win, draw or loss only (see [`weak`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeakAnswer {
    /// For the side to move: 1 a win, 0 a draw, -1 a loss.
    pub result: i32,
    /// Every playable column (0-based) with the result for the side to move
    /// if it plays there.
    pub columns: Vec<(u32, i32)>,
}

impl WeakAnswer {
    /// The columns that keep the best result.
    pub fn best(&self) -> impl Iterator<Item = u32> + '_ {
        self.columns
            .iter()
            .filter(|&&(_, r)| r == self.result)
            .map(|&(c, _)| c)
    }
}

/// Win, draw or loss for the position and every column: much faster than
/// exact scores where the book is silent.
pub fn weak(live: &LiveSearch<'_, ConnectFour>, position: &Position) -> WeakAnswer {
    live.with_searcher(|mut solver| {
        let mut columns = Vec::new();
        if !position.is_over() {
            for c in 0..position.variant().width() {
                if !position.can_play(c) {
                    continue;
                }
                let r = if position.is_winning_move(c) {
                    1
                } else {
                    match position.play(c) {
                        Ok(child) if child.is_over() => 0,
                        Ok(child) => match live.book_value(child.canonical_key()) {
                            Some(v) => -v.net.signum(),
                            None => match solver.as_deref_mut() {
                                Some(s) => -s.solve_weak(&child),
                                // No solver could be made: nothing to
                                // say of this column.
                                None => continue,
                            },
                        },
                        Err(_) => continue,
                    }
                };
                columns.push((c, r));
            }
        }
        let result = columns.iter().map(|&(_, r)| r).max().unwrap_or(0);
        WeakAnswer { result, columns }
    })
}
