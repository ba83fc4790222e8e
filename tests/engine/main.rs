//! The library's integration tests, one binary: cross-checks against plain
//! reference solvers, published facts, symmetry properties, pictures, the
//! statistics, and the fuzz corpus replayed.

mod british_square_facts;
mod connect_four_benchmarks;
mod dots_and_boxes_reference;
#[path = "../fuzz_bodies/mod.rs"]
mod fuzz_bodies;
mod fuzz_corpus;
mod notation;
mod perfect_line;
mod reference_solver;
mod svg;
mod symmetry_props;
