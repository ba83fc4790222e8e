//! Where answers come from: the database the flags name (checked against
//! `--game` and `--variant`), or the live search of a game with an
//! opening book, opened through the probe crate's [`Tablebase`], the one
//! door every reader of a database goes through.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use boardsolve_probe::{
    default_searchers, game_names, games, Game, ProbeError, Tablebase, MAX_SEARCHERS,
};

use crate::args::DbArgs;
use crate::failure::{db_failure, usage, Failure};
use crate::spinner::Spinner;

/// Where answers come from: a database, or live search (for a game with
/// an opening book) with or without a database as its book.
pub struct Source {
    /// The database and its game, with the search past it (made when an
    /// answer first needs it).
    tb: Arc<Tablebase>,
    /// The spinner shown while a search takes long, when answers may be
    /// searched.
    spinner: Option<Spinner>,
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
        let new_game = |name: &str| Game::new(name, variant).map_err(|e| usage(&e.to_string()));
        let bounds = boardsolve_probe::table_bits_bounds();
        if let Some(bits) = args.table_bits.filter(|b| !bounds.contains(b)) {
            return Err(usage(&format!(
                "--table-bits {bits}: no game takes it ({} to {}; see --help)",
                bounds.start(),
                bounds.end()
            )));
        }
        if let Some(n) = args.threads.filter(|n| !(1..=MAX_SEARCHERS).contains(n)) {
            return Err(usage(&format!(
                "--threads {n}: give 1 to {MAX_SEARCHERS} (a search needs at least one thread; past \
                 the cores more only cost memory)"
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
            let default = games().next().map_or("", |g| g.name());
            let name = args.game.as_deref().unwrap_or(default);
            let assumed = args.game.is_none();
            let game = new_game(name)?;
            let (tb, path) = match args.no_book {
                true => search_alone(game)?,
                false => default_file(game, args.cache_bytes(), assumed)?,
            };
            return Source::searching(tb, path, assumed, args.no_book, args);
        };
        let asked = args.game.as_deref().map(new_game).transpose()?;
        let tb = open_db(path)?.with_cache_limit(args.cache_bytes());
        let game = tb.game();
        // The game asked for, and the variant in the game the file holds
        // unless --game named one.
        let want = match asked {
            None if args.variant.is_some() => Some(new_game(game.name())?),
            want => want,
        };
        if let Some(want) = want {
            if want.name() != game.name() || (args.variant.is_some() && want != game) {
                let expected = match args.variant {
                    Some(_) => want.label(),
                    None => want.name().to_owned(),
                };
                return Err(wrong_game(path, expected, game));
            }
        }
        if args.no_book {
            // The file named the game; its values are not used.
            let (tb, path) = search_alone(game)?;
            return Source::searching(tb, path, false, true, args);
        }
        Source::searching(tb, path.display().to_string(), false, false, args)
    }

    /// Turns on the search past the book (or without a file) with
    /// `--table-bits` and `--threads` as asked (or their defaults),
    /// checked: made when an answer first needs it. The searchers are one
    /// pool: an answer searches on the threads of those idle.
    fn searching(
        tb: Tablebase,
        path: String,
        assumed: bool,
        no_book: bool,
        args: &DbArgs,
    ) -> Result<Source, Failure> {
        let searchers = args.threads.unwrap_or_else(default_searchers);
        let tb = match checked_table_bits(&tb, searchers, args.table_bits)? {
            Some(bits) => tb.search_on_demand(bits, searchers),
            None => {
                if args.threads.is_some() {
                    return Err(usage(&format!(
                        "--threads does not apply to {}: it is answered from its database, not by search",
                        tb.game().label()
                    )));
                }
                tb
            }
        };
        let tb = Arc::new(tb);
        let spinner = tb.is_searched().then(|| Spinner::new(Arc::clone(&tb)));
        Ok(Source {
            tb,
            spinner,
            path,
            assumed,
            no_book,
        })
    }

    /// The tablebase answers come from.
    pub fn tb(&self) -> &Tablebase {
        &self.tb
    }

    /// The game answered.
    pub fn game(&self) -> Game {
        self.tb.game()
    }

    /// True when answers come from the book that comes with the tools.
    pub fn shipped(&self) -> bool {
        self.tb.shipped().is_some()
    }

    /// Runs `ask`, a call that may search, with the spinner shown while it
    /// takes long.
    pub fn busy<T>(&self, ask: impl FnOnce() -> T) -> T {
        match &self.spinner {
            Some(s) => s.busy(ask),
            None => ask(),
        }
    }

    /// Fails, for commands that need a database, when there is none.
    pub fn needs_file(&self) -> Result<(), Failure> {
        if self.tb.has_file() {
            return Ok(());
        }
        if self.no_book {
            return Err(usage(
                "this command needs a database, and --no-book leaves every database out: \
                 run it without --no-book",
            ));
        }
        Err(db_failure(anyhow::anyhow!(
            "this command needs a database, and {} is missing: `{}` makes it (or give --db \
             FILE)",
            self.game().default_file_name(),
            self.game().generator_command()
        )))
    }
}

/// Search alone for `game` (`--no-book`): a usage error for a game that is
/// not answered by search.
fn search_alone(game: Game) -> Result<(Tablebase, String), Failure> {
    if !game.is_searched() {
        return Err(usage(&format!(
            "--no-book does not apply to {}: it is answered from its database, not by search",
            game.label()
        )));
    }
    let tb = Tablebase::without_file(game).map_err(|e| Failure::from(anyhow::Error::new(e)))?;
    Ok((tb, "(live search)".to_owned()))
}

/// The game's default file in the current directory, or, when it is
/// missing and the game is searched, the book that comes with the tools
/// (if any) and the search past it (with a word on stderr when the file
/// would answer faster than the search).
fn default_file(
    game: Game,
    cache_bytes: usize,
    assumed: bool,
) -> Result<(Tablebase, String), Failure> {
    let path = PathBuf::from(game.default_file_name());
    let storable = game.has_database();
    if !path.exists() || !storable {
        if game.is_searched() {
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
            return Ok((tb, path));
        }
        let default = match assumed {
            true => format!(
                "; {} is the game when --game is not given (--game NAME picks another: {})",
                game.name(),
                game_names()
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
    if tb.game() != game {
        return Err(wrong_game(&path, game.label(), tb.game()));
    }
    // An opening book of this folder smaller than the one that comes with
    // the tools (`generator`'s default depth is 1) must not hide it: a book
    // of a game and variant holds every position up to its depth, so the
    // one with more records is the deeper. The file still answers when
    // given with --db.
    if !tb.is_complete() && game.is_searched() {
        if let Ok(shipped) = Tablebase::for_game(game) {
            if let Some(book) = shipped.shipped().filter(|_| shipped.len() > tb.len()) {
                eprintln!(
                    "query: {path} is an opening book of {} position{}, smaller than the one \
                     that comes with the tools ({} positions): answering from that one (--db \
                     {path} answers from the file)",
                    tb.len(),
                    if tb.len() == 1 { "" } else { "s" },
                    shipped.len(),
                    path = path.display(),
                );
                let name = book.name.to_owned();
                return Ok((shipped.with_cache_limit(cache_bytes), name));
            }
        }
    }
    Ok((tb.with_cache_limit(cache_bytes), path.display().to_string()))
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
    let game = tb.game();
    let default = game
        .default_search_bits(searchers)
        .filter(|_| tb.is_searched());
    let Some(default) = default else {
        return match asked {
            Some(_) => Err(usage(&format!(
                "--table-bits does not apply to {}, which is answered from its database \
                 without search",
                game.label()
            ))),
            None => Ok(None),
        };
    };
    let bits = asked.unwrap_or(default);
    match game.check_search(bits, searchers) {
        Some(Err(e)) if asked.is_some() => Err(usage(&format!("--table-bits {bits}: {e}"))),
        Some(Err(e)) => Err(usage(&format!(
            "the default --table-bits {bits}: {e}: give a smaller --table-bits"
        ))),
        None | Some(Ok(_)) => Ok(Some(bits)),
    }
}

/// What `query` says after refusing a position of the game it assumed:
/// which game that was, and how to name another.
pub fn assumed_game_hint(game: Game) -> String {
    format!(
        "query: positions are read as {} positions when --game is not given; --game NAME \
         picks another ({})",
        game.label(),
        game_names()
    )
}

/// The file at `path` holds `found`, not what was asked for.
fn wrong_game(path: &Path, expected: String, found: Game) -> Failure {
    db_failure(anyhow::anyhow!(
        "database {}: database holds {}, not {expected}",
        path.display(),
        found.label()
    ))
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
