//! [`Tablebase`]: a database file (or none, for a game answered by search)
//! and its game, answering [`Position`]s with [`Answer`]s.

use std::path::Path;
use std::sync::Arc;

use boardsolve::analysis::{
    analyze_position, analyze_positions, analyze_weak, evaluate, principal_variation,
};
use boardsolve::core::Oracle;
use boardsolve::db::{Database, RangeFile};
use boardsolve::registry::{AnyGame, ShippedBook};

use crate::answer::{Answer, Eval, WeakAnswer};
use crate::error::ProbeError;
use crate::game::Game;
use crate::live::Live;
use crate::position::{Move, Position};

/// The batch size from which [`Tablebase::probe_many`],
/// [`Tablebase::answers`] and [`Tablebase::evals`] build the lookup index
/// first: below it, reading one record per 2 KiB of the file costs more
/// than it saves.
pub const BATCH_INDEX: usize = 64;

/// Positions whose lookups [`Tablebase::answers`] makes together: enough
/// for the memory reads to overlap (in a sorted file, about half again as
/// many answers a second as one by one), few enough to stay in cache.
pub const GROUP: usize = 16;

/// An open database, and the game it holds.
///
/// With the `search` feature and `Tablebase::with_search`, it keeps one
/// live search for its life: a fixed pool of searchers (one per thread of
/// the machine) with their transposition tables, whose memory is checked
/// when search is turned on and stays bounded whatever the callers do.
/// Calls from many threads share it; past the pool's size they wait for a
/// searcher. What a search learns stays in its table for the next calls.
///
/// Any call made inside [`crate::Cancel::run`] stops its search soon after
/// the flag is set (from another thread, or by the flag's deadline),
/// waiting for a searcher included, and fails with
/// [`ProbeError::Stopped`] (or [`ProbeError::TimedOut`] at the deadline);
/// `Tablebase::with_search` shows how.
pub struct Tablebase {
    /// The file; `None` for a game answered by search alone.
    pub(crate) db: Option<Arc<Database>>,
    pub(crate) game: Game,
    /// The embedded book the file is, if it is one.
    pub(crate) shipped: Option<ShippedBook>,
    /// The live search past the file, when search is on.
    pub(crate) live: Live,
}

impl std::fmt::Debug for Tablebase {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tablebase")
            .field("game", &self.game)
            .field("records", &self.len())
            .finish()
    }
}

impl Tablebase {
    /// Opens and validates the database at `path`: a regular file whose
    /// header names a game and variant this build knows, with a size and a
    /// record count the game allows. The records are mapped, not read.
    pub fn open(path: impl AsRef<Path>) -> Result<Tablebase, ProbeError> {
        let path = path.as_ref();
        let (db, game) = AnyGame::open(path).map_err(|source| ProbeError::Open {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(Tablebase::with(Some(db), Game::interned(game)))
    }

    /// A tablebase on the bytes of a database file (read from anywhere, or
    /// fetched whole), checked as [`Tablebase::open`] checks a file; `name`
    /// stands for the file's path in errors.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Tablebase, ProbeError> {
        let (db, game) = AnyGame::open_bytes(name, bytes).map_err(|source| ProbeError::Open {
            path: name.into(),
            source,
        })?;
        Ok(Tablebase::with(Some(db), Game::interned(game)))
    }

    /// A tablebase on a database file read in pieces its host supplies
    /// (see [`RangeFile`]); `name` stands for the file's path in errors.
    ///
    /// Every call, this one included, may fail for want of bytes: then
    /// [`Tablebase::wanted`] (or [`RangeFile::take_wanted`] here, before a
    /// tablebase exists) names the ranges to supply before calling again.
    pub fn from_ranges(name: &str, file: Arc<RangeFile>) -> Result<Tablebase, ProbeError> {
        let (db, game) = AnyGame::open_ranges(name, file).map_err(|source| ProbeError::Open {
            path: name.into(),
            source,
        })?;
        Ok(Tablebase::with(Some(db), Game::interned(game)))
    }

    pub(crate) fn with(db: Option<Database>, game: Game) -> Tablebase {
        Tablebase {
            db: db.map(Arc::new),
            game,
            shipped: None,
            live: Live::new(),
        }
    }

    /// The game the database holds.
    pub fn game(&self) -> Game {
        self.game
    }

    /// A position of the tablebase's game in its notation (see
    /// [`Game::parse`]).
    pub fn parse(&self, text: &str) -> Result<Position, ProbeError> {
        self.game.parse(text)
    }

    /// True when the file holds every reachable position (else it is an
    /// opening book, or there is no file).
    pub fn is_complete(&self) -> bool {
        self.db.as_ref().is_some_and(|db| db.header().is_complete())
    }

    /// The number of records in the file (0 without one).
    pub fn len(&self) -> u64 {
        self.db.as_ref().map_or(0, |db| db.len())
    }

    /// True when the file holds no record, or there is no file.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// True when search is on and answers the positions past the file (or
    /// every position, without one): a file that is an opening book, or
    /// none.
    pub fn searches(&self) -> bool {
        self.live.searches(self.game, self.db.as_deref())
    }

    /// True when a file is open (not a game answered by search alone).
    pub fn has_file(&self) -> bool {
        self.db.is_some()
    }

    /// The embedded book this tablebase reads, when it is one
    /// (`Tablebase::for_game`, feature `search`).
    pub fn shipped(&self) -> Option<ShippedBook> {
        self.shipped
    }

    /// Builds the file's small in-memory lookup index (every 32nd to 256th
    /// record, as the processor's last-level cache allows; read once),
    /// which makes each later lookup several times faster. The batch calls
    /// build it for [`BATCH_INDEX`] positions or more; call it before many
    /// single probes. Idempotent and thread-safe.
    pub fn build_index(&self) {
        if let Some(db) = &self.db {
            db.build_index();
        }
    }

    /// True for a file in the packed layout (read block by block, each
    /// block checked and decoded when a lookup needs it).
    pub fn is_packed(&self) -> bool {
        self.db.as_ref().is_some_and(|db| db.is_packed())
    }

    /// Bounds the memory a packed file's decoded blocks take (64 MiB by
    /// default; 0 decodes every block a lookup needs afresh). Files of the
    /// other layouts are mapped and keep no cache.
    pub fn with_cache_limit(mut self, bytes: usize) -> Tablebase {
        // The live search shares the database: it is made again, with the
        // new limit, on the next search.
        self.live.reset();
        if let Some(db) = self.db.as_mut().and_then(Arc::get_mut) {
            db.set_cache_limit(bytes);
        }
        self
    }

    /// The pieces a tablebase read by ranges reads from; `None` for a file
    /// mapped or in memory.
    pub fn ranges(&self) -> Option<&Arc<RangeFile>> {
        self.db.as_ref()?.ranges()
    }

    /// The byte ranges (start, end) the calls since the last one wanted
    /// and did not find, for a tablebase read by ranges: when not empty,
    /// the answers those calls gave are to be thrown away, the ranges
    /// supplied, and the calls made again.
    pub fn wanted(&self) -> Vec<(u64, u64)> {
        self.ranges().map(|r| r.take_wanted()).unwrap_or_default()
    }

    /// The open database, as the library reads it: the file as it was
    /// mapped when opened (whatever is at its path now), for work on the
    /// whole of it (packing, say); `None` for a tablebase without a file.
    pub fn database(&self) -> Option<&Database> {
        self.db.as_deref()
    }

    /// What answers positions: the search (with the file as its book) when
    /// search is on, else the file.
    pub(crate) fn oracle(&self) -> Result<&dyn Oracle, ProbeError> {
        match self.live.oracle(self.game, &self.db) {
            Some(live) => live,
            None => self.file(),
        }
    }

    /// Whether the positions can be answered: the error of a search that
    /// cannot be set up, or of a tablebase with neither a file nor search.
    pub fn ready(&self) -> Result<(), ProbeError> {
        self.oracle().map(drop)
    }

    /// The file alone.
    fn file(&self) -> Result<&dyn Oracle, ProbeError> {
        match &self.db {
            Some(db) => Ok(&**db),
            None => Err(self.no_database()),
        }
    }

    /// The error of a call that needs a file, on a tablebase without one.
    pub(crate) fn no_database(&self) -> ProbeError {
        ProbeError::NoDatabase {
            game: self.game.label(),
        }
    }

    /// `p`, if it is a position of this tablebase's game.
    fn own<'p>(&self, p: &'p Position) -> Result<&'p boardsolve::Position, ProbeError> {
        if p.game() == self.game {
            Ok(p.inner())
        } else {
            Err(ProbeError::OtherGame {
                expected: self.game.label(),
                found: p.game().label(),
            })
        }
    }

    /// The value, remoteness and every move's value of `p`: from the file,
    /// and past an opening book (or without a file) by search when search
    /// is on.
    pub fn answer(&self, p: &Position) -> Result<Answer, ProbeError> {
        self.answer_with(self.oracle()?, p)
    }

    /// [`Tablebase::answer`] from the file's lookups alone, never a search:
    /// [`ProbeError::NotInBook`] for a position past the book (for a
    /// caller that answers from the file at once and puts searches
    /// elsewhere, as a server does).
    pub fn answer_from_file(&self, p: &Position) -> Result<Answer, ProbeError> {
        self.answer_with(self.file()?, p)
    }

    fn answer_with(&self, oracle: &dyn Oracle, p: &Position) -> Result<Answer, ProbeError> {
        let inner = self.own(p)?;
        let a = analyze_position(self.game.present(), oracle, inner)?;
        Ok(Answer::new(self.game, a))
    }

    /// [`Tablebase::answer`] of each position, in order, their lookups made
    /// together so that they overlap (in groups of [`GROUP`]). One bad
    /// position does not stop the others.
    pub fn answers(&self, positions: &[Position]) -> Vec<Result<Answer, ProbeError>> {
        if positions.len() >= BATCH_INDEX {
            self.build_index();
        }
        let oracle = match self.oracle() {
            Ok(o) => o,
            Err(e) => return positions.iter().map(|_| Err(e.for_another())).collect(),
        };
        let mut out = Vec::with_capacity(positions.len());
        let mut own = Vec::with_capacity(GROUP);
        let mut analyses = Vec::with_capacity(GROUP);
        for group in positions.chunks(GROUP) {
            own.clear();
            own.extend(group.iter().filter_map(|p| self.own(p).ok().copied()));
            analyze_positions(self.game.present(), oracle, &own, &mut analyses);
            let mut analyses = analyses.drain(..);
            for p in group {
                // One analysis per position of this game, in order.
                out.push(match (self.own(p), analyses.next()) {
                    (Err(e), _) => Err(e),
                    (Ok(_), Some(a)) => a
                        .map(|a| Answer::new(self.game, a))
                        .map_err(ProbeError::from),
                    (Ok(_), None) => Err(ProbeError::SearchFailed("no answer".into())),
                });
            }
        }
        out
    }

    /// The value and remoteness of `p`, without its moves: one lookup (a
    /// position on the frontier of an opening book has a value, though
    /// [`Tablebase::answer`] cannot list its moves).
    pub fn eval(&self, p: &Position) -> Result<Eval, ProbeError> {
        self.evals(std::slice::from_ref(p))
            .pop()
            .unwrap_or_else(|| Err(ProbeError::SearchFailed("no answer".into())))
    }

    /// [`Tablebase::eval`] of each position, in order, with the lookups
    /// made as one batch.
    pub fn evals(&self, positions: &[Position]) -> Vec<Result<Eval, ProbeError>> {
        let g = self.game.present();
        let states: Vec<u64> = positions
            .iter()
            .filter(|p| p.game() == self.game)
            .map(|p| p.inner().state)
            .collect();
        if states.len() >= BATCH_INDEX {
            self.build_index();
        }
        let mut values = match self.oracle() {
            Ok(o) => evaluate(g, o, &states).into_iter(),
            Err(e) => return positions.iter().map(|_| Err(e.for_another())).collect(),
        };
        positions
            .iter()
            .map(|p| {
                // One value per position of this game, in order.
                let state = self.own(p)?.state;
                let v = values
                    .next()
                    .ok_or_else(|| ProbeError::SearchFailed("no answer".into()))??;
                Ok(Eval {
                    value: g.score(state, v.net),
                    remoteness: v.remoteness,
                })
            })
            .collect()
    }

    /// `p` answered as win, draw or loss only, for the side to move and
    /// for every move: with far less search than the exact values where
    /// the signs alone tell.
    pub fn weak(&self, p: &Position) -> Result<WeakAnswer, ProbeError> {
        let inner = self.own(p)?;
        let w = analyze_weak(self.game.present(), self.oracle()?, inner)?;
        Ok(WeakAnswer::new(self.game, w))
    }

    /// The line of perfect play from `p` to the end of the game: at each
    /// step the first of the best moves.
    pub fn line(&self, p: &Position) -> Result<Vec<Move>, ProbeError> {
        self.line_with(self.oracle()?, p)
    }

    /// [`Tablebase::line`] from the file's lookups alone, never a search
    /// (see [`Tablebase::answer_from_file`]).
    pub fn line_from_file(&self, p: &Position) -> Result<Vec<Move>, ProbeError> {
        self.line_with(self.file()?, p)
    }

    fn line_with(&self, oracle: &dyn Oracle, p: &Position) -> Result<Vec<Move>, ProbeError> {
        let inner = self.own(p)?;
        let line = principal_variation(self.game.present(), oracle, inner.state)?;
        Ok(line
            .iter()
            .map(|&(mv, _)| Move::new(self.game, mv))
            .collect())
    }

    /// The answer of a position given as text in the game's notation (the
    /// moves so far, or the board): [`Tablebase::parse`], then
    /// [`Tablebase::answer`].
    pub fn probe(&self, position: &str) -> Result<Answer, ProbeError> {
        self.answer(&self.parse(position)?)
    }

    /// [`Tablebase::probe`] of each position, in order, their lookups made
    /// together ([`Tablebase::answers`]); one bad position does not stop
    /// the others. When the positions cannot be answered at all (a search
    /// that cannot be set up), each gets that error.
    pub fn probe_many<S: AsRef<str>>(
        &self,
        positions: impl IntoIterator<Item = S>,
    ) -> Vec<Result<Answer, ProbeError>> {
        let positions: Vec<S> = positions.into_iter().collect();
        if let Err(e) = self.ready() {
            return positions.iter().map(|_| Err(e.for_another())).collect();
        }
        let parsed: Vec<Result<Position, ProbeError>> =
            positions.iter().map(|p| self.parse(p.as_ref())).collect();
        let valid: Vec<Position> = parsed.iter().flatten().copied().collect();
        let mut answers = self.answers(&valid).into_iter();
        parsed
            .into_iter()
            .map(|p| {
                p?;
                answers
                    .next()
                    .unwrap_or_else(|| Err(ProbeError::SearchFailed("no answer".into())))
            })
            .collect()
    }
}
