//! One position's answer, as text for people or a JSON line, or why it is
//! refused: what `query POSITION` ([`crate::ask`]) and batch mode
//! ([`crate::batch`]) print for each position.

use boardsolve::analysis::{analyze_positions, analyze_weak, json};
use boardsolve::cli::{EXIT_DATABASE, EXIT_FAILURE, EXIT_SUCCESS};
use boardsolve::render::Presentation;
use boardsolve::{analyze_position, principal_variation, Oracle, Position, QueryError};

use crate::answer;

/// What to answer: the full analysis, or win/draw/loss only.
#[derive(Clone, Copy)]
pub struct Mode {
    /// `--json`: one JSON object a position.
    pub json: bool,
    /// `--pv`: the line of perfect play too.
    pub pv: bool,
    /// Colour the move values.
    pub color: bool,
    /// `--weak`: win, draw or loss only.
    pub weak: bool,
}

/// Why a position was not answered, and whether the database is to blame.
pub struct Refusal {
    /// What was wrong.
    pub message: String,
    /// The database is damaged: exit status 3 rather than 1.
    pub corrupt: bool,
}

impl Refusal {
    /// A position refused for what it is, not for the database.
    pub fn bad_line(message: String) -> Refusal {
        Refusal {
            message,
            corrupt: false,
        }
    }
}

impl From<boardsolve::PositionError> for Refusal {
    fn from(e: boardsolve::PositionError) -> Refusal {
        Refusal::bad_line(e.to_string())
    }
}

impl From<QueryError> for Refusal {
    fn from(e: QueryError) -> Refusal {
        Refusal {
            corrupt: e.is_corrupt(),
            message: e.to_string(),
        }
    }
}

/// The positions refused so far.
#[derive(Default)]
pub struct Refused {
    /// Positions refused.
    pub bad: u64,
    /// Of those, the ones refused for a damaged database.
    pub corrupt: u64,
}

impl Refused {
    /// One more refused.
    pub fn add(&mut self, r: &Refusal) {
        self.bad += 1;
        self.corrupt += u64::from(r.corrupt);
    }

    /// Those of `other` too.
    pub fn merge(&mut self, other: Refused) {
        self.bad += other.bad;
        self.corrupt += other.corrupt;
    }

    /// The exit status: a damaged database first, then a bad position.
    pub fn status(&self) -> u8 {
        if self.corrupt > 0 {
            EXIT_DATABASE
        } else if self.bad > 0 {
            EXIT_FAILURE
        } else {
            EXIT_SUCCESS
        }
    }
}

/// Answers one position: the text to print, or why not.
pub fn answer_one(
    game: &dyn Presentation,
    db: &dyn Oracle,
    input: &str,
    mode: Mode,
) -> Result<String, Refusal> {
    let Mode {
        json,
        pv,
        color,
        weak,
    } = mode;
    let position = game.parse(input)?;
    if weak {
        let w = analyze_weak(game, db, &position)?;
        return Ok(if json {
            json::weak(game, input, &w)
        } else {
            answer::weak_human(game, &w)
        });
    }
    let a = analyze_position(game, db, &position)?;
    let line = if pv {
        Some(principal_variation(game, db, position.state)?)
    } else {
        None
    };
    Ok(if json {
        json::answer(game, input, &a, line.as_deref())
    } else {
        answer::human(game, &a, line.as_deref(), color)
    })
}

/// Answers several positions, each as [`answer_one`] would: their full
/// analyses are made together ([`analyze_many`]), so that their lookups
/// overlap.
pub fn answer_group(
    game: &dyn Presentation,
    db: &dyn Oracle,
    inputs: &[&str],
    mode: Mode,
) -> Vec<Result<String, Refusal>> {
    if mode.weak || mode.pv || inputs.len() < 2 {
        return inputs
            .iter()
            .map(|t| answer_one(game, db, t, mode))
            .collect();
    }
    let parsed: Vec<_> = inputs.iter().map(|t| game.parse(t)).collect();
    let positions: Vec<Position> = parsed.iter().flatten().copied().collect();
    let mut analyses = Vec::with_capacity(positions.len());
    analyze_positions(game, db, &positions, &mut analyses);
    let mut analyses = analyses.into_iter();
    inputs
        .iter()
        .zip(parsed)
        .map(|(input, position)| {
            position?;
            // One analysis per position parsed, in order.
            let Some(analysis) = analyses.next() else {
                unreachable!("analyze_positions answers every position")
            };
            let a = analysis?;
            Ok(if mode.json {
                json::answer(game, input, &a, None)
            } else {
                answer::human(game, &a, None, mode.color)
            })
        })
        .collect()
}
