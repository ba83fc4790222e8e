//! The codes of `boardsolve.h`, the error structure callers pass, and the
//! boundary every exported function goes through: no panic crosses it,
//! and a failure becomes a code with a message.

use std::ffi::{c_char, CStr};
use std::panic::{catch_unwind, AssertUnwindSafe};

use boardsolve_probe::{ErrorKind, ProbeError};

/// `boardsolve_code`: what a call returns.
pub type Code = i32;

/// The call succeeded.
pub const BOARDSOLVE_OK: Code = 0;
/// A pointer the call needs is NULL.
pub const BOARDSOLVE_ERR_NULL: Code = 1;
/// An argument out of range, or a handle of another kind.
pub const BOARDSOLVE_ERR_INVALID_ARGUMENT: Code = 2;
/// The file does not exist.
pub const BOARDSOLVE_ERR_MISSING_FILE: Code = 3;
/// The file's bytes fail their checks.
pub const BOARDSOLVE_ERR_DAMAGED_FILE: Code = 4;
/// The file is not a database this library can read.
pub const BOARDSOLVE_ERR_UNUSABLE_FILE: Code = 5;
/// No such game or variant.
pub const BOARDSOLVE_ERR_UNKNOWN_GAME: Code = 6;
/// A malformed position, or a key no position has.
pub const BOARDSOLVE_ERR_MALFORMED_POSITION: Code = 7;
/// An illegal position.
pub const BOARDSOLVE_ERR_ILLEGAL_POSITION: Code = 8;
/// A text that names no move.
pub const BOARDSOLVE_ERR_MALFORMED_MOVE: Code = 9;
/// A move that is not legal.
pub const BOARDSOLVE_ERR_ILLEGAL_MOVE: Code = 10;
/// A position of another game or variant.
pub const BOARDSOLVE_ERR_OTHER_GAME: Code = 11;
/// A position past the opening book.
pub const BOARDSOLVE_ERR_NOT_IN_BOOK: Code = 12;
/// A position no game reaches.
pub const BOARDSOLVE_ERR_UNREACHABLE: Code = 13;
/// Damage found while answering.
pub const BOARDSOLVE_ERR_CORRUPT: Code = 14;
/// No file where one is needed.
pub const BOARDSOLVE_ERR_NO_DATABASE: Code = 15;
/// A search stopped by `boardsolve_stop`.
pub const BOARDSOLVE_ERR_STOPPED: Code = 16;
/// A search out of time.
pub const BOARDSOLVE_ERR_TIMED_OUT: Code = 17;
/// A search that could not be set up.
pub const BOARDSOLVE_ERR_SEARCH_FAILED: Code = 18;
/// A failure inside the library.
pub const BOARDSOLVE_ERR_INTERNAL: Code = 19;

/// `BOARDSOLVE_MESSAGE_SIZE`: the message's bytes, its NUL included.
pub const BOARDSOLVE_MESSAGE_SIZE: usize = 512;

/// `boardsolve_error`: the code a call returned and why.
#[repr(C)]
pub struct Error {
    /// The code the call returned.
    pub code: Code,
    /// The message: UTF-8, NUL-terminated.
    pub message: [c_char; BOARDSOLVE_MESSAGE_SIZE],
}

/// Each code's short description, as `boardsolve_code_text` gives it.
pub(crate) fn code_text(code: Code) -> &'static CStr {
    match code {
        BOARDSOLVE_OK => c"success",
        BOARDSOLVE_ERR_NULL => c"null argument",
        BOARDSOLVE_ERR_INVALID_ARGUMENT => c"invalid argument",
        BOARDSOLVE_ERR_MISSING_FILE => c"missing file",
        BOARDSOLVE_ERR_DAMAGED_FILE => c"damaged file",
        BOARDSOLVE_ERR_UNUSABLE_FILE => c"unusable file",
        BOARDSOLVE_ERR_UNKNOWN_GAME => c"unknown game",
        BOARDSOLVE_ERR_MALFORMED_POSITION => c"malformed position",
        BOARDSOLVE_ERR_ILLEGAL_POSITION => c"illegal position",
        BOARDSOLVE_ERR_MALFORMED_MOVE => c"malformed move",
        BOARDSOLVE_ERR_ILLEGAL_MOVE => c"illegal move",
        BOARDSOLVE_ERR_OTHER_GAME => c"position of another game",
        BOARDSOLVE_ERR_NOT_IN_BOOK => c"not in the opening book",
        BOARDSOLVE_ERR_UNREACHABLE => c"unreachable position",
        BOARDSOLVE_ERR_CORRUPT => c"corrupt database",
        BOARDSOLVE_ERR_NO_DATABASE => c"no database",
        BOARDSOLVE_ERR_STOPPED => c"search stopped",
        BOARDSOLVE_ERR_TIMED_OUT => c"search timed out",
        BOARDSOLVE_ERR_SEARCH_FAILED => c"search failed",
        BOARDSOLVE_ERR_INTERNAL => c"internal error",
        _ => c"unknown code",
    }
}

/// Why a call failed: its code and message.
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) code: Code,
    pub(crate) message: String,
}

impl Failure {
    /// A failure with `code`, because of `message`.
    pub(crate) fn new(code: Code, message: impl Into<String>) -> Failure {
        Failure {
            code,
            message: message.into(),
        }
    }

    /// A NULL where `what` was needed.
    #[cold]
    pub(crate) fn null(what: &str) -> Failure {
        Failure::new(BOARDSOLVE_ERR_NULL, format!("{what} is NULL"))
    }

    /// A panic caught at the boundary, with what it said.
    #[cold]
    fn panic(payload: Box<dyn std::any::Any + Send>) -> Failure {
        let said = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "no message".to_owned());
        Failure::new(BOARDSOLVE_ERR_INTERNAL, format!("internal error: {said}"))
    }
}

/// The code of a probe error's cause.
pub(crate) fn kind_code(kind: ErrorKind) -> Code {
    match kind {
        ErrorKind::MissingFile => BOARDSOLVE_ERR_MISSING_FILE,
        ErrorKind::DamagedFile => BOARDSOLVE_ERR_DAMAGED_FILE,
        ErrorKind::UnusableFile => BOARDSOLVE_ERR_UNUSABLE_FILE,
        ErrorKind::UnknownGame => BOARDSOLVE_ERR_UNKNOWN_GAME,
        ErrorKind::MalformedPosition => BOARDSOLVE_ERR_MALFORMED_POSITION,
        ErrorKind::IllegalPosition => BOARDSOLVE_ERR_ILLEGAL_POSITION,
        ErrorKind::MalformedMove => BOARDSOLVE_ERR_MALFORMED_MOVE,
        ErrorKind::IllegalMove => BOARDSOLVE_ERR_ILLEGAL_MOVE,
        ErrorKind::OtherGame => BOARDSOLVE_ERR_OTHER_GAME,
        ErrorKind::NotInBook => BOARDSOLVE_ERR_NOT_IN_BOOK,
        ErrorKind::Unreachable => BOARDSOLVE_ERR_UNREACHABLE,
        ErrorKind::Corrupt => BOARDSOLVE_ERR_CORRUPT,
        ErrorKind::NoDatabase => BOARDSOLVE_ERR_NO_DATABASE,
        ErrorKind::Stopped => BOARDSOLVE_ERR_STOPPED,
        ErrorKind::TimedOut => BOARDSOLVE_ERR_TIMED_OUT,
        ErrorKind::SearchFailed => BOARDSOLVE_ERR_SEARCH_FAILED,
        // Statistics are not in this interface, and a cause added to the
        // probe crate later is still an error.
        _ => BOARDSOLVE_ERR_INTERNAL,
    }
}

impl From<ProbeError> for Failure {
    #[cold]
    fn from(e: ProbeError) -> Failure {
        Failure::new(kind_code(e.kind()), e.to_string())
    }
}

/// Runs `f`, the body of an exported function, and returns its code,
/// written with its message into `*error` when `error` is not NULL. A
/// panic in `f` is caught here and becomes `BOARDSOLVE_ERR_INTERNAL`.
///
/// # Safety
///
/// `error` is NULL or points to a `boardsolve_error` the caller owns.
#[inline]
pub(crate) unsafe fn call(error: *mut Error, f: impl FnOnce() -> Result<(), Failure>) -> Code {
    let result = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(Failure::panic(payload)),
    };
    // SAFETY: the caller passes NULL or a valid, writable boardsolve_error.
    let out = unsafe { error.as_mut() };
    match result {
        Ok(()) => {
            if let Some(out) = out {
                out.code = BOARDSOLVE_OK;
                out.message[0] = 0;
            }
            BOARDSOLVE_OK
        }
        Err(f) => {
            if let Some(out) = out {
                out.code = f.code;
                write_message(&mut out.message, &f.message);
            }
            f.code
        }
    }
}

/// Runs `f`, the body of an exported function that reports no error
/// (a free function, a getter), with any panic caught: `fallback` then.
pub(crate) fn quietly<T>(fallback: T, f: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(f)).unwrap_or(fallback)
}

/// Copies `text` into `out` with a NUL after it, cut at a character
/// boundary when it does not fit.
fn write_message(out: &mut [c_char; BOARDSOLVE_MESSAGE_SIZE], text: &str) {
    let mut len = text.len().min(BOARDSOLVE_MESSAGE_SIZE - 1);
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    // A NUL inside the message would cut it short for C: none is made
    // (messages quote inputs that came in as C strings).
    for (o, &b) in out.iter_mut().zip(&text.as_bytes()[..len]) {
        *o = b as c_char;
    }
    out[len] = 0;
}

/// The text at `p`, a C string: `BOARDSOLVE_ERR_NULL` naming `what` when
/// NULL, and `not_utf8` when it is not UTF-8.
///
/// # Safety
///
/// `p` is NULL or points to a NUL-terminated string that outlives `'a`.
pub(crate) unsafe fn text<'a>(
    p: *const c_char,
    what: &str,
    not_utf8: Code,
) -> Result<&'a str, Failure> {
    if p.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: not NULL, and the caller promises a NUL-terminated string.
    let bytes = unsafe { CStr::from_ptr(p) }.to_bytes();
    std::str::from_utf8(bytes).map_err(|e| {
        let head = String::from_utf8_lossy(&bytes[..e.valid_up_to().min(40)]);
        Failure::new(
            not_utf8,
            format!("{what} {head:?}...: not UTF-8 (byte {})", e.valid_up_to()),
        )
    })
}

/// `value` written to `*out`, which must not be NULL (`what` names it).
///
/// # Safety
///
/// `out` is NULL or valid for a write of a `T`.
#[inline]
pub(crate) unsafe fn put<T>(out: *mut T, what: &str, value: T) -> Result<(), Failure> {
    if out.is_null() {
        return Err(Failure::null(what));
    }
    // SAFETY: not NULL, and the caller promises it is writable.
    unsafe { out.write(value) };
    Ok(())
}
