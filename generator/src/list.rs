//! `generator --list-games`: the games, their variants and what their
//! databases are, from the registry, so that no game is named here.

use boardsolve::registry::{self, DatabaseKind};

use crate::failure::Failure;
use crate::output::emit;

/// Prints the list of games on stdout.
pub fn run() -> Result<(), Failure> {
    emit(&list_games())
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
