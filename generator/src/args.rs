//! The command line: every flag of `generator`, and the help that lists the
//! registry's games and the exit statuses. It imports no other module, so
//! that every mode can read the flags without a loop.

use std::path::PathBuf;

use boardsolve::cli::EXIT_STATUS_HELP;
use boardsolve::cli::PACK_BLOCK_ENTRIES;
use boardsolve::db::pack::PackOptions;
use boardsolve::registry;
use clap::{CommandFactory, Parser};

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
pub struct Args {
    /// Output file [default: the game's default file: STEM.db for its
    /// standard variant, STEM-VARIANT.db (the variant's commas as dashes)
    /// for the others; the stems are below]. An existing regular file is
    /// replaced atomically; a symbolic link is replaced by the file itself
    /// (what it points to is left alone); anything else (a directory, a
    /// device, a named pipe) is refused before any work.
    #[arg(short, long, value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// Game to solve (see --list-games).
    #[arg(long, value_name = "NAME", default_value = registry::GAMES[0].name)]
    pub game: String,

    /// Variant of the game, e.g. `4x4`, `center-allowed`, `3x4` (see
    /// --list-games). Empty for the standard game.
    #[arg(long, value_name = "SPEC", default_value = "")]
    pub variant: String,

    /// Games with an opening book: write the book of every position of at
    /// most N moves (see --list-games for each game's default). On their
    /// boards solved completely, writes the book of depth N instead. An
    /// interrupted run resumes from OUTPUT.partial-depthN.
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,

    /// Games with an opening book: the searches' transposition table takes
    /// 2^B words of 8 bytes (default 26, 512 MiB, mapped as it fills).
    #[arg(long, value_name = "B")]
    pub table_bits: Option<u32>,

    /// How the file stores the records: `plain`, the game's sorted or dense
    /// layout, mapped and read as it is; or `packed`, the same records in
    /// compressed blocks with an index (several times smaller; every reader
    /// opens it, and `query unpack` gives the plain file back byte for
    /// byte).
    #[arg(long, value_enum, value_name = "LAYOUT", default_value = "plain")]
    pub layout: Layout,

    /// With --layout packed: entries per block, a power of two from 64 to
    /// 1048576 (default 4096).
    #[arg(long, value_name = "N")]
    pub block_entries: Option<u32>,

    /// Worker threads (default: one per core).
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,

    /// No progress bars and no estimate.
    #[arg(short, long)]
    pub quiet: bool,

    /// Print the summary as one JSON object on stdout.
    #[arg(long)]
    pub json: bool,

    /// List the known games, their variants and defaults, and exit.
    #[arg(long)]
    pub list_games: bool,
}

/// How the file stores its records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Layout {
    /// The game's sorted or dense layout.
    Plain,
    /// Compressed blocks with an index.
    Packed,
}

impl Args {
    /// The packing `--layout` and `--block-entries` ask for: `None` for the
    /// plain layout (where `--block-entries` does not apply).
    pub fn pack_options(&self) -> Result<Option<PackOptions>, String> {
        match (self.layout, self.block_entries) {
            (Layout::Plain, Some(_)) => {
                Err("--block-entries applies to --layout packed only".into())
            }
            (Layout::Plain, None) => Ok(None),
            (Layout::Packed, n) => Ok(Some(PackOptions {
                block_entries: n.unwrap_or(PACK_BLOCK_ENTRIES),
                ..PackOptions::default()
            })),
        }
    }
}

/// The command line, with the games and exit statuses of the registry in
/// its help.
pub fn command() -> clap::Command {
    let mut after = String::from("Games:\n");
    after.push_str(&registry::games_help());
    after.push('\n');
    after.push_str(EXIT_STATUS_HELP);
    Args::command().after_long_help(after).after_help(format!(
        "Games: {}. More, with variants and exit statuses: --help",
        registry::known_names()
    ))
}
