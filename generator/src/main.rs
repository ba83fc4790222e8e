//! `generator`: solve a game completely and write its database.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use boardsolve::bars::Bars;
use boardsolve::core::Solved;
use boardsolve::registry::{AnyGame, GAMES};
use boardsolve::solve::book::{self, BookOptions};
use clap::{CommandFactory, Parser};

/// The depth of a Connect Four book when `--depth` is not given: on 7x6 its
/// deepest layer (the only one searched) takes about half an hour on two
/// cores. Deeper layers hold many more positions, each somewhat cheaper:
/// see the README for what each depth costs.
const DEFAULT_BOOK_DEPTH: u32 = 4;

/// Solve a two-player board game perfectly and write the database of every
/// reachable position (up to symmetry) with its exact value and remoteness.
///
/// With no arguments, solves British Square (5x5) and writes bsq.db in the
/// current directory. The file is written to a temporary file beside the
/// target, checksummed, and renamed into place only when complete.
///
/// Exit status: 0 on success, 1 on failure (bad game or variant, I/O error),
/// 2 on a command-line usage error.
#[derive(Parser, Debug)]
#[command(version, about, long_about)]
struct Args {
    /// Output file. Default: bsq.db for standard British Square,
    /// bsq-VARIANT.db (e.g. bsq-4x4.db) for its variants.
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,

    /// Game to solve (see --list-games).
    #[arg(long, value_name = "NAME", default_value = "british-square")]
    game: String,

    /// Comma-separated variant options, e.g. `center-allowed`, `4x4`,
    /// `3x3,center-allowed`. Empty for the standard game.
    #[arg(long, value_name = "SPEC", default_value = "")]
    variant: String,

    /// Games with an opening book (Connect Four, Dandelions): write the
    /// book of every position of at most N moves (default 4) instead of a
    /// complete solution. An interrupted run resumes from
    /// OUTPUT.partial-depthN.
    #[arg(long, value_name = "N")]
    depth: Option<u32>,

    /// Opening books only: the searches' transposition table takes 2^B
    /// words of 8 bytes (default 26, 512 MiB; Connect Four's threads share
    /// one table of one-word entries, Dandelions' tables have two-word
    /// entries).
    #[arg(long, value_name = "B")]
    table_bits: Option<u32>,

    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,

    /// No progress bars.
    #[arg(short, long)]
    quiet: bool,

    /// Print the summary as one JSON object on stdout.
    #[arg(long)]
    json: bool,

    /// List the known games and exit.
    #[arg(long)]
    list_games: bool,
}

fn run(args: Args) -> Result<()> {
    if args.list_games {
        for g in GAMES {
            println!("{:<16} {}", g.name, g.about);
        }
        return Ok(());
    }
    let game = AnyGame::new(&args.game, &args.variant)?;
    if args.depth.is_some() && !game.has_book() {
        Args::command()
            .error(
                clap::error::ErrorKind::ArgumentConflict,
                format!(
                    "--depth builds an opening book (Connect Four, Dandelions); {} has no book",
                    args.game
                ),
            )
            .exit();
    }
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(game.default_file_name()));
    // Free the space a killed earlier run left behind now rather than after
    // the solve (the writer checks again before writing).
    boardsolve::db::writer::remove_stale_temporaries(&output);
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.threads {
        anyhow::ensure!(n > 0, "--threads must be at least 1");
        pool = pool.num_threads(n);
    }
    let pool = pool.build().context("cannot start worker threads")?;
    let bars = Bars::new(args.quiet);
    let t0 = Instant::now();
    let mut checkpoint = None;
    let solution = if game.has_book() {
        let depth = args.depth.unwrap_or(DEFAULT_BOOK_DEPTH);
        let path = book::checkpoint_path(&output, depth);
        let mut options = BookOptions::new(depth);
        options.checkpoint = Some(path.clone());
        options.searchers = pool.current_num_threads();
        if let Some(bits) = args.table_bits {
            options.table_bits = bits;
        }
        checkpoint = Some(path);
        pool.install(|| game.build_book(&options, &bars))
            .context("this game has no opening book")?
            .map(Solved::from)
            .with_context(|| format!("building the {} opening book", game.label()))?
    } else {
        pool.install(|| game.solve(&bars))
            .with_context(|| format!("solving {}", game.label()))?
    };
    let solved = t0.elapsed();
    boardsolve::db::write_database(&output, game.game().descriptor(), &solution)
        .with_context(|| format!("writing {}", output.display()))?;
    // The book is safely written: its checkpoint has served.
    if let Some(path) = checkpoint {
        if let Err(e) = std::fs::remove_file(&path) {
            if e.kind() != std::io::ErrorKind::NotFound {
                eprintln!("generator: warning: cannot remove {}: {e}", path.display());
            }
        }
    }
    let total = t0.elapsed();

    let g = game.present();
    let start = g.start();
    let start_value = solution
        .get(g.canonical(start))
        .context("the start position is missing from the solution")?;
    let score = g.score(start, start_value.net);
    let bytes = boardsolve::db::file_size(&solution);
    let records = solution.record_count();
    // A sorted file holds one record per canonical state; a dense one an
    // entry for every key, symmetric or not.
    let (what, layer_sizes) = match &solution {
        Solved::Sorted(s) => ("canonical states", Some(s.layer_sizes.clone())),
        Solved::Dense(_) => ("positions (dense table, every key)", None),
    };
    if args.json {
        let j = serde_json::json!({
            "output": output.display().to_string(),
            "game": g.descriptor().name,
            "variant": g.descriptor().variant,
            "layout": if layer_sizes.is_some() { "sorted" } else { "dense" },
            "complete": solution.is_complete(),
            "states": records,
            "layer_sizes": layer_sizes,
            "start_value": score,
            "start_remoteness": start_value.remoteness,
            "bytes": bytes,
            "solve_seconds": solved.as_secs_f64(),
            "total_seconds": total.as_secs_f64(),
        });
        println!("{j}");
    } else {
        println!(
            "wrote {}: {}, {} {what}, {} bytes",
            output.display(),
            game.label(),
            records,
            bytes
        );
        println!(
            "start position: value {} ({}), remoteness {}",
            signed(score),
            g.score_meaning(),
            start_value.remoteness
        );
        println!(
            "time: {:.2} s solving, {:.2} s in all",
            solved.as_secs_f64(),
            total.as_secs_f64()
        );
    }
    Ok(())
}

/// A value with its sign, and zero as plain `0`.
fn signed(v: i32) -> String {
    if v == 0 {
        "0".to_owned()
    } else {
        format!("{v:+}")
    }
}

fn main() -> ExitCode {
    let args = Args::parse();
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("generator: error: {e:#}");
            ExitCode::FAILURE
        }
    }
}
