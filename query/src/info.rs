//! `query info`: what a database holds, from its header.

use std::fmt::Write as _;

use boardsolve::cli::EXIT_SUCCESS;
use boardsolve_probe::text::signed;
use boardsolve_probe::{json, Records};

use crate::args::DbArgs;
use crate::failure::{db_failure, emit, Failure};
use crate::source::Source;

/// Describes the database the flags name, from its header (and the
/// start's value).
pub fn run(db_args: &DbArgs) -> Result<u8, Failure> {
    let as_json = db_args.json;
    let source = Source::open(db_args)?;
    source.needs_file()?;
    let game = source.game();
    let h = source
        .tb()
        .info()
        .map_err(|e| db_failure(anyhow::Error::new(e).context(source.path.clone())))?;
    let file_bytes = h.bytes;
    if as_json {
        emit(&format!("{}\n", json::info(&source.path, &h)))?;
    } else {
        let mut o = String::new();
        let _ = writeln!(o, "database:   {}", source.path);
        let _ = writeln!(
            o,
            "game:       {} (id {}), variant {}",
            h.game, h.game_id, h.variant
        );
        let _ = writeln!(
            o,
            "records:    {} ({})",
            h.records,
            if h.complete { "complete" } else { "partial" }
        );
        let records = match h.kind {
            Records::Sorted => "sorted u64 records (canonical positions only)",
            Records::Dense => "dense, one byte per key (every position)",
        };
        match h.packed {
            None => {
                let _ = writeln!(o, "layout:     {records}");
            }
            Some(p) => {
                let _ = writeln!(
                    o,
                    "layout:     packed: {} entries in {} blocks of {}, {file_bytes} bytes, \
                     {:.2} bits a position",
                    p.entries,
                    p.blocks,
                    p.block_entries,
                    h.bits_per_position()
                );
                let _ = writeln!(o, "unpacked:   {records}");
            }
        }
        let _ = writeln!(o, "written by: {}", h.generator);
        let _ = writeln!(
            o,
            "start:      value {}, remoteness {} ({})",
            signed(h.start_value),
            h.start_remoteness,
            game.score_meaning()
        );
        emit(&o)?;
    }
    Ok(EXIT_SUCCESS)
}
