//! What the live searches add to the registry (feature `search`): the help
//! of `--table-bits`, and [`AnyGame`]'s searches, from its book or without
//! a database.

use std::sync::Arc;

use super::{AnyGame, SearchHelp, GAMES};
use crate::core::{BookSource, Oracle};
use crate::db::Database;
use crate::solve::book::BookError;
use crate::solve::live::default_searchers;

/// The games answered by search, by name, with what the help of
/// `--table-bits` says of each, in the order it lists them: the most
/// shared tables first, then as in [`GAMES`].
pub(super) fn searched() -> Vec<(&'static str, SearchHelp)> {
    let mut searched: Vec<_> = GAMES
        .iter()
        .filter_map(|info| Some((info.name, info.search_help?)))
        .collect();
    searched.sort_by_key(|(_, help)| help.sharing);
    searched
}

/// The `--table-bits` some game answered by search takes: from the
/// smallest of their ranges' starts to the largest of their ends.
pub fn table_bits_bounds() -> std::ops::RangeInclusive<u32> {
    let ranges: Vec<_> = searched()
        .iter()
        .filter_map(|(name, help)| {
            let game = AnyGame::new(name, help.variant).ok()?;
            Some(game.book_game()?.table_bits_range())
        })
        .collect();
    let start = ranges.iter().map(|r| *r.start()).min().unwrap_or(0);
    let end = ranges.iter().map(|r| *r.end()).max().unwrap_or(0);
    start..=end
}

/// What `--table-bits` takes, game by game, for help texts: the range of
/// each game answered by search and how its searchers share the tables,
/// in one paragraph.
pub fn table_bits_help() -> String {
    let games: Vec<String> = searched()
        .iter()
        .map(|(name, help)| {
            let game = AnyGame::new(name, help.variant).ok();
            let book = game.as_ref().and_then(|g| g.book_game());
            let range = book.map_or_else(String::new, |b| {
                let r = b.table_bits_range();
                format!("{} to {}", r.start(), r.end())
            });
            let default = match (&game, book) {
                (Some(g), Some(b)) => format!(
                    " (by default {} on {} here)",
                    b.default_table_bits(default_searchers()),
                    g.label()
                ),
                _ => String::new(),
            };
            format!(
                "{} takes {range}{default} and {}",
                help.subject,
                help.sharing.says()
            )
        })
        .collect();
    format!(
        "The tables hold 2^BITS entries of 8 bytes: 26 is 512 MiB, each bit more doubles \
         it. {}. A size larger than the memory available is refused (exit status 2).",
        games.join("; ")
    )
}

impl AnyGame {
    /// True when answers come from search: a game with a book, or any
    /// game whose positions can be searched when its database is missing.
    pub fn searched_with(&self, db: Option<&Database>) -> bool {
        self.book_game().is_some() && (db.is_none() || self.has_book())
    }

    /// Live search: answers any position, from `book` when given (a
    /// database of this game and variant) and by search otherwise; `None`
    /// for a game without search, and when `book` holds every position
    /// (a complete database answers alone). Its searchers are one per
    /// thread ([`default_searchers`]), with their tables checked first
    /// ([`crate::solve::book::DynBookGame::check_tables`]).
    #[cfg(test)]
    pub(crate) fn live<'a>(
        &self,
        book: Option<&'a Database>,
        table_bits: u32,
    ) -> Option<Result<Box<dyn Oracle + 'a>, BookError>> {
        if !self.searched_with(book) {
            return None;
        }
        let book = book.map(|b| b as &dyn BookSource);
        Some(self.book_game()?.live(book, table_bits))
    }

    /// `AnyGame::live` with `searchers` searchers on a database it
    /// shares, so that the live search (its searchers and their tables)
    /// can be kept beside the database from call to call.
    pub fn live_shared(
        &self,
        book: Option<Arc<Database>>,
        table_bits: u32,
        searchers: usize,
    ) -> Option<Result<Box<dyn Oracle + Send + Sync>, BookError>> {
        if !self.searched_with(book.as_deref()) {
            return None;
        }
        let book = book.map(|b| b as Arc<dyn BookSource + Send + Sync>);
        Some(self.book_game()?.live_shared(book, table_bits, searchers))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The help of `--table-bits` quotes, for every game answered by
    /// search, a variant that is, most shared tables first.
    #[test]
    fn search_help_quotes_searched_variants() {
        let searched = searched();
        assert!(!searched.is_empty());
        assert!(searched
            .windows(2)
            .all(|w| w[0].1.sharing <= w[1].1.sharing));
        let (help, bounds) = (table_bits_help(), table_bits_bounds());
        for (name, h) in &searched {
            let game = AnyGame::new(name, h.variant).unwrap();
            let book = game.book_game().expect("a variant answered by search");
            let range = book.table_bits_range();
            let default = book.default_table_bits(default_searchers());
            assert!(range.contains(&default));
            let says = format!(
                "{} takes {} to {} (by default {default} on {} here) and {}",
                h.subject,
                range.start(),
                range.end(),
                game.label(),
                h.sharing.says()
            );
            assert!(help.contains(&says), "{help}");
            assert!(bounds.contains(range.start()) && bounds.contains(range.end()));
        }
    }
}
