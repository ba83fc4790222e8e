//! The solvers of whole games (feature `engine`): the layered retrograde
//! solver (`layered`: `forward`, `table`, `edges`, `backward`, `radix`),
//! its bucketed form (`buckets`, `bucketed`), the dense solver (`dense`),
//! and all of them over ranks (`ranks`, `ranks_bucketed`); their errors
//! (`error`), the value cell of a state being scored (`cell`) and the
//! index of sorted states (`index`). The parent module says how they work.

mod backward;
pub mod bucketed;
pub(crate) mod buckets;
mod cell;
pub mod dense;
mod edges;
mod error;
mod forward;
pub(crate) mod index;
pub(crate) mod layered;
mod radix;
pub mod ranks;
pub(crate) mod ranks_bucketed;
mod table;
#[cfg(test)]
pub(crate) mod threads;

pub use error::SolveError;
pub use layered::solve;
