//! The generator as users run it, one test binary.

mod basics;
mod connect_four_cli;
mod crash_safety;
mod dots_and_boxes_book;
mod estimate;
mod hostile;
mod packed;
#[cfg(feature = "mpi")]
mod ranks;
