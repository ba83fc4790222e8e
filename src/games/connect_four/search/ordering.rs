//! Move ordering: the order in which a node searches its moves, and the
//! bounds each carries in.

use super::settle::Node;
use crate::games::connect_four::bits;

/// A move left to search, with bounds on its score from the mover's side.
#[derive(Clone, Copy)]
pub(super) struct Child {
    pub(super) node: Option<Node>,
    pub(super) lo: i32,
    pub(super) hi: i32,
    pub(super) order: i32,
}

impl Child {
    pub(super) const EMPTY: Child = Child {
        node: None,
        lo: 0,
        hi: 0,
        order: 0,
    };
}

/// The columns of a board `width` wide, centre first (left of centre
/// first): the order in which a node looks at its moves.
pub(super) fn centre_first(width: u32) -> [u32; 16] {
    let mut order = [0; 16];
    for (i, c) in bits::centre_order(width).into_iter().enumerate() {
        order[i] = c;
    }
    order
}

/// A helper's hash of the position `(current, mask)` from its `seed`,
/// which breaks ties in [`move_order`].
#[inline(always)]
pub(super) fn jitter_hash(current: u64, mask: u64, seed: u64) -> u64 {
    (current ^ mask.rotate_left(23) ^ seed).wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

/// The order of move `mv` (in column `c`) among its siblings, the larger
/// first: `ours` are the cells where we would complete a four after it,
/// `theirs` the opponent's, and `playable` the cells playable before it;
/// `jitter` is a helper's [`jitter_hash`] near the root (0 otherwise).
#[inline(always)]
pub(super) fn move_order(
    ours: u64,
    theirs: u64,
    playable: u64,
    mv: u64,
    c: u32,
    jitter: u64,
) -> i32 {
    // The threats this move leaves us that the opponent cannot spoil
    // from below, the ones just above a playable cell (the opponent may
    // not play under them) counting more.
    let useful = ours & !(theirs << 1);
    let above = (playable & !mv | (mv << 1)) << 1;
    let mut order = ((useful & above).count_ones() + useful.count_ones()) as i32;
    if jitter != 0 {
        // A helper near the root: ties and near ties broken by
        // its own hash of the position.
        order = order * 4 + ((jitter >> (4 * c)) & 3) as i32;
    }
    order
}

/// Sorts `list` best first; ties keep the centre-first order.
#[inline(always)]
pub(super) fn best_first(list: &mut [Child]) {
    list.sort_by_key(|c| std::cmp::Reverse(c.order));
}
