//! `generator`: solve a game completely, or build its opening book, and write
//! its database.

use std::io;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use anyhow::{Context, Result};
use boardsolve::bars::{duration, Bars};
use boardsolve::cli::{EXIT_FAILURE, EXIT_STATUS_HELP, EXIT_SUCCESS, EXIT_USAGE};
use boardsolve::core::Solved;
use boardsolve::db::pack::{
    pack_dense, pack_sorted, write_packed, PackOptions, DEFAULT_BLOCK_ENTRIES,
};
use boardsolve::registry::{self, AnyGame, DatabaseKind, TimeScale};
use boardsolve::render::signed;
use boardsolve::solve::book::{self, BookOptions};
use clap::{CommandFactory, FromArgMatches, Parser};

#[cfg(feature = "mpi")]
mod exchange;
#[cfg(feature = "mpi")]
mod ranks;

/// The MPI job this process is a rank of (none when no MPI launcher
/// started it: then it is one process, as without the feature).
#[cfg(feature = "mpi")]
type Job<'a> = Option<&'a mpi::environment::Universe>;
/// True when an MPI launcher started this process as a rank of a job:
/// `mpirun` and `mpiexec` of Open MPI, MPICH or MVAPICH, and Slurm's
/// `srun`, each of which sets one of these variables for its ranks.
#[cfg(feature = "mpi")]
fn started_by_mpi_launcher() -> bool {
    [
        "OMPI_COMM_WORLD_SIZE",
        "PMIX_RANK",
        "PMI_RANK",
        "PMI_SIZE",
        "MV2_COMM_WORLD_SIZE",
        "SLURM_PROCID",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some())
}

/// Without the `mpi` feature, always one process.
#[cfg(not(feature = "mpi"))]
type Job<'a> = Option<&'a ()>;

/// Solve a two-player board game perfectly and write the database of every
/// reachable position (up to symmetry) with its exact value and remoteness,
/// or, for games too large for that, an opening book of every position of at
/// most --depth moves.
///
/// With no arguments, solves the default game (the first one below, in its
/// standard variant) and writes its default file in the current directory.
/// The file is written to a temporary file beside the target, checksummed,
/// and renamed into place only when complete.
#[derive(Parser, Debug)]
#[command(version, about, long_about)]
struct Args {
    /// Output file [default: the game's default file: STEM.db for its
    /// standard variant, STEM-VARIANT.db (the variant's commas as dashes)
    /// for the others; the stems are below]. An existing regular file is
    /// replaced atomically; a symbolic link is replaced by the file itself
    /// (what it points to is left alone); anything else (a directory, a
    /// device, a named pipe) is refused before any work.
    #[arg(short, long, value_name = "PATH")]
    output: Option<PathBuf>,

    /// Game to solve (see --list-games).
    #[arg(long, value_name = "NAME", default_value = registry::GAMES[0].name)]
    game: String,

    /// Variant of the game, e.g. `4x4`, `center-allowed`, `3x4` (see
    /// --list-games). Empty for the standard game.
    #[arg(long, value_name = "SPEC", default_value = "")]
    variant: String,

    /// Games with an opening book: write the book of every position of at
    /// most N moves (see --list-games for each game's default). On their
    /// boards solved completely, writes the book of depth N instead. An
    /// interrupted run resumes from OUTPUT.partial-depthN.
    #[arg(long, value_name = "N")]
    depth: Option<u32>,

    /// Games with an opening book: the searches' transposition table takes
    /// 2^B words of 8 bytes (default 26, 512 MiB, mapped as it fills).
    #[arg(long, value_name = "B")]
    table_bits: Option<u32>,

    /// How the file stores the records: `plain`, the game's sorted or dense
    /// layout, mapped and read as it is; or `packed`, the same records in
    /// compressed blocks with an index (several times smaller; every reader
    /// opens it, and `query unpack` gives the plain file back byte for
    /// byte).
    #[arg(long, value_enum, value_name = "LAYOUT", default_value = "plain")]
    layout: Layout,

    /// With --layout packed: entries per block, a power of two from 64 to
    /// 1048576 (default 4096).
    #[arg(long, value_name = "N")]
    block_entries: Option<u32>,

    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    threads: Option<usize>,

    /// No progress bars and no estimate.
    #[arg(short, long)]
    quiet: bool,

    /// Print the summary as one JSON object on stdout.
    #[arg(long)]
    json: bool,

    /// List the known games, their variants and defaults, and exit.
    #[arg(long)]
    list_games: bool,
}

/// How the file stores its records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum Layout {
    /// The game's sorted or dense layout.
    Plain,
    /// Compressed blocks with an index.
    Packed,
}

/// A failure with its exit status.
pub(crate) struct Failure {
    pub(crate) code: u8,
    pub(crate) error: anyhow::Error,
}

impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Self {
        Failure {
            code: EXIT_FAILURE,
            error,
        }
    }
}

fn usage(message: impl std::fmt::Display) -> Failure {
    Failure {
        code: EXIT_USAGE,
        error: anyhow::anyhow!("{message}"),
    }
}

/// The games, their variants and what their databases are.
fn list_games() -> String {
    let mut out = String::new();
    for g in registry::GAMES {
        let default = match g.kind {
            DatabaseKind::Complete => format!("solved completely into {}.db", g.file_stem),
            DatabaseKind::Book { default_depth } => format!(
                "an opening book in {}.db (--depth N, default {default_depth})",
                g.file_stem
            ),
        };
        let text = format!(
            "{}. Variants: {}. Database: {default}.",
            g.about, g.variants
        );
        out.push_str(&format!("{:<16} ", g.name));
        out.push_str(&boardsolve::cli::wrap(&text, 80, 17, 17));
        out.push('\n');
    }
    out
}

/// The depth of the book the run builds, or `None` when it solves the game
/// completely: a book game's default depth unless given, and on a board
/// solved completely a book only when `--depth` asks for one.
pub(crate) fn book_depth(game: &AnyGame, depth: Option<u32>) -> Option<u32> {
    match game.database_kind() {
        DatabaseKind::Book { default_depth } => Some(depth.unwrap_or(default_depth)),
        DatabaseKind::Complete => depth.filter(|_| game.has_book()),
    }
}

/// What the run is expected to cost, in one line for stderr. A long run's
/// figures, measured on the reference machine, are scaled to this one by a
/// timed sample of the same kind of work where the game declares one.
fn expectation(game: &AnyGame, book: Option<u32>, table_bits: u32, threads: usize) -> String {
    let what = match book {
        None => format!("solving {}", game.label()),
        Some(depth) => format!(
            "building the {} opening book of depth {depth}",
            game.label()
        ),
    };
    // The estimates are for each board's own database.
    let depth = book.unwrap_or(0);
    let estimate = match (book, game.database_kind()) {
        (None, DatabaseKind::Complete) | (Some(_), DatabaseKind::Book { .. }) => {
            game.estimate(depth, table_bits, threads)
        }
        _ => None,
    };
    let Some(e) = estimate else {
        return format!("generator: {what}: no estimate of its time for this size");
    };
    if e.wall_seconds(threads) < 1.0 {
        return format!(
            "generator: {what}: expect under a second and at most about {} of memory",
            bytes(e.peak_bytes)
        );
    }
    // Threads beyond the cores share them: the work goes no faster.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let running = threads.min(cores);
    let sample = if e.worth_sampling(running) {
        game.calibrate(depth, table_bits, running)
    } else {
        None
    };
    let (scale, source) = match sample {
        Some(Ok(t)) => (
            t.scale,
            format!(
                "as measured on a 2-core machine and scaled by a sample of the work, which took \
                 {:.2}x as long here",
                t.scale.wall
            ),
        ),
        Some(Err(err)) => (
            TimeScale::REFERENCE,
            format!("as measured on a 2-core machine (no sample of the work could run: {err})"),
        ),
        None => (
            TimeScale::REFERENCE,
            "as measured on a 2-core machine".to_owned(),
        ),
    };
    format!(
        "generator: {what}: expect about {} on {threads} thread{} ({} of CPU) and at most about \
         {} of memory, {source}",
        duration(e.wall_seconds_at(running, scale)),
        if threads == 1 { "" } else { "s" },
        duration(e.cpu_seconds_at(scale)),
        bytes(e.peak_bytes)
    )
}

/// A size in bytes as people read it.
fn bytes(n: u64) -> String {
    let n = n as f64;
    if n >= 1e9 {
        format!("{:.1} GB", n / 1e9)
    } else {
        format!("{:.0} MB", (n / 1e6).max(1.0))
    }
}

/// Checks the options against the game, before any work.
fn check_options(args: &Args, game: &AnyGame) -> Result<(), Failure> {
    let label = game.label();
    if let Some(n) = args.threads {
        // More threads than cores only costs: starting tens of thousands
        // takes longer than solving.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let most = 64 * cores;
        if n == 0 || n > most {
            return Err(usage(format!(
                "--threads {n}: give 1 to {most} (64 for each of the {cores} cores)"
            )));
        }
    }
    if let Some(why) = game.game().descriptor().storage_error() {
        return Err(usage(why));
    }
    if let Some(options) = pack_options(args).map_err(usage)? {
        options.check().map_err(usage)?;
    }
    if book_depth(game, args.depth).is_none() {
        for (given, name) in [
            (args.depth.is_some(), "--depth"),
            (args.table_bits.is_some(), "--table-bits"),
        ] {
            if given {
                let unless = if game.has_book() {
                    " (give --depth N for its opening book)"
                } else {
                    ""
                };
                return Err(usage(format!(
                    "{name} is for opening books; {label} is solved completely{unless}"
                )));
            }
        }
    }
    if let (Some(bits), Some(range)) = (
        args.table_bits,
        game.book_game().map(|b| b.table_bits_range()),
    ) {
        if !range.contains(&bits) {
            return Err(usage(format!(
                "--table-bits {bits}: {label} takes {} to {}",
                range.start(),
                range.end()
            )));
        }
    }
    Ok(())
}

/// The packing `--layout` and `--block-entries` ask for: `None` for the
/// plain layout (where `--block-entries` does not apply).
fn pack_options(args: &Args) -> Result<Option<PackOptions>, String> {
    match (args.layout, args.block_entries) {
        (Layout::Plain, Some(_)) => Err("--block-entries applies to --layout packed only".into()),
        (Layout::Plain, None) => Ok(None),
        (Layout::Packed, n) => Ok(Some(PackOptions {
            block_entries: n.unwrap_or(DEFAULT_BLOCK_ENTRIES),
            ..PackOptions::default()
        })),
    }
}

/// Packs the plain file at `plain` into `output` and removes `plain` (the
/// ranks write the plain file first).
#[cfg(feature = "mpi")]
pub(crate) fn pack_written(
    plain: &std::path::Path,
    output: &std::path::Path,
    options: PackOptions,
    progress: &dyn boardsolve::core::Progress,
) -> Result<()> {
    let (db, game) =
        AnyGame::open(plain).with_context(|| format!("reading back {}", plain.display()))?;
    let (body, header) = boardsolve::db::pack::pack_database(&db, game.game(), options, progress)
        .with_context(|| format!("packing {}", plain.display()))?;
    drop(db);
    write_packed(output, &header, &body)
        .with_context(|| format!("writing {}", output.display()))?;
    if let Err(e) = std::fs::remove_file(plain) {
        eprintln!("generator: warning: cannot remove {}: {e}", plain.display());
    }
    Ok(())
}

fn run(args: Args, job: Job<'_>) -> Result<(), Failure> {
    if args.list_games {
        emit(&list_games())?;
        return Ok(());
    }
    let game = AnyGame::new(&args.game, &args.variant).map_err(usage)?;
    check_options(&args, &game)?;
    let output = args
        .output
        .clone()
        .unwrap_or_else(|| PathBuf::from(game.default_file_name()));
    #[cfg(feature = "mpi")]
    if let Some(universe) = job {
        let ex = exchange::MpiExchange::new(universe.world());
        if boardsolve::solve::ranks::Exchange::size(&ex) > 1 {
            if args.threads.is_some() {
                return Err(usage(
                    "--threads does not apply on MPI ranks: each rank runs one thread \
                     (start more ranks instead)",
                ));
            }
            return ranks::run(
                &ex,
                &ranks::Job {
                    game: &game,
                    output: &output,
                    depth: args.depth,
                    table_bits: args.table_bits,
                    quiet: args.quiet,
                    json: args.json,
                    pack: pack_options(&args).map_err(usage)?,
                },
            );
        }
    }
    #[cfg(not(feature = "mpi"))]
    let _ = job;
    // Refuse a path that is not a file to replace before any work (the
    // writer checks again before writing).
    boardsolve::db::writer::check_target(&output)
        .with_context(|| format!("output {}", output.display()))?;
    // Free the space a killed earlier run left behind now rather than after
    // the solve (the writer does it again before writing).
    boardsolve::db::writer::remove_stale_temporaries(&output);
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = args.threads {
        pool = pool.num_threads(n);
    }
    let pool = pool.build().context("cannot start worker threads")?;
    let bars = Bars::new(args.quiet);
    // Before the first word on stderr: a caller that saw it may interrupt.
    boardsolve::cli::on_interrupt(match book_depth(&game, args.depth) {
        Some(depth) => format!(
            "generator: interrupted: the positions searched so far are kept in {} (saved \
             every few seconds); run the same command again to resume",
            book::checkpoint_path(&output, depth).display()
        ),
        None => format!(
            "generator: interrupted: nothing was written under {}; a complete solve starts \
             again from the beginning",
            output.display()
        ),
    });
    if !args.quiet {
        let threads = pool.current_num_threads();
        let table_bits = args.table_bits.unwrap_or(BookOptions::new(0).table_bits);
        eprintln!(
            "{}",
            expectation(&game, book_depth(&game, args.depth), table_bits, threads)
        );
    }
    let t0 = Instant::now();
    let mut checkpoint = None;
    let solution = match book_depth(&game, args.depth) {
        Some(depth) => {
            let path = book::checkpoint_path(&output, depth);
            book::check_checkpoint_path(&path).map_err(anyhow::Error::new)?;

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
        }
        None => pool
            .install(|| game.solve(&bars))
            .with_context(|| format!("solving {}", game.label()))?,
    };
    let solved = t0.elapsed();
    let desc = game.game().descriptor();
    let packed_bytes = match pack_options(&args).map_err(usage)? {
        None => {
            boardsolve::db::write_database(&output, desc, &solution)
                .with_context(|| format!("writing {}", output.display()))?;
            None
        }
        Some(options) => {
            let header = boardsolve::db::writer::header_for(desc, &solution);
            let body = match &solution {
                Solved::Sorted(s) => pack_sorted(&header, &s.records, options, &bars),
                Solved::Dense(d) => pack_dense(d.bytes(), game.game(), options, &bars),
            }
            .with_context(|| format!("packing {}", game.label()))?;
            write_packed(&output, &header, &body)
                .with_context(|| format!("writing {}", output.display()))?;
            Some(body.file_size())
        }
    };
    // The book is safely written: its checkpoint has served.
    if let Some(path) = checkpoint {
        remove_checkpoint(&path);
    }
    let total = t0.elapsed();
    let mut summarised = solution_summary(&output, &game, &solution, None, solved, total)?;
    if let Some(bytes) = packed_bytes {
        summarised.bytes = bytes;
        summarised.packed = true;
    }
    emit(&summary(&summarised, args.json))
}

/// Removes a book's checkpoint once the book is written (a warning if it
/// cannot be).
pub(crate) fn remove_checkpoint(path: &std::path::Path) {
    if let Err(e) = std::fs::remove_file(path) {
        if e.kind() != io::ErrorKind::NotFound {
            eprintln!("generator: warning: cannot remove {}: {e}", path.display());
        }
    }
}

/// The summary of a run that wrote `solution`, which this process holds.
pub(crate) fn solution_summary<'a>(
    output: &'a std::path::Path,
    game: &'a AnyGame,
    solution: &Solved,
    ranks: Option<usize>,
    solved: std::time::Duration,
    total: std::time::Duration,
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

/// What a run wrote, for its summary.
pub(crate) struct Summary<'a> {
    pub(crate) output: &'a std::path::Path,
    pub(crate) game: &'a AnyGame,
    /// The start's stored value.
    pub(crate) start_value: boardsolve::core::Value,
    pub(crate) records: u64,
    /// A sorted file's states per layer; `None` for a dense file.
    pub(crate) layer_sizes: Option<Vec<usize>>,
    pub(crate) complete: bool,
    pub(crate) bytes: u64,
    /// True when the file is packed.
    pub(crate) packed: bool,
    /// The ranks of an MPI job, if it ran on several.
    pub(crate) ranks: Option<usize>,
    /// What the ranks sent each other, where counted.
    pub(crate) traffic: Option<Traffic>,
    pub(crate) solved: std::time::Duration,
    pub(crate) total: std::time::Duration,
}

/// The bytes the ranks of a job sent each other.
pub(crate) struct Traffic {
    /// In all.
    pub(crate) total: u64,
    /// While expanding each layer, if the solve is layered.
    pub(crate) forward: Vec<u64>,
    /// While scoring each layer, if the solve is layered.
    pub(crate) backward: Vec<u64>,
}

/// The summary printed on stdout: a few lines, or one JSON object.
pub(crate) fn summary(s: &Summary<'_>, json: bool) -> String {
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
            (Some(k), Some(t)) => format!(", on {k} ranks ({} exchanged)", crate::bytes(t.total)),
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

/// Writes `text` to stdout.
pub(crate) fn emit(text: &str) -> Result<(), Failure> {
    boardsolve::cli::emit(text).context("writing output")?;
    Ok(())
}

/// The command line, with the games and exit statuses of the registry in
/// its help.
fn command() -> clap::Command {
    let mut after = String::from("Games:\n");
    after.push_str(&registry::games_help());
    after.push('\n');
    after.push_str(EXIT_STATUS_HELP);
    Args::command().after_long_help(after).after_help(format!(
        "Games: {}. More, with variants and exit statuses: --help",
        registry::known_names()
    ))
}

/// Ends the program on what clap says: help and version on stdout (exit 0,
/// or 1 if stdout cannot take them), usage errors on stderr (exit 2).
fn clap_exit(e: &clap::Error) -> ExitCode {
    if e.use_stderr() {
        let _ = e.print();
        return ExitCode::from(EXIT_USAGE);
    }
    ExitCode::from(boardsolve::cli::print_help(
        "generator",
        &e.render().to_string(),
    ))
}

fn main() -> ExitCode {
    let args = match command()
        .try_get_matches()
        .and_then(|m| Args::from_arg_matches(&m))
    {
        Ok(args) => args,
        Err(e) => return clap_exit(&e),
    };
    // Rank 0 of a book's job serves the other ranks from a thread of its
    // own while its main thread makes no MPI call: serialized use. A
    // process no launcher started is a job of one: it starts no MPI
    // runtime at all, which would only cost it time.
    #[cfg(feature = "mpi")]
    let universe = if started_by_mpi_launcher() {
        mpi::initialize_with_threading(mpi::Threading::Serialized).map(|(u, _)| u)
    } else {
        None
    };
    #[cfg(feature = "mpi")]
    let job = universe.as_ref();
    #[cfg(not(feature = "mpi"))]
    let job = None;
    match run(args, job) {
        Ok(()) => ExitCode::from(EXIT_SUCCESS),
        Err(f) => {
            // A closed pipe downstream is not an error worth reporting.
            if boardsolve::cli::is_broken_pipe(&*f.error) {
                return ExitCode::from(EXIT_SUCCESS);
            }
            eprintln!("generator: error: {:#}", f.error);
            ExitCode::from(f.code)
        }
    }
}
