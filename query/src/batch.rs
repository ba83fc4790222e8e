//! Batch mode, `query -`: the positions of stdin answered in parallel,
//! batch by batch, each answer written in input order as soon as it and
//! those before it are ready, with memory flat however long the input.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError, TryRecvError};
use std::sync::Mutex;
use std::time::{Duration, Instant};

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

/// A group that takes longer than this is followed by a group of one line
/// (positions searched: each answer on its own), a quicker one by a group
/// twice as large, up to [`GROUP`] (lookups: overlapping).
const QUICK_GROUP: Duration = Duration::from_millis(1);

/// How often a worker hands over the answers it has made: lookups go in a
/// few large parts a batch, searches each as it ends.
const HAND_OVER: Duration = Duration::from_millis(5);

/// Parts of answers made ahead of the writer at most.
const DONE_AHEAD: usize = 64;

/// How long written answers wait for more before they are flushed.
const FLUSH_AFTER: Duration = Duration::from_millis(10);

/// The answers of `lines`, whose first is line `first` of the batch,
/// appended to `out`.
fn answer_lines(
    source: &Source,
    lines: &[lines::Line],
    first: usize,
    mode: Mode,
    out: &mut Answers,
) {
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

/// Answers, or the end of a batch, from the workers to the writer.
enum Done {
    /// Part `part` of the answers of stretch `stretch` of batch `batch`;
    /// `last` when the stretch is done.
    Part {
        batch: u64,
        stretch: usize,
        part: usize,
        last: bool,
        answers: Answers,
    },
    /// Batch `batch` is all answered: `stretches` stretches of `lines`
    /// lines.
    End {
        batch: u64,
        stretches: usize,
        lines: usize,
    },
}

/// Answers positions from stdin, streaming: each answer is written as soon
/// as it and every answer before it are ready, so a slow batch (positions
/// searched) prints from its first line on, and a batch killed keeps what
/// it printed. Returns the lines refused.
pub fn answer_stdin(source: &Source, mode: Mode, out: &mut impl Write) -> Result<Refused> {
    let json = mode.json;
    // A reader thread cuts stdin into batches while the workers answer the
    // previous one. A batch takes only lines already buffered, so a caller
    // that sends one line and waits for its answer is answered at once.
    let (tx, rx) = mpsc::sync_channel::<Vec<lines::Line>>(2);
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
        // The answering thread answers groups of a batch in parallel and
        // hands each over as it is done; this thread writes them in order
        // meanwhile. The answers' buffers come back once written, to be
        // filled again: memory freed and taken anew would be paged in anew.
        // Bounded, so that workers wait for a writer held up by a slow
        // reader of the output: memory stays flat.
        let (done_tx, done) = mpsc::sync_channel::<Done>(DONE_AHEAD);
        let (written_tx, written) = mpsc::channel::<Answers>();
        let written = Mutex::new(written);
        let answerer = scope.spawn(move || {
            // An emptied buffer, one given back if there is one.
            let buffer = || {
                let mut a: Answers = written
                    .lock()
                    .ok()
                    .and_then(|w| w.try_recv().ok())
                    .unwrap_or_default();
                a.text.clear();
                a.refused.clear();
                a
            };
            // The size of the next group of lines, learnt from the last
            // (shared by the workers, kept from batch to batch).
            let group_size = AtomicUsize::new(1);
            let group_size = &group_size;
            for (batch_no, batch) in (0u64..).zip(rx) {
                // Eight stretches of lines a thread (room to balance the load): each worker answers its
                // stretch in order, in groups, and hands its answers over
                // every HAND_OVER, so that the writer can print the first
                // stretch's as they come.
                let stretches = (8 * rayon::current_num_threads()).clamp(1, batch.len());
                let len = batch.len().div_ceil(stretches);
                batch.par_chunks(len).enumerate().for_each_with(
                    done_tx.clone(),
                    |done_tx, (stretch, lines)| {
                        let (mut answers, mut part, mut handed) = (buffer(), 0, Instant::now());
                        let mut at = 0;
                        while at < lines.len() {
                            let group = group_size.load(Ordering::Relaxed);
                            let n = group.clamp(1, GROUP).min(lines.len() - at);
                            let started = Instant::now();
                            let first = stretch * len + at;
                            answer_lines(source, &lines[at..at + n], first, mode, &mut answers);
                            at += n;
                            let next = if started.elapsed() < QUICK_GROUP {
                                (2 * n).min(GROUP)
                            } else {
                                1
                            };
                            group_size.store(next, Ordering::Relaxed);
                            let last = at == lines.len();
                            if last || handed.elapsed() >= HAND_OVER {
                                let answers = if last {
                                    std::mem::take(&mut answers)
                                } else {
                                    std::mem::replace(&mut answers, buffer())
                                };
                                // The writer gone (output closed): the
                                // batch ends unwritten.
                                let _ = done_tx.send(Done::Part {
                                    batch: batch_no,
                                    stretch,
                                    part,
                                    last,
                                    answers,
                                });
                                part += 1;
                                handed = Instant::now();
                            }
                        }
                    },
                );
                let end = Done::End {
                    batch: batch_no,
                    stretches: batch.len().div_ceil(len),
                    lines: batch.len(),
                };
                if done_tx.send(end).is_err() {
                    return;
                }
            }
        });
        let refused = write_in_order(&done, &written_tx, json, out);
        // Unblock the answering thread if writing failed.
        drop(done);
        if answerer.join().is_err() {
            anyhow::bail!("the answering thread failed");
        }
        let refused = refused?;
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

/// Writes the answers `done` brings in input order, each part as soon as
/// every one before it is written, flushing at the end of each batch and
/// when nothing more comes within [`FLUSH_AFTER`]; the buffers go back
/// through `written`.
fn write_in_order(
    done: &mpsc::Receiver<Done>,
    written: &mpsc::Sender<Answers>,
    json: bool,
    out: &mut impl Write,
) -> Result<Refused> {
    let mut refused = Refused::default();
    // Parts ahead of the next to write, and the ends of batches seen.
    let mut waiting = BTreeMap::new();
    let mut ends = HashMap::new();
    let (mut batch, mut stretch, mut part, mut line_no) = (0u64, 0usize, 0usize, 0u64);
    let mut unflushed = false;
    loop {
        let message = match done.try_recv() {
            Ok(m) => m,
            Err(TryRecvError::Empty) => {
                let waited = if unflushed {
                    done.recv_timeout(FLUSH_AFTER)
                } else {
                    done.recv().map_err(|_| RecvTimeoutError::Disconnected)
                };
                match waited {
                    Ok(m) => m,
                    Err(RecvTimeoutError::Timeout) => {
                        out.flush().context("writing output")?;
                        unflushed = false;
                        continue;
                    }
                    Err(RecvTimeoutError::Disconnected) => break,
                }
            }
            Err(TryRecvError::Disconnected) => break,
        };
        match message {
            Done::Part {
                batch: b,
                stretch: s,
                part: p,
                last,
                answers,
            } => {
                waiting.insert((b, s, p), (last, answers));
            }
            Done::End {
                batch: b,
                stretches,
                lines,
            } => {
                ends.insert(b, (stretches, lines));
            }
        }
        loop {
            if let Some((last, mut a)) = waiting.remove(&(batch, stretch, part)) {
                out.write_all(a.text.as_bytes()).context("writing output")?;
                for (i, e) in a.refused.drain(..) {
                    refused.add(&e);
                    if !json {
                        eprintln!("query: line {}: {}", line_no + i as u64 + 1, e.message);
                    }
                }
                // The workers may have finished already.
                let _ = written.send(a);
                unflushed = true;
                (stretch, part) = if last {
                    (stretch + 1, 0)
                } else {
                    (stretch, part + 1)
                };
            } else if ends.get(&batch).is_some_and(|&(n, _)| n == stretch) {
                let (_, lines) = ends.remove(&batch).unwrap_or_default();
                line_no += lines as u64;
                (batch, stretch, part) = (batch + 1, 0, 0);
                // Let a pipeline see each batch of answers as soon as it
                // is all ready.
                out.flush().context("writing output")?;
                unflushed = false;
            } else {
                break;
            }
        }
    }
    out.flush().context("writing output")?;
    Ok(refused)
}
