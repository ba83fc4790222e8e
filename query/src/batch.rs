//! Batch mode, `query -`: the positions of stdin answered in parallel,
//! batch by batch, in order, with memory flat however long the input.

use std::io::{self, Write};

use anyhow::{Context, Result};
use boardsolve::analysis::json;
use boardsolve::render::Presentation;
use boardsolve::Oracle;
use rayon::prelude::*;

use crate::lines;
use crate::reply::{answer_group, Mode, Refusal, Refused};

/// Lines answered together in batch mode: enough to keep both cores busy,
/// few enough that memory stays flat.
const BATCH: usize = 4096;

/// Lines analysed together at most ([`answer_group`]).
const GROUP: usize = 16;

/// Each of `lines` with its answer or why it has none.
fn answer_lines(
    game: &dyn Presentation,
    db: &dyn Oracle,
    lines: &mut [lines::Line],
    mode: Mode,
) -> Vec<(String, Result<String, Refusal>)> {
    let texts: Vec<&str> = lines
        .iter()
        .filter_map(|l| match l {
            lines::Line::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    let mut answers = answer_group(game, db, &texts, mode).into_iter();
    lines
        .iter_mut()
        .map(|line| match line {
            lines::Line::Text(t) => {
                // One answer per text line, in order.
                let Some(r) = answers.next() else {
                    unreachable!("answer_group answers every line")
                };
                (std::mem::take(t), r)
            }
            lines::Line::BadUtf8(t) => (
                std::mem::take(t),
                Err(Refusal::bad_line(
                    "input line is not valid UTF-8".to_owned(),
                )),
            ),
            lines::Line::TooLong(t) => (
                std::mem::take(t),
                Err(Refusal::bad_line(format!(
                    "input line is longer than {} bytes",
                    lines::MAX_LINE
                ))),
            ),
        })
        .collect()
}

/// Answers positions from stdin, streaming. Returns the lines refused.
pub fn answer_stdin(
    game: &dyn Presentation,
    db: &dyn Oracle,
    mode: Mode,
    out: &mut impl Write,
) -> Result<Refused> {
    let json = mode.json;
    // A reader thread cuts stdin into batches while the workers answer the
    // previous one. A batch takes only lines already buffered, so a caller
    // that sends one line and waits for its answer is answered at once.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<lines::Line>>(2);
    std::thread::scope(|scope| {
        let reader = scope.spawn(move || -> io::Result<()> {
            let mut input = io::BufReader::with_capacity(1 << 16, io::stdin());
            let mut buf = Vec::new();
            loop {
                let mut batch = Vec::with_capacity(BATCH);
                while batch.len() < BATCH && (batch.is_empty() || !input.buffer().is_empty()) {
                    match lines::next_line(&mut input, &mut buf)? {
                        Some(l) => batch.push(l),
                        None => break,
                    }
                }
                if batch.is_empty() || tx.send(batch).is_err() {
                    return Ok(());
                }
            }
        });
        let mut refused = Refused::default();
        let mut line_no = 0u64;
        for mut batch in rx {
            // Groups of lines are answered together, their lookups
            // overlapping; small enough that a short batch still keeps
            // every thread busy.
            let group = (batch.len() / (4 * rayon::current_num_threads())).clamp(1, GROUP);
            let answers: Vec<(String, Result<String, Refusal>)> = batch
                .par_chunks_mut(group)
                .flat_map_iter(|lines| answer_lines(game, db, lines, mode))
                .collect();
            for (input, r) in answers {
                line_no += 1;
                match r {
                    Ok(text) => {
                        out.write_all(text.as_bytes())?;
                        out.write_all(b"\n")?;
                    }
                    Err(e) => {
                        refused.add(&e);
                        if json {
                            writeln!(out, "{}", json::error(Some(&input), &e.message))?;
                        } else {
                            eprintln!("query: line {line_no}: {}", e.message);
                        }
                    }
                }
            }
            // Let a pipeline see each batch of answers as soon as it is ready.
            out.flush()?;
        }
        match reader.join() {
            Ok(r) => r.context("reading stdin")?,
            Err(_) => anyhow::bail!("the stdin reader failed"),
        }
        if json && refused.corrupt > 0 {
            // The errors went to stdout, one per line; the exit status
            // alone would leave a person at a terminal guessing.
            eprintln!(
                "query: error: database corrupted: {} line{} met a damaged record (run `query verify`)",
                refused.corrupt,
                if refused.corrupt == 1 { "" } else { "s" }
            );
        }
        Ok(refused)
    })
}
