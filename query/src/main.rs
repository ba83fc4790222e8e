//! `query`: answer positions from a solved-game database, without solving.

mod answer;
mod lines;
mod pack;
mod play;
mod serve;
mod stats;

use std::fmt::Write as _;
use std::io::{self, BufWriter, IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, Result};
use boardsolve::analysis::analyze_weak;
use boardsolve::analysis::stats::StatsError;
use boardsolve::analysis::verify::verify;
use boardsolve::bars::{Bars, Spinner};
use boardsolve::core::layout::LayoutKind;
use boardsolve::registry::{self, AnyGame};
use boardsolve::render::{signed, Presentation};
use boardsolve::solve::live::{default_searchers, DEFAULT_TABLE_BITS};
use boardsolve::{analyze_position, principal_variation, Database, DbError, Oracle, QueryError};
use clap::{Args, CommandFactory, FromArgMatches, Parser, Subcommand};
use rayon::prelude::*;

use boardsolve::cli::{EXIT_DATABASE, EXIT_FAILURE, EXIT_STATUS_HELP, EXIT_SUCCESS, EXIT_USAGE};

/// Answer positions of a solved game from its database: the exact value,
/// the remoteness, the best moves and the value of every legal move.
///
/// Nothing is solved: the position is canonicalised and looked up in the
/// memory-mapped file. Games with an opening book search the positions past
/// the book, and answer without any database too.
#[derive(Parser, Debug)]
#[command(version, about, long_about)]
struct Cli {
    #[command(subcommand)]
    command: Option<Command>,

    #[command(flatten)]
    db: DbArgs,

    #[command(flatten)]
    ask: Ask,

    /// Colour the move values (green win, yellow tie, red loss for the
    /// player making the move; bold: best): `auto` when stdout is a
    /// terminal and NO_COLOR is not set.
    #[arg(
        long,
        value_enum,
        value_name = "WHEN",
        default_value = "auto",
        global = true
    )]
    color: ColorWhen,
}

/// When to colour the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ColorWhen {
    /// When stdout is a terminal and NO_COLOR is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorWhen {
    fn enabled(self) -> bool {
        match self {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                io::stdout().is_terminal()
                    && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
            }
        }
    }
}

#[derive(Args, Debug, Clone)]
struct DbArgs {
    /// The database file [default: the default file of --game and --variant
    /// in the current directory (see the games below); for a game with an
    /// opening book, live search when that file is missing].
    /// (`serve` takes several.)
    #[arg(long, value_name = "FILE", global = true, action = clap::ArgAction::Append)]
    db: Vec<PathBuf>,

    /// The game [default: the first of the games below, or the game of
    /// --db]; with --db, fail unless the database holds it.
    #[arg(long, value_name = "NAME", global = true)]
    game: Option<String>,

    /// The variant [default: the game's standard one, or that of --db];
    /// with --db, fail unless the database holds it.
    #[arg(long, value_name = "SPEC", global = true)]
    variant: Option<String>,

    /// Machine-readable output: one JSON object per line.
    #[arg(long, global = true)]
    json: bool,

    /// Packed files: keep at most this many MiB of decoded blocks in
    /// memory (0 decodes every block a lookup needs afresh).
    #[arg(long, value_name = "MIB", global = true, default_value_t = DEFAULT_CACHE_MIB)]
    cache: usize,

    /// Games answered by search: `log2` of the entries of the search
    /// tables, kept from answer to answer.
    #[arg(long, value_name = "BITS", global = true)]
    table_bits: Option<u32>,
}

impl DbArgs {
    /// `--cache` in bytes.
    fn cache_bytes(&self) -> usize {
        self.cache.saturating_mul(1 << 20)
    }
}

/// The default of `--cache`: 64 MiB.
const DEFAULT_CACHE_MIB: usize = boardsolve::db::packed::DEFAULT_CACHE_BYTES >> 20;

#[derive(Args, Debug)]
struct Ask {
    /// Also print the line of perfect play to the end of the game.
    #[arg(long)]
    pv: bool,

    /// Also draw the position with every legal move's value as an SVG
    /// picture (cells or edges coloured: win, tie, loss for the side to
    /// move; best moves outlined), written to FILE (`-`: stdout, instead of
    /// the answer). One position only.
    #[arg(long, value_name = "FILE")]
    svg: Option<PathBuf>,

    /// Win, draw or loss only, for the position and every move (much
    /// faster than exact values where positions are searched).
    #[arg(long, conflicts_with_all = ["pv", "svg"])]
    weak: bool,

    /// Positions to answer (`-` reads them from stdin).
    #[arg(value_name = "POSITION")]
    positions: Vec<String>,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Check a database completely: checksums, order, every key a valid
    /// canonical state, every value re-derived from its children.
    Verify {
        /// No progress bar.
        #[arg(short, long)]
        quiet: bool,
    },
    /// Describe a database: game, variant, size, layout.
    Info,
    /// Write a database in the packed layout: the records in compressed
    /// blocks, each decoded on its own when a lookup needs it, with an
    /// index. Every command and reader opens packed files as it opens the
    /// others; `query unpack` gives the file back byte for byte.
    Pack(pack::PackArgs),
    /// Write the sorted or dense file a packed database holds, byte for
    /// byte as it was packed.
    Unpack(pack::UnpackArgs),
    /// Facts about the whole game, from the database alone: states by
    /// layer and value, the ends of the game and who wins them, the number
    /// of distinct complete games and who wins them, the start's first-move
    /// map, and how often each heuristic misses a perfect move.
    ///
    /// With --heuristic NAME, only that heuristic, with example positions
    /// where it fails: the position, the moves it picks and the best moves,
    /// with their values. An unknown NAME is a usage error (exit status 2).
    /// The move map of any other position is plain `query POSITION`.
    Stats(stats::StatsArgs),
    /// Walk the game from a position, or play against the perfect player.
    ///
    /// Shows the board, the side to move, the exact value, every legal
    /// move's value and the best moves; then reads commands: a move, `pass`
    /// (only when forced), `undo`, `redo`, `restart`, `go POSITION`, `pv`,
    /// `best`, `show`, `history`, `help`, `quit`. At the end of a game it
    /// gives the final score and each side's mistakes.
    ///
    /// With stdin a terminal, commands are edited with history (arrow
    /// keys); otherwise they are read one per line without prompts, so
    /// sessions can be scripted. `quit` or the end of input ends the
    /// session with exit status 0.
    Play(PlayArgs),
    /// Serve the databases over HTTP (each --db FILE, or what `query` would
    /// answer from: the default file of --game and --variant, or a game's
    /// search alone when its file is missing), on localhost unless --addr
    /// says otherwise.
    ///
    /// `GET /api/position?p=POSITION` answers with the JSON line `query
    /// --json POSITION` prints (add `&game=NAME&variant=SPEC` when several
    /// games are served); `GET /api/info` lists them; `GET /` is the
    /// explorer page. Every error is a JSON object with a message: 400 a
    /// malformed or illegal position or request, 404 a game, variant or
    /// path not served, 405 a method other than GET, 413 an oversize
    /// position, 414 an oversize request target, 431 an oversize header,
    /// 500 a corrupted database, 503 a search out of time or out of room.
    /// Answers carry an ETag and honour If-None-Match (304).
    ///
    /// Lookups are answered at once; positions past an opening book are
    /// searched on --search-threads threads behind a queue of
    /// --search-queue requests, each search stopped at --time-limit or when
    /// its client goes. Their tables, made at start-up and kept from
    /// request to request, take at most one table of 2^--table-bits entries
    /// (default 22 here: 32 MiB) per search thread for each game searched.
    /// Ctrl-C or SIGTERM stops it (exit status 0) after the answers under
    /// way, within 5 seconds.
    Serve(serve::ServeArgs),
}

#[derive(Args, Debug)]
struct PlayArgs {
    /// The sides the program plays: `first` (or X, A), `second` (or O, B),
    /// or `both` (it plays itself to the end, then exits).
    #[arg(long, value_enum, value_name = "SIDE")]
    ai: Option<play::AiSide>,

    /// Let the program choose at random among its best moves, rather than
    /// the quickest win or the longest resistance.
    #[arg(long)]
    random: bool,

    /// Seed of --random's choices, to replay a game (implies --random;
    /// without it a seed is drawn and printed).
    #[arg(long, value_name = "N")]
    seed: Option<u64>,

    /// The position to start from (default: the start of the game).
    #[arg(value_name = "POSITION")]
    position: Option<String>,
}

/// A failure with its exit status.
struct Failure {
    code: u8,
    error: anyhow::Error,
}

impl From<anyhow::Error> for Failure {
    fn from(error: anyhow::Error) -> Self {
        Failure {
            code: EXIT_FAILURE,
            error,
        }
    }
}

fn db_failure(e: impl Into<anyhow::Error>) -> Failure {
    Failure {
        code: EXIT_DATABASE,
        error: e.into(),
    }
}

fn usage(message: &str) -> Failure {
    Failure {
        code: EXIT_USAGE,
        error: anyhow::anyhow!("{message}"),
    }
}

/// Where answers come from: a database, or live search (for a game with
/// an opening book) with or without a database as its book.
struct Source {
    db: Option<Database>,
    game: AnyGame,
    path: String,
    /// `--table-bits`, checked against the game and the memory.
    table_bits: u32,
}

impl Source {
    /// Opens the database the arguments name, or sets up live search.
    ///
    /// With `--db`, the file says its game and variant, and `--game` and
    /// `--variant` must agree with it. Without, the game and variant asked
    /// for (the registry's first game by default) name the default file,
    /// which must exist unless the game can be searched live.
    fn open(args: &DbArgs) -> Result<Source, Failure> {
        // Usage first: an unknown game or a bad variant is the caller's
        // mistake, whatever the files.
        let variant = args.variant.as_deref().unwrap_or("");
        let new_game = |name: &str| AnyGame::new(name, variant).map_err(|e| usage(&e.to_string()));
        let bounds = registry::table_bits_bounds();
        if let Some(bits) = args.table_bits.filter(|b| !bounds.contains(b)) {
            return Err(usage(&format!(
                "--table-bits {bits}: no game takes it ({} to {}; see --help)",
                bounds.start(),
                bounds.end()
            )));
        }
        let path = match args.db.as_slice() {
            [] => None,
            [one] => Some(one),
            _ => {
                return Err(usage(
                    "--db given more than once: only `serve` serves several",
                ))
            }
        };
        let Some(path) = path else {
            let name = args.game.as_deref().unwrap_or(registry::GAMES[0].name);
            let mut source = Source::default_file(new_game(name)?, args.cache_bytes())?;
            source.table_bits = checked_table_bits(&source.game, args.table_bits)?;
            return Ok(source);
        };
        let asked = args.game.as_deref().map(new_game).transpose()?;
        let (mut db, game) = open_db(path)?;
        db.set_cache_limit(args.cache_bytes());
        // The game asked for, and the variant in the game the file holds
        // unless --game named one.
        let want = match asked {
            None if args.variant.is_some() => Some(new_game(game.game().descriptor().name)?),
            want => want,
        };
        if let Some(want) = want {
            let (w, f) = (want.game().descriptor(), game.game().descriptor());
            if w.name != f.name || (args.variant.is_some() && w.variant != f.variant) {
                let expected = match args.variant {
                    Some(_) => want.label(),
                    None => w.name.to_owned(),
                };
                return Err(wrong_game(path, expected, &game));
            }
        }
        Ok(Source {
            table_bits: checked_table_bits(&game, args.table_bits)?,
            db: Some(db),
            game,
            path: path.display().to_string(),
        })
    }

    /// The game's default file in the current directory, or live search
    /// when it is missing and the game has it.
    fn default_file(game: AnyGame, cache_bytes: usize) -> Result<Source, Failure> {
        let path = PathBuf::from(game.default_file_name());
        if !path.exists() || game.game().descriptor().storage_error().is_some() {
            if game.has_book() {
                return Ok(Source {
                    db: None,
                    game,
                    path: "(live search)".to_owned(),
                    table_bits: DEFAULT_TABLE_BITS,
                });
            }
            return Err(db_failure(anyhow::anyhow!(
                "database {}: no such file in the current directory: `{}` makes it (or give \
                 --db FILE)",
                path.display(),
                game.generator_command()
            )));
        }
        let (mut db, found) = open_db(&path)?;
        if found.label() != game.label() {
            return Err(wrong_game(&path, game.label(), &found));
        }
        db.set_cache_limit(cache_bytes);
        Ok(Source {
            db: Some(db),
            game: found,
            path: path.display().to_string(),
            table_bits: DEFAULT_TABLE_BITS,
        })
    }

    /// The database, for commands that need one.
    fn database(&self) -> Result<&Database, Failure> {
        self.db.as_ref().ok_or_else(|| {
            db_failure(anyhow::anyhow!(
                "this command needs a database, and {} is missing: `{}` makes it (or give --db \
                 FILE)",
                self.game.default_file_name(),
                self.game.generator_command()
            ))
        })
    }

    /// Where answers come from: live search (from the book, if any) for a
    /// game that has one, else the database.
    fn oracle(&self) -> Result<Box<dyn Oracle + '_>, Failure> {
        match self.game.live(self.db.as_ref(), self.table_bits) {
            // Searches that take a while show a spinner.
            Some(live) => live
                .map(Spinner::wrap)
                .map_err(|e| Failure::from(anyhow::Error::new(e))),
            None => Ok(Box::new(self.database()?)),
        }
    }
}

/// Writes `text` to stdout. A closed stdout comes back as an error that
/// [`main`] recognises and ends the program quietly on.
fn emit(text: &str) -> Result<(), Failure> {
    boardsolve::cli::emit(text).context("writing output")?;
    Ok(())
}

/// True when `e` comes from a damaged database (a contradiction among its
/// values, a value out of range, the start missing).
fn blames_the_database(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<QueryError>()
            .is_some_and(QueryError::is_corrupt)
            || c.downcast_ref::<StatsError>()
                .is_some_and(|s| matches!(s, StatsError::Query(q) if q.is_corrupt()))
    })
}

/// `--table-bits` (or its default) for `game`: a usage error when the
/// game is not answered by search, when the size is out of its range, and
/// when its searchers' tables would take more memory than is available.
fn checked_table_bits(game: &AnyGame, asked: Option<u32>) -> Result<u32, Failure> {
    let bits = asked.unwrap_or(DEFAULT_TABLE_BITS);
    match game.check_tables(default_searchers(), bits) {
        None if asked.is_some() => Err(usage(&format!(
            "--table-bits does not apply to {}, which is answered from its database without \
             search",
            game.label()
        ))),
        Some(Err(e)) if asked.is_some() => Err(usage(&format!("--table-bits {bits}: {e}"))),
        Some(Err(e)) => Err(usage(&format!(
            "the default --table-bits {bits}: {e}: give a smaller --table-bits"
        ))),
        None | Some(Ok(_)) => Ok(bits),
    }
}

/// The file at `path` holds `found`, not what was asked for.
fn wrong_game(path: &Path, expected: String, found: &AnyGame) -> Failure {
    db_failure(
        anyhow::Error::new(DbError::WrongGame {
            expected,
            found: found.label(),
        })
        .context(format!("database {}", path.display())),
    )
}

/// Opens and validates a database, and sets up its game.
fn open_db(path: &Path) -> Result<(Database, AnyGame), Failure> {
    AnyGame::open(path)
        .with_context(|| format!("database {}", path.display()))
        .map_err(db_failure)
}

/// What to answer: the full analysis, or win/draw/loss only.
#[derive(Clone, Copy)]
struct Mode {
    json: bool,
    pv: bool,
    color: bool,
    /// `--weak`: win, draw or loss only.
    weak: bool,
}

/// Why a position was not answered, and whether the database is to blame.
struct Refusal {
    message: String,
    /// The database is damaged: exit status 3 rather than 1.
    corrupt: bool,
}

impl Refusal {
    fn bad_line(message: String) -> Refusal {
        Refusal {
            message,
            corrupt: false,
        }
    }
}

impl From<boardsolve::PositionError> for Refusal {
    fn from(e: boardsolve::PositionError) -> Refusal {
        Refusal::bad_line(e.to_string())
    }
}

impl From<QueryError> for Refusal {
    fn from(e: QueryError) -> Refusal {
        Refusal {
            corrupt: e.is_corrupt(),
            message: e.to_string(),
        }
    }
}

/// The positions refused so far.
#[derive(Default)]
struct Refused {
    bad: u64,
    corrupt: u64,
}

impl Refused {
    fn add(&mut self, r: &Refusal) {
        self.bad += 1;
        self.corrupt += u64::from(r.corrupt);
    }

    fn merge(&mut self, other: Refused) {
        self.bad += other.bad;
        self.corrupt += other.corrupt;
    }

    /// The exit status: a damaged database first, then a bad position.
    fn status(&self) -> u8 {
        if self.corrupt > 0 {
            EXIT_DATABASE
        } else if self.bad > 0 {
            EXIT_FAILURE
        } else {
            EXIT_SUCCESS
        }
    }
}

/// Answers one position: the text to print, or why not.
fn answer_one(
    game: &dyn Presentation,
    db: &dyn Oracle,
    input: &str,
    mode: Mode,
) -> Result<String, Refusal> {
    let Mode {
        json,
        pv,
        color,
        weak,
    } = mode;
    let position = game.parse(input)?;
    if weak {
        let w = analyze_weak(game, db, &position)?;
        return Ok(if json {
            boardsolve::analysis::json::weak(game, input, &w)
        } else {
            answer::weak_human(game, &w)
        });
    }
    let a = analyze_position(game, db, &position)?;
    let line = if pv {
        Some(principal_variation(game, db, position.state)?)
    } else {
        None
    };
    Ok(if json {
        boardsolve::analysis::json::answer(game, input, &a, line.as_deref())
    } else {
        answer::human(game, &a, line.as_deref(), color)
    })
}

/// Lines answered together in batch mode: enough to keep both cores busy,
/// few enough that memory stays flat.
const BATCH: usize = 4096;

/// Answers positions from stdin, streaming. Returns the lines refused.
fn answer_stdin(
    game: &dyn Presentation,
    db: &dyn Oracle,
    mode: Mode,
    out: &mut impl Write,
) -> Result<Refused> {
    let json = mode.json;
    // A reader thread cuts stdin into batches while the workers answer the
    // previous one. A batch takes only lines already buffered, so a caller
    // that sends one line and waits for its answer is answered at once.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<lines::Line>>(2);
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || -> io::Result<()> {
            let mut input = io::BufReader::with_capacity(1 << 16, io::stdin());
            let mut buf = Vec::new();
            loop {
                let mut batch = Vec::with_capacity(BATCH);
                while batch.len() < BATCH && (batch.is_empty() || !input.buffer().is_empty()) {
                    match lines::next_line(&mut input, &mut buf)? {
                        Some(l) => batch.push(l),
                        None => break,
                    }
                }
                if batch.is_empty() || tx.send(batch).is_err() {
                    return Ok(());
                }
            }
        });
        let mut refused = Refused::default();
        let mut line_no = 0u64;
        for batch in rx {
            let answers: Vec<(String, Result<String, Refusal>)> = batch
                .into_par_iter()
                .map(|line| match line {
                    lines::Line::Text(t) => {
                        let r = answer_one(game, db, &t, mode);
                        (t, r)
                    }
                    lines::Line::BadUtf8(t) => (
                        t,
                        Err(Refusal::bad_line(
                            "input line is not valid UTF-8".to_owned(),
                        )),
                    ),
                    lines::Line::TooLong(t) => (
                        t,
                        Err(Refusal::bad_line(format!(
                            "input line is longer than {} bytes",
                            lines::MAX_LINE
                        ))),
                    ),
                })
                .collect();
            for (input, r) in answers {
                line_no += 1;
                match r {
                    Ok(text) => {
                        out.write_all(text.as_bytes())?;
                        out.write_all(b"\n")?;
                    }
                    Err(e) => {
                        refused.add(&e);
                        if json {
                            writeln!(
                                out,
                                "{}",
                                boardsolve::analysis::json::error(&input, &e.message)
                            )?;
                        } else {
                            eprintln!("query: line {line_no}: {}", e.message);
                        }
                    }
                }
            }
            // Let a pipeline see each batch of answers as soon as it is ready.
            out.flush()?;
        }
        match reader.join() {
            Ok(r) => r.context("reading stdin")?,
            Err(_) => anyhow::bail!("the stdin reader failed"),
        }
        if json && refused.corrupt > 0 {
            // The errors went to stdout, one per line; the exit status
            // alone would leave a person at a terminal guessing.
            eprintln!(
                "query: error: database corrupted: {} line{} met a damaged record (run `query verify`)",
                refused.corrupt,
                if refused.corrupt == 1 { "" } else { "s" }
            );
        }
        Ok(refused)
    })
}

fn run_ask(db_args: &DbArgs, ask: &Ask, color: bool) -> Result<u8, Failure> {
    if ask.svg.is_some() && (ask.positions.len() > 1 || ask.positions.iter().any(|p| p == "-")) {
        return Err(Failure {
            code: EXIT_USAGE,
            error: anyhow::anyhow!("--svg draws one position: give exactly one POSITION (not `-`)"),
        });
    }
    let source = Source::open(db_args)?;
    let oracle = source.oracle()?;
    let oracle = &*oracle;
    let mode = Mode {
        json: db_args.json,
        pv: ask.pv,
        color,
        weak: ask.weak,
    };
    let json = db_args.json;
    let game = source.game.present();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let start = ["start".to_owned()];
    let positions: &[String] = if ask.positions.is_empty() {
        &start
    } else {
        &ask.positions
    };
    let mut refused = Refused::default();
    let mut first = true;
    for p in positions {
        if p == "-" {
            if let Some(db) = &source.db {
                db.build_index();
            }
            refused.merge(answer_stdin(game, oracle, mode, &mut out)?);
            continue;
        }
        if p.len() > lines::MAX_LINE {
            // As in batch mode: an error that quotes its input stays short.
            let e = Refusal::bad_line(format!("position is longer than {} bytes", lines::MAX_LINE));
            refused.add(&e);
            if json {
                let head: String = p.chars().take(40).collect();
                writeln!(
                    out,
                    "{}",
                    boardsolve::analysis::json::error(&head, &e.message)
                )
                .context("writing output")?;
            }
            out.flush().context("writing output")?;
            eprintln!("query: error: {}", e.message);
            first = false;
            continue;
        }
        if let Some(path) = &ask.svg {
            if let Err(e) = write_svg(game, oracle, p, path) {
                out.flush().context("writing output")?;
                return Err(e);
            }
            if path == Path::new("-") {
                // The picture is the answer.
                continue;
            }
        }
        match answer_one(game, oracle, p, mode) {
            Ok(text) => {
                if !json && !first {
                    writeln!(out).context("writing output")?;
                }
                write!(out, "{text}").context("writing output")?;
                if json {
                    writeln!(out).context("writing output")?;
                }
            }
            Err(e) => {
                refused.add(&e);
                if json {
                    writeln!(out, "{}", boardsolve::analysis::json::error(p, &e.message))
                        .context("writing output")?;
                }
                out.flush().context("writing output")?;
                eprintln!("query: error: {}", e.message);
            }
        }
        first = false;
    }
    out.flush().context("writing output")?;
    Ok(refused.status())
}

/// Writes the SVG picture of one position to `path` (`-`: stdout).
fn write_svg(
    game: &dyn Presentation,
    db: &dyn Oracle,
    input: &str,
    path: &Path,
) -> Result<(), Failure> {
    let position = game.parse(input).map_err(anyhow::Error::new)?;
    let a = analyze_position(game, db, &position).map_err(anyhow::Error::new)?;
    let picture = boardsolve::analysis::picture::svg(game, &a)
        .ok_or_else(|| anyhow::anyhow!("{} has no SVG picture", game.descriptor().name))?;
    if path == Path::new("-") {
        let mut out = io::stdout().lock();
        out.write_all(picture.as_bytes())
            .and_then(|()| out.flush())
            .context("writing the SVG to stdout")?;
    } else {
        std::fs::write(path, picture)
            .with_context(|| format!("writing the SVG to {}", path.display()))?;
    }
    Ok(())
}

fn run_verify(db_args: &DbArgs, quiet: bool) -> Result<u8, Failure> {
    let json = db_args.json;
    let source = Source::open(db_args)?;
    let (db, game) = (source.database()?, &source.game);
    let bars = Bars::new(quiet);
    let path = source.path.clone();
    match verify(db, game.game(), &bars) {
        Ok(report) => {
            if json {
                let j = serde_json::json!({
                    "db": path, "ok": true, "game": game.game().descriptor().name,
                    "variant": game.game().descriptor().variant,
                    "records": report.records, "children_checked": report.children_checked,
                });
                emit(&format!("{j}\n"))?;
            } else {
                let checks = match db.header().kind {
                    LayoutKind::Sorted => "checksums, order, canonical keys",
                    LayoutKind::Dense => "checksums",
                };
                emit(&format!(
                    "{path}: OK: {} ({} records): {checks}{}\n",
                    game.label(),
                    report.records,
                    if report.children_checked {
                        ", every value re-derived from its children".to_owned()
                    } else {
                        match report.derived {
                            1 => ", the 1 position whose children are in the book re-derived \
                                  from them"
                                .to_owned(),
                            n => format!(
                                ", the {n} positions whose children are in the book re-derived \
                                 from them"
                            ),
                        }
                    }
                ))?;
            }
            Ok(EXIT_SUCCESS)
        }
        Err(e) => {
            if json {
                emit(&format!(
                    "{}\n",
                    serde_json::json!({"db": path, "ok": false, "error": e.to_string()})
                ))?;
            }
            Err(db_failure(
                anyhow::Error::new(e).context(format!("{path} failed verification")),
            ))
        }
    }
}

fn run_info(db_args: &DbArgs) -> Result<u8, Failure> {
    let json = db_args.json;
    let source = Source::open(db_args)?;
    let (db, game) = (source.database()?, &source.game);
    let h = db.header();
    let g = game.present();
    let start = g.start();
    let start_value = boardsolve::analysis::stored_value(g, db, start, g.canonical(start))
        .map_err(|e| db_failure(anyhow::Error::new(e).context(source.path.clone())))?;
    let file_bytes = db.file_len();
    if json {
        let line = boardsolve::analysis::json::info(&source.path, db, g)
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

fn run_play(db_args: &DbArgs, args: &PlayArgs, color: bool) -> Result<u8, Failure> {
    if db_args.json {
        return Err(usage(
            "--json does not apply to play, which talks to people",
        ));
    }
    let source = Source::open(db_args)?;
    let oracle = source.oracle()?;
    play_with(source.game.present(), &*oracle, args, color)
}

fn play_with(
    game: &dyn Presentation,
    db: &dyn Oracle,
    args: &PlayArgs,
    color: bool,
) -> Result<u8, Failure> {
    let start = match &args.position {
        Some(text) => {
            let p = game.parse(text).map_err(anyhow::Error::new)?;
            analyze_position(game, db, &p).map_err(anyhow::Error::new)?;
            p
        }
        None => {
            let state = game.start();
            boardsolve::Position {
                state,
                to_move: game.to_move(state),
                // Nobody has scored before the first move.
                lead: Some(game.lead(state).unwrap_or(0)),
            }
        }
    };
    let seed = match (args.seed, args.random) {
        (Some(seed), _) => Some(seed),
        (None, true) => Some(fastrand::u64(..)),
        (None, false) => None,
    };
    let opts = play::Options {
        ai: args.ai,
        seed,
        color,
    };
    play::run(play::Session::new(game, db, start, opts))?;
    Ok(EXIT_SUCCESS)
}

fn run_serve(db_args: &DbArgs, args: &serve::ServeArgs) -> Result<u8, Failure> {
    if db_args.json {
        return Err(usage(
            "--json does not apply to serve, whose answers are JSON",
        ));
    }
    args.check().map_err(|e| usage(&e))?;
    let (sources, searched) = if db_args.db.is_empty() {
        // The default file of --game and --variant, or search alone for a
        // game that has it, as `query` answers.
        let source = Source::open(db_args)?;
        let searched = vec![source.game.clone()];
        match source.db {
            Some(_) => (
                vec![serve::Source::File(PathBuf::from(&source.path))],
                searched,
            ),
            None => (vec![serve::Source::Search(Box::new(source.game))], searched),
        }
    } else {
        if db_args.game.is_some() || db_args.variant.is_some() {
            return Err(usage(
                "--game and --variant do not apply to serve with --db: the files say their games",
            ));
        }
        let mut searched = Vec::new();
        for path in &db_args.db {
            searched.push(open_db(path)?.1);
        }
        (
            db_args
                .db
                .iter()
                .cloned()
                .map(serve::Source::File)
                .collect(),
            searched,
        )
    };
    // Search tables the machine cannot hold are refused before anything
    // is allocated: one for each search thread.
    let table_bits = db_args.table_bits.unwrap_or(serve::TABLE_BITS);
    for game in searched.iter().filter(|g| g.has_book()) {
        args.check_tables(game, table_bits).map_err(|e| usage(&e))?;
    }
    serve::run(sources, args, table_bits, db_args.cache_bytes())?;
    Ok(EXIT_SUCCESS)
}

fn run_stats(db_args: &DbArgs, args: &stats::StatsArgs) -> Result<u8, Failure> {
    let source = Source::open(db_args)?;
    let db = source.database()?;
    // The statistics read every record: a packed file is unpacked in
    // memory first.
    let unpacked;
    let db = if db.is_packed() {
        unpacked = db
            .unpack()
            .with_context(|| format!("database {}", source.path))
            .map_err(db_failure)?;
        &unpacked
    } else {
        db
    };
    db.build_index();
    stats::run(db, &source.game, &source.path, db_args.json, args)
}

/// Examples for `--help`, each run by the tests: one per game (its default
/// file, or live search), then the commands.
fn examples() -> Vec<String> {
    let mut lines = Vec::new();
    for (i, g) in registry::GAMES.iter().enumerate() {
        let game = if i == 0 {
            String::new()
        } else {
            format!("--game {} ", g.name)
        };
        lines.push(format!("query {game}\"{}\"", g.example));
    }
    let first = &registry::GAMES[0];
    lines.push(format!("query --json --pv \"{}\"", first.example));
    lines.push("query --json - < positions.txt".to_owned());
    lines.push("query --svg board.svg start".to_owned());
    lines.push("query play --ai second".to_owned());
    lines.push("query stats".to_owned());
    lines.push("query verify".to_owned());
    lines.push(format!(
        "query info --db {}.db",
        registry::GAMES[1].file_stem
    ));
    lines
}

/// The command line, with the games, examples and exit statuses of the
/// registry in its help.
fn command() -> clap::Command {
    let mut after = boardsolve::cli::wrap(
        "Games (POSITION is in the game's notation; `start`, or no POSITION, is the start; \
         `-` reads positions from stdin, one per line, and answers every line):",
        80,
        0,
        0,
    );
    after.push('\n');
    after.push_str(&registry::games_help());
    after.push_str("\nExamples (in a directory holding the default files):\n");
    for e in examples() {
        after.push_str("  ");
        after.push_str(&e);
        after.push('\n');
    }
    after.push('\n');
    after.push_str(EXIT_STATUS_HELP);
    let games = format!("one of: {}", registry::known_names());
    Cli::command()
        .after_long_help(after)
        .after_help(format!(
            "Games: {}. More, with examples and exit statuses: --help",
            registry::known_names()
        ))
        .mut_arg("table_bits", |a| {
            let help = a
                .get_long_help()
                .or(a.get_help())
                .map(|h| h.to_string())
                .unwrap_or_default();
            a.long_help(format!(
                "{help} [default: {DEFAULT_TABLE_BITS}, with {} searchers (one per core); \
                 `serve`: {}, with its --search-threads.] {}",
                default_searchers(),
                serve::TABLE_BITS,
                registry::table_bits_help()
            ))
        })
        .mut_arg("game", |a| {
            let help = a
                .get_long_help()
                .or(a.get_help())
                .map(|h| h.to_string())
                .unwrap_or_default();
            a.long_help(format!("{help} ({games})"))
        })
}

/// Ends the program on what clap says: help and version on stdout (exit 0,
/// or 1 if stdout cannot take them), usage errors on stderr (exit 2).
fn clap_exit(e: &clap::Error) -> ExitCode {
    if e.use_stderr() {
        let _ = e.print();
        return ExitCode::from(EXIT_USAGE);
    }
    ExitCode::from(boardsolve::cli::print_help(
        "query",
        &e.render().to_string(),
    ))
}

fn main() -> ExitCode {
    let cli = match command()
        .try_get_matches()
        .and_then(|m| Cli::from_arg_matches(&m))
    {
        Ok(cli) => cli,
        Err(e) => return clap_exit(&e),
    };
    let result = match &cli.command {
        None => run_ask(&cli.db, &cli.ask, cli.color.enabled()),
        Some(Command::Verify { quiet }) => run_verify(&cli.db, *quiet),
        Some(Command::Info) => run_info(&cli.db),
        Some(Command::Pack(args)) => pack::run_pack(&cli.db, args),
        Some(Command::Unpack(args)) => pack::run_unpack(&cli.db, args),
        Some(Command::Stats(args)) => run_stats(&cli.db, args),
        Some(Command::Serve(args)) => run_serve(&cli.db, args),
        // A scripted session (stdin not a terminal) is not coloured unless
        // asked.
        Some(Command::Play(args)) => run_play(
            &cli.db,
            args,
            cli.color.enabled() && (cli.color == ColorWhen::Always || io::stdin().is_terminal()),
        ),
    };
    match result {
        Ok(code) => ExitCode::from(code),
        Err(f) => {
            // A closed pipe downstream is not an error worth reporting.
            if boardsolve::cli::is_broken_pipe(&*f.error) {
                return ExitCode::from(EXIT_SUCCESS);
            }
            eprintln!("query: error: {:#}", f.error);
            // Whatever command met it, a damaged database is exit 3.
            let code = if f.code == EXIT_FAILURE && blames_the_database(&f.error) {
                EXIT_DATABASE
            } else {
                f.code
            };
            ExitCode::from(code)
        }
    }
}
