//! `query stats`: facts about the whole game, as tables for people or one
//! JSON object.

use boardsolve::render::signed;
use std::fmt::Write as _;
use std::io::{self, Write};

use anyhow::Context;
use boardsolve::analysis::stats::heuristics::explain;
use boardsolve::analysis::stats::{compute, Options, Outcomes, Stats, StatsError};
use boardsolve::registry::AnyGame;
use boardsolve::{Database, Player, Presentation};
use clap::Args;
use serde::Serialize;

use super::{db_failure, Failure};
use boardsolve::cli::{EXIT_SUCCESS, EXIT_USAGE};

/// Options of `query stats`.
#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Report only this heuristic, with example positions where it fails
    /// (10 unless --examples says otherwise).
    #[arg(long, value_name = "NAME")]
    heuristic: Option<String>,

    /// Example positions to list for each heuristic reported.
    #[arg(long, value_name = "N")]
    examples: Option<usize>,
}

/// Runs `query stats` on an open database.
pub fn run(
    db: &Database,
    game: &AnyGame,
    path: &str,
    json: bool,
    args: &StatsArgs,
) -> Result<u8, Failure> {
    let only = args.heuristic.clone();
    let options = Options {
        playouts: only.is_none(),
        heuristics: Some(only.clone()),
        examples: args.examples.unwrap_or(if only.is_some() { 10 } else { 0 }),
    };
    let stats = compute(game.game(), game.heuristics(), db, &options).map_err(|e| match e {
        StatsError::UnknownHeuristic { .. } => Failure {
            code: EXIT_USAGE,
            error: e.into(),
        },
        StatsError::MissingChild { .. } | StatsError::Query(_) => db_failure(e),
        e => Failure::from(anyhow::Error::new(e)),
    })?;
    let g = game.present();
    let text = if json {
        let mut s = serde_json::to_string(&to_json(g, db, game, path, &stats, only.is_some())?)
            .context("writing JSON")?;
        s.push('\n');
        s
    } else {
        human(g, db, game, path, &stats, only.is_some())?
    };
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes()).context("writing output")?;
    out.flush().context("writing output")?;
    Ok(EXIT_SUCCESS)
}

/// `n` with thousands separators.
fn grouped(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// `part` as a percentage of `whole` with one decimal, in integers only.
fn percent(part: u128, whole: u128) -> String {
    if whole == 0 {
        return "-".into();
    }
    // Rounded to the nearest tenth; `part <= whole < 2^128 / 2000` in
    // practice, and checked anyway.
    match part.checked_mul(2000) {
        Some(p) => {
            let tenths = (p / whole).div_ceil(2);
            format!("{}.{}%", tenths / 10, tenths % 10)
        }
        None => "?".into(),
    }
}

fn human(
    g: &dyn Presentation,
    db: &Database,
    game: &AnyGame,
    path: &str,
    s: &Stats,
    heuristic_only: bool,
) -> Result<String, Failure> {
    let mut o = String::new();
    let first = g.player_name(Player::First);
    let second = g.player_name(Player::Second);
    let _ = writeln!(o, "Statistics of {} ({path})", game.label());
    if !heuristic_only {
        human_tables(&mut o, g, s, first, second);
    }
    match &s.heuristics {
        Ok(reports) => {
            let _ = writeln!(
                o,
                "\nHeuristics (counted over the {} where the side to move has a real move, not a pass; \
                 a heuristic fails where some move it picks is not perfect):",
                if s.dense { "positions" } else { "canonical states" }
            );
            if reports.is_empty() {
                let _ = writeln!(o, "  (none for this game)");
            }
            let heuristics = game.heuristics();
            for r in reports {
                let _ = writeln!(o, "  {}: {}", r.name, r.description);
                let _ = writeln!(
                    o,
                    "    fails at {} of {} positions ({})",
                    grouped(r.failures.into()),
                    grouped(r.positions.into()),
                    percent(r.failures.into(), r.positions.into())
                );
                let Some(h) = heuristics.iter().find(|h| h.name == r.name) else {
                    continue;
                };
                for (i, &state) in r.examples.iter().enumerate() {
                    let f = explain(g, db, h, state).map_err(db_failure)?;
                    let a = &f.analysis;
                    let value_of = |m| {
                        a.moves
                            .iter()
                            .find(|x| x.mv == m)
                            .map_or_else(|| "?".into(), |x| signed(x.score))
                    };
                    let list = |moves: Vec<boardsolve::Move>| {
                        moves
                            .into_iter()
                            .map(|m| format!("{} ({})", g.format_move(m), value_of(m)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    // Games whose key holds no score hold no side to
                    // move either: values are for whoever is to move.
                    let mover = if g.lead(state).is_some() {
                        format!("{} to move", g.player_name(a.to_move))
                    } else {
                        "for the side to move".to_owned()
                    };
                    let _ = writeln!(
                        o,
                        "    example {}: {}  (value {}, {mover})",
                        i + 1,
                        g.format_position(state),
                        signed(a.score),
                    );
                    let _ = writeln!(o, "      {} picks: {}", r.name, list(f.picks.clone()));
                    let _ = writeln!(
                        o,
                        "      best moves: {}",
                        list(a.best_moves().map(|m| m.mv).collect())
                    );
                }
            }
            if !reports.is_empty() {
                let _ = writeln!(o, "  (values: {})", g.score_meaning());
            }
        }
        Err(note) => {
            let _ = writeln!(o, "\nHeuristics: {note}");
        }
    }
    Ok(o)
}

fn human_tables(o: &mut String, g: &dyn Presentation, s: &Stats, first: &str, second: &str) {
    let kind = if s.dense {
        "positions (every key: the file stores all, no symmetry reduction)"
    } else if s.complete {
        "canonical states (one per symmetry class, forced-pass states included)"
    } else {
        "canonical states of an opening book (the positions of its first moves only)"
    };
    let _ = writeln!(o, "\nStates: {} {kind}", grouped(s.states.into()));
    let t = &s.terminals;
    let ends = if s.complete {
        "Ends of the game"
    } else {
        "Ends of the game in the book"
    };
    match t.outcomes {
        Some([a, b, c]) => {
            let _ = writeln!(
                o,
                "{ends}: {} state{}: {first} wins {}, {second} wins {}, ties {}",
                grouped(t.count.into()),
                plural(t.count),
                grouped(a.into()),
                grouped(b.into()),
                grouped(c.into())
            );
        }
        None => {
            let _ = writeln!(
                o,
                "{ends}: {} state{} (who wins depends on the moves that led there: the key \
                 holds no score)",
                grouped(t.count.into()),
                plural(t.count)
            );
        }
    }

    let _ = writeln!(
        o,
        "\nComplete games (every move sequence from the start to the end, forced passes \
         included; symmetric games counted apart):"
    );
    match &s.playouts {
        Ok(Outcomes {
            games,
            first_wins,
            second_wins,
            ties,
        }) => {
            let rows = [
                ("games", *games),
                (&*format!("{first} wins"), *first_wins),
                (&*format!("{second} wins"), *second_wins),
                ("ties", *ties),
            ];
            let width = rows.iter().map(|r| grouped(r.1).len()).max().unwrap_or(1);
            for (name, n) in rows {
                let pct = if name == "games" {
                    String::new()
                } else {
                    format!("  {:>6}", percent(n, *games))
                };
                let _ = writeln!(o, "  {name:<8} {:>width$}{pct}", grouped(n));
            }
        }
        Err(note) => {
            let _ = writeln!(o, "  {note}");
        }
    }

    // One table for the three breakdowns: rows are layers, columns values,
    // with totals on both margins.
    let layer = g.layer_name();
    let meaning = if g.lead(g.start()).is_some() {
        g.score_meaning().to_owned()
    } else {
        format!("the net value for the side to move: {}", g.score_meaning())
    };
    let _ = writeln!(
        o,
        "\nStates by {layer} (rows) and value (columns; value = {meaning}):"
    );
    let values: Vec<i32> = s.by_value.keys().copied().collect();
    let mut widths: Vec<usize> = values
        .iter()
        .map(|v| {
            let col_max = s
                .by_layer_value
                .iter()
                .filter(|((_, x), _)| x == v)
                .map(|(_, &n)| grouped(n.into()).len())
                .max()
                .unwrap_or(1);
            col_max
                .max(signed(*v).len())
                .max(grouped(s.by_value[v].into()).len())
        })
        .collect();
    let total_width = grouped(s.states.into()).len().max(5);
    widths.push(total_width);
    let head_width = layer.len().max(5);
    let mut line = format!("  {layer:>head_width$}");
    for (v, w) in values.iter().zip(&widths) {
        let _ = write!(line, " {:>w$}", signed(*v));
    }
    let _ = write!(line, " {:>total_width$}", "total");
    let _ = writeln!(o, "{}", line.trim_end());
    for (l, &n) in s.by_layer.iter().enumerate() {
        if n == 0 {
            continue;
        }
        let mut line = format!("  {l:>head_width$}");
        for (v, w) in values.iter().zip(&widths) {
            let cell = s
                .by_layer_value
                .get(&(l, *v))
                .map_or_else(|| ".".to_owned(), |&n| grouped(n.into()));
            let _ = write!(line, " {cell:>w$}");
        }
        let _ = write!(line, " {:>total_width$}", grouped(n.into()));
        let _ = writeln!(o, "{line}");
    }
    let mut line = format!("  {:>head_width$}", "total");
    for (v, w) in values.iter().zip(&widths) {
        let _ = write!(line, " {:>w$}", grouped(s.by_value[v].into()));
    }
    let _ = write!(line, " {:>total_width$}", grouped(s.states.into()));
    let _ = writeln!(o, "{line}");

    let a = &s.start;
    let _ = writeln!(
        o,
        "\nThe start: value {}, {} to move; value after each first move:",
        signed(a.score),
        g.player_name(a.to_move)
    );
    let marks = a.marks();
    match g.render_move_map(a.state, &marks, &boardsolve::render::plain) {
        Some(map) => {
            let _ = writeln!(o, "{map}");
        }
        None => {
            for m in &marks {
                let _ = writeln!(o, "  {} {}", g.format_move(m.mv), signed(m.score));
            }
        }
    }
    let best: Vec<String> = a.best_moves().map(|m| g.format_move(m.mv)).collect();
    let _ = writeln!(o, "Best first moves: {}", best.join(" "));
    let _ = writeln!(o, "(The map of any other position: `query POSITION`.)");
}

#[derive(Serialize)]
struct JsonStats {
    db: String,
    game: &'static str,
    variant: String,
    /// "canonical" (one state per symmetry class) or "every-key".
    states_counted: &'static str,
    /// False for an opening book: the counts are of its states only.
    complete: bool,
    value_meaning: String,
    players: [&'static str; 2],
    #[serde(skip_serializing_if = "Option::is_none")]
    states: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    by_layer: Option<Vec<u64>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    by_value: Option<Vec<JsonValueCount>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    by_layer_value: Option<Vec<JsonLayerValueCount>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    terminal: Option<JsonTerminal>,
    #[serde(skip_serializing_if = "Option::is_none")]
    playouts: Option<JsonPlayouts>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_value: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    start_moves: Option<Vec<JsonMove>>,
    heuristics: Vec<JsonHeuristic>,
    #[serde(skip_serializing_if = "Option::is_none")]
    heuristics_note: Option<String>,
}

#[derive(Serialize)]
struct JsonValueCount {
    value: i32,
    states: u64,
}

#[derive(Serialize)]
struct JsonLayerValueCount {
    layer: usize,
    value: i32,
    states: u64,
}

#[derive(Serialize)]
struct JsonTerminal {
    count: u64,
    /// `null` when the key holds no score (who wins depends on the path).
    first_wins: Option<u64>,
    second_wins: Option<u64>,
    ties: Option<u64>,
}

#[derive(Serialize)]
struct JsonPlayouts {
    games: Option<u128>,
    first_wins: Option<u128>,
    second_wins: Option<u128>,
    ties: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

#[derive(Serialize)]
struct JsonMove {
    #[serde(rename = "move")]
    mv: String,
    value: i32,
    best: bool,
}

#[derive(Serialize)]
struct JsonHeuristic {
    name: &'static str,
    description: &'static str,
    positions: u64,
    failures: u64,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    examples: Vec<JsonExample>,
}

#[derive(Serialize)]
struct JsonExample {
    position: String,
    to_move: &'static str,
    value: i32,
    picks: Vec<JsonMove>,
    best: Vec<JsonMove>,
}

fn to_json(
    g: &dyn Presentation,
    db: &Database,
    game: &AnyGame,
    path: &str,
    s: &Stats,
    heuristic_only: bool,
) -> Result<JsonStats, Failure> {
    let full = !heuristic_only;
    let move_json = |a: &boardsolve::Analysis, m: boardsolve::Move| JsonMove {
        mv: g.format_move(m),
        value: a.moves.iter().find(|x| x.mv == m).map_or(0, |x| x.score),
        best: a.moves.iter().any(|x| x.mv == m && x.best),
    };
    let heuristics_bound = game.heuristics();
    let mut heuristics = Vec::new();
    let mut heuristics_note = None;
    match &s.heuristics {
        Ok(reports) => {
            for r in reports {
                let mut examples = Vec::new();
                if let Some(h) = heuristics_bound.iter().find(|h| h.name == r.name) {
                    for &state in &r.examples {
                        let f = explain(g, db, h, state).map_err(db_failure)?;
                        let a = &f.analysis;
                        examples.push(JsonExample {
                            position: g.format_position(state),
                            to_move: g.player_name(a.to_move),
                            value: a.score,
                            picks: f.picks.iter().map(|&m| move_json(a, m)).collect(),
                            best: a.best_moves().map(|m| move_json(a, m.mv)).collect(),
                        });
                    }
                }
                heuristics.push(JsonHeuristic {
                    name: r.name,
                    description: r.description,
                    positions: r.positions,
                    failures: r.failures,
                    examples,
                });
            }
        }
        Err(note) => heuristics_note = Some(note.clone()),
    }
    let t = &s.terminals;
    let a = &s.start;
    Ok(JsonStats {
        db: path.to_owned(),
        game: s.game,
        variant: s.variant.clone(),
        states_counted: if s.dense { "every-key" } else { "canonical" },
        complete: s.complete,
        value_meaning: if g.lead(g.start()).is_some() {
            g.score_meaning().to_owned()
        } else {
            format!("net value for the side to move: {}", g.score_meaning())
        },
        players: [g.player_name(Player::First), g.player_name(Player::Second)],
        states: full.then_some(s.states),
        by_layer: full.then(|| s.by_layer.clone()),
        by_value: full.then(|| {
            s.by_value
                .iter()
                .map(|(&value, &states)| JsonValueCount { value, states })
                .collect()
        }),
        by_layer_value: full.then(|| {
            s.by_layer_value
                .iter()
                .map(|(&(layer, value), &states)| JsonLayerValueCount {
                    layer,
                    value,
                    states,
                })
                .collect()
        }),
        terminal: full.then(|| JsonTerminal {
            count: t.count,
            first_wins: t.outcomes.map(|o| o[0]),
            second_wins: t.outcomes.map(|o| o[1]),
            ties: t.outcomes.map(|o| o[2]),
        }),
        playouts: full.then(|| match &s.playouts {
            Ok(p) => JsonPlayouts {
                games: Some(p.games),
                first_wins: Some(p.first_wins),
                second_wins: Some(p.second_wins),
                ties: Some(p.ties),
                note: None,
            },
            Err(note) => JsonPlayouts {
                games: None,
                first_wins: None,
                second_wins: None,
                ties: None,
                note: Some(note.clone()),
            },
        }),
        start_value: full.then_some(a.score),
        start_moves: full.then(|| a.moves.iter().map(|m| move_json(a, m.mv)).collect()),
        heuristics,
        heuristics_note,
    })
}

/// `s` unless there is exactly one.
fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
