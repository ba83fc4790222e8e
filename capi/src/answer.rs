//! Answers: a position's value and moves, its line of perfect play, its
//! JSON line, and values by key.

use std::ffi::c_char;

use boardsolve_probe::{json, Eval, Outcome, Player, ProbeError};

use crate::error::{
    call, put, text, Code, Error, Failure, BOARDSOLVE_ERR_INVALID_ARGUMENT,
    BOARDSOLVE_ERR_MALFORMED_POSITION, BOARDSOLVE_OK,
};
use crate::position::{hand_out_string, Handle};
use crate::table::Table;

/// `BOARDSOLVE_LOSS`.
pub const BOARDSOLVE_LOSS: i32 = -1;
/// `BOARDSOLVE_TIE`.
pub const BOARDSOLVE_TIE: i32 = 0;
/// `BOARDSOLVE_WIN`.
pub const BOARDSOLVE_WIN: i32 = 1;
/// `BOARDSOLVE_FIRST`.
pub const BOARDSOLVE_FIRST: i32 = 0;
/// `BOARDSOLVE_SECOND`.
pub const BOARDSOLVE_SECOND: i32 = 1;
/// `BOARDSOLVE_MOVE_NAME_SIZE`: a move's name, its NUL included.
pub const BOARDSOLVE_MOVE_NAME_SIZE: usize = 24;
/// `BOARDSOLVE_MAX_MOVES`: the most legal moves of any position.
pub const BOARDSOLVE_MAX_MOVES: usize = 64;
/// `BOARDSOLVE_JSON_LINE`: the line of perfect play in the JSON too.
pub const BOARDSOLVE_JSON_LINE: u32 = 1;

thread_local! {
    /// The buffer `boardsolve_json` writes its lines into.
    static LINE: std::cell::RefCell<String> = const { std::cell::RefCell::new(String::new()) };
}

/// Keys handed to the probe crate at a time by `boardsolve_probe_keys`:
/// its results (an error each, possibly) stay a few hundred kilobytes,
/// whatever the caller's count.
const KEY_CHUNK: usize = 4096;

/// `boardsolve_answer`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AnswerC {
    /// The value for the side to move.
    pub value: i32,
    /// Plies to the end under perfect play.
    pub remoteness: u32,
    /// Win, tie or loss for the side to move.
    pub outcome: i32,
    /// The side to move.
    pub to_move: i32,
    /// The legal moves.
    pub move_count: u32,
}

/// `boardsolve_move`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveC {
    /// The name, NUL-terminated (C's `char`s, bytes here).
    pub name: [u8; BOARDSOLVE_MOVE_NAME_SIZE],
    /// The move's number, -1 for a pass.
    pub number: i32,
    /// The value for the side making it.
    pub value: i32,
    /// The remoteness after it.
    pub remoteness: u32,
    /// How much longer than the best move of its outcome.
    pub delta_remoteness: u32,
    /// Win, tie or loss for the side making it.
    pub outcome: i32,
    /// 1 when it keeps the value.
    pub best: i32,
}

/// `boardsolve_eval`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EvalC {
    /// The value for the side to move.
    pub value: i32,
    /// Plies to the end under perfect play.
    pub remoteness: u32,
}

// The sizes the header's structures have (tests/c checks them from C).
const _: () = assert!(std::mem::size_of::<AnswerC>() == 20);
const _: () = assert!(std::mem::size_of::<MoveC>() == 48);
const _: () = assert!(std::mem::size_of::<EvalC>() == 8);
const _: () = assert!(std::mem::size_of::<Error>() == 516);

fn outcome(o: Outcome) -> i32 {
    match o {
        Outcome::Win => BOARDSOLVE_WIN,
        Outcome::Tie => BOARDSOLVE_TIE,
        Outcome::Loss => BOARDSOLVE_LOSS,
    }
}

impl From<Eval> for EvalC {
    fn from(e: Eval) -> EvalC {
        EvalC {
            value: e.value,
            remoteness: e.remoteness,
        }
    }
}

/// `name` as a C string of at most `BOARDSOLVE_MOVE_NAME_SIZE` bytes
/// (names are at most 22).
fn move_name(name: &str) -> [u8; BOARDSOLVE_MOVE_NAME_SIZE] {
    let mut out = [0; BOARDSOLVE_MOVE_NAME_SIZE];
    let len = name.len().min(BOARDSOLVE_MOVE_NAME_SIZE - 1);
    out[..len].copy_from_slice(&name.as_bytes()[..len]);
    out
}

/// `boardsolve_probe`: a position's value, and its moves' values.
///
/// # Safety
///
/// `table` and `position` are NULL or live; `answer` is NULL or writable;
/// `moves` is NULL or writable for `capacity` moves; `error` is NULL or a
/// writable `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_probe(
    table: *const Table,
    position: *const Handle,
    answer: *mut AnswerC,
    moves: *mut MoveC,
    capacity: usize,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            let table = Table::from_ptr(table)?;
            let position = Handle::from_ptr(position)?;
            if answer.is_null() {
                return Err(Failure::null("answer"));
            }
            if moves.is_null() && capacity > 0 {
                return Err(Failure::null("moves"));
            }
            let a = table.searching(|| table.tb.answer(position))?;
            let all = a.moves();
            let count = all.len();
            for (i, m) in all.take(capacity).enumerate() {
                moves.add(i).write(MoveC {
                    name: move_name(m.mv.name()),
                    number: m.mv.number().map_or(-1, |n| n as i32),
                    value: m.value,
                    remoteness: m.remoteness,
                    delta_remoteness: m.delta_remoteness,
                    outcome: outcome(m.outcome),
                    best: i32::from(m.best),
                });
            }
            answer.write(AnswerC {
                value: a.value(),
                remoteness: a.remoteness(),
                outcome: outcome(a.outcome()),
                to_move: match a.to_move() {
                    Player::First => BOARDSOLVE_FIRST,
                    Player::Second => BOARDSOLVE_SECOND,
                },
                move_count: u32::try_from(count).unwrap_or(u32::MAX),
            });
            Ok(())
        })
    }
}

/// `boardsolve_line`: the line of perfect play, names separated by
/// spaces.
///
/// # Safety
///
/// `table` and `position` are NULL or live; `line` is NULL or writable;
/// `error` is NULL or a writable `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_line(
    table: *const Table,
    position: *const Handle,
    line: *mut *mut c_char,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            put(line, "line", std::ptr::null_mut())?;
            let table = Table::from_ptr(table)?;
            let position = Handle::from_ptr(position)?;
            let moves = table.searching(|| table.tb.line(position))?;
            let mut text = String::with_capacity(moves.len() * 3);
            for (i, m) in moves.iter().enumerate() {
                if i > 0 {
                    text.push(' ');
                }
                text.push_str(m.name());
            }
            hand_out_string(line, &text)
        })
    }
}

/// `boardsolve_json`: the line `query --json` prints for a position.
///
/// # Safety
///
/// `table` is NULL or live; `text` is NULL or a NUL-terminated string;
/// `json` is NULL or writable; `error` is NULL or a writable
/// `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_json(
    table: *const Table,
    text: *const c_char,
    flags: u32,
    json: *mut *mut c_char,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            put(json, "json", std::ptr::null_mut())?;
            let table = Table::from_ptr(table)?;
            if flags & !BOARDSOLVE_JSON_LINE != 0 {
                return Err(Failure::new(
                    BOARDSOLVE_ERR_INVALID_ARGUMENT,
                    format!("JSON flags {flags:#x}: only BOARDSOLVE_JSON_LINE (1) is known"),
                ));
            }
            let input = self::text(text, "position", BOARDSOLVE_ERR_MALFORMED_POSITION)?;
            let (a, pv) = table.searching(|| -> Result<_, ProbeError> {
                let position = table.tb.parse(input)?;
                let a = table.tb.answer(&position)?;
                let pv = match flags & BOARDSOLVE_JSON_LINE {
                    0 => None,
                    _ => Some(table.tb.line(&position)?),
                };
                Ok((a, pv))
            })?;
            // Written into this thread's buffer, then copied out once at
            // its length: a line grown afresh in its own string would be
            // reallocated a few times on the way to its kilobyte or two.
            LINE.with(|buf| {
                let mut buf = buf.borrow_mut();
                buf.clear();
                match &pv {
                    None => json::answer_into(&mut buf, input, &a),
                    Some(pv) => buf.push_str(&json::answer(input, &a, Some(pv))),
                }
                hand_out_string(json, &buf)
            })
        })
    }
}

/// `boardsolve_probe_key`: the value and remoteness of a key.
///
/// # Safety
///
/// `table` is NULL or live; `eval` is NULL or writable; `error` is NULL or
/// a writable `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_probe_key(
    table: *const Table,
    key: u64,
    eval: *mut EvalC,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            let table = Table::from_ptr(table)?;
            if eval.is_null() {
                return Err(Failure::null("eval"));
            }
            let e = table.searching(|| table.tb.probe_key(key))?;
            eval.write(e.into());
            Ok(())
        })
    }
}

/// `boardsolve_probe_keys`: many keys, looked up together.
///
/// # Safety
///
/// `table` is NULL or live; `keys` is NULL or readable for `count` keys;
/// `evals` is NULL or writable for `count` evals, `codes` too; `error` is
/// NULL or a writable `boardsolve_error`.
#[no_mangle]
pub unsafe extern "C" fn boardsolve_probe_keys(
    table: *const Table,
    keys: *const u64,
    count: usize,
    evals: *mut EvalC,
    codes: *mut Code,
    error: *mut Error,
) -> Code {
    // SAFETY: the caller's pointers, as documented above.
    unsafe {
        call(error, || {
            let table = Table::from_ptr(table)?;
            if count == 0 {
                return Ok(());
            }
            if keys.is_null() {
                return Err(Failure::null("keys"));
            }
            if evals.is_null() {
                return Err(Failure::null("evals"));
            }
            let keys = std::slice::from_raw_parts(keys, count);
            let mut first: Option<Failure> = None;
            table.searching(|| {
                for (c, chunk) in keys.chunks(KEY_CHUNK).enumerate() {
                    let at = c * KEY_CHUNK;
                    for (i, r) in table.tb.probe_keys(chunk).into_iter().enumerate() {
                        let (e, code) = match r {
                            Ok(e) => (e.into(), BOARDSOLVE_OK),
                            Err(e) => {
                                let f = Failure::from(e);
                                let code = f.code;
                                if first.is_none() {
                                    let n = at + i;
                                    let message = format!("key {n} ({}): {}", chunk[i], f.message);
                                    first = Some(Failure::new(code, message));
                                }
                                (
                                    EvalC {
                                        value: 0,
                                        remoteness: 0,
                                    },
                                    code,
                                )
                            }
                        };
                        evals.add(at + i).write(e);
                        if !codes.is_null() {
                            codes.add(at + i).write(code);
                        }
                    }
                }
            });
            first.map_or(Ok(()), Err)
        })
    }
}
