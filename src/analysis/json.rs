//! Every JSON object the tools print, each shape made by one function
//! here, so that `query`, `query serve`, the probe, the Python package and
//! the WebAssembly module print the same objects:
//!
//! * [`answer`] (and [`weak`], `--weak`'s): a position answered, a line of
//!   `query --json` (fields named as the GamesCrafters API names them where
//!   they mean the same: `positionValue`, `remoteness`, `moves` with
//!   `moveValue` and `deltaRemoteness`);
//! * [`error`]: a position, or a request, refused;
//! * [`info`]: a database described (`query info --json`);
//! * [`served`]: a game served (`query serve`'s `GET /api/info`);
//! * `verify` (feature `engine`): a database checked (`query verify
//!   --json`);
//! * `stats` (feature `engine`): facts about the whole game (`query stats
//!   --json`).
//!
//! Written by hand, without a serialisation library, so that a reader built
//! without the engine can produce them too, and a batch writes its lines
//! fast.

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
    if n < 0 {
        out.push('-');
    }
    let mut v = n.unsigned_abs();
    // Most are values and remotenesses: one digit or two.
    if v < 10 {
        out.push(char::from(b'0' + v as u8));
        return;
    }
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    while v > 0 {
        at -= 1;
        digits[at] = b'0' + (v % 10) as u8;
        v /= 10;
    }
    // ASCII digits are always UTF-8.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
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
    let mut o = String::with_capacity(answer_size(a));
    answer_into(&mut o, game, input, a, pv);
    o
}

/// About how many bytes [`answer`] writes for `a`: room enough that the
/// text is seldom moved while it grows.
pub fn answer_size(a: &Analysis) -> usize {
    256 + 128 * a.moves.len()
}

/// [`answer`], appended to `o`: many answers can share one buffer.
pub fn answer_into(
    o: &mut String,
    game: &dyn Presentation,
    input: &str,
    a: &Analysis,
    pv: Option<&[(Move, u64)]>,
) {
    o.push_str("{\"input\":");
    string(o, input);
    o.push_str(",\"position\":");
    string(o, &game.format_position(a.state));
    o.push_str(",\"to_move\":\"");
    o.push_str(game.player_name(a.to_move));
    o.push_str("\",\"value\":");
    push_int(o, a.score);
    game.outcome_json(a.score, o);
    o.push_str(",\"remoteness\":");
    push_int(o, a.value.remoteness);
    o.push_str(",\"net\":");
    push_int(o, a.value.net);
    if let Some(f) = a.final_lead() {
        o.push_str(",\"final\":");
        push_int(o, f);
    }
    o.push_str(",\"positionValue\":\"");
    o.push_str(outcome(a.result()));
    o.push_str("\",\"best\":[");
    for (i, m) in a.best_moves().enumerate() {
        if i > 0 {
            o.push(',');
        }
        json_move(o, game, m.mv);
    }
    o.push_str("],\"moves\":[");
    let code = game.move_code_name();
    let best_remoteness = best_remoteness(a);
    for (i, m) in a.moves.iter().enumerate() {
        if i > 0 {
            o.push(',');
        }
        json_move_fields(o, game, code, m.mv);
        o.push_str(",\"value\":");
        push_int(o, m.score);
        game.outcome_json(m.score, o);
        o.push_str(",\"remoteness\":");
        push_int(o, m.child_value.remoteness);
        o.push_str(",\"deltaRemoteness\":");
        let class = outcome_index(a.move_result(m));
        push_int(o, best_remoteness[class].abs_diff(m.child_value.remoteness));
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
            json_move(o, game, *mv);
        }
        o.push(']');
    }
    o.push('}');
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

/// The fields of one JSON object, written in order with the commas between
/// them: the shapes below list their fields once, in the order they print.
struct Fields<'a> {
    out: &'a mut String,
    empty: bool,
}

impl<'a> Fields<'a> {
    /// Opens an object at the end of `out`.
    fn open(out: &'a mut String) -> Fields<'a> {
        out.push('{');
        Fields { out, empty: true }
    }

    /// Starts the field `key` (a name that needs no escaping) and returns
    /// the text to write its value into.
    fn key(&mut self, key: &str) -> &mut String {
        if !self.empty {
            self.out.push(',');
        }
        self.empty = false;
        self.out.push('"');
        self.out.push_str(key);
        self.out.push_str("\":");
        self.out
    }

    /// A string field.
    fn str(&mut self, key: &str, value: &str) -> &mut Self {
        string(self.key(key), value);
        self
    }

    /// A number or boolean field, as Rust prints it.
    fn num(&mut self, key: &str, value: impl std::fmt::Display) -> &mut Self {
        let _ = write!(self.key(key), "{value}");
        self
    }

    /// A number field that may be `null`.
    #[cfg(feature = "engine")]
    fn opt(&mut self, key: &str, value: Option<impl std::fmt::Display>) -> &mut Self {
        match value {
            Some(v) => self.num(key, v),
            None => {
                self.key(key).push_str("null");
                self
            }
        }
    }

    /// A field whose value `write` writes.
    fn with(&mut self, key: &str, write: impl FnOnce(&mut String)) -> &mut Self {
        write(self.key(key));
        self
    }

    /// Closes the object.
    fn close(&mut self) {
        self.out.push('}');
    }
}

/// Appends a JSON array of `items`, each written by `write`.
fn array<T>(
    out: &mut String,
    items: impl IntoIterator<Item = T>,
    mut write: impl FnMut(&mut String, T),
) {
    out.push('[');
    for (i, item) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(out, item);
    }
    out.push(']');
}

/// One JSON object (no newline) for a refusal: `{"input":...,"error":...}`
/// for a position that could not be answered (a line of `query --json`,
/// an answer of `query serve`), `{"error":...}` for a request refused
/// before any position was read (`query serve`'s other errors).
pub fn error(input: Option<&str>, message: &str) -> String {
    let mut o = String::with_capacity(32 + message.len() + input.map_or(0, str::len));
    let mut f = Fields::open(&mut o);
    if let Some(input) = input {
        f.str("input", input);
    }
    f.str("error", message).close();
    o
}

/// One game served, as `query serve`'s `GET /api/info` lists it (and the
/// static explorer's worker, from the same function): its name and
/// variant, its database (`records`, `complete`, `file`: none when the
/// game is answered by search alone), whether positions past a book are
/// searched, the game in one line (`about`), its word for an even result
/// (`even`: `draw` or `tie`, `null` for a game that always has a winner),
/// and each player's name and pieces, so that a page can say who plays
/// what without naming a game.
pub fn served(
    game: &dyn Presentation,
    about: &str,
    db: Option<&Database>,
    searched_past_the_book: bool,
) -> String {
    use crate::core::Player;
    let d = game.descriptor();
    let (records, complete) = db.map_or((0, false), |db| {
        (db.header().record_count, db.header().is_complete())
    });
    let mut o = String::with_capacity(256);
    Fields::open(&mut o)
        .str("game", d.name)
        .str("variant", &d.variant)
        .num("records", records)
        .num("complete", complete)
        .num("searched_past_the_book", searched_past_the_book)
        .num("file", db.is_some())
        .str("about", about)
        .with("even", |o| match game.even_result() {
            Some(word) => {
                o.push('"');
                o.push_str(word);
                o.push('"');
            }
            None => o.push_str("null"),
        })
        .with("players", |o| {
            array(o, [Player::First, Player::Second], |o, player| {
                Fields::open(o)
                    .str("name", game.player_name(player))
                    .str("pieces", game.player_pieces(player))
                    .close();
            });
        })
        .close();
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
    let mut f = Fields::open(&mut o);
    f.num("complete", h.is_complete())
        .str("db", path)
        .str("game", &h.game_name)
        .num("game_id", h.game_id)
        .str("generator", &h.generator)
        .with("layout", |o| {
            Fields::open(o)
                .num("key_bits", l.key_bits)
                .num("key_shift", l.key_shift)
                .num("remoteness_bits", l.remoteness_bits)
                .num("remoteness_shift", l.remoteness_shift)
                .num("value_bits", l.value_bits)
                .num("value_shift", l.value_shift)
                .close();
        })
        .str(
            "layout_kind",
            if h.is_packed() {
                "packed"
            } else {
                kind(h.kind)
            },
        );
    if let Some(p) = h.packed {
        let bytes = db.file_len();
        let bits = 8.0 * bytes as f64 / h.record_count.max(1) as f64;
        f.with("packed", |o| {
            Fields::open(o)
                .num("bits_per_position", format_args!("{bits:.4}"))
                .num("block_entries", p.block_entries)
                .num("blocks", p.block_count)
                .num("bytes", bytes)
                .num("entries", p.entry_count)
                .str("records_layout", kind(h.kind))
                .close();
        });
    }
    f.num("records", h.record_count)
        .num("start_remoteness", v.remoteness)
        .num("start_value", game.score(start, v.net))
        .str("variant", &h.variant)
        .close();
    Ok(o)
}

/// What `query verify --json` prints (and the Python package's `verify`),
/// keys in alphabetical order: for a database that passed, the file's path
/// as given, its game and variant, the records checked, whether every
/// value was re-derived from its children (`children_checked`, false for
/// an opening book) and how many were (`derived`), with `"ok":true`; for
/// one that failed, the path and the first problem found (`error`), with
/// `"ok":false`.
#[cfg(feature = "engine")]
pub fn verify(
    path: &str,
    game: &dyn crate::core::Game,
    outcome: Result<&super::verify::VerifyReport, &str>,
) -> String {
    let mut o = String::with_capacity(192);
    let mut f = Fields::open(&mut o);
    match outcome {
        Ok(report) => {
            let d = game.descriptor();
            f.num("children_checked", report.children_checked)
                .str("db", path)
                .num("derived", report.derived)
                .str("game", d.name)
                .num("ok", true)
                .num("records", report.records)
                .str("variant", &d.variant);
        }
        Err(message) => {
            f.str("db", path).str("error", message).num("ok", false);
        }
    }
    f.close();
    o
}

/// What `query stats --json` prints: the facts `s` holds about the whole
/// game, from the database `db` at `path`. With `heuristic_only` (`query
/// stats --heuristic NAME`), only the heads and the heuristics. Each
/// example failure of a heuristic is explained from the database (the moves
/// it picks and the best ones, with their values): `heuristics` are the
/// game's, bound to it, as [`super::stats::compute`] took them.
#[cfg(feature = "engine")]
pub fn stats(
    path: &str,
    game: &dyn Presentation,
    heuristics: &[crate::core::BoundHeuristic<'_>],
    db: &Database,
    s: &super::stats::Stats,
    heuristic_only: bool,
) -> Result<String, super::stats::StatsError> {
    use crate::core::Player;
    let g = game;
    // A move of an analysed position: its name, value and whether it is best.
    let a_move = |o: &mut String, a: &Analysis, m: Move| {
        let found = a.moves.iter().find(|x| x.mv == m);
        Fields::open(o)
            .str("move", &g.format_move(m))
            .num("value", found.map_or(0, |x| x.score))
            .num("best", found.is_some_and(|x| x.best))
            .close();
    };
    // The examples are explained first: the one step that can fail.
    let mut examples: Vec<Vec<(u64, super::stats::heuristics::Failure)>> = Vec::new();
    if let Ok(reports) = &s.heuristics {
        for r in reports {
            let mut explained = Vec::new();
            if let Some(h) = heuristics.iter().find(|h| h.name == r.name) {
                for &state in &r.examples {
                    explained.push((state, super::stats::heuristics::explain(g, db, h, state)?));
                }
            }
            examples.push(explained);
        }
    }
    let value_meaning = if g.lead(g.start()).is_some() {
        g.score_meaning().to_owned()
    } else {
        format!("net value for the side to move: {}", g.score_meaning())
    };
    let mut o = String::with_capacity(4096);
    let mut f = Fields::open(&mut o);
    f.str("db", path)
        .str("game", s.game)
        .str("variant", &s.variant)
        .str(
            "states_counted",
            if s.dense { "every-key" } else { "canonical" },
        )
        .num("complete", s.complete)
        .str("value_meaning", &value_meaning)
        .with("players", |o| {
            array(o, [Player::First, Player::Second], |o, p| {
                string(o, g.player_name(p))
            })
        });
    if !heuristic_only {
        let t = &s.terminals;
        f.num("states", s.states)
            .with("by_layer", |o| {
                array(o, &s.by_layer, |o, n| {
                    let _ = write!(o, "{n}");
                })
            })
            .with("by_value", |o| {
                array(o, &s.by_value, |o, (value, states)| {
                    Fields::open(o)
                        .num("value", value)
                        .num("states", states)
                        .close();
                })
            })
            .with("by_layer_value", |o| {
                array(o, &s.by_layer_value, |o, ((layer, value), states)| {
                    Fields::open(o)
                        .num("layer", layer)
                        .num("value", value)
                        .num("states", states)
                        .close();
                })
            })
            .with("terminal", |o| {
                Fields::open(o)
                    .num("count", t.count)
                    .opt("first_wins", t.outcomes.map(|c| c[0]))
                    .opt("second_wins", t.outcomes.map(|c| c[1]))
                    .opt("ties", t.outcomes.map(|c| c[2]))
                    .close();
            })
            .with("playouts", |o| {
                let p = s.playouts.as_ref().ok();
                let mut f = Fields::open(o);
                f.opt("games", p.map(|p| p.games))
                    .opt("first_wins", p.map(|p| p.first_wins))
                    .opt("second_wins", p.map(|p| p.second_wins))
                    .opt("ties", p.map(|p| p.ties));
                if let Err(note) = &s.playouts {
                    f.str("note", note);
                }
                f.close();
            })
            .num("start_value", s.start.score)
            .with("start_moves", |o| {
                array(o, &s.start.moves, |o, m| a_move(o, &s.start, m.mv))
            });
    }
    f.with("heuristics", |o| {
        let reports = s.heuristics.as_deref().unwrap_or_default();
        array(o, reports.iter().zip(&examples), |o, (r, explained)| {
            let mut f = Fields::open(o);
            f.str("name", r.name)
                .str("description", r.description)
                .num("positions", r.positions)
                .num("failures", r.failures);
            if !explained.is_empty() {
                f.with("examples", |o| {
                    array(o, explained, |o, (state, failure)| {
                        let a = &failure.analysis;
                        Fields::open(o)
                            .str("position", &g.format_position(*state))
                            .str("to_move", g.player_name(a.to_move))
                            .num("value", a.score)
                            .with("picks", |o| {
                                array(o, &failure.picks, |o, m| a_move(o, a, *m))
                            })
                            .with("best", |o| {
                                array(o, a.best_moves(), |o, m| a_move(o, a, m.mv))
                            })
                            .close();
                    })
                });
            }
            f.close();
        })
    });
    if let Err(note) = &s.heuristics {
        f.str("heuristics_note", note);
    }
    f.close();
    Ok(o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_names_its_input_when_it_has_one() {
        assert_eq!(
            error(Some("a \"b\""), "bad"),
            r#"{"input":"a \"b\"","error":"bad"}"#
        );
        assert_eq!(error(None, "no\nway"), r#"{"error":"no\nway"}"#);
    }

    #[test]
    fn integers_are_written_as_rust_writes_them() {
        for n in [
            0,
            1,
            9,
            10,
            -1,
            -9,
            -10,
            99,
            100,
            12_345,
            -987_654,
            i64::MAX,
            i64::MIN,
        ] {
            let mut out = String::from("x");
            push_int(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }

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
