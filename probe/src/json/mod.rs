//! The JSON the tools print (feature `json`), each shape defined once, by
//! serde, from the typed values: `query --json`, `query serve`, the Python
//! package and the WebAssembly package print the same objects.
//!
//! * [`answer`]: a position answered (fields named as the GamesCrafters
//!   API names them where they mean the same: `positionValue`,
//!   `remoteness`, `moves` with `moveValue` and `deltaRemoteness`), and
//!   [`weak`], `--weak`'s;
//! * [`error`]: a position, or a request, refused;
//! * [`Tablebase::info_json`]: a database described (`query info
//!   --json`);
//! * [`Tablebase::served_json`]: a game served (`GET /api/info`);
//! * [`line()`] and [`played`]: a line of perfect play, a position after a
//!   move;
//! * `whole::verify` and `whole::stats` (feature `engine`): `query verify
//!   --json` and `query stats --json`.
//!
//! The values of a shape serialize through any serde serializer, so that
//! another format (the Python package's objects) gets the same fields in
//! the same order: [`AnswerFields`], [`WeakFields`], [`ErrorFields`]. The
//! answer line alone is written by hand (three times as fast as through
//! serde: the figures are beside it), to the same bytes. An answer's and a
//! move's fields are listed by hand too, as a struct of `&'static str`
//! keys rather than a derive with `#[serde(flatten)]`, which makes a map
//! (the figure is beside them).

mod fast;
#[cfg(feature = "engine")]
pub mod whole;

use serde::ser::{SerializeStruct, Serializer};
use serde::Serialize;

use crate::answer::{Answer, WeakAnswer};
use crate::error::ProbeError;
use crate::info::FileInfo;
use crate::position::Move;
use crate::tablebase::Tablebase;
use crate::{Game, Outcome, Player};

/// `win`, `lose` or `tie`, as the GamesCrafters API says an outcome.
fn outcome_word(o: Outcome) -> &'static str {
    match o {
        Outcome::Win => "win",
        Outcome::Loss => "lose",
        Outcome::Tie => "tie",
    }
}

impl Serialize for Move {
    /// Its name.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

/// A game's own fields of a score (Dandelions: `"winner": "wind", "gaps":
/// 3`), flattened into the object that holds the score.
struct Detail(Option<boardsolve::render::ScoreDetail>);

impl Detail {
    fn of(game: Game, score: i32, side: Player) -> Detail {
        Detail(game.present().score_detail(score, side))
    }
}

impl Detail {
    /// The fields it adds.
    fn len(&self) -> usize {
        if self.0.is_some() {
            2
        } else {
            0
        }
    }

    /// Adds its fields to the object `s` is writing.
    fn fields<S: SerializeStruct>(&self, s: &mut S) -> Result<(), S::Error> {
        if let Some(d) = &self.0 {
            s.serialize_field("winner", d.winner)?;
            s.serialize_field(d.count_name, &d.count)?;
        }
        Ok(())
    }
}

/// A move's number under the field name its game gives it (`"cell": 12`,
/// `"column": 4`; `null` for a pass), flattened into the move's object.
struct Code {
    field: &'static str,
    number: Option<u32>,
}

impl Code {
    fn of(game: Game, mv: &Move) -> Code {
        Code {
            field: game.present().move_code_name(),
            number: mv.number(),
        }
    }
}

impl Code {
    /// Adds its field to the object `s` is writing.
    fn fields<S: SerializeStruct>(&self, s: &mut S) -> Result<(), S::Error> {
        s.serialize_field(self.field, &self.number)
    }
}

/// The best moves of an answer, by name.
struct BestMoves<'a>(&'a Answer);

impl Serialize for BestMoves<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.best_moves().map(|m| m.mv))
    }
}

/// Every move of an answer, with its value.
struct MoveList<'a>(&'a Answer);

impl Serialize for MoveList<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let game = self.0.game();
        s.collect_seq(self.0.moves().map(|m| MoveFields {
            code: Code::of(game, &m.mv),
            mv: m.mv,
            value: m.value,
            detail: Detail::of(game, m.value, self.0.to_move()),
            remoteness: m.remoteness,
            delta_remoteness: m.delta_remoteness,
            best: m.best,
            move_value: outcome_word(m.outcome),
        }))
    }
}

/// One move of an answer.
struct MoveFields {
    mv: Move,
    code: Code,
    value: i32,
    detail: Detail,
    remoteness: u32,
    delta_remoteness: u32,
    best: bool,
    move_value: &'static str,
}

// The fields of an answer and of its moves are listed by hand: a derive
// with `#[serde(flatten)]` writes a map, whose keys the Python package then
// makes and looks up one by one instead of copying a dict of known keys.
// `probe_many` over 100,000 British Square positions on one thread (AMD
// EPYC, benches/python_probe.py, medians of 7 by turns): 0.72 s through
// the derive, 0.52 s listed by hand.
impl Serialize for MoveFields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("Move", 7 + self.detail.len())?;
        m.serialize_field("move", &self.mv)?;
        self.code.fields(&mut m)?;
        m.serialize_field("value", &self.value)?;
        self.detail.fields(&mut m)?;
        m.serialize_field("remoteness", &self.remoteness)?;
        m.serialize_field("deltaRemoteness", &self.delta_remoteness)?;
        m.serialize_field("best", &self.best)?;
        m.serialize_field("moveValue", self.move_value)?;
        m.end()
    }
}

/// The fields of an answered position, in the order `query --json` prints
/// them: what the input was, the position, the side to move, the value
/// (and the game's own fields of it), the remoteness, the net value, the
/// final score when the score so far is known, the outcome, the best
/// moves, every move, and the line of perfect play when asked.
pub struct AnswerFields<'a> {
    input: &'a str,
    position: String,
    to_move: &'static str,
    value: i32,
    detail: Detail,
    remoteness: u32,
    net: i32,
    final_for_first: Option<i32>,
    position_value: &'static str,
    best: BestMoves<'a>,
    moves: MoveList<'a>,
    pv: Option<&'a [Move]>,
}

impl Serialize for AnswerFields<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let len = 10
            + self.detail.len()
            + usize::from(self.final_for_first.is_some())
            + usize::from(self.pv.is_some());
        let mut m = s.serialize_struct("Answer", len)?;
        m.serialize_field("input", self.input)?;
        m.serialize_field("position", &self.position)?;
        m.serialize_field("to_move", self.to_move)?;
        m.serialize_field("value", &self.value)?;
        self.detail.fields(&mut m)?;
        m.serialize_field("remoteness", &self.remoteness)?;
        m.serialize_field("net", &self.net)?;
        if let Some(lead) = &self.final_for_first {
            m.serialize_field("final_for_first", lead)?;
        }
        m.serialize_field("positionValue", self.position_value)?;
        m.serialize_field("best", &self.best)?;
        m.serialize_field("moves", &self.moves)?;
        if let Some(pv) = self.pv {
            m.serialize_field("pv", pv)?;
        }
        m.end()
    }
}

impl<'a> AnswerFields<'a> {
    /// The fields of `a`, asked as `input`, with the line of perfect play
    /// `pv` when given.
    pub fn new(input: &'a str, a: &'a Answer, pv: Option<&'a [Move]>) -> AnswerFields<'a> {
        let game = a.game();
        let p = a.position();
        AnswerFields {
            input,
            position: p.board(),
            to_move: p.to_move_name(),
            value: a.value(),
            detail: Detail::of(game, a.value(), a.to_move()),
            remoteness: a.remoteness(),
            net: a.net(),
            final_for_first: a.final_for_first(),
            position_value: outcome_word(a.outcome()),
            best: BestMoves(a),
            moves: MoveList(a),
            pv,
        }
    }
}

/// One move of a weak answer.
struct WeakMoveFields {
    mv: Move,
    code: Code,
    value: i32,
    best: bool,
    move_value: &'static str,
}

impl Serialize for WeakMoveFields {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_struct("WeakMove", 5)?;
        m.serialize_field("move", &self.mv)?;
        self.code.fields(&mut m)?;
        m.serialize_field("value", &self.value)?;
        m.serialize_field("best", &self.best)?;
        m.serialize_field("moveValue", self.move_value)?;
        m.end()
    }
}

/// The fields of a weak answer (`--weak`): `value` is 1, 0 or -1 for the
/// side to move, `best` the best moves, `moves` every move.
#[derive(Serialize)]
pub struct WeakFields<'a> {
    input: &'a str,
    position: String,
    to_move: &'static str,
    weak: bool,
    value: i32,
    #[serde(rename = "positionValue")]
    position_value: &'static str,
    best: Vec<Move>,
    moves: Vec<WeakMoveFields>,
}

/// -1, 0 or 1.
fn sign(o: Outcome) -> i32 {
    match o {
        Outcome::Win => 1,
        Outcome::Tie => 0,
        Outcome::Loss => -1,
    }
}

impl<'a> WeakFields<'a> {
    /// The fields of `w`, asked as `input`.
    pub fn new(input: &'a str, w: &WeakAnswer) -> WeakFields<'a> {
        let p = w.position();
        let game = p.game();
        let outcome = w.outcome();
        WeakFields {
            input,
            position: p.board(),
            to_move: p.to_move_name(),
            weak: true,
            value: sign(outcome),
            position_value: outcome_word(outcome),
            best: w.best_moves().collect(),
            moves: w
                .moves()
                .map(|(mv, o)| WeakMoveFields {
                    code: Code::of(game, &mv),
                    mv,
                    value: sign(o),
                    best: o == outcome,
                    move_value: outcome_word(o),
                })
                .collect(),
        }
    }
}

/// A refusal: `{"input":...,"error":...}` for a position that could not be
/// answered, `{"error":...}` for a request refused before any position was
/// read.
#[derive(Serialize)]
pub struct ErrorFields<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    input: Option<&'a str>,
    error: &'a str,
}

impl<'a> ErrorFields<'a> {
    /// The refusal of `input` (if any) with `message`.
    pub fn new(input: Option<&'a str>, message: &'a str) -> ErrorFields<'a> {
        ErrorFields {
            input,
            error: message,
        }
    }
}

/// serde_json's compact format, escaping a backspace and a form feed as
/// `\u0008` and `\u000c`, as the tools always have.
struct Compact;

impl serde_json::ser::Formatter for Compact {
    fn write_char_escape<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        escape: serde_json::ser::CharEscape,
    ) -> std::io::Result<()> {
        use serde_json::ser::CharEscape;
        match escape {
            CharEscape::Backspace => writer.write_all(b"\\u0008"),
            CharEscape::FormFeed => writer.write_all(b"\\u000c"),
            other => serde_json::ser::CompactFormatter.write_char_escape(writer, other),
        }
    }
}

/// Appends `value` as one line of JSON to `out`.
pub fn write(out: &mut Vec<u8>, value: &impl Serialize) {
    let mut ser = serde_json::Serializer::with_formatter(out, Compact);
    // The shapes here are maps of strings, numbers and lists: writing them
    // to memory cannot fail.
    let _ = value.serialize(&mut ser);
}

/// `value` as one line of JSON.
fn text(value: &impl Serialize) -> String {
    let mut out = Vec::with_capacity(128);
    write(&mut out, value);
    // serde_json writes UTF-8.
    String::from_utf8(out).unwrap_or_default()
}

/// `{"input":...,"error":...}`, or `{"error":...}` without an input.
pub fn error(input: Option<&str>, message: &str) -> String {
    text(&ErrorFields::new(input, message))
}

/// `{"line":[...]}`: the moves of a line of perfect play.
pub fn line(moves: &[Move]) -> String {
    #[derive(Serialize)]
    struct Line<'a> {
        line: &'a [Move],
    }
    text(&Line { line: moves })
}

/// `{"position":...}`: a position after a move, as text that reads back.
pub fn played(position: &str) -> String {
    #[derive(Serialize)]
    struct Played<'a> {
        position: &'a str,
    }
    text(&Played { position })
}

/// The JSON line `query --json -` prints for an input line longer than
/// [`crate::MAX_POSITION`] bytes, whose beginning is `head`.
pub fn too_long(head: &str) -> String {
    error(
        Some(head),
        &format!("input line is longer than {} bytes", crate::MAX_POSITION),
    )
}

/// The line `query --json` prints (without the newline) for `a`, asked as
/// `input`, with the line of perfect play `pv` when given: the fields of
/// [`AnswerFields`].
pub fn answer(input: &str, a: &Answer, pv: Option<&[Move]>) -> String {
    let mut out = String::new();
    fast::answer(&mut out, input, a, pv);
    out
}

/// [`answer`], appended to `out`: many answers can share one buffer.
pub fn answer_into(out: &mut String, input: &str, a: &Answer) {
    fast::answer(out, input, a, None);
}

/// The line `query --json --weak` prints for `w`, asked as `input`.
pub fn weak(input: &str, w: &WeakAnswer) -> String {
    text(&WeakFields::new(input, w))
}

/// The error of a position in a JSON line: its message, with the input.
fn refusal(input: &str, e: &ProbeError) -> String {
    error(Some(input), &e.to_string())
}

impl Tablebase {
    /// One position answered as a line of `query --json` prints it (without
    /// the newline): the answer's object, or `{"input":...,"error":...}`.
    /// Programs in other languages read this shape.
    pub fn probe_json(&self, position: &str) -> String {
        if position.len() > crate::MAX_POSITION {
            return too_long(&boardsolve::cli::quoted(position));
        }
        match self.probe(position) {
            Ok(a) => answer(position, &a, None),
            Err(e) => refusal(position, &e),
        }
    }

    /// [`Tablebase::probe_json`] for each position, in order, their lookups
    /// made together ([`Tablebase::probe_many`]).
    pub fn probe_json_many<S: AsRef<str>>(&self, positions: &[S]) -> Vec<String> {
        let fits = |p: &&S| p.as_ref().len() <= crate::MAX_POSITION;
        let mut answers = self.probe_many(positions.iter().filter(fits).map(AsRef::as_ref));
        let mut answers = answers.drain(..);
        positions
            .iter()
            .map(|p| {
                let input = p.as_ref();
                if !fits(&p) {
                    return too_long(&boardsolve::cli::quoted(input));
                }
                match answers.next() {
                    Some(Ok(a)) => answer(input, &a, None),
                    Some(Err(e)) => refusal(input, &e),
                    None => error(Some(input), "no answer"),
                }
            })
            .collect()
    }

    /// The game served from this file, as `query serve`'s `GET /api/info`
    /// lists it: game, variant, its other name (`tic-tac-toe`, or `null`),
    /// what joins the moves from the start into a position (`""`, `" "`,
    /// or `null`), records, whether positions
    /// past a book are searched, whether there is a file, the game in one line, its word
    /// for an even result (`null` for a game that always has a winner),
    /// what a value means and whether it counts only from here on (Dots and
    /// Boxes), and its players' names and pieces, so that a page can say
    /// who plays what without naming a game.
    pub fn served_json(&self) -> String {
        #[derive(Serialize)]
        struct PlayerFields {
            name: &'static str,
            pieces: &'static str,
        }
        #[derive(Serialize)]
        struct Served {
            game: &'static str,
            variant: &'static str,
            alias: Option<&'static str>,
            moves_joined_by: Option<&'static str>,
            records: u64,
            complete: bool,
            searched_past_the_book: bool,
            file: bool,
            about: &'static str,
            even: Option<&'static str>,
            value_meaning: &'static str,
            value_from_here: bool,
            players: [PlayerFields; 2],
        }
        let g = self.game;
        let player = |p: Player| PlayerFields {
            name: g.player_name(p),
            pieces: g.player_pieces(p),
        };
        text(&Served {
            game: g.name(),
            variant: g.variant(),
            alias: g.alias(),
            moves_joined_by: g.moves_separator(),
            records: self.len(),
            complete: self.is_complete(),
            searched_past_the_book: self.searches(),
            file: self.has_file(),
            about: g.entry().about(),
            even: g.even_result(),
            value_meaning: g.score_meaning(),
            value_from_here: !g.keeps_score(),
            players: [player(Player::First), player(Player::Second)],
        })
    }

    /// What `query --db FILE info --json` prints about the file, with
    /// `name` for its path: keys in alphabetical order.
    pub fn info_json(&self, name: &str) -> Result<String, ProbeError> {
        Ok(info(name, &self.info()?))
    }
}

/// The description of a database `query info --json` prints, with `path`
/// for the file: keys in alphabetical order. A packed file adds `packed`:
/// the layout of the records it holds, its entries, blocks, size and bits a
/// position.
pub fn info(path: &str, i: &FileInfo) -> String {
    #[derive(Serialize)]
    struct Layout {
        key_bits: u32,
        key_shift: u32,
        remoteness_bits: u32,
        remoteness_shift: u32,
        value_bits: u32,
        value_shift: u32,
    }
    #[derive(Serialize)]
    struct Packed<'a> {
        bits_per_position: &'a serde_json::value::RawValue,
        block_entries: u32,
        blocks: u64,
        bytes: u64,
        entries: u64,
        records_layout: &'static str,
    }
    #[derive(Serialize)]
    struct Info<'a> {
        complete: bool,
        db: &'a str,
        game: &'a str,
        game_id: u32,
        generator: &'a str,
        layout: Layout,
        layout_kind: &'static str,
        #[serde(skip_serializing_if = "Option::is_none")]
        packed: Option<Packed<'a>>,
        records: u64,
        start_remoteness: u32,
        start_value: i32,
        variant: &'a str,
    }
    // Four decimals, as people compare packings.
    let bits =
        serde_json::value::RawValue::from_string(format!("{:.4}", i.bits_per_position())).ok();
    let l = &i.layout;
    text(&Info {
        complete: i.complete,
        db: path,
        game: &i.game,
        game_id: i.game_id,
        generator: &i.generator,
        layout: Layout {
            key_bits: l.key_bits,
            key_shift: l.key_shift,
            remoteness_bits: l.remoteness_bits,
            remoteness_shift: l.remoteness_shift,
            value_bits: l.value_bits,
            value_shift: l.value_shift,
        },
        layout_kind: match i.packed {
            Some(_) => "packed",
            None => i.kind.name(),
        },
        packed: match (i.packed, &bits) {
            (Some(p), Some(bits)) => Some(Packed {
                bits_per_position: bits,
                block_entries: p.block_entries,
                blocks: p.blocks,
                bytes: i.bytes,
                entries: p.entries,
                records_layout: i.kind.name(),
            }),
            _ => None,
        },
        records: i.records,
        start_remoteness: i.start_remoteness,
        start_value: i.start_value,
        variant: &i.variant,
    })
}
