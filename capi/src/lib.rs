//! The C library over the probe crate: `libboardsolve.so` (soname
//! `libboardsolve.so.0`) and `libboardsolve.a`, whose interface is
//! `capi/include/boardsolve.h`, kept by hand beside this crate (a test
//! checks the two agree: every function, constant and structure size).
//!
//! Every exported function is a thin shell over a typed call of
//! `boardsolve_probe`: it checks its pointers (NULL, or a handle of
//! another kind), runs the call under `catch_unwind` so that no panic
//! crosses into C, and turns a failure into a `boardsolve_code` with a
//! message written into the caller's `boardsolve_error`. No state is kept
//! between calls but the handles the caller holds: a table (the
//! tablebase, its game's texts, the searches it may stop) and positions.
//!
//! `capi/install --prefix DIR` builds it and installs it as C libraries
//! are installed, with the header and a pkg-config file (`docs/c.md`).
#![warn(missing_docs)]

mod answer;
mod error;
mod position;
mod table;

use std::ffi::{c_char, CString};

pub use answer::{
    boardsolve_json, boardsolve_line, boardsolve_probe, boardsolve_probe_key,
    boardsolve_probe_keys, AnswerC, EvalC, MoveC, BOARDSOLVE_FIRST, BOARDSOLVE_JSON_LINE,
    BOARDSOLVE_LOSS, BOARDSOLVE_MAX_MOVES, BOARDSOLVE_MOVE_NAME_SIZE, BOARDSOLVE_SECOND,
    BOARDSOLVE_TIE, BOARDSOLVE_WIN,
};
pub use error::*;
pub use position::{
    boardsolve_parse, boardsolve_play, boardsolve_position_free, boardsolve_position_key,
    boardsolve_position_text, Handle,
};
pub use table::{
    boardsolve_build_index, boardsolve_close, boardsolve_game_text, boardsolve_open,
    boardsolve_open_game, boardsolve_set_time_limit, boardsolve_stop, Table,
    BOARDSOLVE_GAME_EVEN_RESULT, BOARDSOLVE_GAME_FIRST_PLAYER, BOARDSOLVE_GAME_LABEL,
    BOARDSOLVE_GAME_MOVE_NOTATION, BOARDSOLVE_GAME_NAME, BOARDSOLVE_GAME_NOTATION,
    BOARDSOLVE_GAME_SCORE_MEANING, BOARDSOLVE_GAME_SECOND_PLAYER, BOARDSOLVE_GAME_VARIANT,
};

/// `boardsolve_version`: the library's version, a static string.
#[no_mangle]
pub extern "C" fn boardsolve_version() -> *const c_char {
    concat!(env!("CARGO_PKG_VERSION"), "\0").as_ptr().cast()
}

/// `boardsolve_code_text`: a code's short description, a static string.
#[no_mangle]
pub extern "C" fn boardsolve_code_text(code: Code) -> *const c_char {
    error::code_text(code).as_ptr()
}

/// `boardsolve_string_free`: frees a string the library returned.
///
/// # Safety
///
/// `string` is NULL or a string the library returned, freed once.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_string_free(string: *mut c_char) {
    error::quietly((), || {
        if !string.is_null() {
            // SAFETY: made by CString::into_raw (position::hand_out_string),
            // and freed once, as the caller promises.
            drop(unsafe { CString::from_raw(string) });
        }
    })
}
