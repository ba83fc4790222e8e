//! The solvers. They know games only through traits:
//! [`Game`](crate::core::Game) for the layered retrograde solver of games
//! stored sorted (`solve`); the `buckets::Bucketed` scheme for its bucketed
//! form, for games whose states split into small buckets (`bucketed`,
//! British Square); the `dense::DenseGame` contract for games whose key is
//! a dense index (`dense`, Dots and Boxes); and [`book::BookGame`] for
//! opening books of games too large to solve, built by search ([`book`]),
//! and the live search past them ([`live`]). The feature `search` brings
//! `book`'s interface and `live`; `engine` brings the rest.
//!
//! Every move leads to the same layer or a later one (British Square: a
//! placement adds a piece, a pass keeps the pieces). So the layered solver
//!
//! 1. enumerates the reachable canonical states forward, one layer at a time,
//!    into a hash table per layer whose slots hold the key and a stable,
//!    consecutive id; it closes each layer under its same-layer moves before
//!    expanding it into later layers, and records every edge's child by id,
//!    about 3 bytes an edge (modules `forward`, `table`, `edges`);
//! 2. scores the states backward, last layer first, reading each child's
//!    value by its recorded id, so that no child is generated, canonicalised
//!    or looked up twice; same-layer children are scored after the rest of
//!    the layer (module `backward`);
//! 3. packs every state with its value into a record and radix-sorts the
//!    records (module `radix`).
//!
//! Both threads generate canonical children in parallel (rayon); one thread
//! names them in the next layer's table.
//!
//! The steps, and the other solvers, share the errors (`SolveError`,
//! module `error`) and the 16-bit value cell of a state being scored
//! (module `cell`).
//!
//! `ranks` is the same solver spread over ranks that share nothing (MPI's
//! processes), each holding the states its hash owns, through the
//! collective operations of its `Exchange` trait; `ranks_bucketed` spreads
//! the bucketed form, whole buckets to a rank. The dense solver spreads its
//! waves of blocks over ranks too (`dense::solve_dense_on_ranks`), and a
//! book's layers are spread the same way, each rank searching its share
//! of the deepest as rank 0 deals it through the `book::farm` protocol
//! (`mpi` holds the MPI side of both, feature `mpi`).

pub mod book;
#[cfg(feature = "engine")]
pub(crate) mod complete;
pub mod live;
pub mod memory;
#[cfg(test)]
mod tests;

#[cfg(feature = "engine")]
pub use complete::{bucketed, dense, ranks, solve, SolveError};
