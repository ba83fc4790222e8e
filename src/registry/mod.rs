//! The games this build knows, by name: the top of the library. The one
//! list of games is [`GAMES`], below; what each game is (help texts,
//! variants, default files, which solver builds its database and what that
//! costs) it declares in its own folder, as data ([`GameInfo`]) and one
//! trait ([`RegisteredGame`]), so that the command-line tools and the
//! layers below know no game by heart. [`AnyGame`] is a game of the list
//! set up for one variant. The steps that add a game are beside the list.
//!
//! The search (feature `search`) and the solvers (feature `engine`) add
//! to [`AnyGame`] in modules of their own, so that each feature is applied
//! once, where its module is declared.

use std::sync::Arc;

use crate::core::{Game, VariantError};
use crate::db::{check_header, Database, DbError, Header};
use crate::games::{british_square, connect_four, dandelions, dots_and_boxes, k_in_a_row};
use crate::render::Presentation;

pub use crate::games::registered::{DatabaseKind, GameInfo, ShippedBook};
pub(crate) use crate::games::registered::{RegisteredGame, SearchHelp};

#[cfg(feature = "engine")]
mod engine;
#[cfg(feature = "search")]
mod search;

#[cfg(feature = "search")]
pub use search::{table_bits_bounds, table_bits_help};
#[cfg(feature = "engine")]
pub use {
    crate::games::registered::{Calibration, Estimate, TimeScale},
    engine::{CalibrationError, SampleTiming},
};

/// Every game this build knows, in the order help texts list them; the
/// first is the tools' default.
///
/// # Adding a game
/// 1. Make a folder `src/games/NAME/` with the rules (`game.rs`, the
///    [`Game`] trait), the looks (`present.rs`, [`Presentation`]) and, in
///    `mod.rs`, its declaration: a `pub const INFO: GameInfo` (name, a
///    numeric id no other game has, help texts, default file stem, what
///    its database holds, other names, constructor) and `impl
///    RegisteredGame`. A game whose moves never return to an earlier
///    layer gets the layered solver by default; one with a solver of its
///    own names it there.
/// 2. Declare the folder in `src/games/mod.rs` (`pub mod NAME;`).
/// 3. Add `NAME::INFO` to this list, in the order help texts list the
///    games.
/// 4. Give it its id and key layout in `format-spec.md` and a page in
///    `docs/`; `cargo test -p boardsolve registry` checks that its id and
///    names are unique and that its declaration agrees with its rules.
///
/// `docs/architecture.md` says the same at more length.
pub const GAMES: &[GameInfo] = &[
    british_square::INFO,
    dots_and_boxes::INFO,
    connect_four::INFO,
    dandelions::INFO,
    k_in_a_row::INFO,
];

/// A game of [`GAMES`] set up for one variant: its entry, and the game as
/// a trait object, which it dereferences to (its rules, looks and
/// declaration). Cloning it shares the game.
#[derive(Clone)]
pub struct AnyGame {
    info: &'static GameInfo,
    game: Arc<dyn RegisteredGame>,
}

impl std::fmt::Debug for AnyGame {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("AnyGame").field(&self.label()).finish()
    }
}

impl std::ops::Deref for AnyGame {
    type Target = dyn RegisteredGame;

    fn deref(&self) -> &(dyn RegisteredGame + 'static) {
        &*self.game
    }
}

impl AnyGame {
    /// Sets up a game by name (or by another name of one of its variants)
    /// and variant spec (empty for the default).
    pub fn new(name: &str, variant: &str) -> Result<AnyGame, GameError> {
        for info in GAMES {
            if name == info.name {
                let game = (info.new)(variant)?;
                return Ok(AnyGame { info, game });
            }
            if let Some(&(alias, spec)) = info.aliases.iter().find(|a| a.0 == name) {
                let game = AnyGame {
                    info,
                    game: (info.new)(spec)?,
                };
                // The alias is one variant: another spelling of it is
                // taken (`3x3` for tic-tac-toe), another variant is not.
                if !variant.is_empty() && variant != spec {
                    let same = (info.new)(variant).is_ok_and(|other| {
                        other.descriptor().variant == game.game().descriptor().variant
                    });
                    if !same {
                        return Err(GameError::AliasVariant {
                            alias: alias.to_owned(),
                            game: info.name.to_owned(),
                            spec: game.game().descriptor().variant.clone(),
                            variant: variant.to_owned(),
                        });
                    }
                }
                return Ok(game);
            }
        }
        Err(unknown_game(name))
    }

    /// The game's registry entry.
    pub fn info(&self) -> &'static GameInfo {
        self.info
    }

    /// The game, as a trait object of its own.
    pub(crate) fn shared(&self) -> Arc<dyn Game> {
        self.game.clone()
    }

    /// The game, as a trait object.
    pub fn game(&self) -> &dyn Game {
        &*self.game
    }

    /// The game with its presentation, as a trait object.
    pub fn present(&self) -> &dyn Presentation {
        &*self.game
    }

    /// True for games whose database may be an opening book and whose
    /// positions can be searched: the games whose standard database is a
    /// book, on every board, and the others on the boards whose database is
    /// (`AnyGame::build_book`, `AnyGame::live`).
    pub fn has_book(&self) -> bool {
        matches!(self.info.kind, DatabaseKind::Book { .. })
            || matches!(self.database_kind(), DatabaseKind::Book { .. })
    }

    /// Sets up the game a database header names, and checks that the header
    /// describes a database of it as this build writes them.
    pub fn from_header(header: &Header) -> Result<AnyGame, OpenError> {
        let game = AnyGame::new(&header.game_name, &header.variant)?;
        check_header(game.game(), header)?;
        Ok(game)
    }

    /// Opens and validates the database at `path`, and sets up its game:
    /// the header is checked against the game before the file is mapped.
    pub fn open(path: &std::path::Path) -> Result<(Database, AnyGame), OpenError> {
        let (db, game) = Database::open_checked(path, AnyGame::from_header)?;
        Ok(AnyGame::ready(db, game))
    }

    /// Sets up the database `db` opened with its game `game`: a packed
    /// dense table is given its game's symmetries.
    fn ready(db: Database, game: AnyGame) -> (Database, AnyGame) {
        if db.is_packed() {
            db.set_canonical(game.shared());
        }
        (db, game)
    }

    /// [`AnyGame::open`] on the bytes of a database file; `name` stands
    /// for its path in messages.
    pub fn open_bytes(name: &str, bytes: &[u8]) -> Result<(Database, AnyGame), OpenError> {
        let (db, game) = Database::from_bytes_checked(name, bytes, AnyGame::from_header)?;
        Ok(AnyGame::ready(db, game))
    }

    /// [`AnyGame::open`] on a file read by ranges (see
    /// [`crate::db::RangeFile`]): fails with a `NotLoaded` database error
    /// until the file's header (and a packed file's index) are supplied.
    pub fn open_ranges(
        name: &str,
        file: Arc<crate::db::RangeFile>,
    ) -> Result<(Database, AnyGame), OpenError> {
        let (db, game) = Database::from_ranges_checked(name, file, AnyGame::from_header)?;
        Ok(AnyGame::ready(db, game))
    }

    /// True for the game's standard variant (the one an empty spec names).
    pub fn is_standard(&self) -> bool {
        let d = self.game().descriptor();
        AnyGame::new(d.name, "").is_ok_and(|g| g.game().descriptor().variant == d.variant)
    }

    /// The default database file name: `STEM.db` for the standard variant,
    /// `STEM-VARIANT.db` (the canonical variant, commas as dashes) for the
    /// others.
    pub fn default_file_name(&self) -> String {
        let stem = self.info().file_stem;
        if self.is_standard() {
            format!("{stem}.db")
        } else {
            let variant = &self.game().descriptor().variant;
            format!("{stem}-{}.db", variant.replace(',', "-"))
        }
    }

    /// The `generator` command line that writes this game's default file.
    pub fn generator_command(&self) -> String {
        let d = self.game().descriptor();
        let mut cmd = format!("generator --game {}", d.name);
        if !self.is_standard() {
            cmd.push_str(&format!(" --variant {}", d.variant));
        }
        cmd
    }

    /// A human-readable name: the game's name, a space and its variant.
    pub fn label(&self) -> String {
        let d = self.game().descriptor();
        format!("{} {}", d.name, d.variant)
    }

    /// The other name of this game and variant (`tic-tac-toe` for
    /// k-in-a-row 3x3,k=3), if it has one.
    pub fn alias(&self) -> Option<&'static str> {
        let variant = &self.game().descriptor().variant;
        self.info.aliases.iter().find_map(|&(alias, spec)| {
            let same = (self.info.new)(spec).is_ok_and(|g| &g.descriptor().variant == variant);
            same.then_some(alias)
        })
    }
}

/// The names of every game, comma-separated, each other name of a variant
/// after its game with what it stands for (`tic-tac-toe` for `k-in-a-row
/// 3x3,k=3`).
pub fn known_names() -> String {
    let mut names = Vec::new();
    for g in GAMES {
        names.push(g.name.to_owned());
        for (alias, spec) in g.aliases {
            names.push(format!("{alias} ({} {spec})", g.name));
        }
    }
    names.join(", ")
}

/// Every game with its variants and its position notation, for `--help`:
/// one paragraph per game, wrapped at 80 columns.
pub fn games_help() -> String {
    let mut out = String::new();
    for g in GAMES {
        let text = format!(
            "{}: {}. Variants: {}. Positions: {}. Database: {}.",
            g.name,
            g.about,
            g.variants,
            g.notation,
            match g.kind {
                DatabaseKind::Complete => format!("{}.db, every position", g.file_stem),
                DatabaseKind::Book { .. } => format!(
                    "{}.db, an opening book (generator --depth N); positions past it, or \
                     without it, are searched",
                    g.file_stem
                ),
            }
        );
        out.push_str("  ");
        out.push_str(&crate::cli::wrap(&text, 80, 2, 4));
        out.push('\n');
    }
    out
}

/// The error of a name no game has.
fn unknown_game(name: &str) -> GameError {
    GameError::UnknownGame {
        name: name.to_owned(),
        known: known_names(),
    }
}

/// Why a game could not be set up.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum GameError {
    /// No game has this name.
    #[error("unknown game {name:?} (known: {known})")]
    UnknownGame {
        /// The name asked for.
        name: String,
        /// The known names, comma-separated.
        known: String,
    },
    /// The variant spec is not valid for the game.
    #[error(transparent)]
    BadVariant(#[from] VariantError),
    /// A name that stands for one variant was given another.
    #[error(
        "{alias:?} is {game} {spec} alone: the variant {variant:?} does not apply (ask for \
         {game} with that variant)"
    )]
    AliasVariant {
        /// The other name given as the game.
        alias: String,
        /// The game it names.
        game: String,
        /// The variant it names.
        spec: String,
        /// The variant given with it.
        variant: String,
    },
}

/// Why a database could not be opened as a game's database.
#[derive(Debug, thiserror::Error)]
pub enum OpenError {
    /// The file is missing, damaged, or not a database.
    #[error(transparent)]
    Db(#[from] DbError),
    /// The header names a game or variant this build does not know.
    #[error("database of unsupported game: {0}")]
    Game(#[from] GameError),
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A game's declaration and its rules agree: its entry names the game
    /// and id its databases carry, and an empty spec is its standard
    /// variant.
    #[test]
    fn every_entry_names_its_game() {
        for info in GAMES {
            let game = AnyGame::new(info.name, "").unwrap();
            let d = game.game().descriptor();
            assert_eq!((d.name, d.id), (info.name, info.id));
            assert_eq!(game.info().name, info.name);
            assert!(game.is_standard());
            assert_eq!(game.database_kind(), info.kind, "{}", info.name);
        }
    }

    /// Every game has an id, a name, a file stem and other names of its
    /// own: a header, a command line or a default file names one game.
    #[test]
    fn ids_and_names_are_unique() {
        let mut ids: Vec<u32> = GAMES.iter().map(|g| g.id).collect();
        ids.sort_unstable();
        ids.dedup();
        assert_eq!(ids.len(), GAMES.len(), "ids");
        let mut names: Vec<&str> = GAMES
            .iter()
            .flat_map(|g| std::iter::once(g.name).chain(g.aliases.iter().map(|a| a.0)))
            .collect();
        let count = names.len();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), count, "names and aliases");
        let mut stems: Vec<&str> = GAMES.iter().map(|g| g.file_stem).collect();
        stems.sort_unstable();
        stems.dedup();
        assert_eq!(stems.len(), GAMES.len(), "file stems");
        for info in GAMES {
            for &(alias, spec) in info.aliases {
                let game = AnyGame::new(alias, "").unwrap();
                assert_eq!(game.info().name, info.name);
                let named = AnyGame::new(info.name, spec).unwrap();
                assert_eq!(game.label(), named.label());
                assert_eq!(named.alias(), Some(alias));
                // Its own variant, spelt any way, is taken; another is not.
                assert_eq!(AnyGame::new(alias, spec).unwrap().label(), named.label());
                let other = AnyGame::new(info.name, "").unwrap();
                if other.label() != named.label() {
                    let variant = &other.game().descriptor().variant;
                    assert!(matches!(
                        AnyGame::new(alias, variant),
                        Err(GameError::AliasVariant { .. })
                    ));
                }
            }
        }
    }
}
