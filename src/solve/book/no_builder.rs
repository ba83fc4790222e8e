//! Builds without the engine: no book is built, and searches run on the
//! machine's cores.

/// The threads a book's search can use: the machine's cores.
pub(crate) fn threads() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The building of a book, which only the engine (feature `engine`) has.
pub trait DynBookBuild {}

impl<T: ?Sized> DynBookBuild for T {}
