//! The flags checked against the game before any work, so that a usage
//! error never comes after minutes of solving.

use boardsolve::registry::AnyGame;

use crate::args::Args;
use crate::failure::{usage, Failure};
use crate::output::book_depth;

/// Checks the options against the game, before any work.
pub fn options(args: &Args, game: &AnyGame) -> Result<(), Failure> {
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
    if let Some(options) = args.pack_options().map_err(usage)? {
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
