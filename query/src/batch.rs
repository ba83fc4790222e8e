//! Batch mode, `query -`: the positions of stdin answered in parallel,
//! batch by batch, in order, with memory flat however long the input.

use std::io::{self, Write};

use anyhow::{Context, Result};
use rayon::prelude::*;

use crate::lines;
use crate::reply::{answer_group, Answers, Mode, Refusal, Refused};
use crate::source::Source;

/// Lines answered together in batch mode: enough to keep both cores busy,
/// few enough that memory stays flat.
const BATCH: usize = 4096;

/// Lines analysed together at most ([`answer_group`]).
const GROUP: usize = 16;

/// The answers of `lines`, whose first is line `first` of the batch, into
/// `out` (emptied first).
fn answer_lines(
    source: &Source,
    lines: &[lines::Line],
    first: usize,
    mode: Mode,
    out: &mut Answers,
) {
    out.text.clear();
    out.refused.clear();
    let mut texts: Vec<(usize, &str)> = Vec::with_capacity(lines.len());
    for (i, line) in (first..).zip(lines) {
        let refusal = match line {
            lines::Line::Text(t) => {
                texts.push((i, t));
                continue;
            }
            lines::Line::BadUtf8(t) => (t, "input line is not valid UTF-8".to_owned()),
            lines::Line::TooLong(t) => (
                t,
                format!("input line is longer than {} bytes", lines::MAX_LINE),
            ),
        };
        // The lines before it first, in order.
        source.busy(|| answer_group(source.tb(), &texts, mode, out));
        texts.clear();
        out.refuse(i, refusal.0, Refusal::bad_line(refusal.1), mode.json);
    }
    source.busy(|| answer_group(source.tb(), &texts, mode, out));
}

/// Answers positions from stdin, streaming. Returns the lines refused.
pub fn answer_stdin(source: &Source, mode: Mode, out: &mut impl Write) -> Result<Refused> {
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
        // The answering thread works on one batch while this one writes
        // the one before: the pool need not wait for the output. The
        // answers' buffers come back once written, to be filled again:
        // memory freed and taken anew would be paged in anew.
        let (answered_tx, answered) = std::sync::mpsc::sync_channel::<(usize, Vec<Answers>)>(2);
        let (written_tx, written) = std::sync::mpsc::channel::<Vec<Answers>>();
        let answerer = scope.spawn(move || {
            for batch in rx {
                // Groups of lines are answered together, their lookups
                // overlapping; small enough that a short batch still keeps
                // every thread busy.
                let group = (batch.len() / (4 * rayon::current_num_threads())).clamp(1, GROUP);
                let mut answers = written.try_recv().unwrap_or_default();
                answers.resize_with(batch.len().div_ceil(group), Answers::default);
                batch
                    .par_chunks(group)
                    .zip(answers.par_iter_mut())
                    .enumerate()
                    .for_each(|(g, (lines, out))| {
                        answer_lines(source, lines, g * group, mode, out);
                    });
                if answered_tx.send((batch.len(), answers)).is_err() {
                    return;
                }
            }
        });
        let mut refused = Refused::default();
        let mut line_no = 0u64;
        for (lines, mut answers) in answered {
            for a in &mut answers {
                out.write_all(a.text.as_bytes()).context("writing output")?;
                for (i, e) in a.refused.drain(..) {
                    refused.add(&e);
                    if !json {
                        eprintln!("query: line {}: {}", line_no + i as u64 + 1, e.message);
                    }
                }
            }
            line_no += lines as u64;
            // Let a pipeline see each batch of answers as soon as it is ready.
            out.flush().context("writing output")?;
            // The answering thread may have finished already.
            let _ = written_tx.send(answers);
        }
        if answerer.join().is_err() {
            anyhow::bail!("the answering thread failed");
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
