//! The games. Each is one folder with the same layout:
//!
//! * `mod.rs`: the declaration: the game's names, its module list and
//!   re-exports, and its [`registered::RegisteredGame`] impl (help texts, which solver
//!   builds its database on which boards, the default book depth, the cost
//!   estimates);
//! * `game.rs`: the rules and notation, the core
//!   [`Game`](crate::core::Game) trait (with the bounds its records obey,
//!   [`Game::limits`](crate::core::Game::limits));
//! * `present.rs`: how it looks, the
//!   [`Presentation`](crate::render::Presentation) trait;
//! * in modules of their own that the rules never import, the interfaces
//!   of the solvers it uses (its search kernels): the bucket scheme of
//!   British Square, the dense block kernel of Dots and Boxes, the searches
//!   behind the opening books of Connect Four, Dandelions and Dots and
//!   Boxes; and its heuristics, if any.
//!
//! Games depend on `core`, `solve` and `render`, never on each other (the
//! square board's symmetries in [`square`] and the declaration trait in
//! [`registered`] are shared), nor on the database, the analysis or the
//! registry.

pub mod british_square;
pub mod connect_four;
pub mod dandelions;
pub mod dots_and_boxes;
pub mod k_in_a_row;
pub(crate) mod registered;
#[cfg_attr(not(feature = "search"), path = "no_search.rs")]
pub(crate) mod searched;
#[cfg_attr(not(feature = "engine"), path = "no_solvers.rs")]
pub(crate) mod solvers;
pub(crate) mod square;
