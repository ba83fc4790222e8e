//! Tables: a file opened, or a game answered without one, with the texts
//! about its game and the searches it may stop.

use std::ffi::{c_char, CString};
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use boardsolve_probe::{default_searchers, Cancel, Game, Player, ProbeError, Tablebase};

#[cfg(not(unix))]
use crate::error::BOARDSOLVE_ERR_UNUSABLE_FILE;
use crate::error::{
    call, put, quietly, text, Code, Error, Failure, BOARDSOLVE_ERR_INVALID_ARGUMENT,
    BOARDSOLVE_ERR_UNKNOWN_GAME,
};

/// What a table handle starts with, so that another pointer passed in its
/// place is refused rather than read as a table.
const TAG: u64 = u64::from_le_bytes(*b"bsTABLE\0");

/// `BOARDSOLVE_GAME_NAME`: the registry name.
pub const BOARDSOLVE_GAME_NAME: i32 = 0;
/// `BOARDSOLVE_GAME_VARIANT`: the variant, canonical.
pub const BOARDSOLVE_GAME_VARIANT: i32 = 1;
/// `BOARDSOLVE_GAME_LABEL`: the name and variant.
pub const BOARDSOLVE_GAME_LABEL: i32 = 2;
/// `BOARDSOLVE_GAME_NOTATION`: how positions are written.
pub const BOARDSOLVE_GAME_NOTATION: i32 = 3;
/// `BOARDSOLVE_GAME_MOVE_NOTATION`: how a move is written.
pub const BOARDSOLVE_GAME_MOVE_NOTATION: i32 = 4;
/// `BOARDSOLVE_GAME_SCORE_MEANING`: what a value means.
pub const BOARDSOLVE_GAME_SCORE_MEANING: i32 = 5;
/// `BOARDSOLVE_GAME_FIRST_PLAYER`: the first player's name.
pub const BOARDSOLVE_GAME_FIRST_PLAYER: i32 = 6;
/// `BOARDSOLVE_GAME_SECOND_PLAYER`: the second player's name.
pub const BOARDSOLVE_GAME_SECOND_PLAYER: i32 = 7;
/// `BOARDSOLVE_GAME_EVEN_RESULT`: the word for an even result.
pub const BOARDSOLVE_GAME_EVEN_RESULT: i32 = 8;

/// The texts of `boardsolve_game_text`, one a field.
const FIELDS: usize = BOARDSOLVE_GAME_EVEN_RESULT as usize + 1;

/// `boardsolve_table`: a tablebase, its game's texts as C strings, and its
/// calls that may search, to stop.
#[repr(C)]
pub struct Table {
    tag: u64,
    pub(crate) tb: Tablebase,
    /// True when answers may come from search: only then are calls
    /// registered to be stopped, and timed.
    searches: bool,
    texts: [CString; FIELDS],
    /// The time limit of each call that searches, in nanoseconds (0: none).
    limit: AtomicU64,
    /// The flags of the calls that search now, for `boardsolve_stop`.
    running: Mutex<Vec<Cancel>>,
}

// The header promises that one table answers from many threads at once.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Table>();
};

impl Table {
    fn new(tb: Tablebase) -> Result<Table, Failure> {
        let tb = with_search(tb)?;
        let g = tb.game();
        // In the order of the fields' numbers.
        let texts = [
            g.name().to_owned(),
            g.variant().to_owned(),
            g.label(),
            g.entry().notation().to_owned(),
            g.move_notation().to_owned(),
            g.score_meaning().to_owned(),
            g.player_name(Player::First).to_owned(),
            g.player_name(Player::Second).to_owned(),
            g.even_word().to_owned(),
        ]
        .map(|t| CString::new(t).unwrap_or_default());
        Ok(Table {
            tag: TAG,
            searches: tb.searches(),
            tb,
            texts,
            limit: AtomicU64::new(0),
            running: Mutex::new(Vec::new()),
        })
    }

    /// The table at `p`.
    ///
    /// # Safety
    ///
    /// `p` is NULL or a pointer `boardsolve_open` or `boardsolve_open_game`
    /// returned, not yet closed.
    pub(crate) unsafe fn from_ptr<'a>(p: *const Table) -> Result<&'a Table, Failure> {
        // SAFETY: NULL or a live table, as the caller promises.
        match unsafe { p.as_ref() } {
            None => Err(Failure::null("table")),
            Some(t) if t.tag == TAG => Ok(t),
            Some(_) => Err(Failure::new(
                BOARDSOLVE_ERR_INVALID_ARGUMENT,
                "not a table: a pointer of another kind was passed as the table",
            )),
        }
    }

    /// Runs `f`, a call that may search, stoppable by `boardsolve_stop`
    /// and within the time limit; a call on a table that never searches
    /// runs as it is.
    #[inline]
    pub(crate) fn searching<T>(&self, f: impl FnOnce() -> T) -> T {
        if !self.searches {
            return f();
        }
        let cancel = match self.limit.load(Ordering::Relaxed) {
            0 => Cancel::new(),
            ns => Cancel::with_time_limit(Duration::from_nanos(ns)),
        };
        let _running = Running::start(self, &cancel);
        cancel.run(f)
    }

    /// The list of running calls (a panic elsewhere while it was held
    /// leaves it whole).
    fn running(&self) -> std::sync::MutexGuard<'_, Vec<Cancel>> {
        self.running.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A call on the list of running calls while it lives.
struct Running<'a> {
    table: &'a Table,
    cancel: Cancel,
}

impl<'a> Running<'a> {
    fn start(table: &'a Table, cancel: &Cancel) -> Running<'a> {
        table.running().push(cancel.clone());
        Running {
            table,
            cancel: cancel.clone(),
        }
    }
}

impl Drop for Running<'_> {
    fn drop(&mut self) {
        let mut running = self.table.running();
        if let Some(i) = running.iter().position(|c| c.same_as(&self.cancel)) {
            running.swap_remove(i);
        }
    }
}

/// `tb` with search turned on past its book (or without a file), as
/// `query` turns it on: one searcher per core, tables of the game's
/// default size, checked against the memory available now and made when
/// an answer first needs them. A tablebase that is not searched is
/// returned as it is.
fn with_search(tb: Tablebase) -> Result<Tablebase, ProbeError> {
    if !tb.is_searched() {
        return Ok(tb);
    }
    let searchers = default_searchers();
    let Some(bits) = tb.game().default_search_bits(searchers) else {
        return Ok(tb);
    };
    if let Some(Err(e)) = tb.game().check_search(bits, searchers) {
        return Err(ProbeError::SearchFailed(format!(
            "{}: search tables of {bits} bits: {e}",
            tb.game().label()
        )));
    }
    Ok(tb.search_on_demand(bits, searchers))
}

/// Boxes `table` into `*out`.
fn hand_out(out: *mut *mut Table, table: Table) {
    // SAFETY: checked not NULL by the caller, writable as the header says.
    unsafe { out.write(Box::into_raw(Box::new(table))) };
}

/// `boardsolve_open`: opens and checks the database file at `path`.
///
/// # Safety
///
/// `path` is NULL or a NUL-terminated string; `table` is NULL or writable;
/// `error` is NULL or a writable `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_open(
    path: *const c_char,
    table: *mut *mut Table,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            put(table, "table", std::ptr::null_mut())?;
            if path.is_null() {
                return Err(Failure::null("path"));
            }
            // A path is bytes on Unix, UTF-8 or not.
            let bytes = std::ffi::CStr::from_ptr(path).to_bytes();
            let path = path_of(bytes)?;
            let tb = Tablebase::open(path)?;
            hand_out(table, Table::new(tb)?);
            Ok(())
        })
    }
}

/// The path of `bytes`.
#[cfg(unix)]
fn path_of(bytes: &[u8]) -> Result<&Path, Failure> {
    use std::os::unix::ffi::OsStrExt;
    Ok(Path::new(std::ffi::OsStr::from_bytes(bytes)))
}

/// The path of `bytes`, which must be UTF-8 here.
#[cfg(not(unix))]
fn path_of(bytes: &[u8]) -> Result<&Path, Failure> {
    std::str::from_utf8(bytes)
        .map(Path::new)
        .map_err(|_| Failure::new(BOARDSOLVE_ERR_UNUSABLE_FILE, "the path is not UTF-8"))
}

/// `boardsolve_open_game`: a game answered without a file.
///
/// # Safety
///
/// `game` is NULL or a NUL-terminated string, `variant` too; `table` is
/// NULL or writable; `error` is NULL or a writable `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_open_game(
    game: *const c_char,
    variant: *const c_char,
    table: *mut *mut Table,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            put(table, "table", std::ptr::null_mut())?;
            let name = text(game, "game", BOARDSOLVE_ERR_UNKNOWN_GAME)?;
            let variant = match variant.is_null() {
                true => "",
                false => text(variant, "variant", BOARDSOLVE_ERR_UNKNOWN_GAME)?,
            };
            let tb = Tablebase::for_game(Game::new(name, variant)?)?;
            hand_out(table, Table::new(tb)?);
            Ok(())
        })
    }
}

/// `boardsolve_close`: frees a table.
///
/// # Safety
///
/// `table` is NULL or a table not yet closed, with no call on it running.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_close(table: *mut Table) {
    quietly((), || {
        // SAFETY: NULL or a live table, as the caller promises.
        if unsafe { Table::from_ptr(table) }.is_ok() {
            // SAFETY: made by Box::into_raw in `hand_out`, freed once.
            drop(unsafe { Box::from_raw(table) });
        }
    })
}

/// `boardsolve_build_index`: the file's lookup index, read once.
///
/// # Safety
///
/// `table` is NULL or a live table.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_build_index(table: *const Table) -> Code {
    // SAFETY: NULL or a live table; no error structure.
    unsafe {
        call(std::ptr::null_mut(), || {
            Table::from_ptr(table)?.tb.build_index();
            Ok(())
        })
    }
}

/// `boardsolve_game_text`: a text about the table's game.
///
/// # Safety
///
/// `table` is NULL or a live table.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_game_text(table: *const Table, field: i32) -> *const c_char {
    quietly(std::ptr::null(), || {
        // SAFETY: NULL or a live table, as the caller promises.
        let Ok(table) = (unsafe { Table::from_ptr(table) }) else {
            return std::ptr::null();
        };
        usize::try_from(field)
            .ok()
            .and_then(|f| table.texts.get(f))
            .map_or(std::ptr::null(), |t| t.as_ptr())
    })
}

/// `boardsolve_set_time_limit`: bounds each later call that searches.
///
/// # Safety
///
/// `table` is NULL or a live table.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_set_time_limit(table: *const Table, seconds: f64) -> Code {
    // SAFETY: NULL or a live table; no error structure.
    unsafe {
        call(std::ptr::null_mut(), || {
            let table = Table::from_ptr(table)?;
            if seconds.is_nan() || seconds < 0.0 {
                return Err(Failure::new(
                    BOARDSOLVE_ERR_INVALID_ARGUMENT,
                    format!("time limit {seconds}: give 0 (none) or more seconds"),
                ));
            }
            // Past what a u64 of nanoseconds holds (584 years): no limit.
            let ns = Duration::try_from_secs_f64(seconds)
                .ok()
                .and_then(|d| u64::try_from(d.as_nanos()).ok())
                .unwrap_or(0);
            table.limit.store(ns, Ordering::Relaxed);
            Ok(())
        })
    }
}

/// `boardsolve_stop`: stops the searches of the calls running now.
///
/// # Safety
///
/// `table` is NULL or a live table.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_stop(table: *const Table) -> Code {
    // SAFETY: NULL or a live table; no error structure.
    unsafe {
        call(std::ptr::null_mut(), || {
            for cancel in Table::from_ptr(table)?.running().iter() {
                cancel.cancel();
            }
            Ok(())
        })
    }
}
