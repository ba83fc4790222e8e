//! Where answers come from: the database the flags name (checked against
//! `--game` and `--variant`), or the live search of a game with an
//! opening book.

use std::path::{Path, PathBuf};

use anyhow::Context;
use boardsolve::bars::Spinner;
use boardsolve::registry::{self, AnyGame};
use boardsolve::solve::live::default_searchers;
use boardsolve::{Database, DbError, Oracle};

use crate::args::DbArgs;
use crate::failure::{db_failure, usage, Failure};

/// Where answers come from: a database, or live search (for a game with
/// an opening book) with or without a database as its book.
pub struct Source {
    /// The database, if any.
    pub db: Option<Database>,
    /// The game answered.
    pub game: AnyGame,
    /// The database's path as given, or `(live search)`.
    pub path: String,
    /// `--table-bits`, checked against the game and the memory.
    table_bits: u32,
    /// The game is the default one, assumed: neither `--game` nor `--db`
    /// named it.
    pub assumed: bool,
}

impl Source {
    /// Opens the database the arguments name, or sets up live search.
    ///
    /// With `--db`, the file says its game and variant, and `--game` and
    /// `--variant` must agree with it. Without, the game and variant asked
    /// for (the registry's first game by default) name the default file,
    /// which must exist unless the game can be searched live.
    pub fn open(args: &DbArgs) -> Result<Source, Failure> {
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
            let assumed = args.game.is_none();
            let mut source = Source::default_file(new_game(name)?, args.cache_bytes(), assumed)?;
            source.table_bits =
                checked_table_bits(&source.game, source.db.as_ref(), args.table_bits)?;
            source.assumed = assumed;
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
            table_bits: checked_table_bits(&game, Some(&db), args.table_bits)?,
            db: Some(db),
            game,
            path: path.display().to_string(),
            assumed: false,
        })
    }

    /// The game's default file in the current directory, or live search
    /// when it is missing and the game has it (with a word on stderr when
    /// the file would answer faster than the search).
    fn default_file(game: AnyGame, cache_bytes: usize, assumed: bool) -> Result<Source, Failure> {
        let path = PathBuf::from(game.default_file_name());
        let storable = game.game().descriptor().storage_error().is_none();
        if !path.exists() || !storable {
            if game.searched_with(None) {
                if !game.has_book() && storable {
                    eprintln!(
                        "query: {} is missing: answering by search (`{}` writes the table, \
                         which answers at once)",
                        path.display(),
                        game.generator_command()
                    );
                }
                return Ok(Source {
                    db: None,
                    game,
                    path: "(live search)".to_owned(),
                    table_bits: 0,
                    assumed: false,
                });
            }
            let default = match assumed {
                true => format!(
                    "; {} is the game when --game is not given (--game NAME picks another: {})",
                    game.game().descriptor().name,
                    registry::known_names()
                ),
                false => String::new(),
            };
            return Err(db_failure(anyhow::anyhow!(
                "database {}: no such file in the current directory: `{}` makes it (or give \
                 --db FILE){default}",
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
            table_bits: 0,
            assumed: false,
        })
    }

    /// The database, for commands that need one.
    pub fn database(&self) -> Result<&Database, Failure> {
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
    pub fn oracle(&self) -> Result<Box<dyn Oracle + '_>, Failure> {
        match self.game.live(self.db.as_ref(), self.table_bits) {
            // Searches that take a while show a spinner.
            Some(live) => live
                .map(Spinner::wrap)
                .map_err(|e| Failure::from(anyhow::Error::new(e))),
            None => Ok(Box::new(self.database()?)),
        }
    }
}

/// `--table-bits` (or its default, sized by the board) for `game`
/// answered from `db`: a usage error when the game is not answered by
/// search, when the size is out of its range, and when its searchers'
/// tables would take more memory than is available.
fn checked_table_bits(
    game: &AnyGame,
    db: Option<&Database>,
    asked: Option<u32>,
) -> Result<u32, Failure> {
    let searchers = default_searchers();
    let Some(book) = game.book_game().filter(|_| game.searched_with(db)) else {
        return match asked {
            Some(_) => Err(usage(&format!(
                "--table-bits does not apply to {}, which is answered from its database \
                 without search",
                game.label()
            ))),
            None => Ok(0),
        };
    };
    let bits = asked.unwrap_or_else(|| book.default_table_bits(searchers));
    match book.check_tables(searchers, bits) {
        Err(e) if asked.is_some() => Err(usage(&format!("--table-bits {bits}: {e}"))),
        Err(e) => Err(usage(&format!(
            "the default --table-bits {bits}: {e}: give a smaller --table-bits"
        ))),
        Ok(_) => Ok(bits),
    }
}

/// What `query` says after refusing a position of the game it assumed:
/// which game that was, and how to name another.
pub fn assumed_game_hint(game: &AnyGame) -> String {
    format!(
        "query: positions are read as {} positions when --game is not given; --game NAME \
         picks another ({})",
        game.label(),
        registry::known_names()
    )
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
pub fn open_db(path: &Path) -> Result<(Database, AnyGame), Failure> {
    AnyGame::open(path)
        .with_context(|| format!("database {}", path.display()))
        .map_err(db_failure)
}
