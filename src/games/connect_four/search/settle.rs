//! The static look at a move: the replies it forces played out, and
//! bounds on its child's score from the rules, the table's slot fetched.

use super::table::Table;
use crate::games::connect_four::bits::{self, Geometry};

/// Positions with this many empty cells or fewer skip the table: their
/// subtrees are smaller than the cost of a probe that misses the cache, and
/// keeping them out leaves the slots to positions that save more work.
pub(super) const SHALLOW: i32 = 8;

/// The static look at a child: the position `(current, mask)` of
/// `moves` stones, whose side to move cannot win at once and faces
/// `threats` (the opponent's cells that would complete a four).
/// Replies forced by those threats are played out; what is left is
/// either settled (exact bounds, no node) or a node to search, with
/// bounds on the child's score from the child's side to move, its slot
/// in `table` fetched ahead of the probe.
#[inline(always)]
pub(super) fn settle<G: Geometry>(
    g: G,
    table: &Table,
    mut current: u64,
    mut mask: u64,
    mut moves: i32,
    threats: u64,
) -> Settled {
    let cells = g.cells();
    let mut flip = false;
    let mut threats = threats;
    loop {
        let next = bits::non_losing_from(g, mask, threats);
        let (lo, hi, node) = if next == 0 {
            let s = -(cells - moves) / 2;
            (s, s, None)
        } else if moves >= cells - 2 {
            (0, 0, None)
        } else if next & (next - 1) == 0 {
            // One move does not lose at once: play it. The opponent
            // cannot win at once after it (it has no playable winning
            // cell now, else that would be forced, and the move is
            // not under one).
            let opponent = current ^ mask;
            let after = current | next;
            mask |= next;
            current = opponent;
            moves += 1;
            flip = !flip;
            threats = bits::winning_cells(g, after, mask);
            continue;
        } else {
            let mut hi = (cells - 1 - moves) / 2;
            if moves % 2 == 0 && g.height().is_multiple_of(2) {
                hi = hi.min(claimeven_bound(g, current, mask));
            }
            if !bits::has_four(g, current | (g.board() ^ mask)) {
                hi = hi.min(0);
            }
            let lo = -(cells - 2 - moves) / 2;
            let key = if cells - moves > SHALLOW {
                let k = bits::key(g, current, mask);
                let k = k.min(g.mirror(k));
                table.prefetch(k);
                k
            } else {
                0
            };
            (
                lo,
                hi,
                Some(Node {
                    current,
                    mask,
                    moves,
                    key,
                    flip: false,
                }),
            )
        };
        // Back to the child's side: the forced plies alternate sides.
        return if flip {
            Settled {
                lo: -hi,
                hi: -lo,
                node: node.map(|n| Node { flip: true, ..n }),
            }
        } else {
            Settled { lo, hi, node }
        };
    }
}

/// A position to search, reached from a move by forced replies.
#[derive(Clone, Copy)]
pub(super) struct Node {
    pub(super) current: u64,
    pub(super) mask: u64,
    pub(super) moves: i32,
    /// Its canonical key (0 when it is too near the end for the table).
    pub(super) key: u64,
    /// True when its side to move is the side that made the move (an odd
    /// number of forced replies), so its score is the mover's directly.
    pub(super) flip: bool,
}

/// What [`settle`] found about a move's child: bounds on its score
/// for its side to move, and the node to search unless they are exact.
pub(super) struct Settled {
    pub(super) lo: i32,
    pub(super) hi: i32,
    pub(super) node: Option<Node>,
}

/// An upper bound on the score of the side to move when it is the first
/// player (an even number of stones) on a board of even height: the second
/// player can answer every stone directly above it, and so take every empty
/// cell of the even rows except those playable now (each one the first
/// player takes, the second answers by taking another such cell: there is
/// an even number of them). If the first player's cells can then hold no
/// four, it cannot win (0); if the second player's hold one, it loses.
///
/// The loss comes at the latest when the last cell of one of those fours
/// is taken, directly above a stone of the first player: the cells above it
/// are still empty then. A four whose cells all lie in rows 1 to `r` leaves
/// at least `height - r` cells empty, so the second player wins with stone
/// `cells - (height - r)` or sooner: a score of `-(2 + height - r) / 2` at
/// best for the first player (-1 for a four reaching the top row).
#[inline(always)]
pub(super) fn claimeven_bound<G: Geometry>(g: G, current: u64, mask: u64) -> i32 {
    let theirs = (current ^ mask) | (g.even_rows() & !mask & !bits::playable(g, mask));
    let ours = g.board() & !theirs;
    if bits::has_four(g, ours) {
        return i32::MAX;
    }
    if !bits::has_four(g, theirs) {
        return 0;
    }
    let height = g.height() as i32;
    // The lowest even row `r` whose rows 1 to `r` hold one of their fours
    // (the top row, an even one, holds them all).
    let mut r = 2;
    while r < height && !bits::has_four(g, theirs & g.bottom().wrapping_mul((1u64 << r) - 1)) {
        r += 2;
    }
    -(2 + height - r) / 2
}
