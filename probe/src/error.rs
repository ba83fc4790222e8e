//! Why a file could not be opened or a position answered: [`ProbeError`],
//! one variant a cause, and [`ErrorKind`], the same causes as a plain code.

use std::path::PathBuf;

use boardsolve::analysis::QueryError;
use boardsolve::db::DbError;
use boardsolve::registry::{GameError, OpenError};
use boardsolve::PositionError;

/// Why a file could not be opened, or a position answered. Every variant
/// hands back the input it refuses (or its first characters).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ProbeError {
    /// The file is missing, not a database, damaged, or of a game or
    /// variant this build does not know ([`ProbeError::kind`] tells which).
    #[error("database {}: {source}", path.display())]
    Open {
        /// The file.
        path: PathBuf,
        /// What is wrong with it.
        source: OpenError,
    },
    /// No game has this name, or the game has no such variant.
    #[error(transparent)]
    Game(#[from] GameError),
    /// The text does not follow the game's notation of positions (or is
    /// longer than [`crate::MAX_POSITION`] bytes).
    #[error("malformed position {input:?}: {reason}")]
    Malformed {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The text is well formed, but no game reaches the position under the
    /// rules.
    #[error("illegal position {input:?}: {reason}")]
    Illegal {
        /// The text as given.
        input: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// The text names no move in the game's notation.
    #[error("malformed move {input:?}: {reason}")]
    MalformedMove {
        /// The text as given.
        input: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The move is not legal in the position.
    #[error("illegal move {input:?}: {reason}")]
    IllegalMove {
        /// The move as given.
        input: String,
        /// Which rule it breaks.
        reason: String,
    },
    /// The position is of another game or variant than the tablebase's.
    #[error("a position of {found}, not of {expected}")]
    OtherGame {
        /// The tablebase's game and variant.
        expected: String,
        /// The position's.
        found: String,
    },
    /// The position, or one after a move from it, lies past the opening
    /// book the file holds (the `search` feature answers it by search).
    #[error("position {position} is not in this database")]
    NotInBook {
        /// The position, in the game's notation.
        position: String,
    },
    /// The position cannot be reached from the start of the game.
    #[error("position {position} cannot be reached from the start of the game")]
    Unreachable {
        /// The position, in the game's notation.
        position: String,
    },
    /// The database contradicts itself, holds a value the game rules out,
    /// or lost the bytes a lookup needs since it was opened: it is damaged
    /// or forged (`query verify` tells more).
    #[error("database corrupted at {position}: {reason} (run `query verify`)")]
    Corrupt {
        /// The position, in the game's notation.
        position: String,
        /// What is wrong.
        reason: String,
    },
    /// What was asked needs a database, and the tablebase answers by
    /// search alone.
    #[error("{game} is answered by search here: there is no database")]
    NoDatabase {
        /// The game and variant.
        game: String,
    },
    /// The search was stopped through the [`crate::Cancel`] of the call
    /// (another thread, an interrupt). The tablebase is as good as before.
    #[error("{}", boardsolve::core::oracle::STOPPED)]
    Stopped,
    /// The search reached the deadline of the call's [`crate::Cancel`]
    /// before it finished. The tablebase is as good as before.
    #[error("the search reached its time limit before it finished")]
    TimedOut,
    /// The whole file, read and checked, is damaged or forged: the first
    /// problem found (`Tablebase::verify`, and the unpacking of a packed
    /// file for `Tablebase::stats`).
    #[error(transparent)]
    Invalid(DbError),
    /// The statistics could not be computed (feature `engine`).
    #[cfg(feature = "engine")]
    #[error(transparent)]
    Stats(boardsolve::analysis::stats::StatsError),
    /// The search could not be set up (a table size out of range, larger
    /// than the memory available, refused by the allocator), or the game
    /// cannot be searched.
    #[error("cannot search: {0}")]
    SearchFailed(String),
}

/// The cause of a [`ProbeError`], as a plain code (for bindings in other
/// languages, and callers that answer each cause their own way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// The file does not exist.
    MissingFile,
    /// The file is a database whose bytes fail their checks: damaged or
    /// forged.
    DamagedFile,
    /// The file cannot be used: not a regular file, not a database, of
    /// another format version, or of a game or variant this build does not
    /// know.
    UnusableFile,
    /// No such game or variant.
    UnknownGame,
    /// A malformed position.
    MalformedPosition,
    /// An illegal position.
    IllegalPosition,
    /// A text that names no move.
    MalformedMove,
    /// A move that is not legal.
    IllegalMove,
    /// A position of another game or variant.
    OtherGame,
    /// A position past the opening book.
    NotInBook,
    /// A position no game reaches.
    Unreachable,
    /// Damage found while answering.
    Corrupt,
    /// No database where one is needed.
    NoDatabase,
    /// A search stopped by its caller.
    Stopped,
    /// A search out of time.
    TimedOut,
    /// A search that could not be set up.
    SearchFailed,
    /// Statistics that could not be computed.
    Stats,
}

impl ProbeError {
    /// The cause, as a plain code.
    pub fn kind(&self) -> ErrorKind {
        match self {
            ProbeError::Open { source, .. } => match source {
                OpenError::Db(DbError::Io { error, .. })
                    if error.kind() == std::io::ErrorKind::NotFound =>
                {
                    ErrorKind::MissingFile
                }
                OpenError::Db(
                    DbError::HeaderChecksum { .. }
                    | DbError::HeaderField { .. }
                    | DbError::Size { .. }
                    | DbError::RecordsChecksum
                    | DbError::Corrupted(_)
                    | DbError::BadRecord { .. },
                ) => ErrorKind::DamagedFile,
                _ => ErrorKind::UnusableFile,
            },
            ProbeError::Game(_) => ErrorKind::UnknownGame,
            ProbeError::Malformed { .. } => ErrorKind::MalformedPosition,
            ProbeError::Illegal { .. } => ErrorKind::IllegalPosition,
            ProbeError::MalformedMove { .. } => ErrorKind::MalformedMove,
            ProbeError::IllegalMove { .. } => ErrorKind::IllegalMove,
            ProbeError::OtherGame { .. } => ErrorKind::OtherGame,
            ProbeError::NotInBook { .. } => ErrorKind::NotInBook,
            ProbeError::Unreachable { .. } => ErrorKind::Unreachable,
            ProbeError::Corrupt { .. } => ErrorKind::Corrupt,
            ProbeError::NoDatabase { .. } => ErrorKind::NoDatabase,
            ProbeError::Stopped => ErrorKind::Stopped,
            ProbeError::TimedOut => ErrorKind::TimedOut,
            ProbeError::SearchFailed(_) => ErrorKind::SearchFailed,
            ProbeError::Invalid(_) => ErrorKind::DamagedFile,
            #[cfg(feature = "engine")]
            ProbeError::Stats(_) => ErrorKind::Stats,
        }
    }

    /// True for a search stopped through its [`crate::Cancel`], by a
    /// caller or by its deadline: nothing is wrong with the position or
    /// the file.
    pub fn is_stopped(&self) -> bool {
        matches!(self, ProbeError::Stopped | ProbeError::TimedOut)
    }

    /// True when the file is to blame: damaged, forged, or changed since
    /// it was opened (where it was opened, or where an answer read it).
    pub fn is_corrupt(&self) -> bool {
        matches!(self.kind(), ErrorKind::DamagedFile | ErrorKind::Corrupt)
    }

    /// True when the position (or move) given is to blame: malformed,
    /// illegal, or of another game.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self.kind(),
            ErrorKind::MalformedPosition
                | ErrorKind::IllegalPosition
                | ErrorKind::MalformedMove
                | ErrorKind::IllegalMove
                | ErrorKind::OtherGame
        )
    }

    /// A bad position, by its kind.
    pub(crate) fn from_position(e: PositionError) -> ProbeError {
        match e {
            PositionError::Malformed { input, reason } => ProbeError::Malformed { input, reason },
            PositionError::Illegal { input, reason } => ProbeError::Illegal { input, reason },
        }
    }

    /// A bad move, by its kind.
    pub(crate) fn from_move(e: PositionError) -> ProbeError {
        match e {
            PositionError::Malformed { input, reason } => {
                ProbeError::MalformedMove { input, reason }
            }
            PositionError::Illegal { input, reason } => ProbeError::IllegalMove { input, reason },
        }
    }

    /// The same error for another position of a batch that cannot be
    /// answered at all ([`crate::Tablebase::ready`]): a stopped search as
    /// it is, any other as a search that failed, with its message.
    pub fn for_another(&self) -> ProbeError {
        match self {
            ProbeError::Stopped => ProbeError::Stopped,
            ProbeError::TimedOut => ProbeError::TimedOut,
            ProbeError::SearchFailed(m) => ProbeError::SearchFailed(m.clone()),
            e => ProbeError::SearchFailed(e.to_string()),
        }
    }
}

impl From<QueryError> for ProbeError {
    fn from(e: QueryError) -> ProbeError {
        match e {
            QueryError::Unreachable { position } => ProbeError::Unreachable { position },
            QueryError::NotInDatabase { position } => ProbeError::NotInBook { position },
            QueryError::Inconsistent { position, reason } => {
                ProbeError::Corrupt { position, reason }
            }
            QueryError::Stopped => stopped(),
        }
    }
}

/// A stopped search: [`ProbeError::TimedOut`] when the calling thread's
/// [`crate::Cancel`] has passed its deadline, [`ProbeError::Stopped`]
/// otherwise.
pub(crate) fn stopped() -> ProbeError {
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    if boardsolve::core::Cancel::current()
        .and_then(|c| c.deadline())
        .is_some_and(|d| std::time::Instant::now() >= d)
    {
        return ProbeError::TimedOut;
    }
    ProbeError::Stopped
}
