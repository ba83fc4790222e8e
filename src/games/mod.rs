//! The games. Each is one folder (or file) that implements the core
//! [`Game`](crate::core::Game) trait for its rules and notation, the
//! [`Presentation`](crate::render::Presentation) trait for how it looks,
//! and, in modules of its own that the rules never import, the interfaces
//! of the solvers it uses (its search kernels): the bucket scheme of British
//! Square, the dense block kernel of Dots and Boxes, the searches behind the
//! opening books of Connect Four and Dandelions.
//!
//! Games depend on `core`, `solve` and `render`, never on each other (the
//! square board's symmetries in [`square`] are shared), nor on the
//! database, the analysis or the registry.

pub mod british_square;
pub mod connect_four;
pub mod dandelions;
pub mod dots_and_boxes;
pub mod square;
