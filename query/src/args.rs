//! The command line: every flag and command of `query`, and the help that
//! lists the registry's games, examples and exit statuses.

use std::io::{self, IsTerminal};
use std::net::SocketAddr;
use std::path::PathBuf;

use boardsolve::cli::{EXIT_STATUS_HELP, PACK_BLOCK_ENTRIES, PACK_LEVEL};
use boardsolve_probe::{
    default_searchers, game_names, games, games_help, table_bits_help, DEFAULT_CACHE_BYTES,
    DEFAULT_TABLE_BITS,
};
use clap::{Args, CommandFactory, Parser, Subcommand};

/// Answer positions of a solved game from its database: the exact value,
/// the remoteness, the best moves and the value of every legal move.
///
/// Nothing is solved: the position is canonicalised and looked up in the
/// memory-mapped file. Games with an opening book search the positions past
/// the book, and answer without any database too.
#[derive(Parser, Debug)]
#[command(version, about, long_about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,

    #[command(flatten)]
    pub db: DbArgs,

    #[command(flatten)]
    pub ask: Ask,

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
    pub color: ColorWhen,
}

/// When to colour the output.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorWhen {
    /// When stdout is a terminal and NO_COLOR is not set.
    Auto,
    /// Always.
    Always,
    /// Never.
    Never,
}

impl ColorWhen {
    /// True when the output is to be coloured.
    pub fn enabled(self) -> bool {
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

/// The flags every command takes: where answers come from, and how.
#[derive(Args, Debug, Clone)]
pub struct DbArgs {
    /// The database file [default: the default file of --game and --variant
    /// in the current directory (see the games below); for a game with an
    /// opening book, when that file is missing, the book that comes with
    /// the tools for the board, if any, and live search past it, or live
    /// search alone].
    /// (`serve` takes several.)
    #[arg(long, value_name = "FILE", global = true, action = clap::ArgAction::Append)]
    pub db: Vec<PathBuf>,

    /// The game [default: the first of the games below, or the game of
    /// --db]; with --db, fail unless the database holds it.
    #[arg(long, value_name = "NAME", global = true)]
    pub game: Option<String>,

    /// The variant [default: the game's standard one, or that of --db];
    /// with --db, fail unless the database holds it.
    #[arg(long, value_name = "SPEC", global = true)]
    pub variant: Option<String>,

    /// Machine-readable output: one JSON object per line.
    #[arg(long, global = true)]
    pub json: bool,

    /// Packed files: keep at most this many MiB of decoded blocks in
    /// memory (0 decodes every block a lookup needs afresh).
    #[arg(long, value_name = "MIB", global = true, default_value_t = DEFAULT_CACHE_MIB)]
    pub cache: usize,

    /// Games answered by search: `log2` of the entries of the search
    /// tables, kept from answer to answer.
    #[arg(long, value_name = "BITS", global = true)]
    pub table_bits: Option<u32>,

    /// Games answered by search: answer by search alone, ignoring any
    /// opening book (the default file, the book that comes with the tools,
    /// or --db's: then only its game and variant are read from it).
    #[arg(long, global = true)]
    pub no_book: bool,

    /// Games answered by search: the threads one answer may search on
    /// [default: the number of cores]. (`serve` takes --search-threads.)
    #[arg(long, value_name = "N", global = true)]
    pub threads: Option<usize>,
}

impl DbArgs {
    /// `--cache` in bytes.
    pub fn cache_bytes(&self) -> usize {
        self.cache.saturating_mul(1 << 20)
    }
}

/// The default of `--cache`: 64 MiB.
const DEFAULT_CACHE_MIB: usize = DEFAULT_CACHE_BYTES >> 20;

/// The flags of the answers (no command).
#[derive(Args, Debug)]
pub struct Ask {
    /// Also print the line of perfect play to the end of the game.
    #[arg(long)]
    pub pv: bool,

    /// Also draw the position with every legal move's value as an SVG
    /// picture (cells or edges coloured: win, tie, loss for the side to
    /// move; best moves outlined), written to FILE (`-`: stdout, instead of
    /// the answer). One position only.
    #[arg(long, value_name = "FILE")]
    pub svg: Option<PathBuf>,

    /// Win, draw or loss only, for the position and every move (much
    /// faster than exact values where positions are searched).
    #[arg(long, conflicts_with_all = ["pv", "svg"])]
    pub weak: bool,

    /// Positions to answer (`-` reads them from stdin).
    #[arg(value_name = "POSITION")]
    pub positions: Vec<String>,
}

/// The commands.
#[derive(Subcommand, Debug)]
pub enum Command {
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
    Pack(PackArgs),
    /// Write the sorted or dense file a packed database holds, byte for
    /// byte as it was packed.
    Unpack(UnpackArgs),
    /// Facts about the whole game, from the database alone: states by
    /// layer and value, the ends of the game and who wins them, the number
    /// of distinct complete games and who wins them, the start's first-move
    /// map, and how often each heuristic misses a perfect move.
    ///
    /// With --heuristic NAME, only that heuristic, with example positions
    /// where it fails: the position, the moves it picks and the best moves,
    /// with their values. An unknown NAME is a usage error (exit status 2).
    /// The move map of any other position is plain `query POSITION`.
    Stats(StatsArgs),
    /// Walk the game from a position, or play against the perfect player.
    ///
    /// Shows the board, the side to move, the exact value, every legal
    /// move's value and the best moves; then reads commands: a move, `pass`
    /// (in a game with forced passes, when forced), `undo`, `redo`, `restart`, `go POSITION`, `pv`,
    /// `best`, `show`, `history`, `help`, `quit`. At the end of a game it
    /// gives the final score and each side's mistakes.
    ///
    /// With stdin a terminal, commands are edited with history (arrow
    /// keys); otherwise they are read one per line without prompts, so
    /// sessions can be scripted. `quit` or the end of input ends the
    /// session with exit status 0.
    Play(PlayArgs),
    /// Serve the databases over HTTP (each --db FILE, or what `query` would
    /// answer from: the default file of --game and --variant, or, when it
    /// is missing, the book that comes with the tools and the search past
    /// it, or the search alone), on localhost unless --addr
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
    Serve(ServeArgs),
}

/// The flags of `query play`.
#[derive(Args, Debug)]
pub struct PlayArgs {
    /// The sides the program plays: `first` (or X, A), `second` (or O, B),
    /// or `both` (it plays itself to the end, then exits).
    #[arg(long, value_name = "SIDE")]
    pub ai: Option<AiSide>,

    /// Let the program choose at random among its best moves, rather than
    /// the quickest win or the longest resistance.
    #[arg(long)]
    pub random: bool,

    /// Seed of --random's choices, to replay a game (implies --random;
    /// without it a seed is drawn and printed).
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,

    /// The position to start from (default: the start of the game).
    #[arg(value_name = "POSITION")]
    pub position: Option<String>,
}

/// Examples for `--help`, each run by the tests: one per game (its default
/// file, or live search), then the commands.
fn examples() -> Vec<String> {
    let mut lines = Vec::new();
    let all: Vec<_> = games().collect();
    for (i, g) in all.iter().enumerate() {
        let game = if i == 0 {
            String::new()
        } else {
            format!("--game {} ", g.name())
        };
        lines.push(format!("query {game}\"{}\"", g.example()));
    }
    if let Some(first) = all.first() {
        lines.push(format!("query --json --pv \"{}\"", first.example()));
    }
    lines.push("query --json - < positions.txt".to_owned());
    lines.push("query --svg board.svg start".to_owned());
    lines.push("query play --ai second".to_owned());
    lines.push("query stats".to_owned());
    lines.push("query verify".to_owned());
    if let Some(second) = all.get(1) {
        lines.push(format!("query info --db {}.db", second.file_stem()));
    }
    lines
}

/// The one sign rule, and what each game's value counts: the long
/// sentences said once, here, rather than on every answer.
fn values_help() -> String {
    let mut o = boardsolve::cli::wrap(
        "Values: a position's value is for the side to move, and a move's value for the \
         side making it; positive is a win for that side. Only `final_for_first` in JSON, \
         the explorer's chart and `play`'s history are the first player's. Each game's \
         value:",
        80,
        0,
        0,
    );
    o.push('\n');
    for g in boardsolve_probe::games() {
        if let Ok(game) = boardsolve_probe::Game::new(g.name(), "") {
            o.push_str("  ");
            o.push_str(&boardsolve::cli::wrap(
                &format!("{}: {}.", g.name(), game.score_meaning()),
                80,
                2,
                4,
            ));
            o.push('\n');
        }
    }
    o
}

/// The command line, with the games, examples and exit statuses of the
/// registry in its help.
pub fn command() -> clap::Command {
    let mut after = boardsolve::cli::wrap(
        "Games (POSITION is in the game's notation; `start`, or no POSITION, is the start; \
         `-` reads positions from stdin, one per line, and answers every line):",
        80,
        0,
        0,
    );
    after.push('\n');
    after.push_str(&games_help());
    after.push('\n');
    after.push_str(&values_help());
    after.push_str("\nExamples (in a directory holding the default files):\n");
    for e in examples() {
        after.push_str("  ");
        after.push_str(&e);
        after.push('\n');
    }
    after.push('\n');
    after.push_str(EXIT_STATUS_HELP);
    let names = format!("one of: {}", game_names());
    Cli::command()
        .after_long_help(after)
        .after_help(format!(
            "Games: {}. More, with examples and exit statuses: --help",
            game_names()
        ))
        .mut_arg("table_bits", |a| {
            let help = a
                .get_long_help()
                .or(a.get_help())
                .map(|h| h.to_string())
                .unwrap_or_default();
            a.long_help(format!(
                "{help} [default: sized by the game and board, {DEFAULT_TABLE_BITS} unless \
                 its searches were measured to need more, and then at most half the memory \
                 available; with {} searchers (one per core); `serve`: {}, with its \
                 --search-threads.] {}",
                default_searchers(),
                SERVE_TABLE_BITS,
                table_bits_help()
            ))
        })
        .mut_arg("game", |a| {
            let help = a
                .get_long_help()
                .or(a.get_help())
                .map(|h| h.to_string())
                .unwrap_or_default();
            a.long_help(format!("{help} ({names})"))
        })
}

/// `query pack`'s arguments.
#[derive(Args, Debug)]
pub struct PackArgs {
    /// The database to pack (sorted or dense; a packed one is packed again
    /// with these options).
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// The packed file to write (replaced atomically if it exists).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,

    /// Entries per block, a power of two from 64 to 1048576: larger blocks
    /// compress better, smaller ones decode faster.
    #[arg(long, value_name = "N", default_value_t = PACK_BLOCK_ENTRIES)]
    pub block_entries: u32,

    /// DEFLATE level, 1 (fastest) to 10 (smallest).
    #[arg(long, value_name = "L", default_value_t = PACK_LEVEL)]
    pub level: u8,

    /// No progress bar.
    #[arg(short, long)]
    pub quiet: bool,
}

/// `query unpack`'s arguments.
#[derive(Args, Debug)]
pub struct UnpackArgs {
    /// The packed database.
    #[arg(value_name = "IN")]
    pub input: PathBuf,

    /// The sorted or dense file to write: the file that was packed, byte
    /// for byte (replaced atomically if it exists).
    #[arg(short, long, value_name = "OUT")]
    pub output: PathBuf,
}

/// Options of `query stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Report only this heuristic, with example positions where it fails
    /// (10 unless --examples says otherwise).
    #[arg(long, value_name = "NAME")]
    pub heuristic: Option<String>,

    /// Example positions to list for each heuristic reported.
    #[arg(long, value_name = "N")]
    pub examples: Option<usize>,
}

/// The flags of `query serve`.
#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (a port of 0 picks a free one; the address is
    /// printed on stdout). Listening beyond localhost must be asked for.
    #[arg(long, default_value = "127.0.0.1:7878")]
    pub addr: SocketAddr,

    /// Time limit of one answer that needs a search (a position past an
    /// opening book, or any position of a game served without a file), in
    /// seconds, waiting in the queue included; past it the search stops and
    /// the answer is status 503.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub time_limit: f64,

    /// Searches that run at once, each on its own thread [default: the
    /// number of cores]. However many clients ask, no more run.
    #[arg(long, value_name = "N")]
    pub search_threads: Option<usize>,

    /// Requests for a search that may wait for a search thread; past them
    /// a request is refused at once with 503 (a waiting request counts
    /// against its --time-limit).
    #[arg(long, value_name = "N", default_value_t = 16)]
    pub search_queue: usize,

    /// Connections open at once [default: 1024, or half the process's limit
    /// of open files if that is less]; at the cap a new connection takes
    /// the place of the one idle the longest, or is closed at once when
    /// none is idle.
    #[arg(long, value_name = "N")]
    pub max_connections: Option<usize>,

    /// Time a client has to send a request's header, from its first byte,
    /// in seconds; past it the connection is closed.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    pub header_timeout: f64,

    /// Time a connection may stay open between requests, in seconds.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub idle_timeout: f64,

    /// How long answers stay valid, in seconds, as Cache-Control's max-age
    /// (answers carry an ETag: a client that asks again with If-None-Match
    /// gets 304 while the database is the same).
    #[arg(long, value_name = "SECONDS", default_value_t = 3600)]
    pub max_age: u64,

    /// Let pages from ORIGIN (e.g. `https://example.org`, or `*` for any)
    /// call the API (CORS). May be given several times.
    #[arg(long, value_name = "ORIGIN")]
    pub cors: Vec<String>,
}

/// `log2` of the entries of `query serve`'s search tables when
/// `--table-bits` is not given (8 bytes each: 32 MiB a table).
pub const SERVE_TABLE_BITS: u32 = 22;

/// Which sides the program plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AiSide {
    /// The player who moves first (also `x` or `a`).
    First,
    /// The player who moves second (also `o` or `b`).
    Second,
    /// Both players: the program plays itself to the end, then exits.
    Both,
}

impl std::str::FromStr for AiSide {
    type Err = String;

    /// `first` (or `X`, `A`), `second` (or `O`, `B`) or `both`, in any case.
    fn from_str(s: &str) -> Result<AiSide, String> {
        match s.to_ascii_lowercase().as_str() {
            "first" | "x" | "a" => Ok(AiSide::First),
            "second" | "o" | "b" => Ok(AiSide::Second),
            "both" => Ok(AiSide::Both),
            _ => Err("the sides are first (or X, A), second (or O, B) and both".to_owned()),
        }
    }
}
