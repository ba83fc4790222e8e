//! The engine's small vocabulary: players, moves, edges of the game graph,
//! values (net score for the side to move, and remoteness), and how a move
//! turns out.

/// The exact value of a state under perfect play.
///
/// `net` is what the side to move gains from here to the end of the game, minus
/// what the opponent gains (for British Square: pieces the mover will still
/// place minus pieces the opponent will still place). `remoteness` is the number
/// of plies, forced passes included, until the game ends when both sides follow
/// the tie-break rule documented in `format-spec.md`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Value {
    /// Net score for the side to move from this state to the end.
    pub net: i32,
    /// Plies to the end of the game under perfect play.
    pub remoteness: u32,
}

impl Value {
    /// The value of a state where the game is over.
    pub const TERMINAL: Value = Value {
        net: 0,
        remoteness: 0,
    };

    /// The value, for the player who moves along `edge`, of making that move
    /// when the state it leads to has value `child` (for the child's mover).
    #[inline]
    pub(crate) fn through(edge: &Edge, child: Value) -> Value {
        let child_net = if edge.again { child.net } else { -child.net };
        Value {
            net: i32::from(edge.reward) + child_net,
            remoteness: child.remoteness + 1,
        }
    }

    /// The value the state after `edge` must have for the move to be
    /// worth `through` to the player making it: the inverse of
    /// [`Value::through`]. `None` for a value no move is worth (a
    /// remoteness of 0).
    #[inline]
    pub(crate) fn before(edge: &Edge, through: Value) -> Option<Value> {
        let rest = through.net - i32::from(edge.reward);
        Some(Value {
            net: if edge.again { rest } else { -rest },
            remoteness: through.remoteness.checked_sub(1)?,
        })
    }

    /// A key that orders values from worst to best for the side to move.
    ///
    /// A higher net score is always better. Among equal scores, a side that is
    /// ahead (`net > 0`) or level (`net == 0`) prefers the shortest way to the
    /// end, and a side that is behind (`net < 0`) prefers the longest.
    #[inline]
    pub(crate) fn preference(self) -> (i32, i64) {
        let r = i64::from(self.remoteness);
        (self.net, if self.net < 0 { r } else { -r })
    }

    /// True when `self` is strictly better than `other` for the side to move.
    #[inline]
    pub(crate) fn better_than(self, other: Value) -> bool {
        self.preference() > other.preference()
    }
}

/// One of the two players. `First` moves first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    /// The player who moves first (X in British Square).
    First,
    /// The player who moves second (O in British Square).
    Second,
}

impl Player {
    /// The other player.
    pub fn opponent(self) -> Player {
        match self {
            Player::First => Player::Second,
            Player::Second => Player::First,
        }
    }

    /// `1` for the first player, `-1` for the second: turns a score from
    /// this player's point of view into the first player's, and back.
    pub fn sign(self) -> i32 {
        match self {
            Player::First => 1,
            Player::Second => -1,
        }
    }
}

/// A move, as a game-defined code. British Square uses the cell number, and
/// [`Move::PASS`] for a forced pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move(pub u16);

impl Move {
    /// The pass move, for games where a player with no legal move passes.
    pub const PASS: Move = Move(u16::MAX);
}

/// One edge of the game graph: a move and the state it leads to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Edge {
    /// The move played.
    pub mv: Move,
    /// The state after the move (canonical or not, depending on the method that
    /// produced the edge).
    pub child: u64,
    /// Points the mover scores by this move itself.
    pub reward: i8,
    /// True when the same player moves again in the child state.
    pub again: bool,
}

/// How a move turns out for the player who makes it, with perfect play
/// afterwards: the sign of [`crate::Analysis::move_result`], which counts
/// the score so far when it is known. Dots and Boxes given only the drawn
/// edges does not know it, and then a win means taking more of the
/// remaining boxes than the opponent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The player ends ahead.
    Win,
    /// Level.
    Tie,
    /// The player ends behind.
    Loss,
}

impl Outcome {
    /// The outcome of a final result seen from one player (positive: ahead).
    pub fn of(result: i32) -> Outcome {
        match result.signum() {
            1 => Outcome::Win,
            -1 => Outcome::Loss,
            _ => Outcome::Tie,
        }
    }

    /// `win`, `tie` or `loss`.
    pub fn name(self) -> &'static str {
        match self {
            Outcome::Win => "win",
            Outcome::Tie => "tie",
            Outcome::Loss => "loss",
        }
    }
}

/// A legal move as drawings show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveMark {
    /// The move.
    pub mv: Move,
    /// The headline value after the move ([`super::Game::score`]).
    pub score: i32,
    /// How it turns out for the player making it.
    pub outcome: Outcome,
    /// True when it keeps the best value.
    pub best: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn preference_orders_scores_then_remoteness() {
        let v = |net, remoteness| Value { net, remoteness };
        assert!(v(2, 9).better_than(v(1, 1)));
        assert!(v(2, 3).better_than(v(2, 5)), "ahead: faster is better");
        assert!(v(0, 3).better_than(v(0, 5)), "level: faster is better");
        assert!(v(-1, 5).better_than(v(-1, 3)), "behind: slower is better");
        assert!(!v(1, 4).better_than(v(1, 4)));
    }
}
