//! `query [POSITION...]`: the answers, one position at a time, for people
//! (with colours, the line of perfect play, a picture) or as JSON lines;
//! [`crate::batch`] answers stdin's.

use std::io::{self, BufWriter, Write};
use std::path::Path;

use anyhow::Context;
use boardsolve::analysis::analyze_many;
use boardsolve::analysis::{analyze_weak, json, picture};
use boardsolve::cli::{EXIT_DATABASE, EXIT_FAILURE, EXIT_SUCCESS, EXIT_USAGE};
use boardsolve::render::Presentation;
use boardsolve::{analyze_position, principal_variation, Oracle, QueryError};

use crate::args::{Ask, DbArgs};
use crate::failure::Failure;
use crate::source::{assumed_game_hint, Source};
use crate::{answer, batch, lines};

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
    let states: Vec<u64> = parsed.iter().flatten().map(|p| p.state).collect();
    let mut analyses = Vec::with_capacity(states.len());
    analyze_many(game, db, &states, &mut analyses);
    let mut analyses = analyses.into_iter();
    inputs
        .iter()
        .zip(parsed)
        .map(|(input, position)| {
            let position = position?;
            // One analysis per position parsed, in order.
            let Some(analysis) = analyses.next() else {
                unreachable!("analyze_many answers every state")
            };
            let mut a = analysis?;
            a.to_move = position.to_move;
            a.lead = position.lead;
            Ok(if mode.json {
                json::answer(game, input, &a, None)
            } else {
                answer::human(game, &a, None, mode.color)
            })
        })
        .collect()
}

/// `query [POSITION...]`: answers the positions given, and those of stdin
/// for `-`.
pub fn run(db_args: &DbArgs, ask: &Ask, color: bool) -> Result<u8, Failure> {
    if ask.svg.is_some() && (ask.positions.len() > 1 || ask.positions.iter().any(|p| p == "-")) {
        return Err(Failure {
            code: EXIT_USAGE,
            error: anyhow::anyhow!("--svg draws one position: give exactly one POSITION (not `-`)"),
        });
    }
    let source = Source::open(db_args)?;
    let oracle = source.oracle()?;
    let oracle = &*oracle;
    let mode = Mode {
        json: db_args.json,
        pv: ask.pv,
        color,
        weak: ask.weak,
    };
    let json = db_args.json;
    let game = source.game.present();
    let stdout = io::stdout();
    let mut out = BufWriter::new(stdout.lock());
    let start = ["start".to_owned()];
    let positions: &[String] = if ask.positions.is_empty() {
        &start
    } else {
        &ask.positions
    };
    let mut refused = Refused::default();
    let mut first = true;
    // A position of the assumed game that did not parse: perhaps another
    // game's.
    let mut unread = false;
    for p in positions {
        if p == "-" {
            if let Some(db) = &source.db {
                db.build_index();
            }
            refused.merge(batch::answer_stdin(game, oracle, mode, &mut out)?);
            continue;
        }
        if p.len() > lines::MAX_LINE {
            // As in batch mode: an error that quotes its input stays short.
            let e = Refusal::bad_line(format!("position is longer than {} bytes", lines::MAX_LINE));
            refused.add(&e);
            if json {
                let head: String = p.chars().take(40).collect();
                writeln!(out, "{}", json::error(Some(&head), &e.message))
                    .context("writing output")?;
            }
            out.flush().context("writing output")?;
            eprintln!("query: error: {}", e.message);
            first = false;
            continue;
        }
        if let Some(path) = &ask.svg {
            if let Err(e) = write_svg(game, oracle, p, path) {
                out.flush().context("writing output")?;
                return Err(e);
            }
            if path == Path::new("-") {
                // The picture is the answer.
                continue;
            }
        }
        match answer_one(game, oracle, p, mode) {
            Ok(text) => {
                if !json && !first {
                    writeln!(out).context("writing output")?;
                }
                write!(out, "{text}").context("writing output")?;
                if json {
                    writeln!(out).context("writing output")?;
                }
            }
            Err(e) => {
                refused.add(&e);
                if json {
                    writeln!(out, "{}", json::error(Some(p), &e.message))
                        .context("writing output")?;
                }
                out.flush().context("writing output")?;
                eprintln!("query: error: {}", e.message);
                unread |= source.assumed && game.parse(p).is_err();
            }
        }
        first = false;
    }
    if unread {
        eprintln!("{}", assumed_game_hint(&source.game));
    }
    out.flush().context("writing output")?;
    Ok(refused.status())
}

/// Writes the SVG picture of one position to `path` (`-`: stdout).
fn write_svg(
    game: &dyn Presentation,
    db: &dyn Oracle,
    input: &str,
    path: &Path,
) -> Result<(), Failure> {
    let position = game.parse(input).map_err(anyhow::Error::new)?;
    let a = analyze_position(game, db, &position).map_err(anyhow::Error::new)?;
    let picture = picture::svg(game, &a)
        .ok_or_else(|| anyhow::anyhow!("{} has no SVG picture", game.descriptor().name))?;
    if path == Path::new("-") {
        let mut out = io::stdout().lock();
        out.write_all(picture.as_bytes())
            .and_then(|()| out.flush())
            .context("writing the SVG to stdout")?;
    } else {
        std::fs::write(path, picture)
            .with_context(|| format!("writing the SVG to {}", path.display()))?;
    }
    Ok(())
}
