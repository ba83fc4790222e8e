//! `query info`: what a database holds, from its header.

use std::fmt::Write as _;

use boardsolve::analysis::{json, stored_value};
use boardsolve::cli::EXIT_SUCCESS;
use boardsolve::core::layout::LayoutKind;
use boardsolve::render::signed;

use crate::args::DbArgs;
use crate::failure::{db_failure, emit, Failure};
use crate::source::Source;

/// Describes the database the flags name, from its header (and the
/// start's value).
pub fn run(db_args: &DbArgs) -> Result<u8, Failure> {
    let as_json = db_args.json;
    let source = Source::open(db_args)?;
    let (db, game) = (source.database()?, source.game());
    let h = db.header();
    let g = game.present();
    let start = g.start();
    let start_value = stored_value(g, db, start, g.canonical(start))
        .map_err(|e| db_failure(anyhow::Error::new(e).context(source.path.clone())))?;
    let file_bytes = db.file_len();
    if as_json {
        let line = json::info(&source.path, db, g)
            .map_err(|e| db_failure(anyhow::Error::new(e).context(source.path.clone())))?;
        emit(&format!("{line}\n"))?;
    } else {
        let mut o = String::new();
        let _ = writeln!(o, "database:   {}", source.path);
        let _ = writeln!(
            o,
            "game:       {} (id {}), variant {}",
            h.game_name, h.game_id, h.variant
        );
        let _ = writeln!(
            o,
            "records:    {} ({})",
            h.record_count,
            if h.is_complete() {
                "complete"
            } else {
                "partial"
            }
        );
        let records = match h.kind {
            LayoutKind::Sorted => "sorted u64 records (canonical positions only)",
            LayoutKind::Dense => "dense, one byte per key (every position)",
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
                    p.entry_count,
                    p.block_count,
                    p.block_entries,
                    8.0 * file_bytes as f64 / h.record_count.max(1) as f64
                );
                let _ = writeln!(o, "unpacked:   {records}");
            }
        }
        let _ = writeln!(o, "written by: {}", h.generator);
        let _ = writeln!(
            o,
            "start:      value {}, remoteness {} ({})",
            signed(g.score(start, start_value.net)),
            start_value.remoteness,
            g.score_meaning()
        );
        emit(&o)?;
    }
    Ok(EXIT_SUCCESS)
}
