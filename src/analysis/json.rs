//! Answers as JSON: one object per position, the shape of a line of
//! `query --json` (fields named as the GamesCrafters API names them where
//! they mean the same: `positionValue`, `remoteness`, `moves` with
//! `moveValue` and `deltaRemoteness`). Written by hand, without a
//! serialisation library, so that a reader built without the engine can
//! produce it too.

use std::fmt::Write as _;

use crate::analysis::{Analysis, QueryError, WeakAnalysis};
use crate::core::{LayoutKind, Move};
use crate::db::Database;
use crate::render::Presentation;

/// The index of a result's class: 0 a loss, 1 a tie, 2 a win.
fn outcome_index(result: i32) -> usize {
    (result.signum() + 1) as usize
}

/// Per class of move (a loss, a tie, a win for the mover, as
/// [`outcome_index`]), the remoteness of the best move of that class (the
/// first of the class in the answer's best-first order: the highest value,
/// then the tie-break of the values). A move's `deltaRemoteness` is its
/// distance from it, as the GamesCrafters API reports it: 0 for that
/// move, more for a move that wins later or loses sooner.
fn best_remoteness(a: &Analysis) -> [u32; 3] {
    let mut best = [None; 3];
    for m in &a.moves {
        best[outcome_index(a.move_result(m))].get_or_insert(m.child_value.remoteness);
    }
    best.map(|r| r.unwrap_or(0))
}

/// `win`, `lose` or `tie` for a result seen from one side.
fn outcome(result: i32) -> &'static str {
    match result.signum() {
        1 => "win",
        -1 => "lose",
        _ => "tie",
    }
}

/// Appends `s` as a JSON string literal.
pub fn string(out: &mut String, s: &str) {
    out.push('"');
    // Positions and moves need no escapes: copied whole.
    if !s.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        out.push_str(s);
        out.push('"');
        return;
    }
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Appends an integer: batch mode writes tens of them per position, and the
/// formatting machinery of `write!` costs several times more.
fn push_int(out: &mut String, n: impl Into<i64>) {
    let n: i64 = n.into();
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    let mut v = n.unsigned_abs();
    loop {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
        if v == 0 {
            break;
        }
    }
    if n < 0 {
        out.push('-');
    }
    out.extend(digits[at..].iter().map(|&d| char::from(d)));
}

/// Appends a move as a JSON string literal (move names need no escaping).
fn json_move(out: &mut String, game: &dyn Presentation, mv: Move) {
    out.push('"');
    game.write_move(mv, out);
    out.push('"');
}

/// Opens a move's object: `{"move":NAME,"CODE":NUMBER` (the number `null`
/// for a pass).
fn json_move_fields(out: &mut String, game: &dyn Presentation, code: &str, mv: Move) {
    out.push_str("{\"move\":");
    json_move(out, game, mv);
    out.push_str(",\"");
    out.push_str(code);
    out.push_str("\":");
    if mv == Move::PASS {
        out.push_str("null");
    } else {
        push_int(out, game.move_number(mv));
    }
}

/// One JSON object (no newline) for an answered position.
pub fn answer(
    game: &dyn Presentation,
    input: &str,
    a: &Analysis,
    pv: Option<&[(Move, u64)]>,
) -> String {
    let mut o = String::with_capacity(256 + 80 * a.moves.len());
    o.push_str("{\"input\":");
    string(&mut o, input);
    o.push_str(",\"position\":");
    string(&mut o, &game.format_position(a.state));
    o.push_str(",\"to_move\":\"");
    o.push_str(game.player_name(a.to_move));
    o.push_str("\",\"value\":");
    push_int(&mut o, a.score);
    game.outcome_json(a.score, &mut o);
    o.push_str(",\"remoteness\":");
    push_int(&mut o, a.value.remoteness);
    o.push_str(",\"net\":");
    push_int(&mut o, a.value.net);
    if let Some(f) = a.final_lead() {
        o.push_str(",\"final\":");
        push_int(&mut o, f);
    }
    o.push_str(",\"positionValue\":\"");
    o.push_str(outcome(a.result()));
    o.push_str("\",\"best\":[");
    for (i, m) in a.best_moves().enumerate() {
        if i > 0 {
            o.push(',');
        }
        json_move(&mut o, game, m.mv);
    }
    o.push_str("],\"moves\":[");
    let code = game.move_code_name();
    let best_remoteness = best_remoteness(a);
    for (i, m) in a.moves.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        json_move_fields(&mut o, game, code, m.mv);
        o.push_str(",\"value\":");
        push_int(&mut o, m.score);
        game.outcome_json(m.score, &mut o);
        o.push_str(",\"remoteness\":");
        push_int(&mut o, m.child_value.remoteness);
        o.push_str(",\"deltaRemoteness\":");
        let class = outcome_index(a.move_result(m));
        push_int(
            &mut o,
            best_remoteness[class].abs_diff(m.child_value.remoteness),
        );
        o.push_str(if m.best {
            ",\"best\":true,\"moveValue\":\""
        } else {
            ",\"best\":false,\"moveValue\":\""
        });
        o.push_str(outcome(a.move_result(m)));
        o.push_str("\"}");
    }
    o.push(']');
    if let Some(line) = pv {
        o.push_str(",\"pv\":[");
        for (i, (mv, _)) in line.iter().enumerate() {
            if i > 0 {
                o.push(',');
            }
            json_move(&mut o, game, *mv);
        }
        o.push(']');
    }
    o.push('}');
    o
}

/// One JSON object (no newline) for a position that could not be answered.
pub fn error(input: &str, error: &str) -> String {
    let mut o = String::from("{\"input\":");
    string(&mut o, input);
    o.push_str(",\"error\":");
    string(&mut o, error);
    o.push('}');
    o
}

/// One JSON object (no newline) for a weak answer: `value` is 1, 0 or -1
/// for the side to move, `best` the best moves, `moves` every move.
pub fn weak(game: &dyn Presentation, input: &str, w: &WeakAnalysis) -> String {
    let mut o = String::with_capacity(256);
    o.push_str("{\"input\":");
    string(&mut o, input);
    o.push_str(",\"position\":");
    string(&mut o, &game.format_position(w.position.state));
    o.push_str(",\"to_move\":\"");
    o.push_str(game.player_name(w.position.to_move));
    o.push_str("\",\"weak\":true,\"value\":");
    push_int(&mut o, w.result);
    o.push_str(",\"positionValue\":\"");
    o.push_str(outcome(w.result));
    o.push_str("\",\"best\":[");
    for (i, m) in w.best_moves().enumerate() {
        if i > 0 {
            o.push(',');
        }
        json_move(&mut o, game, m);
    }
    o.push_str("],\"moves\":[");
    for (i, &(m, r)) in w.moves.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        json_move_fields(&mut o, game, game.move_code_name(), m);
        o.push_str(",\"value\":");
        push_int(&mut o, r);
        o.push_str(if r == w.result {
            ",\"best\":true,\"moveValue\":\""
        } else {
            ",\"best\":false,\"moveValue\":\""
        });
        o.push_str(outcome(r));
        o.push_str("\"}");
    }
    o.push_str("]}");
    o
}

/// One game served, as `query serve`'s `GET /api/info` lists it (and the
/// static explorer's worker, from the same function): its name and
/// variant, its database (`records`, `complete`, `file`: none when the
/// game is answered by search alone), whether positions past a book are
/// searched, the game in one line (`about`), and each player's name and
/// pieces, so that a page can say who plays what without naming a game.
pub fn served(
    game: &dyn Presentation,
    about: &str,
    db: Option<&Database>,
    searched_past_the_book: bool,
) -> String {
    use crate::core::Player;
    let d = game.descriptor();
    let mut o = String::with_capacity(256);
    o.push_str("{\"game\":");
    string(&mut o, d.name);
    o.push_str(",\"variant\":");
    string(&mut o, &d.variant);
    let (records, complete) = db.map_or((0, false), |db| {
        (db.header().record_count, db.header().is_complete())
    });
    let _ = write!(
        o,
        ",\"records\":{records},\"complete\":{complete},\"searched_past_the_book\":{searched_past_the_book},\"file\":{}",
        db.is_some()
    );
    o.push_str(",\"about\":");
    string(&mut o, about);
    o.push_str(",\"players\":[");
    for (i, player) in [Player::First, Player::Second].into_iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        o.push_str("{\"name\":");
        string(&mut o, game.player_name(player));
        o.push_str(",\"pieces\":");
        string(&mut o, game.player_pieces(player));
        o.push('}');
    }
    o.push_str("]}");
    o
}

/// The description of a database `query info --json` prints (and the
/// probe's and the Python package's `info`), keys in alphabetical order:
/// the file's path as given, its header, its layout, and the start's value
/// as the game reports it. A packed file adds `packed`: the layout of the
/// records it holds, its entries, blocks, size and bits a position.
pub fn info(path: &str, db: &Database, game: &dyn Presentation) -> Result<String, QueryError> {
    let h = db.header();
    let start = game.start();
    let v = super::stored_value(game, db, start, game.canonical(start))?;
    let kind = |k: LayoutKind| match k {
        LayoutKind::Sorted => "sorted",
        LayoutKind::Dense => "dense",
    };
    let l = &h.layout;
    let mut o = String::with_capacity(512);
    o.push_str("{\"complete\":");
    o.push_str(if h.is_complete() { "true" } else { "false" });
    o.push_str(",\"db\":");
    string(&mut o, path);
    o.push_str(",\"game\":");
    string(&mut o, &h.game_name);
    let _ = write!(o, ",\"game_id\":{},\"generator\":", h.game_id);
    string(&mut o, &h.generator);
    let _ = write!(
        o,
        ",\"layout\":{{\"key_bits\":{},\"key_shift\":{},\"remoteness_bits\":{},\
         \"remoteness_shift\":{},\"value_bits\":{},\"value_shift\":{}}}",
        l.key_bits, l.key_shift, l.remoteness_bits, l.remoteness_shift, l.value_bits, l.value_shift
    );
    let _ = write!(
        o,
        ",\"layout_kind\":\"{}\"",
        if h.is_packed() {
            "packed"
        } else {
            kind(h.kind)
        }
    );
    if let Some(p) = h.packed {
        let bytes = db.file_len();
        let bits = 8.0 * bytes as f64 / h.record_count.max(1) as f64;
        let _ = write!(
            o,
            ",\"packed\":{{\"bits_per_position\":{bits:.4},\"block_entries\":{},\"blocks\":{},\
             \"bytes\":{bytes},\"entries\":{},\"records_layout\":\"{}\"}}",
            p.block_entries,
            p.block_count,
            p.entry_count,
            kind(h.kind)
        );
    }
    let _ = write!(
        o,
        ",\"records\":{},\"start_remoteness\":{},\"start_value\":{},\"variant\":",
        h.record_count,
        v.remoteness,
        game.score(start, v.net)
    );
    string(&mut o, &h.variant);
    o.push('}');
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_strings_parse_back() {
        for s in [
            "plain",
            "quote \" backslash \\ tab \t nl \n",
            "\u{1}\u{1f}\u{7f}",
            "é ✓ \u{2028}",
            "",
        ] {
            let mut out = String::new();
            string(&mut out, s);
            let back: String = serde_json::from_str(&out).unwrap();
            assert_eq!(back, s);
        }
    }
}
