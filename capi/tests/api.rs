//! The C interface called as C calls it, from Rust: answers agree with
//! the probe crate's, byte for byte for JSON; every bad argument (NULL, a
//! handle of another kind, a position of another game, text that is not
//! UTF-8, a damaged or truncated file) is a code with a message; searches
//! stop when told and at their time limit; one table answers from many
//! threads at once.

use std::ffi::{c_char, CStr, CString};
use std::path::{Path, PathBuf};
use std::ptr::{null, null_mut};

use boardsolve::core::NoProgress;
use boardsolve::games::british_square::BritishSquare;
use boardsolve::Game as _;
use boardsolve_capi::*;
use boardsolve_probe::{json, Tablebase};

fn bsq(dir: &Path, variant: &str) -> PathBuf {
    let game = BritishSquare::from_variant(variant).unwrap();
    let sol = boardsolve::solve::solve(&game, &NoProgress).unwrap();
    let path = dir.join(format!("bsq-{variant}.db"));
    boardsolve::db::write_database(&path, game.descriptor(), &sol.into()).unwrap();
    path
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn fresh_error() -> Error {
    Error {
        code: -1,
        message: [0; BOARDSOLVE_MESSAGE_SIZE],
    }
}

fn message(e: &Error) -> String {
    // SAFETY: the library writes a NUL-terminated message.
    unsafe { CStr::from_ptr(e.message.as_ptr()) }
        .to_str()
        .unwrap()
        .to_owned()
}

/// A table, closed when dropped.
struct T(*mut Table);

impl Drop for T {
    fn drop(&mut self) {
        // SAFETY: a table the library opened, closed once.
        unsafe { boardsolve_close(self.0) }
    }
}

// SAFETY: the header says a table may be used from many threads at once.
unsafe impl Send for T {}
// SAFETY: as above.
unsafe impl Sync for T {}

fn open(path: &Path) -> Result<T, (Code, String)> {
    let mut table = null_mut();
    let mut e = fresh_error();
    let p = c(path.to_str().unwrap());
    // SAFETY: valid pointers.
    let code = unsafe { boardsolve_open(p.as_ptr(), &mut table, &mut e) };
    assert_eq!(code, e.code);
    match code {
        BOARDSOLVE_OK => Ok(T(table)),
        _ => {
            assert!(table.is_null());
            Err((code, message(&e)))
        }
    }
}

fn open_game(name: &str, variant: &str) -> Result<T, (Code, String)> {
    let mut table = null_mut();
    let mut e = fresh_error();
    let (n, v) = (c(name), c(variant));
    // SAFETY: valid pointers.
    let code = unsafe { boardsolve_open_game(n.as_ptr(), v.as_ptr(), &mut table, &mut e) };
    match code {
        BOARDSOLVE_OK => Ok(T(table)),
        _ => Err((code, message(&e))),
    }
}

/// A position, freed when dropped.
struct P(*mut Handle);

impl Drop for P {
    fn drop(&mut self) {
        // SAFETY: a position the library made, freed once.
        unsafe { boardsolve_position_free(self.0) }
    }
}

fn parse(t: &T, text: &str) -> Result<P, (Code, String)> {
    let mut p = null_mut();
    let mut e = fresh_error();
    let text = c(text);
    // SAFETY: valid pointers.
    let code = unsafe { boardsolve_parse(t.0, text.as_ptr(), &mut p, &mut e) };
    match code {
        BOARDSOLVE_OK => Ok(P(p)),
        _ => Err((code, message(&e))),
    }
}

fn play(p: &P, mv: &str) -> Result<P, (Code, String)> {
    let mut after = null_mut();
    let mut e = fresh_error();
    let mv = c(mv);
    // SAFETY: valid pointers.
    let code = unsafe { boardsolve_play(p.0, mv.as_ptr(), &mut after, &mut e) };
    match code {
        BOARDSOLVE_OK => Ok(P(after)),
        _ => Err((code, message(&e))),
    }
}

/// A string the library made, as a Rust string, freed.
fn take(s: *mut c_char) -> String {
    // SAFETY: a NUL-terminated string the library made.
    let out = unsafe { CStr::from_ptr(s) }.to_str().unwrap().to_owned();
    // SAFETY: freed once.
    unsafe { boardsolve_string_free(s) };
    out
}

fn probe(t: &T, p: &P) -> Result<(AnswerC, Vec<MoveC>), (Code, String)> {
    let mut a = AnswerC {
        value: 0,
        remoteness: 0,
        outcome: 9,
        to_move: 9,
        move_count: 0,
    };
    let mut moves = Vec::with_capacity(BOARDSOLVE_MAX_MOVES);
    let mut e = fresh_error();
    // SAFETY: room for BOARDSOLVE_MAX_MOVES moves.
    let code = unsafe {
        boardsolve_probe(
            t.0,
            p.0,
            &mut a,
            moves.as_mut_ptr(),
            BOARDSOLVE_MAX_MOVES,
            &mut e,
        )
    };
    if code != BOARDSOLVE_OK {
        return Err((code, message(&e)));
    }
    // SAFETY: the library wrote move_count moves (fewer than the room).
    unsafe { moves.set_len(a.move_count as usize) };
    Ok((a, moves))
}

fn json_of(t: &T, text: &str, flags: u32) -> Result<String, (Code, String)> {
    let mut out = null_mut();
    let mut e = fresh_error();
    let text = c(text);
    // SAFETY: valid pointers.
    let code = unsafe { boardsolve_json(t.0, text.as_ptr(), flags, &mut out, &mut e) };
    match code {
        BOARDSOLVE_OK => Ok(take(out)),
        _ => {
            assert!(out.is_null());
            Err((code, message(&e)))
        }
    }
}

fn probe_key(t: &T, key: u64) -> Result<EvalC, (Code, String)> {
    let mut eval = EvalC {
        value: 0,
        remoteness: 0,
    };
    let mut e = fresh_error();
    // SAFETY: valid pointers.
    let code = unsafe { boardsolve_probe_key(t.0, key, &mut eval, &mut e) };
    match code {
        BOARDSOLVE_OK => Ok(eval),
        _ => Err((code, message(&e))),
    }
}

fn stop(t: &T) -> Code {
    // SAFETY: a live table, from any thread.
    unsafe { boardsolve_stop(t.0) }
}

fn game_text(t: &T, field: i32) -> Option<String> {
    // SAFETY: a live table.
    let s = unsafe { boardsolve_game_text(t.0, field) };
    // SAFETY: NULL or a string that lives as long as the table.
    (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_str().unwrap().to_owned())
}

#[test]
fn answers_agree_with_the_probe_crate() {
    let dir = tempfile::tempdir().unwrap();
    let path = bsq(dir.path(), "4x4");
    let tb = Tablebase::open(&path).unwrap();
    let t = open(&path).unwrap();
    assert_eq!(
        game_text(&t, BOARDSOLVE_GAME_LABEL).unwrap(),
        "british-square 4x4"
    );
    assert_eq!(
        game_text(&t, BOARDSOLVE_GAME_NAME).unwrap(),
        "british-square"
    );
    assert_eq!(game_text(&t, BOARDSOLVE_GAME_VARIANT).unwrap(), "4x4");
    assert_eq!(game_text(&t, BOARDSOLVE_GAME_FIRST_PLAYER).unwrap(), "X");
    assert_eq!(game_text(&t, BOARDSOLVE_GAME_SECOND_PLAYER).unwrap(), "O");
    assert_eq!(game_text(&t, BOARDSOLVE_GAME_EVEN_RESULT).unwrap(), "tie");
    assert!(game_text(&t, BOARDSOLVE_GAME_NOTATION).unwrap().len() > 20);
    assert!(game_text(&t, 99).is_none() && game_text(&t, -1).is_none());
    // SAFETY: a static string.
    let version = unsafe { CStr::from_ptr(boardsolve_version()) };
    assert_eq!(version.to_str().unwrap(), env!("CARGO_PKG_VERSION"));

    // A walk along a line of play: every answer as the probe crate's.
    let mut text = "start".to_owned();
    loop {
        let p = parse(&t, &text).unwrap();
        let expected = tb.probe(&text).unwrap();
        let (a, moves) = probe(&t, &p).unwrap();
        assert_eq!(a.value, expected.value());
        assert_eq!(a.remoteness, expected.remoteness());
        assert_eq!(a.move_count as usize, expected.moves().len());
        assert_eq!(
            json_of(&t, &text, 0).unwrap(),
            json::answer(&text, &expected, None)
        );
        for (m, e) in moves.iter().zip(expected.moves()) {
            let name = CStr::from_bytes_until_nul(&m.name)
                .unwrap()
                .to_str()
                .unwrap();
            assert_eq!(name, e.mv.name());
            assert_eq!(
                (m.value, m.remoteness, m.best),
                (e.value, e.remoteness, i32::from(e.best))
            );
            assert_eq!(m.number, e.mv.number().map_or(-1, |n| n as i32));
        }
        let mut key = 0;
        let mut canonical = 0;
        // SAFETY: valid pointers.
        let code = unsafe { boardsolve_position_key(p.0, &mut key, &mut canonical, null_mut()) };
        assert_eq!(code, BOARDSOLVE_OK);
        assert_eq!(key, expected.position().key());
        let eval = probe_key(&t, key).unwrap();
        assert_eq!((eval.value, eval.remoteness), (a.value, a.remoteness));
        assert_eq!(probe_key(&t, canonical).unwrap(), eval);
        let mut out = null_mut();
        // SAFETY: valid pointers.
        let code = unsafe { boardsolve_position_text(p.0, &mut out, null_mut()) };
        assert_eq!(code, BOARDSOLVE_OK);
        assert_eq!(take(out), expected.position().text());
        let Some(best) = moves.iter().find(|m| m.best != 0) else {
            break;
        };
        let name = CStr::from_bytes_until_nul(&best.name)
            .unwrap()
            .to_str()
            .unwrap();
        let next = play(&p, name).unwrap();
        let mut out = null_mut();
        // SAFETY: valid pointers.
        unsafe { boardsolve_position_text(next.0, &mut out, null_mut()) };
        text = take(out);
    }

    // The line, and JSON with the line, as `query --json --pv`.
    let start = parse(&t, "start").unwrap();
    let mut line = null_mut();
    // SAFETY: valid pointers.
    let code = unsafe { boardsolve_line(t.0, start.0, &mut line, null_mut()) };
    assert_eq!(code, BOARDSOLVE_OK);
    let names: Vec<String> = tb
        .line(&tb.parse("start").unwrap())
        .unwrap()
        .iter()
        .map(|m| m.to_string())
        .collect();
    assert_eq!(take(line), names.join(" "));
    let pv = tb.line(&tb.parse("start").unwrap()).unwrap();
    let a = tb.probe("start").unwrap();
    assert_eq!(
        json_of(&t, "start", BOARDSOLVE_JSON_LINE).unwrap(),
        json::answer("start", &a, Some(&pv))
    );
    assert_eq!(
        json_of(&t, "start", 2).unwrap_err().0,
        BOARDSOLVE_ERR_INVALID_ARGUMENT
    );

    // Fewer places than moves: the count says how many there are.
    let mut answer = AnswerC {
        value: 0,
        remoteness: 0,
        outcome: 0,
        to_move: 0,
        move_count: 0,
    };
    let mut two: Vec<MoveC> = Vec::with_capacity(2);
    // SAFETY: room for two moves.
    let code =
        unsafe { boardsolve_probe(t.0, start.0, &mut answer, two.as_mut_ptr(), 2, null_mut()) };
    assert_eq!(code, BOARDSOLVE_OK);
    assert_eq!(answer.move_count, 16);
    // SAFETY: no moves asked for: moves may be NULL.
    let code = unsafe { boardsolve_probe(t.0, start.0, &mut answer, null_mut(), 0, null_mut()) };
    assert_eq!(
        (code, answer.to_move, answer.outcome),
        (BOARDSOLVE_OK, BOARDSOLVE_FIRST, BOARDSOLVE_TIE)
    );
}

#[test]
fn keys_in_batches_carry_a_code_each() {
    let dir = tempfile::tempdir().unwrap();
    let path = bsq(dir.path(), "4x4");
    let tb = Tablebase::open(&path).unwrap();
    let t = open(&path).unwrap();
    let db = tb.database().unwrap();
    let shift = db.header().layout.key_shift;
    let mut keys: Vec<u64> = db
        .raw_records()
        .iter()
        .map(|r| u64::from_le(*r) >> shift)
        .collect();
    keys.insert(5000, u64::MAX);
    let mut evals = vec![
        EvalC {
            value: 7,
            remoteness: 7
        };
        keys.len()
    ];
    let mut codes = vec![-1; keys.len()];
    let mut e = fresh_error();
    // SAFETY: arrays of keys.len() each.
    let code = unsafe {
        boardsolve_probe_keys(
            t.0,
            keys.as_ptr(),
            keys.len(),
            evals.as_mut_ptr(),
            codes.as_mut_ptr(),
            &mut e,
        )
    };
    assert_eq!(code, BOARDSOLVE_ERR_MALFORMED_POSITION);
    assert!(
        message(&e).starts_with("key 5000 (18446744073709551615): "),
        "{}",
        message(&e)
    );
    for (i, (k, (ev, code))) in keys.iter().zip(evals.iter().zip(&codes)).enumerate() {
        if i == 5000 {
            assert_eq!(
                (*code, ev.value, ev.remoteness),
                (BOARDSOLVE_ERR_MALFORMED_POSITION, 0, 0)
            );
        } else {
            assert_eq!(*code, BOARDSOLVE_OK);
            assert_eq!(*ev, EvalC::from(tb.probe_key(*k).unwrap()));
        }
    }
    // Without codes, and with none.
    // SAFETY: arrays of 3.
    let code = unsafe {
        boardsolve_probe_keys(
            t.0,
            keys.as_ptr(),
            3,
            evals.as_mut_ptr(),
            null_mut(),
            null_mut(),
        )
    };
    assert_eq!(code, BOARDSOLVE_OK);
    // SAFETY: no keys: the arrays may be NULL.
    let code = unsafe { boardsolve_probe_keys(t.0, null(), 0, null_mut(), null_mut(), null_mut()) };
    assert_eq!(code, BOARDSOLVE_OK);
    // SAFETY: a NULL key array with a count is refused.
    let code = unsafe {
        boardsolve_probe_keys(t.0, null(), 3, evals.as_mut_ptr(), null_mut(), null_mut())
    };
    assert_eq!(code, BOARDSOLVE_ERR_NULL);
}

#[test]
fn bad_arguments_are_codes_with_messages() {
    let dir = tempfile::tempdir().unwrap();
    let path = bsq(dir.path(), "3x3");
    let t = open(&path).unwrap();
    let p = parse(&t, "a1").unwrap();
    let mut e = fresh_error();
    let mut out = null_mut();
    let start = c("start");
    // NULL everywhere it matters.
    // SAFETY: each NULL is one the library checks.
    unsafe {
        assert_eq!(
            boardsolve_open(null(), &mut out, &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(message(&e), "path is NULL");
        assert_eq!(
            boardsolve_open(start.as_ptr(), null_mut(), &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(
            boardsolve_parse(null(), start.as_ptr(), &mut null_mut(), &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(
            boardsolve_parse(t.0, null(), &mut null_mut(), &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(
            boardsolve_parse(t.0, start.as_ptr(), null_mut(), &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(
            boardsolve_play(null(), start.as_ptr(), &mut null_mut(), &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(
            boardsolve_play(p.0, null(), &mut null_mut(), null_mut()),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(
            boardsolve_probe(t.0, p.0, null_mut(), null_mut(), 0, &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(message(&e), "answer is NULL");
        assert_eq!(
            boardsolve_probe_key(t.0, 0, null_mut(), &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(
            boardsolve_line(t.0, null(), &mut null_mut(), &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(
            boardsolve_json(t.0, null(), 0, &mut null_mut(), &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(
            boardsolve_position_text(null(), &mut null_mut(), &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(
            boardsolve_position_key(null(), null_mut(), null_mut(), &mut e),
            BOARDSOLVE_ERR_NULL
        );
        assert_eq!(boardsolve_build_index(null()), BOARDSOLVE_ERR_NULL);
        assert_eq!(boardsolve_stop(null()), BOARDSOLVE_ERR_NULL);
        assert_eq!(boardsolve_set_time_limit(null(), 1.0), BOARDSOLVE_ERR_NULL);
        assert!(boardsolve_game_text(null(), 0).is_null());
        boardsolve_close(null_mut());
        boardsolve_position_free(null_mut());
        boardsolve_string_free(null_mut());
        // A handle of another kind: a position passed as the table.
        assert_eq!(
            boardsolve_parse(p.0.cast(), start.as_ptr(), &mut null_mut(), &mut e),
            BOARDSOLVE_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            boardsolve_play(t.0.cast(), start.as_ptr(), &mut null_mut(), &mut e),
            BOARDSOLVE_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            boardsolve_set_time_limit(t.0, -1.0),
            BOARDSOLVE_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            boardsolve_set_time_limit(t.0, f64::NAN),
            BOARDSOLVE_ERR_INVALID_ARGUMENT
        );
        assert_eq!(boardsolve_set_time_limit(t.0, f64::INFINITY), BOARDSOLVE_OK);
        // Text that is not UTF-8.
        let bad = [b'a', 0xff, b'1', 0];
        assert_eq!(
            boardsolve_parse(t.0, bad.as_ptr().cast(), &mut null_mut(), &mut e),
            BOARDSOLVE_ERR_MALFORMED_POSITION
        );
        assert!(message(&e).contains("not UTF-8"), "{}", message(&e));
        assert_eq!(
            boardsolve_play(p.0, bad.as_ptr().cast(), &mut null_mut(), &mut e),
            BOARDSOLVE_ERR_MALFORMED_MOVE
        );
        // Every code has its words.
        for code in 0..=BOARDSOLVE_ERR_INTERNAL {
            let words = CStr::from_ptr(boardsolve_code_text(code)).to_str().unwrap();
            assert_ne!(words, "unknown code", "{code}");
        }
        assert_eq!(
            CStr::from_ptr(boardsolve_code_text(1000)).to_str().unwrap(),
            "unknown code"
        );
    }
    // Positions and moves that are not.
    assert_eq!(
        parse(&t, "z9").err().unwrap().0,
        BOARDSOLVE_ERR_MALFORMED_POSITION
    );
    assert_eq!(
        parse(&t, "b2").err().unwrap().0,
        BOARDSOLVE_ERR_ILLEGAL_POSITION
    );
    assert_eq!(
        play(&p, "q").err().unwrap().0,
        BOARDSOLVE_ERR_MALFORMED_MOVE
    );
    assert_eq!(play(&p, "a1").err().unwrap().0, BOARDSOLVE_ERR_ILLEGAL_MOVE);
    assert_eq!(
        json_of(&t, "z9", 0).unwrap_err().0,
        BOARDSOLVE_ERR_MALFORMED_POSITION
    );
    assert_eq!(
        probe_key(&t, u64::MAX).unwrap_err().0,
        BOARDSOLVE_ERR_MALFORMED_POSITION
    );
    // X in the centre: a position no game of 3x3 reaches.
    assert_eq!(
        probe_key(&t, 1 << 4 | 1 << 18).unwrap_err().0,
        BOARDSOLVE_ERR_UNREACHABLE
    );
    // A position of another game.
    let other = open(&bsq(dir.path(), "4x4")).unwrap();
    let elsewhere = parse(&other, "start").unwrap();
    let (code, said) = probe(&t, &elsewhere).unwrap_err();
    assert_eq!(code, BOARDSOLVE_ERR_OTHER_GAME);
    assert!(said.contains("british-square 4x4"), "{said}");
    // Files that are not, or no longer, databases.
    assert_eq!(
        open(&dir.path().join("nothing.db")).err().unwrap().0,
        BOARDSOLVE_ERR_MISSING_FILE
    );
    assert_eq!(
        open(dir.path()).err().unwrap().0,
        BOARDSOLVE_ERR_UNUSABLE_FILE
    );
    let damaged = dir.path().join("damaged.db");
    let mut bytes = std::fs::read(&path).unwrap();
    bytes[40] ^= 1;
    std::fs::write(&damaged, &bytes).unwrap();
    assert_eq!(open(&damaged).err().unwrap().0, BOARDSOLVE_ERR_DAMAGED_FILE);
    // A message longer than the structure holds is cut, NUL-terminated.
    let long = dir
        .path()
        .join("x".repeat(200))
        .join("y".repeat(200))
        .join("z".repeat(200));
    let (code, said) = open(&long).err().unwrap();
    assert_eq!(code, BOARDSOLVE_ERR_MISSING_FILE);
    assert_eq!(said.len(), BOARDSOLVE_MESSAGE_SIZE - 1);
}

#[test]
fn a_file_cut_underneath_is_corrupt_not_a_crash() {
    let dir = tempfile::tempdir().unwrap();
    let path = bsq(dir.path(), "4x4");
    let t = open(&path).unwrap();
    let p = parse(&t, "b2 c3").unwrap();
    assert!(probe(&t, &p).is_ok());
    let file = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    file.set_len(4096).unwrap();
    assert_eq!(probe(&t, &p).unwrap_err().0, BOARDSOLVE_ERR_CORRUPT);
    assert_eq!(json_of(&t, "b2", 0).unwrap_err().0, BOARDSOLVE_ERR_CORRUPT);
}

#[test]
fn games_open_without_a_file() {
    let t = open_game("tic-tac-toe", "").unwrap();
    assert_eq!(
        game_text(&t, BOARDSOLVE_GAME_LABEL).unwrap(),
        "k-in-a-row 3x3,k=3"
    );
    let p = parse(&t, "start").unwrap();
    let (a, moves) = probe(&t, &p).unwrap();
    assert_eq!(
        (a.value, a.remoteness, a.outcome, moves.len()),
        (0, 9, BOARDSOLVE_TIE, 9)
    );
    let (code, said) = open_game("british-square", "").err().unwrap();
    assert_eq!(code, BOARDSOLVE_ERR_SEARCH_FAILED, "{said}");
    assert_eq!(
        open_game("chess", "").err().unwrap().0,
        BOARDSOLVE_ERR_UNKNOWN_GAME
    );
    assert_eq!(
        open_game("connect-four", "2x2").err().unwrap().0,
        BOARDSOLVE_ERR_UNKNOWN_GAME
    );
    let mut out = null_mut();
    let name = c("tic-tac-toe");
    // SAFETY: a NULL variant is the standard one.
    let code = unsafe { boardsolve_open_game(name.as_ptr(), null(), &mut out, null_mut()) };
    assert_eq!(code, BOARDSOLVE_OK);
    drop(T(out));
}

#[test]
fn searches_stop_when_told_and_at_their_time_limit() {
    // Connect Four from its shipped book of 8 plies: a position of 8
    // stones is in it, but its moves are searched, for seconds each of
    // these two.
    let t = open_game("connect-four", "").unwrap();
    let deep = "12345671";
    // SAFETY: a live table.
    let code = unsafe { boardsolve_set_time_limit(t.0, 0.001) };
    assert_eq!(code, BOARDSOLVE_OK);
    let p = parse(&t, "3").unwrap();
    let far = parse(&t, deep).unwrap();
    let (code, said) = probe(&t, &far).unwrap_err();
    assert_eq!(code, BOARDSOLVE_ERR_TIMED_OUT, "{said}");
    // In the book: no search, answered within any limit.
    assert!(probe(&t, &p).is_ok());
    // SAFETY: a live table.
    let code = unsafe { boardsolve_set_time_limit(t.0, 0.0) };
    assert_eq!(code, BOARDSOLVE_OK);
    // Stopped every 50 ms until the call returns: a stop before the call
    // has begun stops nothing.
    let done = std::sync::atomic::AtomicBool::new(false);
    let code = std::thread::scope(|s| {
        s.spawn(|| {
            while !done.load(std::sync::atomic::Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(50));
                assert_eq!(stop(&t), BOARDSOLVE_OK);
            }
        });
        let code = json_of(&t, "23175233", 0).unwrap_err().0;
        done.store(true, std::sync::atomic::Ordering::Relaxed);
        code
    });
    assert_eq!(code, BOARDSOLVE_ERR_STOPPED);
    // The table answers as before.
    assert!(probe(&t, &p).is_ok());
}

#[test]
fn one_table_answers_from_many_threads() {
    let dir = tempfile::tempdir().unwrap();
    let path = bsq(dir.path(), "4x4");
    let tb = Tablebase::open(&path).unwrap();
    let t = open(&path).unwrap();
    let texts = ["start", "b2", "b2 c3", "a1 d4", "a1 d4 b3"];
    let expected: Vec<String> = texts
        .iter()
        .map(|p| json::answer(p, &tb.probe(p).unwrap(), None))
        .collect();
    std::thread::scope(|s| {
        for i in 0..8 {
            let (t, texts, expected) = (&t, &texts, &expected);
            s.spawn(move || {
                for round in 0..200 {
                    let k = (i + round) % texts.len();
                    assert_eq!(json_of(t, texts[k], 0).unwrap(), expected[k]);
                }
            });
        }
    });
}
