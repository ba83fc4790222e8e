//! Dandelions as the engine's [`Game`]: keys, moves, layers, symmetries and
//! notation.
//!
//! # Keys (a public contract, see `format-spec.md`)
//! [`Geometry::key`]: the cells as base-3 digits (0 uncovered, 1 seeded, 2 a
//! flower; cell `c` weighs `3^c`), then the 8 direction bits above them (40
//! digit bits on 5x5: a 48-bit key; 26 on 4x4: 34 bits).
//!
//! # Moves and values
//! A flower on cell `c` is `Move(c)`; a wind in direction `d` is
//! `Move(32 + d)`. The move that ends the game carries the outcome as its
//! reward, for its mover: `D` for the dandelions, `-D` for the wind, where
//! `D` is `8 - flowers` when the dandelions win and `-gaps` when the wind
//! does. So a state's net value is `D` with the dandelions to move and `-D`
//! with the wind to move; the headline score ([`Game::score`]) is always
//! `D`.

use super::field::{Field, Geometry, DIRECTION_NAMES, MAX_SIDE, MIN_SIDE, TURNS};
use super::{ID, NAME};
use crate::core::notation::number;
use crate::core::{
    Edge, Game, GameDescriptor, Limits, Move, Player, PositionError, Value, VariantError,
};

/// The code of the first wind move.
pub(super) const WIND: u16 = 32;

/// Dandelions on one field size.
#[derive(Clone, Debug)]
pub struct Dandelions {
    geo: Geometry,
    desc: GameDescriptor,
}

impl Dandelions {
    /// Parses a variant spec: `NxN` for `N` from 2 to 5 (empty: `5x5`).
    pub fn from_variant(spec: &str) -> Result<Dandelions, VariantError> {
        let bad = |reason: String| VariantError::new(NAME, spec, reason);
        let trimmed = spec.trim();
        let n = if trimmed.is_empty() {
            5
        } else {
            let (a, b) = trimmed
                .split_once(['x', 'X'])
                .ok_or_else(|| bad("expected NxN, e.g. 4x4".to_owned()))?;
            let (a, b) = (a.trim().parse::<u32>(), b.trim().parse::<u32>());
            match (a, b) {
                (Ok(a), Ok(b)) if a == b && (MIN_SIDE..=MAX_SIDE).contains(&a) => a,
                _ => {
                    return Err(bad(format!(
                        "the field is square, {MIN_SIDE}x{MIN_SIDE} to {MAX_SIDE}x{MAX_SIDE} \
                         (6x6 would need 3^36 key values and 8 direction bits: 66 bits, more \
                         than a 64-bit record)"
                    )))
                }
            }
        };
        let geo = Geometry::new(n);
        let desc = GameDescriptor {
            name: NAME,
            id: ID,
            variant: format!("{n}x{n}"),
            key_bits: geo.key_bits(),
            // |net| <= cells: a sign bit and five or fewer magnitude bits.
            value_bits: 6,
            // Remoteness is at most 14.
            remoteness_bits: 4,
            dense: false,
        };
        Ok(Dandelions { geo, desc })
    }

    /// The field geometry.
    pub fn geometry(&self) -> &Geometry {
        &self.geo
    }

    /// The state of a key, if the key is in range.
    pub fn field(&self, state: u64) -> Option<Field> {
        self.geo.field(state)
    }

    /// The state of a key the engine produced (a malformed key reads as
    /// the empty field rather than panicking).
    pub(super) fn f(&self, state: u64) -> Field {
        self.geo.field(state).unwrap_or_default()
    }

    /// The engine's value of a state whose outcome is `d` (dandelions'
    /// side) reached in `remoteness` turns.
    pub fn value_of(&self, f: &Field, d: i32, remoteness: u32) -> Value {
        if self.geo.is_over(f) {
            return Value::TERMINAL;
        }
        Value {
            net: if f.dandelions_to_move() { d } else { -d },
            remoteness,
        }
    }

    pub(super) fn cell_name(&self, c: u32) -> String {
        let n = self.geo.side();
        format!("{}{}", (b'a' + (c % n) as u8) as char, c / n + 1)
    }

    pub(super) fn grid(&self, cell: impl Fn(u32) -> String, width: usize) -> Vec<String> {
        let n = self.geo.side();
        let mut lines = Vec::new();
        let mut head = String::from("  ");
        for c in 0..n {
            head.push_str(&format!("{:>width$}", (b'a' + c as u8) as char));
        }
        lines.push(head);
        for r in 0..n {
            let mut line = format!("{:>2}", r + 1);
            for c in 0..n {
                line.push_str(&cell(r * n + c));
            }
            lines.push(line);
        }
        lines
    }

    pub(super) fn cell_char(f: &Field, c: u32) -> char {
        if f.flowers >> c & 1 != 0 {
            'F'
        } else if f.seeds >> c & 1 != 0 {
            '*'
        } else {
            '.'
        }
    }
}

pub(super) fn dirs_text(dirs: u8) -> String {
    if dirs == 0 {
        return "-".to_owned();
    }
    (0..8)
        .filter(|d| dirs >> d & 1 != 0)
        .map(|d| char::from(b'0' + d))
        .collect()
}

impl Game for Dandelions {
    /// The small fields are solved completely (their counts); 5x5 has at
    /// most 3^25 cell contents and 2^8 sets of winds. An outcome is at most
    /// the cells uncovered, a game 14 turns.
    fn limits(&self) -> Limits {
        let exact = match self.geo.side() {
            2 => Some(152),
            3 => Some(53_391),
            4 => Some(23_945_549),
            _ => None,
        };
        let cells = self.geo.cells();
        Limits {
            states: exact.unwrap_or_else(|| 3u64.saturating_pow(cells) << 8),
            exact_states: exact,
            // The wind wins by at most every cell, the dandelions by at
            // most 7 (covering the field with one flower): 7 is the larger
            // on 2x2.
            max_net: (cells as i32).max(7),
            max_remoteness: TURNS,
        }
    }

    fn descriptor(&self) -> &GameDescriptor {
        &self.desc
    }

    fn start(&self) -> u64 {
        0
    }

    fn layer_count(&self) -> usize {
        TURNS as usize + 1
    }

    fn layer(&self, state: u64) -> usize {
        self.f(state).turns() as usize
    }

    fn to_move(&self, state: u64) -> Player {
        if self.f(state).dandelions_to_move() {
            Player::First
        } else {
            Player::Second
        }
    }

    fn symmetry_count(&self) -> usize {
        8
    }

    fn transform(&self, state: u64, sym: usize) -> u64 {
        self.geo.key(&self.geo.transform(&self.f(state), sym))
    }

    fn transform_move(&self, mv: Move, sym: usize) -> Move {
        if mv.0 >= WIND {
            Move(WIND + self.geo.map_dir(sym, usize::from(mv.0 - WIND)) as u16)
        } else if u32::from(mv.0) < self.geo.cells() {
            Move(self.geo.map_cell(sym, usize::from(mv.0)) as u16)
        } else {
            mv
        }
    }

    fn canonical(&self, state: u64) -> u64 {
        self.geo.canonical(&self.f(state))
    }

    fn moves(&self, state: u64, out: &mut Vec<Edge>) {
        let f = self.f(state);
        if self.geo.is_over(&f) {
            return;
        }
        let mut push = |mv: u16, child: Field, dandelions: bool| {
            let reward = if self.geo.is_over(&child) {
                let d = self.geo.final_score(&child);
                if dandelions {
                    d
                } else {
                    -d
                }
            } else {
                0
            };
            out.push(Edge {
                mv: Move(mv),
                child: self.geo.key(&child),
                // |D| <= 25.
                reward: reward as i8,
                again: false,
            });
        };
        if f.dandelions_to_move() {
            let mut free = self.geo.full() & !f.flowers;
            while free != 0 {
                let c = free.trailing_zeros();
                free &= free - 1;
                let child = Field {
                    seeds: f.seeds & !(1 << c),
                    flowers: f.flowers | 1 << c,
                    dirs: f.dirs,
                };
                push(c as u16, child, true);
            }
        } else {
            for d in 0..8 {
                if f.dirs >> d & 1 == 0 {
                    let child = Field {
                        seeds: (f.seeds | self.geo.spread(f.flowers, d)) & !f.flowers,
                        flowers: f.flowers,
                        dirs: f.dirs | 1 << d,
                    };
                    push(WIND + d as u16, child, false);
                }
            }
        }
    }

    fn is_valid_key(&self, key: u64) -> bool {
        self.geo.field(key).is_some_and(|f| {
            self.geo.key(&f) == key && self.geo.is_plausible(&f) && f.turns() <= TURNS
        })
    }

    fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
        let t = text.trim();
        if t.is_empty() {
            return Err(PositionError::malformed(
                text,
                "empty position (`start` is the start)",
            ));
        }
        if t.eq_ignore_ascii_case("start") {
            return Ok(self.start());
        }
        let n = self.geo.cells();
        let (cells, dirs) = t.rsplit_once(' ').ok_or_else(|| {
            PositionError::malformed(
                text,
                format!(
                    "{t:?} is not a position: expected the field ({n} cells of '.', '*' or 'F') \
                     then a space and the directions used (digits 0-7, or - for none)"
                ),
            )
        })?;
        let cells: Vec<char> = cells.chars().filter(|c| *c != '/' && *c != ' ').collect();
        if cells.len() != n as usize {
            return Err(PositionError::malformed(
                text,
                format!("the field has {n} cells, not {}", cells.len()),
            ));
        }
        let mut f = Field::default();
        for (i, ch) in cells.iter().enumerate() {
            match ch {
                '.' => {}
                '*' => f.seeds |= 1 << i,
                'F' | 'f' => f.flowers |= 1 << i,
                other => {
                    return Err(PositionError::malformed(
                        text,
                        format!("cell {i}: {other:?} is not `.`, `*` or `F`"),
                    ))
                }
            }
        }
        if dirs.trim() != "-" {
            for ch in dirs.trim().chars() {
                let d = ch.to_digit(10).filter(|&d| d < 8).ok_or_else(|| {
                    PositionError::malformed(
                        text,
                        format!("{ch:?} is not a direction (0 east, clockwise, to 7)"),
                    )
                })?;
                if f.dirs >> d & 1 != 0 {
                    return Err(PositionError::malformed(
                        text,
                        format!("direction {d} is listed twice"),
                    ));
                }
                f.dirs |= 1 << d;
            }
        }
        let (fl, w) = (f.flowers.count_ones(), f.dirs.count_ones());
        if !(fl == w || fl == w + 1) {
            return Err(PositionError::illegal(
                text,
                format!(
                    "{fl} flowers and {w} winds: the dandelions move first, so there are as \
                     many flowers as winds or one more"
                ),
            ));
        }
        if !self.geo.is_plausible(&f) {
            return Err(PositionError::illegal(
                text,
                "a seeded cell lies on no ray of a flower in a direction already blown",
            ));
        }
        if !self.geo.is_reachable(&f) {
            return Err(PositionError::illegal(
                text,
                "no order of these flowers and winds leaves these seeds: each wind seeds every \
                 cell on its rays from the flowers planted before it, and a seed goes only \
                 under a flower planted later",
            ));
        }
        Ok(self.geo.key(&f))
    }

    fn format_position(&self, state: u64) -> String {
        let f = self.f(state);
        let cells: String = (0..self.geo.cells())
            .map(|c| Dandelions::cell_char(&f, c))
            .collect();
        format!("{cells} {}", dirs_text(f.dirs))
    }

    fn format_move(&self, mv: Move) -> String {
        if mv.0 >= WIND {
            DIRECTION_NAMES
                .get(usize::from(mv.0 - WIND))
                .map_or_else(|| format!("wind {}", mv.0 - WIND), |s| (*s).to_owned())
        } else {
            self.cell_name(u32::from(mv.0))
        }
    }

    fn parse_move(&self, state: u64, text: &str) -> Result<Move, PositionError> {
        let f = self.f(state);
        let t = text.trim();
        if self.geo.is_over(&f) {
            return Err(PositionError::illegal(text, "the game is over"));
        }
        if f.dandelions_to_move() {
            let n = self.geo.side();
            let cell = match number(t) {
                Some(c) if c < self.geo.cells() => Some(c),
                Some(_) => None,
                None => {
                    let mut chars = t.chars();
                    let col = chars.next().map(|c| c.to_ascii_lowercase());
                    let row = number(chars.as_str());
                    match (col, row) {
                        (Some(c @ 'a'..='z'), Some(r))
                            if (c as u32 - 'a' as u32) < n && (1..=n).contains(&r) =>
                        {
                            Some((r - 1) * n + (c as u32 - 'a' as u32))
                        }
                        _ => None,
                    }
                }
            };
            let c = cell.ok_or_else(|| {
                PositionError::malformed(
                    text,
                    format!(
                        "the dandelions plant on a cell: 0 to {} or a coordinate like c3",
                        self.geo.cells() - 1
                    ),
                )
            })?;
            if f.flowers >> c & 1 != 0 {
                return Err(PositionError::illegal(
                    text,
                    format!("cell {c} has a flower already"),
                ));
            }
            Ok(Move(c as u16))
        } else {
            let d = DIRECTION_NAMES
                .iter()
                .position(|name| name.eq_ignore_ascii_case(t))
                .or_else(|| number(t).map(|d| d as usize).filter(|&d| d < 8))
                .ok_or_else(|| {
                    PositionError::malformed(
                        text,
                        "the wind blows in a direction: E SE S SW W NW N NE, or 0 to 7",
                    )
                })?;
            if f.dirs >> d & 1 != 0 {
                return Err(PositionError::illegal(
                    text,
                    format!("the wind has blown {} already", DIRECTION_NAMES[d]),
                ));
            }
            Ok(Move(WIND + d as u16))
        }
    }

    fn player_name(&self, player: Player) -> &'static str {
        match player {
            Player::First => "dandelions",
            Player::Second => "wind",
        }
    }

    fn player_pieces(&self, player: Player) -> &'static str {
        match player {
            Player::First => "plants a flower that seeds its lines; moves first",
            Player::Second => "blows every seed one way, each direction once",
        }
    }

    fn score(&self, state: u64, net: i32) -> i32 {
        let f = self.f(state);
        if !self.geo.is_over(&f) {
            net
        } else if f.dandelions_to_move() {
            self.geo.final_score(&f)
        } else {
            -self.geo.final_score(&f)
        }
    }

    /// 0 while the game goes on; the outcome once it is over. So the final
    /// lead under perfect play is the outcome `D`, and a finished game reads
    /// as won by whoever won it.
    fn lead(&self, state: u64) -> Option<i32> {
        let f = self.f(state);
        Some(if self.geo.is_over(&f) {
            self.geo.final_score(&f)
        } else {
            0
        })
    }
}
