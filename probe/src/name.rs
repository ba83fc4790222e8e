//! A move's name held inline ([`Name`]) and the names a game keeps once
//! made ([`Named`]): apart from [`crate::position::Move`] so that a game
//! can hold its names without knowing its positions.

use std::sync::OnceLock;

/// The longest move name kept, in bytes: names are a few characters
/// (`b2`, `4`, `17`, `SE`, `pass`).
pub(crate) const NAME: usize = 22;

/// Moves whose names a game keeps once made (codes below this): a move's
/// name depends on its game and its code alone, and answers name the same
/// few moves again and again.
const NAMED: usize = 256;

/// A game's move names, each made once, by code.
pub(crate) type Named = [OnceLock<Name>; NAMED];

/// A fresh, empty [`Named`].
pub(crate) fn named() -> Named {
    std::array::from_fn(|_| OnceLock::new())
}

/// A move's name in its game's notation and its number as the game counts
/// moves.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct Name {
    /// The move's number (`u32::MAX` for a pass).
    pub(crate) number: u32,
    /// The bytes of `text` in use.
    pub(crate) len: u8,
    /// The name, UTF-8, cut at a character boundary.
    pub(crate) text: [u8; NAME],
}

impl Name {
    /// The name as text.
    pub(crate) fn as_str(&self) -> &str {
        // Built from a `str` cut at a character boundary.
        std::str::from_utf8(&self.text[..usize::from(self.len)]).unwrap_or_default()
    }
}
