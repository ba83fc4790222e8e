#![no_main]

// The checks are shared with the corpus replay test (tests/fuzz_corpus.rs).
#[allow(dead_code)]
#[path = "../../tests/fuzz_bodies/mod.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| bodies::db_open(data));
