//! `query stats`: facts about the whole game, as tables for people or one
//! JSON object.

use std::fmt::Write as _;
use std::io::{self, Write};

use anyhow::Context;
use boardsolve::cli::{EXIT_SUCCESS, EXIT_USAGE};
use boardsolve_probe::text::{plain, signed};
use boardsolve_probe::whole::{Outcomes, Stats, StatsError, StatsOptions};
use boardsolve_probe::{json, Game, Move, Player, ProbeError};

use crate::args::{DbArgs, StatsArgs};
use crate::failure::{db_failure, Failure};
use crate::source::Source;

/// `query stats` on the database the flags name.
pub fn run(db_args: &DbArgs, args: &StatsArgs) -> Result<u8, Failure> {
    let source = Source::open(db_args)?;
    source.needs_file()?;
    let path = &source.path;
    let only = args.heuristic.clone();
    let options = StatsOptions {
        playouts: only.is_none(),
        heuristics: Some(only.clone()),
        examples: args.examples.unwrap_or(if only.is_some() { 10 } else { 0 }),
    };
    // The statistics read every record: a packed file is unpacked in
    // memory first.
    let stats = source.tb().stats(&options).map_err(|e| match e {
        ProbeError::Stats(e @ StatsError::UnknownHeuristic { .. }) => Failure {
            code: EXIT_USAGE,
            error: e.into(),
        },
        ProbeError::Stats(e @ (StatsError::MissingChild { .. } | StatsError::Query(_))) => {
            db_failure(e)
        }
        ProbeError::Stats(e) => Failure::from(anyhow::Error::new(e)),
        e => db_failure(anyhow::Error::new(e).context(format!("database {path}"))),
    })?;
    let text = if db_args.json {
        json::whole::stats(path, &stats, only.is_some()) + "\n"
    } else {
        human(&stats, path, only.is_some())
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

fn human(s: &Stats, path: &str, heuristic_only: bool) -> String {
    let g = s.game;
    let mut o = String::new();
    let first = g.player_name(Player::First);
    let second = g.player_name(Player::Second);
    let _ = writeln!(o, "Statistics of {} ({path})", g.label());
    if !heuristic_only {
        human_tables(&mut o, g, s, first, second);
    }
    match &s.heuristics {
        Ok(reports) => {
            let _ = writeln!(
                o,
                "\nHeuristics (counted over the {} where the side to move has {}; \
                 a heuristic fails where some move it picks is not perfect):",
                if s.dense {
                    "positions"
                } else {
                    "canonical states"
                },
                if g.has_passes() {
                    "a real move, not a pass"
                } else {
                    "a move"
                }
            );
            if reports.is_empty() {
                let _ = writeln!(o, "  (none for this game)");
            }
            for r in reports {
                let _ = writeln!(o, "  {}: {}", r.name, r.description);
                let _ = writeln!(
                    o,
                    "    fails at {} of {} positions ({})",
                    grouped(r.failures.into()),
                    grouped(r.positions.into()),
                    percent(r.failures.into(), r.positions.into())
                );
                for (i, f) in r.examples.iter().enumerate() {
                    let a = &f.answer;
                    let value_of = |m: &Move| {
                        a.move_value(m)
                            .map_or_else(|| "?".into(), |x| signed(x.value))
                    };
                    let list = |moves: &[Move]| {
                        moves
                            .iter()
                            .map(|m| format!("{} ({})", m, value_of(m)))
                            .collect::<Vec<_>>()
                            .join(", ")
                    };
                    // Games whose key holds no score hold no side to
                    // move either: values are for whoever is to move.
                    let mover = if g.keeps_score() {
                        format!("{} to move", g.player_name(a.to_move()))
                    } else {
                        "for the side to move".to_owned()
                    };
                    let _ = writeln!(
                        o,
                        "    example {}: {}  (value {}, {mover})",
                        i + 1,
                        f.position.board(),
                        signed(a.value()),
                    );
                    let _ = writeln!(o, "      {} picks: {}", r.name, list(&f.picks));
                    let best: Vec<Move> = a.best_moves().map(|m| m.mv).collect();
                    let _ = writeln!(o, "      best moves: {}", list(&best));
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
    o
}

fn human_tables(o: &mut String, g: Game, s: &Stats, first: &str, second: &str) {
    // "ties" or "draws", the game's own word; nothing for a game that
    // always has a winner.
    let evens = g.even_result().map(|w| format!("{w}s"));
    let kind = if s.dense {
        "positions (every key: the file stores all, no symmetry reduction)"
    } else if s.complete {
        if g.has_passes() {
            "canonical states (one per symmetry class, forced-pass states included)"
        } else {
            "canonical states (one per symmetry class)"
        }
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
                "{ends}: {} state{}: {first} wins {}, {second} wins {}{}",
                grouped(t.count.into()),
                plural(t.count),
                grouped(a.into()),
                grouped(b.into()),
                evens
                    .as_ref()
                    .map_or(String::new(), |w| format!(", {w} {}", grouped(c.into())))
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
        "\nComplete games (every move sequence from the start to the end{}; symmetric games \
         counted apart):",
        if g.has_passes() {
            ", forced passes included"
        } else {
            ""
        }
    );
    match &s.playouts {
        Ok(Outcomes {
            games,
            first_wins,
            second_wins,
            ties,
        }) => {
            let mut rows = vec![
                ("games".to_owned(), *games),
                (format!("{first} wins"), *first_wins),
                (format!("{second} wins"), *second_wins),
            ];
            rows.extend(evens.clone().map(|w| (w, *ties)));
            let width = rows.iter().map(|r| grouped(r.1).len()).max().unwrap_or(1);
            let names = rows.iter().map(|r| r.0.len()).max().unwrap_or(8).max(8);
            for (name, n) in rows {
                let pct = if name == "games" {
                    String::new()
                } else {
                    format!("  {:>6}", percent(n, *games))
                };
                let _ = writeln!(o, "  {name:<names$} {:>width$}{pct}", grouped(n));
            }
        }
        Err(note) => {
            let _ = writeln!(o, "  {note}");
        }
    }

    // One table for the three breakdowns: rows are layers, columns values,
    // with totals on both margins.
    let layer = g.layer_name();
    let meaning = if g.keeps_score() {
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
        signed(a.value()),
        g.player_name(a.to_move())
    );
    match a.move_map(&plain) {
        Some(map) => {
            let _ = writeln!(o, "{map}");
        }
        None => {
            for m in a.moves() {
                let _ = writeln!(o, "  {} {}", m.mv, signed(m.value));
            }
        }
    }
    let best: Vec<String> = a.best_moves().map(|m| m.mv.to_string()).collect();
    let _ = writeln!(o, "Best first moves: {}", best.join(" "));
    let _ = writeln!(o, "(The map of any other position: `query POSITION`.)");
}

/// `s` unless there is exactly one.
fn plural(n: u64) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}
