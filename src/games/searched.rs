//! The search behind a game's opening book (feature `search`), as the
//! registry asks for it.

pub(crate) use crate::solve::book::DynBookGame;
