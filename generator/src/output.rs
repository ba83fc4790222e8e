//! The file a run writes and what it says about it, the same whether one
//! process or the ranks of an MPI job do the work: whether it is a book
//! and of which depth, the packing of the plain file, the book's checkpoint
//! removed once the file is safe, and the summary on stdout.

use std::io;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use boardsolve::core::{Solved, Value};
use boardsolve::registry::{AnyGame, DatabaseKind};
use boardsolve::render::signed;

use crate::failure::Failure;

/// The depth of the book the run builds, or `None` when it solves the game
/// completely: a book game's default depth unless given, and on a board
/// solved completely a book only when `--depth` asks for one.
pub fn book_depth(game: &AnyGame, depth: Option<u32>) -> Option<u32> {
    match game.database_kind() {
        DatabaseKind::Book { default_depth } => Some(depth.unwrap_or(default_depth)),
        DatabaseKind::Complete => depth.filter(|_| game.has_book()),
    }
}

/// Packs the plain file at `plain` into `output` and removes `plain` (the
/// ranks write the plain file first).
#[cfg(feature = "mpi")]
pub fn pack_written(
    plain: &Path,
    output: &Path,
    options: boardsolve::db::pack::PackOptions,
    progress: &dyn boardsolve::core::Progress,
) -> Result<()> {
    let (db, game) =
        AnyGame::open(plain).with_context(|| format!("reading back {}", plain.display()))?;
    let (body, header) = boardsolve::db::pack::pack_database(&db, game.game(), options, progress)
        .with_context(|| format!("packing {}", plain.display()))?;
    drop(db);
    boardsolve::db::pack::write_packed(output, &header, &body)
        .with_context(|| format!("writing {}", output.display()))?;
    if let Err(e) = std::fs::remove_file(plain) {
        eprintln!("generator: warning: cannot remove {}: {e}", plain.display());
    }
    Ok(())
}

/// Removes a book's checkpoint once the book is written (a warning if it
/// cannot be).
pub fn remove_checkpoint(path: &Path) {
    if let Err(e) = std::fs::remove_file(path) {
        if e.kind() != io::ErrorKind::NotFound {
            eprintln!("generator: warning: cannot remove {}: {e}", path.display());
        }
    }
}

/// What a run wrote, for its summary.
pub struct Summary<'a> {
    /// The file written.
    pub output: &'a Path,
    /// The game and variant it holds.
    pub game: &'a AnyGame,
    /// The start's stored value.
    pub start_value: Value,
    /// The records in the file.
    pub records: u64,
    /// A sorted file's states per layer; `None` for a dense file.
    pub layer_sizes: Option<Vec<usize>>,
    /// False for an opening book that holds only part of the game.
    pub complete: bool,
    /// The file's size.
    pub bytes: u64,
    /// True when the file is packed.
    pub packed: bool,
    /// The ranks of an MPI job, if it ran on several.
    pub ranks: Option<usize>,
    /// What the ranks sent each other, where counted.
    pub traffic: Option<Traffic>,
    /// The time the solve or the book took.
    pub solved: Duration,
    /// The time of the whole run, the file written.
    pub total: Duration,
}

/// The bytes the ranks of a job sent each other.
pub struct Traffic {
    /// In all.
    pub total: u64,
    /// While expanding each layer, if the solve is layered.
    pub forward: Vec<u64>,
    /// While scoring each layer, if the solve is layered.
    pub backward: Vec<u64>,
}

/// The summary of a run that wrote `solution`, which this process holds.
pub fn solution_summary<'a>(
    output: &'a Path,
    game: &'a AnyGame,
    solution: &Solved,
    ranks: Option<usize>,
    solved: Duration,
    total: Duration,
) -> Result<Summary<'a>> {
    let g = game.present();
    let start_value = solution
        .get(g.canonical(g.start()))
        .context("the start position is missing from the solution")?;
    Ok(Summary {
        output,
        game,
        start_value,
        records: solution.record_count(),
        layer_sizes: match solution {
            Solved::Sorted(s) => Some(s.layer_sizes.clone()),
            Solved::Dense(_) => None,
        },
        complete: solution.is_complete(),
        bytes: boardsolve::db::file_size(solution),
        packed: false,
        ranks,
        traffic: None,
        solved,
        total,
    })
}

/// The summary printed on stdout: a few lines, or one JSON object.
pub fn summary(s: &Summary<'_>, json: bool) -> String {
    let g = s.game.present();
    let start = g.start();
    let score = g.score(start, s.start_value.net);
    let records = s.records;
    let bytes = s.bytes;
    if json {
        let mut j = serde_json::json!({
            "output": s.output.display().to_string(),
            "game": g.descriptor().name,
            "variant": g.descriptor().variant,
            "layout": if s.layer_sizes.is_some() { "sorted" } else { "dense" },
            "complete": s.complete,
            "states": records,
            "layer_sizes": s.layer_sizes,
            "start_value": score,
            "start_remoteness": s.start_value.remoteness,
            "bytes": bytes,
            "solve_seconds": s.solved.as_secs_f64(),
            "total_seconds": s.total.as_secs_f64(),
        });
        if s.packed {
            j["packed"] = true.into();
        }
        if let Some(ranks) = s.ranks {
            j["ranks"] = ranks.into();
        }
        if let Some(t) = &s.traffic {
            j["exchanged_bytes"] = t.total.into();
            if !t.forward.is_empty() {
                j["exchanged_bytes_forward"] = t.forward.clone().into();
                j["exchanged_bytes_backward"] = t.backward.clone().into();
            }
        }
        format!("{j}\n")
    } else {
        // A sorted file holds one record per canonical state; a dense one
        // an entry for every key, symmetric or not.
        let what = if s.layer_sizes.is_some() {
            "canonical states"
        } else {
            "positions (dense table, every key)"
        };
        let packed = if s.packed {
            format!(
                " packed ({:.2} bits a position)",
                8.0 * bytes as f64 / records.max(1) as f64
            )
        } else {
            String::new()
        };
        let on = match (s.ranks, &s.traffic) {
            (Some(k), Some(t)) => format!(", on {k} ranks ({} exchanged)", self::bytes(t.total)),
            (Some(k), None) => format!(", on {k} ranks"),
            _ => String::new(),
        };
        format!(
            "wrote {}: {}, {records} {what}, {bytes} bytes{packed}{on}\n\
             start position: value {} ({}), remoteness {}\n\
             time: {:.2} s solving, {:.2} s in all\n",
            s.output.display(),
            s.game.label(),
            signed(score),
            g.score_meaning(),
            s.start_value.remoteness,
            s.solved.as_secs_f64(),
            s.total.as_secs_f64()
        )
    }
}

/// A size in bytes as people read it.
pub fn bytes(n: u64) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.1} GB", n / 1e9)
    } else {
        format!("{:.0} MB", (n / 1e6).max(1.0))
    }
}

/// Writes `text` to stdout. A closed stdout comes back as an error that
/// [`Failure::exit`] recognises and ends the program quietly on.
pub fn emit(text: &str) -> Result<(), Failure> {
    boardsolve::cli::emit(text).context("writing output")?;
    Ok(())
}
