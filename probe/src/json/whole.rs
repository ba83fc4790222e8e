//! The JSON of work on whole files (feature `engine`): `query verify
//! --json` and `query stats --json`.

use serde::Serialize;

use super::text;
use crate::answer::Answer;
use crate::position::Move;
use crate::whole::{Stats, VerifyReport};
use crate::{Game, Player};

/// What `query verify --json` prints (and the Python package's `verify`),
/// keys in alphabetical order: for a database that passed, the file's path
/// as given, its game and variant, the records checked, whether every value
/// was re-derived from its children (`children_checked`, false for an
/// opening book) and how many were (`derived`), with `"ok":true`; for one
/// that failed, the path and the first problem found (`error`), with
/// `"ok":false`.
pub fn verify(path: &str, game: Game, outcome: Result<&VerifyReport, &str>) -> String {
    #[derive(Serialize)]
    struct Passed<'a> {
        children_checked: bool,
        db: &'a str,
        derived: u64,
        game: &'a str,
        ok: bool,
        records: u64,
        variant: &'a str,
    }
    #[derive(Serialize)]
    struct Failed<'a> {
        db: &'a str,
        error: &'a str,
        ok: bool,
    }
    match outcome {
        Ok(r) => text(&Passed {
            children_checked: r.children_checked,
            db: path,
            derived: r.derived,
            game: game.name(),
            ok: true,
            records: r.records,
            variant: game.variant(),
        }),
        Err(error) => text(&Failed {
            db: path,
            error,
            ok: false,
        }),
    }
}

/// A move of an answered position: its name, value and whether it is
/// best (value 0 and not best for a move the answer does not hold).
#[derive(Serialize)]
struct MoveFields {
    #[serde(rename = "move")]
    mv: Move,
    value: i32,
    best: bool,
}

impl MoveFields {
    fn of(a: &Answer, mv: Move) -> MoveFields {
        let found = a.move_value(&mv);
        MoveFields {
            mv,
            value: found.map_or(0, |m| m.value),
            best: found.is_some_and(|m| m.best),
        }
    }
}

#[derive(Serialize)]
struct ByValue {
    value: i32,
    states: u64,
}

#[derive(Serialize)]
struct ByLayerValue {
    layer: usize,
    value: i32,
    states: u64,
}

#[derive(Serialize)]
struct Terminal {
    count: u64,
    first_wins: Option<u64>,
    second_wins: Option<u64>,
    ties: Option<u64>,
}

#[derive(Serialize)]
struct Playouts<'a> {
    games: Option<u128>,
    first_wins: Option<u128>,
    second_wins: Option<u128>,
    ties: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<&'a str>,
}

#[derive(Serialize)]
struct Example {
    position: String,
    to_move: &'static str,
    value: i32,
    picks: Vec<MoveFields>,
    best: Vec<MoveFields>,
}

#[derive(Serialize)]
struct Heuristic {
    name: &'static str,
    description: &'static str,
    positions: u64,
    failures: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    examples: Vec<Example>,
}

/// The tables of the whole game (all but `stats --heuristic`).
#[derive(Serialize)]
struct Tables<'a> {
    states: u64,
    by_layer: &'a [u64],
    by_value: Vec<ByValue>,
    by_layer_value: Vec<ByLayerValue>,
    terminal: Terminal,
    playouts: Playouts<'a>,
    start_value: i32,
    start_moves: Vec<MoveFields>,
}

#[derive(Serialize)]
struct StatsFields<'a> {
    db: &'a str,
    game: &'static str,
    variant: &'static str,
    states_counted: &'static str,
    complete: bool,
    value_meaning: String,
    players: [&'static str; 2],
    #[serde(flatten)]
    tables: Option<Tables<'a>>,
    heuristics: Vec<Heuristic>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heuristics_note: Option<&'a str>,
}

/// What `query stats --json` prints: the facts `s` holds about the whole
/// game, from the database at `path`. With `heuristic_only` (`query stats
/// --heuristic NAME`), only the heads and the heuristics, with their
/// examples explained (the moves each picks and the best ones, with their
/// values).
pub fn stats(path: &str, s: &Stats, heuristic_only: bool) -> String {
    let g = s.game;
    let value_meaning = if g.keeps_score() {
        g.score_meaning().to_owned()
    } else {
        format!("net value for the side to move: {}", g.score_meaning())
    };
    let tables = (!heuristic_only).then(|| {
        let t = &s.terminals;
        let p = s.playouts.as_ref().ok();
        Tables {
            states: s.states,
            by_layer: &s.by_layer,
            by_value: s
                .by_value
                .iter()
                .map(|(&value, &states)| ByValue { value, states })
                .collect(),
            by_layer_value: s
                .by_layer_value
                .iter()
                .map(|(&(layer, value), &states)| ByLayerValue {
                    layer,
                    value,
                    states,
                })
                .collect(),
            terminal: Terminal {
                count: t.count,
                first_wins: t.outcomes.map(|c| c[0]),
                second_wins: t.outcomes.map(|c| c[1]),
                ties: t.outcomes.map(|c| c[2]),
            },
            playouts: Playouts {
                games: p.map(|p| p.games),
                first_wins: p.map(|p| p.first_wins),
                second_wins: p.map(|p| p.second_wins),
                ties: p.map(|p| p.ties),
                note: s.playouts.as_ref().err().map(String::as_str),
            },
            start_value: s.start.value(),
            start_moves: s
                .start
                .moves()
                .map(|m| MoveFields::of(&s.start, m.mv))
                .collect(),
        }
    });
    let heuristics = s
        .heuristics
        .as_deref()
        .unwrap_or_default()
        .iter()
        .map(|r| Heuristic {
            name: r.name,
            description: r.description,
            positions: r.positions,
            failures: r.failures,
            examples: r
                .examples
                .iter()
                .map(|f| {
                    let a = &f.answer;
                    Example {
                        position: f.position.board(),
                        to_move: g.player_name(a.to_move()),
                        value: a.value(),
                        picks: f.picks.iter().map(|&m| MoveFields::of(a, m)).collect(),
                        best: a.best_moves().map(|m| MoveFields::of(a, m.mv)).collect(),
                    }
                })
                .collect(),
        })
        .collect();
    text(&StatsFields {
        db: path,
        game: g.name(),
        variant: g.variant(),
        states_counted: if s.dense { "every-key" } else { "canonical" },
        complete: s.complete,
        value_meaning,
        players: [g.player_name(Player::First), g.player_name(Player::Second)],
        tables,
        heuristics,
        heuristics_note: s.heuristics.as_ref().err().map(String::as_str),
    })
}
