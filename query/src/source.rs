//! Where answers come from: the database the flags name (checked against
//! `--game` and `--variant`), or the live search of a game with an
//! opening book, opened through the probe crate's [`Tablebase`], the one
//! door every reader of a database goes through.

use std::path::{Path, PathBuf};

use boardsolve::bars::Spinner;
use boardsolve::registry::{self, AnyGame};
use boardsolve::solve::live::default_searchers;
use boardsolve::{Database, DbError, Oracle};
use boardsolve_probe::{ProbeError, Tablebase};

use crate::args::DbArgs;
use crate::failure::{db_failure, usage, Failure};

/// Where answers come from: a database, or live search (for a game with
/// an opening book) with or without a database as its book.
pub struct Source {
    /// The database and its game, with the search past it (made when an
    /// answer first needs it).
    tb: Tablebase,
    /// The database's path as given, the name of the book that comes with
    /// the tools, or `(live search)`.
    pub path: String,
    /// The game is the default one, assumed: neither `--game` nor `--db`
    /// named it.
    pub assumed: bool,
    /// `--no-book`: answers by search alone, every database left out.
    pub no_book: bool,
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
        if args.threads == Some(0) {
            return Err(usage("--threads 0: a search needs at least one thread"));
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
            let game = new_game(name)?;
            let source = match args.no_book {
                true => Source::search_alone(game)?,
                false => Source::default_file(game, args.cache_bytes(), assumed)?,
            };
            return Ok(Source {
                assumed,
                ..source.searching(args)?
            });
        };
        let asked = args.game.as_deref().map(new_game).transpose()?;
        let tb = open_db(path)?.with_cache_limit(args.cache_bytes());
        let game = tb.any_game();
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
                return Err(wrong_game(path, expected, game));
            }
        }
        if args.no_book {
            // The file named the game; its values are not used.
            return Source::search_alone(game.clone())?.searching(args);
        }
        Source {
            tb,
            path: path.display().to_string(),
            assumed: false,
            no_book: false,
        }
        .searching(args)
    }

    /// Search alone for `game` (`--no-book`): a usage error for a game
    /// that is not answered by search.
    fn search_alone(game: AnyGame) -> Result<Source, Failure> {
        if !game.searched_with(None) {
            return Err(usage(&format!(
                "--no-book does not apply to {}: it is answered from its database, not by search",
                game.label()
            )));
        }
        let tb = Tablebase::without_file(game).map_err(|e| Failure::from(anyhow::Error::new(e)))?;
        Ok(Source {
            tb,
            path: "(live search)".to_owned(),
            assumed: false,
            no_book: true,
        })
    }

    /// Turns on the search past the book (or without a file) with
    /// `--table-bits` and `--threads` as asked (or their defaults),
    /// checked: made when an answer first needs it. The searchers are one
    /// pool: an answer searches on the threads of those idle.
    fn searching(self, args: &DbArgs) -> Result<Source, Failure> {
        let searchers = args.threads.unwrap_or_else(default_searchers);
        let tb = match checked_table_bits(&self.tb, searchers, args.table_bits)? {
            Some(bits) => self.tb.search_on_demand(bits, searchers),
            None => {
                if args.threads.is_some() {
                    return Err(usage(&format!(
                        "--threads does not apply to {}: it is answered from its database, not by search",
                        self.tb.any_game().label()
                    )));
                }
                self.tb
            }
        };
        Ok(Source { tb, ..self })
    }

    /// The game's default file in the current directory, or, when it is
    /// missing and the game is searched, the book that comes with the
    /// tools (if any) and the search past it (with a word on stderr when
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
                // The book that comes with the tools, if any, else search
                // alone.
                let tb = Tablebase::for_game(game)
                    .map_err(|e| Failure::from(anyhow::Error::new(e)))?
                    .with_cache_limit(cache_bytes);
                let path = match tb.shipped() {
                    Some(book) => book.name.to_owned(),
                    None => "(live search)".to_owned(),
                };
                return Ok(Source {
                    tb,
                    path,
                    assumed: false,
                    no_book: false,
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
        let tb = open_db(&path)?;
        if tb.any_game().label() != game.label() {
            return Err(wrong_game(&path, game.label(), tb.any_game()));
        }
        Ok(Source {
            tb: tb.with_cache_limit(cache_bytes),
            path: path.display().to_string(),
            assumed: false,
            no_book: false,
        })
    }

    /// The game answered.
    pub fn game(&self) -> &AnyGame {
        self.tb.any_game()
    }

    /// True when answers come from the book that comes with the tools.
    pub fn shipped(&self) -> bool {
        self.tb.shipped().is_some()
    }

    /// The database, if any.
    pub fn db(&self) -> Option<&Database> {
        self.tb.database()
    }

    /// The database, for commands that need one.
    pub fn database(&self) -> Result<&Database, Failure> {
        self.db().ok_or_else(|| {
            if self.no_book {
                return usage(
                    "this command needs a database, and --no-book leaves every database out: \
                     run it without --no-book",
                );
            }
            db_failure(anyhow::anyhow!(
                "this command needs a database, and {} is missing: `{}` makes it (or give --db \
                 FILE)",
                self.game().default_file_name(),
                self.game().generator_command()
            ))
        })
    }

    /// Where answers come from: live search (from the book, if any) for a
    /// game that has one, else the database.
    pub fn oracle(&self) -> Result<Box<dyn Oracle + '_>, Failure> {
        match self.tb.search() {
            // Searches that take a while show a spinner.
            Some(live) => live
                .map(|live| Spinner::wrap(Box::new(live)))
                .map_err(|e| Failure::from(anyhow::Error::new(e))),
            None => Ok(Box::new(self.database()?)),
        }
    }
}

/// `--table-bits` (or its default, sized by the board) for what `tb`
/// answers, `None` when it needs no search: a usage error when the game is
/// not answered by search, when the size is out of its range, and when its
/// searchers' tables would take more memory than is available.
fn checked_table_bits(
    tb: &Tablebase,
    searchers: usize,
    asked: Option<u32>,
) -> Result<Option<u32>, Failure> {
    let default = tb
        .default_search_bits(searchers)
        .filter(|_| tb.is_searched());
    let Some(default) = default else {
        return match asked {
            Some(_) => Err(usage(&format!(
                "--table-bits does not apply to {}, which is answered from its database \
                 without search",
                tb.any_game().label()
            ))),
            None => Ok(None),
        };
    };
    let bits = asked.unwrap_or(default);
    match tb.check_search(bits, searchers) {
        Some(Err(e)) if asked.is_some() => Err(usage(&format!("--table-bits {bits}: {e}"))),
        Some(Err(e)) => Err(usage(&format!(
            "the default --table-bits {bits}: {e}: give a smaller --table-bits"
        ))),
        None | Some(Ok(_)) => Ok(Some(bits)),
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

/// The database of a tablebase [`open_db`] opened from `path`.
pub fn file_database<'a>(tb: &'a Tablebase, path: &Path) -> Result<&'a Database, Failure> {
    tb.database().ok_or_else(|| {
        db_failure(anyhow::anyhow!(
            "database {}: no database was opened",
            path.display()
        ))
    })
}

/// Opens and validates a database, and sets up its game.
pub fn open_db(path: &Path) -> Result<Tablebase, Failure> {
    open_tablebase(path).map_err(db_failure)
}

/// [`open_db`], with the error as the context of what is wrong with the
/// file (`database PATH: ...`).
pub fn open_tablebase(path: &Path) -> anyhow::Result<Tablebase> {
    Tablebase::open(path).map_err(|e| match e {
        ProbeError::Open { path, source } => {
            anyhow::Error::new(source).context(format!("database {}", path.display()))
        }
        e => anyhow::Error::new(e),
    })
}
