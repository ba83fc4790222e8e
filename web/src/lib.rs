//! The probe in WebAssembly: a [`Table`] answers positions of a database
//! held in memory ([`Table::from_bytes`]) or read in pieces its host
//! supplies ([`Pieces`], [`Table::from_pieces`]), as `query` answers them.
//!
//! Nothing here waits for bytes. A call on a table read by pieces that
//! needs bytes it lacks fails (or answers from what it has), and the
//! table's [`Table::wanted`] ranges say what to fetch; the JavaScript
//! wrapper (`js/boardsolve.js`) fetches them, hands them over with
//! [`Table::supply`] and calls again. Errors are JavaScript exceptions
//! whose messages are `query`'s.

use std::sync::Arc;

use boardsolve_probe::{json, RangeFile, Tablebase};
use wasm_bindgen::prelude::*;

/// `log2` of the transposition table entries of a search past a book:
/// 2^22 entries, 32 MiB of wasm32's 4 GiB.
pub const SEARCH_TABLE_BITS: u32 = 22;

fn js_error(e: impl std::fmt::Display) -> JsError {
    JsError::new(&e.to_string())
}

/// The ranges `(start, end)` as a flat list `[start0, end0, start1, ...]`
/// of byte offsets (exact in a JavaScript number up to 2^53).
fn flat(ranges: Vec<(u64, u64)>) -> Vec<f64> {
    ranges
        .into_iter()
        .flat_map(|(s, e)| [s as f64, e as f64])
        .collect()
}

/// An offset from JavaScript: a whole number of bytes from 0 to 2^53.
fn offset(x: f64) -> Result<u64, JsError> {
    if x.is_finite() && x >= 0.0 && x.fract() == 0.0 && x <= 9_007_199_254_740_992.0 {
        Ok(x as u64)
    } else {
        Err(JsError::new(&format!("{x} is not a byte offset")))
    }
}

/// The pieces of a database file of known length, before a table is
/// opened on them.
#[wasm_bindgen]
pub struct Pieces {
    file: Arc<RangeFile>,
}

#[wasm_bindgen]
impl Pieces {
    /// The pieces of a file of `length` bytes, none supplied yet.
    #[wasm_bindgen(constructor)]
    pub fn new(length: f64) -> Result<Pieces, JsError> {
        Ok(Pieces {
            file: Arc::new(RangeFile::new(offset(length)?)),
        })
    }

    /// The ranges wanted since the last call, flat: `[start, end, ...]`.
    pub fn wanted(&self) -> Vec<f64> {
        flat(self.file.take_wanted())
    }

    /// Hands over the bytes at `start`.
    pub fn supply(&self, start: f64, bytes: &[u8]) -> Result<(), JsError> {
        self.file.supply(offset(start)?, bytes).map_err(js_error)
    }
}

/// An open database and its game.
#[wasm_bindgen]
pub struct Table {
    tb: Tablebase,
    name: String,
}

#[wasm_bindgen]
impl Table {
    /// A table on the whole bytes of a database file; `name` stands for
    /// its path in messages.
    #[wasm_bindgen(js_name = fromBytes)]
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Table, JsError> {
        Table::ready(name, Tablebase::from_bytes(name, bytes))
    }

    /// A table on the pieces of a database file: fails until its header
    /// (and a packed file's index) are supplied, and `pieces` wants them.
    #[wasm_bindgen(js_name = fromPieces)]
    pub fn from_pieces(name: &str, pieces: &Pieces) -> Result<Table, JsError> {
        Table::ready(name, Tablebase::from_ranges(name, Arc::clone(&pieces.file)))
    }

    fn ready(
        name: &str,
        tb: Result<Tablebase, boardsolve_probe::ProbeError>,
    ) -> Result<Table, JsError> {
        let tb = tb.map_err(js_error)?;
        // Past a book, positions are searched, within the memory stated.
        let tb = if tb.game().has_book() {
            tb.with_search(SEARCH_TABLE_BITS).map_err(js_error)?
        } else {
            tb
        };
        Ok(Table {
            tb,
            name: name.to_owned(),
        })
    }

    /// The ranges the calls since the last one wanted, flat: `[start,
    /// end, ...]`; when not empty, their answers are to be thrown away,
    /// the ranges supplied and the calls made again.
    pub fn wanted(&self) -> Vec<f64> {
        flat(self.tb.wanted())
    }

    /// Hands over the bytes at `start` of a table read by pieces.
    pub fn supply(&self, start: f64, bytes: &[u8]) -> Result<(), JsError> {
        match self.tb.ranges() {
            Some(file) => file.supply(offset(start)?, bytes).map_err(js_error),
            None => Err(JsError::new(
                "this database is in memory, not read by pieces",
            )),
        }
    }

    /// The game's name (`british-square`, ...).
    #[wasm_bindgen(getter)]
    pub fn game(&self) -> String {
        self.tb.game().name().to_owned()
    }

    /// The variant (`5x5`, ...).
    #[wasm_bindgen(getter)]
    pub fn variant(&self) -> String {
        self.tb.game().variant().to_owned()
    }

    /// The number of records.
    #[wasm_bindgen(getter)]
    pub fn records(&self) -> f64 {
        self.tb.len() as f64
    }

    /// True when the file holds every reachable position.
    #[wasm_bindgen(getter)]
    pub fn complete(&self) -> bool {
        self.tb.is_complete()
    }

    /// True when positions past the file's book are searched.
    #[wasm_bindgen(getter, js_name = searchedPastTheBook)]
    pub fn searched_past_the_book(&self) -> bool {
        self.tb.game().has_book()
    }

    /// True for a packed file.
    #[wasm_bindgen(getter)]
    pub fn packed(&self) -> bool {
        self.tb.is_packed()
    }

    /// The answer for `position` as the JSON line `query --json` prints.
    #[wasm_bindgen(js_name = probeJson)]
    pub fn probe_json(&self, position: &str) -> Result<String, JsError> {
        let a = self.tb.probe(position).map_err(js_error)?;
        Ok(json::answer(position, &a, None))
    }

    /// The moves of perfect play from `position` to the end.
    pub fn line(&self, position: &str) -> Result<Vec<String>, JsError> {
        let p = self.tb.parse(position).map_err(js_error)?;
        let line = self.tb.line(&p).map_err(js_error)?;
        Ok(line.iter().map(|m| m.name().to_owned()).collect())
    }

    /// The position after `mv`, in the game's notation.
    pub fn play(&self, position: &str, mv: &str) -> Result<String, JsError> {
        let p = self.tb.parse(position).map_err(js_error)?;
        Ok(p.play_text(mv).map_err(js_error)?.text())
    }

    /// The picture `query --svg` draws, or `undefined` for a game without
    /// pictures.
    pub fn svg(&self, position: &str) -> Result<Option<String>, JsError> {
        Ok(self.tb.probe(position).map_err(js_error)?.svg())
    }

    /// The picture of the position after `mv` in `position`, that move
    /// marked (`data-mark="last"`), as `query serve`'s `GET
    /// /api/svg?p=POSITION&m=MOVE` draws it, or `undefined` for a game
    /// without pictures.
    #[wasm_bindgen(js_name = svgAfter)]
    pub fn svg_after(&self, position: &str, mv: &str) -> Result<Option<String>, JsError> {
        let before = self.tb.parse(position).map_err(js_error)?;
        let mv = before.parse_move(mv).map_err(js_error)?;
        let after = before.play(&mv).map_err(js_error)?;
        Ok(self.tb.answer(&after).map_err(js_error)?.svg_after(&mv))
    }

    /// The game served from this file, as `query serve`'s `GET /api/info`
    /// lists it (one entry of its `databases`).
    #[wasm_bindgen(js_name = servedJson)]
    pub fn served_json(&self) -> String {
        self.tb.served_json()
    }

    /// What `query info --json` says about the file.
    #[wasm_bindgen(js_name = infoJson)]
    pub fn info_json(&self) -> Result<String, JsError> {
        self.tb.info_json(&self.name).map_err(js_error)
    }
}
