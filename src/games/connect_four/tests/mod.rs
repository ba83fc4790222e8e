//! Connect Four's tests beside the search's own: the search against a
//! plain reference solver, and the opening books (the one that comes with
//! the tools included).

mod book;
mod reference;
