//! One position's answer, as text for people or a JSON line, or why it is
//! refused: what `query POSITION` ([`crate::ask`]) and batch mode
//! ([`crate::batch`]) print for each position.

use boardsolve::cli::{EXIT_DATABASE, EXIT_FAILURE, EXIT_SUCCESS};
use boardsolve_probe::{json, text, Answer, Position, ProbeError, Tablebase};

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

impl From<ProbeError> for Refusal {
    fn from(e: ProbeError) -> Refusal {
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

/// Answers one position, given as `input` and parsed as `position`: the
/// text to print, or why not. `answered` is its answer when the caller
/// has it already (to draw its picture), so that it is not made twice.
pub fn answer_one(
    tb: &Tablebase,
    input: &str,
    position: &Position,
    answered: Option<Answer>,
    mode: Mode,
) -> Result<String, Refusal> {
    let Mode {
        json,
        pv,
        color,
        weak,
    } = mode;
    if weak {
        let w = tb.weak(position)?;
        return Ok(if json {
            json::weak(input, &w)
        } else {
            text::weak_report(&w)
        });
    }
    let a = match answered {
        Some(a) => a,
        None => tb.answer(position)?,
    };
    let line = if pv { Some(tb.line(position)?) } else { None };
    Ok(if json {
        json::answer(input, &a, line.as_deref())
    } else {
        text::report(&a, line.as_deref(), color)
    })
}

/// [`answer_one`] of a position given as text.
pub fn answer_text(tb: &Tablebase, input: &str, mode: Mode) -> Result<String, Refusal> {
    answer_one(tb, input, &tb.parse(input)?, None, mode)
}

/// The answers of a run of lines, in order ([`answer_group`]).
#[derive(Default)]
pub struct Answers {
    /// The answers, one line each (with JSON, refused lines' error
    /// objects too, in their places).
    pub text: String,
    /// The lines refused: each one's place in the run, with why.
    pub refused: Vec<(usize, Refusal)>,
}

impl Answers {
    /// Line `i`'s answer or refusal, in order after those before it.
    pub fn push(&mut self, i: usize, input: &str, r: Result<String, Refusal>, json: bool) {
        match r {
            Ok(text) => {
                self.text.push_str(&text);
                self.text.push('\n');
            }
            Err(e) => self.refuse(i, input, e, json),
        }
    }

    /// Line `i` refused for `e`; with JSON, its error object is the line's
    /// answer.
    pub fn refuse(&mut self, i: usize, input: &str, e: Refusal, json: bool) {
        if json {
            self.text.push_str(&json::error(Some(input), &e.message));
            self.text.push('\n');
        }
        self.refused.push((i, e));
    }
}

/// Answers several positions, each given with its place in the run, as
/// [`answer_text`] would, appending to `out`: their answers are made
/// together ([`Tablebase::answers`]), so that their lookups overlap, and
/// their JSON is written into the one buffer.
pub fn answer_group(tb: &Tablebase, inputs: &[(usize, &str)], mode: Mode, out: &mut Answers) {
    if mode.weak || mode.pv || inputs.len() < 2 {
        for &(i, t) in inputs {
            out.push(i, t, answer_text(tb, t, mode), mode.json);
        }
        return;
    }
    let parsed: Vec<_> = inputs.iter().map(|(_, t)| tb.parse(t)).collect();
    let positions: Vec<Position> = parsed.iter().flatten().copied().collect();
    let mut answers = tb.answers(&positions).into_iter();
    for (&(i, input), position) in inputs.iter().zip(parsed) {
        if let Err(e) = position {
            out.refuse(i, input, e.into(), mode.json);
            continue;
        }
        // One answer per position parsed, in order.
        let Some(answer) = answers.next() else {
            out.refuse(i, input, Refusal::bad_line("no answer".into()), mode.json);
            continue;
        };
        match answer {
            Ok(a) if mode.json => {
                json::answer_into(&mut out.text, input, &a);
                out.text.push('\n');
            }
            Ok(a) => {
                out.text.push_str(&text::report(&a, None, mode.color));
                out.text.push('\n');
            }
            Err(e) => out.refuse(i, input, e.into(), mode.json),
        }
    }
}
