//! Positions: parsed from text by a table, played on, written back, and
//! their keys.

use std::ffi::{c_char, CString};

use boardsolve_probe::Position;

use crate::error::{
    call, put, quietly, text, Code, Error, Failure, BOARDSOLVE_ERR_INTERNAL,
    BOARDSOLVE_ERR_INVALID_ARGUMENT, BOARDSOLVE_ERR_MALFORMED_MOVE,
    BOARDSOLVE_ERR_MALFORMED_POSITION,
};
use crate::table::Table;

/// What a position handle starts with (see the table's).
const TAG: u64 = u64::from_le_bytes(*b"bsPOSIT\0");

/// `boardsolve_position`: a position, boxed.
#[repr(C)]
pub struct Handle {
    tag: u64,
    pub(crate) position: Position,
}

// The header promises that positions may be read from any thread.
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<Handle>();
};

impl Handle {
    /// The position at `p`.
    ///
    /// # Safety
    ///
    /// `p` is NULL or a position the library returned, not yet freed.
    pub(crate) unsafe fn from_ptr<'a>(p: *const Handle) -> Result<&'a Position, Failure> {
        // SAFETY: NULL or a live position, as the caller promises.
        match unsafe { p.as_ref() } {
            None => Err(Failure::null("position")),
            Some(h) if h.tag == TAG => Ok(&h.position),
            Some(_) => Err(Failure::new(
                BOARDSOLVE_ERR_INVALID_ARGUMENT,
                "not a position: a pointer of another kind was passed as the position",
            )),
        }
    }

    /// `position` boxed into `*out`, checked not NULL before.
    fn hand_out(out: *mut *mut Handle, position: Position) {
        let handle = Box::new(Handle { tag: TAG, position });
        // SAFETY: the caller checked `out` (by writing NULL to it first).
        unsafe { out.write(Box::into_raw(handle)) };
    }
}

/// `text` copied into a C string for the caller to free with
/// `boardsolve_string_free`, into `*out` (checked not NULL before): one
/// allocation of exactly its bytes and the NUL, which `CString::from_raw`
/// takes back whole.
pub(crate) fn hand_out_string(out: *mut *mut c_char, text: &str) -> Result<(), Failure> {
    // A NUL inside would cut the string short for C, and for the free
    // function, which measures it; none is made (positions come in as C
    // strings, and JSON escapes control characters).
    if text.as_bytes().contains(&0) {
        return Err(Failure::new(
            BOARDSOLVE_ERR_INTERNAL,
            "a NUL inside a text made",
        ));
    }
    let mut bytes = Vec::with_capacity(text.len() + 1);
    bytes.extend_from_slice(text.as_bytes());
    bytes.push(0);
    // SAFETY: one NUL, the last byte.
    let s = unsafe { CString::from_vec_with_nul_unchecked(bytes) };
    // SAFETY: the caller checked `out` (by writing NULL to it first).
    unsafe { out.write(s.into_raw()) };
    Ok(())
}

/// `boardsolve_parse`: a position of the table's game.
///
/// # Safety
///
/// `table` is NULL or a live table; `text` is NULL or a NUL-terminated
/// string; `position` is NULL or writable; `error` is NULL or a writable
/// `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_parse(
    table: *const Table,
    text: *const c_char,
    position: *mut *mut Handle,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            put(position, "position", std::ptr::null_mut())?;
            let table = Table::from_ptr(table)?;
            let text = self::text(text, "position", BOARDSOLVE_ERR_MALFORMED_POSITION)?;
            Handle::hand_out(position, table.tb.parse(text)?);
            Ok(())
        })
    }
}

/// `boardsolve_play`: the position after a move.
///
/// # Safety
///
/// `position` is NULL or a live position; `mv` is NULL or a
/// NUL-terminated string; `after` is NULL or writable; `error` is NULL or
/// a writable `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_play(
    position: *const Handle,
    mv: *const c_char,
    after: *mut *mut Handle,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            put(after, "after", std::ptr::null_mut())?;
            let position = Handle::from_ptr(position)?;
            let mv = text(mv, "move", BOARDSOLVE_ERR_MALFORMED_MOVE)?;
            Handle::hand_out(after, position.play_text(mv)?);
            Ok(())
        })
    }
}

/// `boardsolve_position_text`: the position as text that reads back.
///
/// # Safety
///
/// `position` is NULL or a live position; `out` is NULL or writable;
/// `error` is NULL or a writable `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_position_text(
    position: *const Handle,
    out: *mut *mut c_char,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            put(out, "text", std::ptr::null_mut())?;
            hand_out_string(out, &Handle::from_ptr(position)?.text())
        })
    }
}

/// `boardsolve_position_key`: the position's key, and its canonical key.
///
/// # Safety
///
/// `position` is NULL or a live position; `key` and `canonical` are NULL
/// or writable; `error` is NULL or a writable `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_position_key(
    position: *const Handle,
    key: *mut u64,
    canonical: *mut u64,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            let position = Handle::from_ptr(position)?;
            if let Some(key) = key.as_mut() {
                *key = position.key();
            }
            if let Some(canonical) = canonical.as_mut() {
                *canonical = position.canonical_key();
            }
            Ok(())
        })
    }
}

/// `boardsolve_position_free`: frees a position.
///
/// # Safety
///
/// `position` is NULL or a live position, freed once.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_position_free(position: *mut Handle) {
    quietly((), || {
        // SAFETY: NULL or a live position, as the caller promises.
        if unsafe { Handle::from_ptr(position) }.is_ok() {
            // SAFETY: made by Box::into_raw in `hand_out`, freed once.
            drop(unsafe { Box::from_raw(position) });
        }
    })
}
