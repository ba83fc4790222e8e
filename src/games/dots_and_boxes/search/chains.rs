//! Independent chains and loops, and the exact value of an endgame made of
//! nothing else.
//!
//! In the strings-and-coins view a box with two free edges is a coin with
//! two strings. A connected set of such boxes whose strings lead only to
//! one another or to the ground (the border) is **independent**: a chain of
//! `n` boxes when it reaches the ground (at both ends), a loop of `n` boxes
//! when it does not. Nothing else touches it, so:
//!
//! * every way of opening it is as good as one of them: the two ends of a
//!   1-chain are the same move; a 2-chain is best opened in the middle (the
//!   two boxes then cannot be declined); a chain of three or more opened
//!   anywhere leaves the opponent the same two choices, all of it or all
//!   but two and the double-deal (the cut splits it in two pieces, and the
//!   opponent takes one whole); any edge of a loop is the same as any other;
//! * two independent components of the same kind and size are the same
//!   move, up to an isomorphism of the rest of the game.
//!
//! When every box left has two free edges, the position is such components
//! alone (a *simple* endgame) and its value follows from their sizes:
//! `v({}) = 0`, and `v(S)` is the best over the components `c` of `S`,
//! with `w = v(S - c)`, of
//!
//! * a chain of 1 or 2: `-n - w` (the opponent takes it and moves on);
//! * a chain of `n >= 3`: `min(-n - w, 4 - n + w)` (takes all, or all but
//!   two and hands back the move with the last two);
//! * a loop of `n`: `min(-n - w, 8 - n + w)` (all but four, handed back as
//!   two pairs).

/// A component kind as an index: the number of boxes, plus [`LOOP`] for a
/// loop.
pub(super) type Kind = usize;

/// Added to a loop's size in a [`Kind`].
pub(super) const LOOP: usize = 32;

/// Counts of independent components, indexed by [`Kind`].
pub(super) type Counts = [u8; 64];

/// The most sub-multisets of components the exact value works through; a
/// position with more (never seen on boards of 63 edges) is searched.
const MEMO: usize = 4096;

/// The value for the side to move of `w`, the value of the rest, after it
/// opens a component of kind `kind`.
fn opened(kind: Kind, w: i32) -> i32 {
    let n = (kind % LOOP) as i32;
    if kind >= LOOP {
        (-n - w).min(8 - n + w)
    } else if n <= 2 {
        -n - w
    } else {
        (-n - w).min(4 - n + w)
    }
}

/// The exact value, for the side to move, of a simple endgame of the
/// components counted in `counts`; `None` when they have too many
/// sub-multisets to work through.
pub(super) fn simple_endgame_value(counts: &Counts) -> Option<i32> {
    // The distinct kinds present, and a mixed-radix index of sub-multisets:
    // digit `i` counts the components of `kinds[i]`.
    let mut kinds = [0usize; 64];
    let mut radix = [0usize; 64];
    let mut digits = 0;
    let mut size = 1usize;
    for (kind, &count) in counts.iter().enumerate() {
        if count > 0 {
            kinds[digits] = kind;
            radix[digits] = size;
            size = size.checked_mul(usize::from(count) + 1)?;
            if size > MEMO {
                return None;
            }
            digits += 1;
        }
    }
    // A sub-multiset's index is below those of its supersets, so one pass
    // upwards finds each value after those it needs.
    let mut memo = [0i8; MEMO];
    for index in 1..size {
        let mut best = i32::MIN;
        for d in 0..digits {
            let count = usize::from(counts[kinds[d]]);
            if index / radix[d] % (count + 1) > 0 {
                let w = i32::from(memo[index - radix[d]]);
                best = best.max(opened(kinds[d], w));
            }
        }
        memo[index] = best as i8;
    }
    Some(i32::from(memo[size - 1]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn value(parts: &[(usize, u8)]) -> i32 {
        let mut counts = [0u8; 64];
        for &(kind, count) in parts {
            counts[kind] += count;
        }
        simple_endgame_value(&counts).unwrap()
    }

    #[test]
    fn single_components_go_to_the_opponent() {
        assert_eq!(value(&[]), 0);
        for n in 1..=10 {
            assert_eq!(value(&[(n, 1)]), -(n as i32));
        }
        assert_eq!(value(&[(LOOP + 4, 1)]), -4);
        assert_eq!(value(&[(LOOP + 6, 1)]), -6);
    }

    #[test]
    fn control_is_kept_by_declining_the_last_two_or_four() {
        // Two 3-chains: the opponent takes one box of the first and hands
        // back two, then takes the whole second: 2 against 4.
        assert_eq!(value(&[(3, 2)]), -2);
        // A 3-chain and a 4-loop: opening the loop gives
        // min(-4 + 3, 8 - 4 - 3) = -1 (the opponent takes it and opens the
        // chain); opening the chain gives min(-3 + 4, 4 - 3 - 4) = -3.
        assert_eq!(value(&[(3, 1), (LOOP + 4, 1)]), -1);
        // Short chains are handed over one by one: with a 1-chain and a
        // 2-chain the opener gives 1, gets 2 back: +1.
        assert_eq!(value(&[(1, 1), (2, 1)]), 1);
        // A 2-chain handed over in the middle cannot be declined: the
        // opponent takes it and opens the 3-chain (+1). Had it been
        // declinable, the opener would have to open the 3-chain (-1).
        assert_eq!(value(&[(2, 1), (3, 1)]), 1);
    }

    #[test]
    fn too_many_kinds_are_left_to_the_search() {
        let mut counts = [0u8; 64];
        counts[1..=13].fill(1);
        assert_eq!(simple_endgame_value(&counts), None);
    }
}
