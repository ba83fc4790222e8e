//! Generation over the ranks of an MPI job (feature `mpi`): `mpirun -n K
//! generator ...` writes the same file as `generator ...` alone.
//!
//! - A game solved completely: every rank solves its share
//!   ([`AnyGame::solve_on_ranks`]); then rank 0 writes the file, its own
//!   stretch of records first, then each other rank's, received in bounded
//!   chunks, so no rank ever holds the whole table.
//! - An opening book: every rank holds its share of every layer and
//!   searches its share of the deepest, as rank 0 deals it, with rank 0's
//!   checkpoint ([`AnyGame::build_book_on_ranks`]); then rank 0 writes the
//!   file as for a complete solve.
//!
//! Rank 0 alone draws progress and prints the summary. An error on any rank
//! is printed with the rank's number and ends the whole job.

use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{anyhow, Context};
use boardsolve::bars::Bars;
use boardsolve::cli::{EXIT_FAILURE, EXIT_USAGE};
use boardsolve::core::RecordLayout;
use boardsolve::core::{NoProgress, Progress};
use boardsolve::db::pack::PackOptions;
use boardsolve::db::writer::{DenseStream, SortedStream};
use boardsolve::registry::AnyGame;
use boardsolve::solve::book::{self, BookOptions};
use boardsolve::solve::dense::DenseOutput;
use boardsolve::solve::ranks::{Exchange, RankSolution};
use boardsolve::solve::SolveError;
use mpi::environment::Universe;
use mpi::topology::Communicator;
use mpi::traits::*;

use crate::args::Args;
use crate::exchange::{MpiExchange, MpiFarm};
use crate::failure::{usage, Failure};
use crate::output::{book_depth, emit, pack_written, remove_checkpoint, summary, Summary, Traffic};

/// Records per message when a rank sends its stretch to rank 0.
const CHUNK: usize = 1 << 20;

/// Prints an error naming the rank and ends every rank of the job.
fn abort(ex: &MpiExchange, code: u8, error: &anyhow::Error) -> ! {
    eprintln!("generator: rank {}: error: {error:#}", ex.rank());
    // mpirun forwards a rank's output on its own time, and tearing the job
    // down can drop what has not gone yet: the message is given a moment.
    std::thread::sleep(std::time::Duration::from_millis(200));
    ex.world().abort(i32::from(code))
}

/// Starts the MPI runtime when an MPI launcher started this process as a
/// rank of a job; `None` otherwise. A process no launcher started is a job
/// of one: it starts no MPI runtime at all, which would only cost it time.
pub fn initialize() -> Option<Universe> {
    // Rank 0 of a book's job serves the other ranks from a thread of its
    // own while its main thread makes no MPI call: serialized use.
    if started_by_mpi_launcher() {
        mpi::initialize_with_threading(mpi::Threading::Serialized).map(|(u, _)| u)
    } else {
        None
    }
}

/// True when an MPI launcher started this process as a rank of a job:
/// `mpirun` and `mpiexec` of Open MPI, MPICH or MVAPICH, and Slurm's
/// `srun`, each of which sets one of these variables for its ranks.
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

/// The ranks of `universe`'s job when there are several to share the work;
/// `None` for a job of one rank, which runs as one process does.
pub fn several(universe: &Universe) -> Option<MpiExchange> {
    let ex = MpiExchange::new(universe.world());
    (ex.size() > 1).then_some(ex)
}

/// What a run on ranks was asked for.
struct Job<'a> {
    /// The game and variant.
    game: &'a AnyGame,
    /// The file to write.
    output: &'a Path,
    /// A book's depth, if given.
    depth: Option<u32>,
    /// A book's searches' table size, if given.
    table_bits: Option<u32>,
    /// No progress bars.
    quiet: bool,
    /// The summary as one JSON object.
    json: bool,
    /// How to pack the file, if it is to be packed.
    pack: Option<PackOptions>,
}

impl Job<'_> {
    /// Where the ranks write the plain (sorted or dense) file: the output
    /// itself, or when it is to be packed, `.NAME.plain` beside it, which
    /// rank 0 packs into the output once it is complete (a dense table
    /// resumes from `.NAME.plain.partial`).
    fn written(&self) -> PathBuf {
        match self.pack {
            None => self.output.to_path_buf(),
            Some(_) => {
                let name = self
                    .output
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                self.output.with_file_name(format!(".{name}.plain"))
            }
        }
    }

    /// Rank 0, the plain file written: packs it into the output, if asked
    /// to; an error ends the job.
    fn pack_written(&self, ex: &MpiExchange, progress: &dyn Progress) {
        if let Some(options) = self.pack {
            if let Err(e) = pack_written(&self.written(), self.output, options, progress) {
                abort(ex, EXIT_FAILURE, &e);
            }
        }
    }
}

/// The start's value as the file just written at `output` holds it, for
/// the summary (no rank holds the whole table to ask).
fn stored_start_value(game: &AnyGame, output: &Path) -> anyhow::Result<boardsolve::core::Value> {
    let (db, _) = AnyGame::open(output).context("reading back the file written")?;
    let g = game.present();
    let start = g.start();
    boardsolve::analysis::stored_value(g, &db, start, g.canonical(start))
        .context("the start position")
}

/// What a solve on ranks gave: `None` (the game is not solved on ranks,
/// which every rank finds alike: a usage error, no abort) or an error,
/// which ends the job naming this rank.
fn solved_or_abort<T>(
    ex: &MpiExchange,
    game: &AnyGame,
    outcome: Option<Result<T, SolveError>>,
) -> Result<T, Failure> {
    match outcome {
        None => Err(Failure {
            code: EXIT_USAGE,
            error: anyhow!(
                "{} is not generated over MPI ranks; run generator without mpirun",
                game.label()
            ),
        }),
        Some(Err(e)) => abort(
            ex,
            EXIT_FAILURE,
            &anyhow::Error::new(e).context(format!("solving {}", game.label())),
        ),
        Some(Ok(part)) => Ok(part),
    }
}

/// Solves `game` (or builds its book) on the ranks of `ex` as `args` ask
/// and writes `output` from rank 0.
pub fn run(ex: &MpiExchange, args: &Args, game: &AnyGame, output: &Path) -> Result<(), Failure> {
    if args.threads.is_some() {
        return Err(usage(
            "--threads does not apply on MPI ranks: each rank runs one thread \
             (start more ranks instead)",
        ));
    }
    generate(
        ex,
        &Job {
            game,
            output,
            depth: args.depth,
            table_bits: args.table_bits,
            quiet: args.quiet,
            json: args.json,
            pack: args.pack_options().map_err(usage)?,
        },
    )
}

/// Solves `job.game` on the ranks of `ex` and writes `job.output` from
/// rank 0.
fn generate(ex: &MpiExchange, job: &Job<'_>) -> Result<(), Failure> {
    let (game, output) = (job.game, job.output);
    let rank = ex.rank();
    if rank == 0 {
        // Only rank 0 writes, so only it looks at the target and clears what
        // a killed run left (another host's ranks cannot tell a live
        // writer's temporary file from a dead one's).
        let checked = boardsolve::db::writer::check_target(output)
            .with_context(|| format!("output {}", output.display()));
        if let Err(e) = checked {
            abort(ex, EXIT_FAILURE, &e);
        }
        boardsolve::db::writer::remove_stale_temporaries(output);
    }
    if let Some(depth) = book_depth(game, job.depth) {
        return book(ex, job, depth);
    }
    if game.game().descriptor().dense {
        return dense(ex, job);
    }
    let t0 = Instant::now();
    let bars = Bars::new(job.quiet || rank != 0);
    let progress: &dyn Progress = if rank == 0 { &bars } else { &NoProgress };
    let part = solved_or_abort(ex, game, game.solve_on_ranks(ex, progress))?;
    let solved = t0.elapsed();
    write_parts(ex, &job.written(), game, &part, true)?;
    if rank != 0 {
        return Ok(());
    }
    job.pack_written(ex, progress);
    announce(job, ex.size(), &part, true, 0, solved, t0)
}

/// Rank 0's summary of the file written from the parts of `ranks` ranks
/// (`part` is its own; the figures every rank knows), with `more_bytes`
/// exchanged besides the part's.
fn announce(
    job: &Job<'_>,
    ranks: usize,
    part: &RankSolution,
    complete: bool,
    more_bytes: u64,
    solved: std::time::Duration,
    t0: Instant,
) -> Result<(), Failure> {
    let (game, output) = (job.game, job.output);
    emit(&summary(
        &Summary {
            output,
            game,
            start_value: stored_start_value(game, output)?,
            records: part.total_records,
            layer_sizes: Some(part.layer_sizes.clone()),
            complete,
            bytes: std::fs::metadata(output).map_or(0, |m| m.len()),
            packed: job.pack.is_some(),
            ranks: Some(ranks),
            traffic: Some(Traffic {
                total: part.total_bytes + more_bytes,
                forward: part.forward_bytes.clone(),
                backward: part.backward_bytes.clone(),
            }),
            solved,
            total: t0.elapsed(),
        },
        job.json,
    ))
}

/// Writes `output` from the parts of the ranks: rank 0 its own stretch of
/// records first, then each other rank's, received in bounded chunks; the
/// other ranks send theirs. `complete` is the header's flag. Every rank
/// returns once the file is in place.
fn write_parts(
    ex: &MpiExchange,
    output: &Path,
    game: &AnyGame,
    part: &RankSolution,
    complete: bool,
) -> Result<(), Failure> {
    let world = ex.world();
    if ex.rank() != 0 {
        let root = world.process_at_rank(0);
        root.send(&(part.records.len() as u64));
        for chunk in part.records.chunks(CHUNK) {
            root.send(chunk);
        }
        world.barrier();
        return Ok(());
    }
    let written = (|| -> anyhow::Result<()> {
        let desc = game.game().descriptor();
        let mut stream = SortedStream::create(output, desc, part.layout, part.start, complete)?;
        stream.append(&part.records)?;
        for r in 1..world.size() {
            let from = world.process_at_rank(r);
            let (count, _) = from.receive::<u64>();
            let mut got = 0u64;
            while got < count {
                let (chunk, _) = from.receive_vec::<u64>();
                got += chunk.len() as u64;
                stream.append(&chunk)?;
            }
        }
        stream.finish()?;
        Ok(())
    })()
    .with_context(|| format!("writing {}", output.display()));
    if let Err(e) = written {
        abort(ex, EXIT_FAILURE, &e);
    }
    world.barrier();
    Ok(())
}

/// Rank 0's table file, as the dense solver's output.
struct TableFile(DenseStream);

impl DenseOutput for TableFile {
    fn waves_done(&self) -> u32 {
        self.0.marked()
    }
    fn write_block(&mut self, first: u64, values: &[i8]) -> Result<(), SolveError> {
        self.0.write_block(first, values).map_err(output_error)
    }
    fn read_block(&mut self, first: u64, values: &mut [i8]) -> Result<(), SolveError> {
        self.0.read_block(first, values).map_err(output_error)
    }
    fn wave_done(&mut self, waves: u32) -> Result<(), SolveError> {
        self.0.mark(waves).map_err(output_error)
    }
}

fn output_error(e: boardsolve::DbError) -> SolveError {
    SolveError::Output {
        reason: e.to_string(),
    }
}

/// Solves `job.game`'s dense table on the ranks, rank 0 writing each block
/// where it goes in the file as it arrives, and marking each finished wave
/// so that the job run again takes up after it.
fn dense(ex: &MpiExchange, job: &Job<'_>) -> Result<(), Failure> {
    let (game, output) = (job.game, job.output);
    let written = job.written();
    let rank = ex.rank();
    let t0 = Instant::now();
    let bars = Bars::new(job.quiet || rank != 0);
    let progress: &dyn Progress = if rank == 0 { &bars } else { &NoProgress };
    let desc = game.game().descriptor();
    let mut table = if rank == 0 {
        let g = game.game();
        let opened = DenseStream::resumable(
            &written,
            desc,
            RecordLayout::dense(desc.key_bits),
            g.canonical(g.start()),
        )
        .with_context(|| format!("writing {}", output.display()));
        match opened {
            Ok((stream, _)) => Some(TableFile(stream)),
            Err(e) => abort(ex, EXIT_FAILURE, &e),
        }
    } else {
        None
    };
    let outcome = solved_or_abort(
        ex,
        game,
        game.solve_dense_on_ranks(
            ex,
            progress,
            table.as_mut().map(|o| o as &mut dyn DenseOutput),
        ),
    )?;
    if outcome.waves_resumed > 0 {
        progress.note(&format!(
            "resumed from {}: {} of the {} waves were done",
            DenseStream::partial_path(&written).display(),
            outcome.waves_resumed,
            outcome.waves
        ));
    }
    let solved = t0.elapsed();
    if let Some(TableFile(stream)) = table {
        if let Err(e) = stream
            .finish()
            .with_context(|| format!("writing {}", output.display()))
        {
            abort(ex, EXIT_FAILURE, &e);
        }
    }
    ex.world().barrier();
    if rank != 0 {
        return Ok(());
    }
    job.pack_written(ex, progress);
    emit(&summary(
        &Summary {
            output,
            game,
            start_value: stored_start_value(game, output)?,
            records: 1u64 << outcome.layout.key_bits,
            layer_sizes: None,
            complete: true,
            bytes: std::fs::metadata(output).map_or(0, |m| m.len()),
            packed: job.pack.is_some(),
            ranks: Some(ex.size()),
            traffic: Some(Traffic {
                total: outcome.bytes_sent,
                forward: Vec::new(),
                backward: Vec::new(),
            }),
            solved,
            total: t0.elapsed(),
        },
        job.json,
    ))
}

/// Builds `job.game`'s book of `depth` on the ranks, each holding its share
/// of every layer and searching its share of the deepest, and writes it
/// from rank 0, which keeps the search's checkpoint.
fn book(ex: &MpiExchange, job: &Job<'_>, depth: u32) -> Result<(), Failure> {
    let (game, output) = (job.game, job.output);
    let rank = ex.rank();
    if matches!(
        mpi::environment::threading_support(),
        mpi::Threading::Single | mpi::Threading::Funneled
    ) {
        // Every rank finds the same.
        return Err(Failure {
            code: EXIT_FAILURE,
            error: anyhow!(
                "this MPI library does not allow a thread of its own to serve the searching \
                 ranks (MPI_THREAD_SERIALIZED); build Open MPI with thread support"
            ),
        });
    }
    let farm = MpiFarm::new(ex.world());
    let mut options = BookOptions::new(depth);
    options.searchers = 1;
    if let Some(bits) = job.table_bits {
        options.table_bits = bits;
    }
    let checkpoint = book::checkpoint_path(output, depth);
    if rank == 0 {
        if let Err(e) = book::check_checkpoint_path(&checkpoint) {
            abort(ex, EXIT_FAILURE, &anyhow::Error::new(e));
        }
        options.checkpoint = Some(checkpoint.clone());
    }
    let t0 = Instant::now();
    let bars = Bars::new(job.quiet || rank != 0);
    let progress: &dyn Progress = if rank == 0 { &bars } else { &NoProgress };
    let built = match game.build_book_on_ranks(&options, ex, &farm, progress) {
        None => {
            return Err(Failure {
                code: EXIT_USAGE,
                error: anyhow!("{} has no opening book", game.label()),
            })
        }
        Some(Ok(built)) => built,
        Some(Err(e)) => abort(
            ex,
            EXIT_FAILURE,
            &anyhow::Error::new(e).context(format!("building the {} opening book", game.label())),
        ),
    };
    let solved = t0.elapsed();
    let part = &built.part;
    write_parts(ex, &job.written(), game, part, built.complete)?;
    if rank != 0 {
        return Ok(());
    }
    job.pack_written(ex, progress);
    // The book is safely written: its checkpoint has served.
    remove_checkpoint(&checkpoint);
    announce(
        job,
        ex.size(),
        part,
        built.complete,
        built.search_bytes,
        solved,
        t0,
    )
}
