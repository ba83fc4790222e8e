//! The value of a state: net score for the side to move, and remoteness.

use crate::game::Edge;

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
    pub fn through(edge: &Edge, child: Value) -> Value {
        let child_net = if edge.again { child.net } else { -child.net };
        Value {
            net: i32::from(edge.reward) + child_net,
            remoteness: child.remoteness + 1,
        }
    }

    /// A key that orders values from worst to best for the side to move.
    ///
    /// A higher net score is always better. Among equal scores, a side that is
    /// ahead (`net > 0`) or level (`net == 0`) prefers the shortest way to the
    /// end, and a side that is behind (`net < 0`) prefers the longest.
    #[inline]
    pub fn preference(self) -> (i32, i64) {
        let r = i64::from(self.remoteness);
        (self.net, if self.net < 0 { r } else { -r })
    }

    /// True when `self` is strictly better than `other` for the side to move.
    #[inline]
    pub fn better_than(self, other: Value) -> bool {
        self.preference() > other.preference()
    }
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
