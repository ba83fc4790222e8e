//! Batch mode under a million lines of mixed good and bad input: every line
//! gets exactly one answer, in order, good lines their analysis and bad ones
//! an error object, and the process's memory stays flat while it streams.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use boardsolve::core::NoProgress;
use boardsolve::games::british_square::BritishSquare;
use boardsolve::solve::solve;
use boardsolve::Game;

const LINES: usize = 1_000_000;

/// Line `i` of the input and whether it is a good position.
fn line(i: usize, out: &mut Vec<u8>) -> bool {
    // Good positions: short move lists from the start of 4x4.
    const GOOD: [&[u8]; 4] = [b"start", b"0,15", b"a1 d4 a4", b"X.../..../..../...O X"];
    match i % 10 {
        0..=5 => {
            out.extend_from_slice(GOOD[i % 4]);
            true
        }
        6 => false, // empty line
        7 => {
            out.extend_from_slice(b"\xff\xfe not utf-8 \xc3");
            false
        }
        8 => {
            out.extend_from_slice(b"0,0,0 nonsense");
            false
        }
        _ => {
            // Now and then a line far longer than the 4 KiB limit.
            let n = if i % 1000 == 9 { 100_000 } else { 30 };
            out.extend(std::iter::repeat_n(b'.', n));
            false
        }
    }
}

/// Resident memory of a process, in KiB (Linux).
fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

#[test]
fn a_million_mixed_lines_stream_through_in_flat_memory() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("bsq4.db");
    let game = BritishSquare::from_variant("4x4").unwrap();
    let sol = solve(&game, &NoProgress).unwrap();
    boardsolve::db::write_database(&db, game.descriptor(), &sol.into()).unwrap();

    let mut child = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(&db)
        .args(["--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let pid = child.id();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut buf = Vec::with_capacity(1 << 20);
        let mut good = 0usize;
        for i in 0..LINES {
            good += usize::from(line(i, &mut buf));
            buf.push(b'\n');
            if buf.len() > 1 << 19 {
                stdin.write_all(&buf).unwrap();
                buf.clear();
            }
        }
        stdin.write_all(&buf).unwrap();
        good
    });
    // Sample the memory while it works.
    let done = Arc::new(AtomicBool::new(false));
    let sampler = {
        let done = done.clone();
        std::thread::spawn(move || {
            let mut samples = Vec::new();
            while !done.load(Ordering::Relaxed) {
                if let Some(kib) = rss_kib(pid) {
                    samples.push(kib);
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            samples
        })
    };
    let mut answers = 0usize;
    let mut errors = 0usize;
    let mut first_good = None;
    let stdout = BufReader::new(child.stdout.take().unwrap());
    for (i, l) in stdout.split(b'\n').enumerate() {
        let l = l.unwrap();
        let mut expected = Vec::new();
        let good = line(i, &mut expected);
        let is_error = l.starts_with(b"{\"input\":") && l.windows(9).any(|w| w == b"\"error\":\"");
        assert_eq!(
            !is_error,
            good,
            "line {i}: {}",
            String::from_utf8_lossy(&l[..l.len().min(200)])
        );
        if good && first_good.is_none() {
            first_good = Some(l.clone());
        }
        answers += 1;
        errors += usize::from(is_error);
    }
    let status = child.wait().unwrap();
    done.store(true, Ordering::Relaxed);
    let samples = sampler.join().unwrap();
    let good = writer.join().unwrap();
    assert_eq!(status.code(), Some(1), "bad lines make the exit status 1");
    assert_eq!(answers, LINES, "one answer per line");
    assert_eq!(answers - errors, good);
    let first: serde_json::Value = serde_json::from_slice(&first_good.unwrap()).unwrap();
    assert_eq!(first["value"], 0, "4x4 is a tie");
    // Flat: the peak stays far below what keeping the input or the output
    // would take (1M answers are hundreds of MB).
    let peak = samples.iter().copied().max().unwrap_or(0);
    assert!(samples.len() > 5, "too few memory samples: {samples:?}");
    assert!(peak < 150 * 1024, "peak resident memory {peak} KiB");
    // And it does not grow: the last samples are no bigger than the early
    // ones beyond noise.
    let early = samples[samples.len() / 4];
    let late = *samples.last().unwrap_or(&0);
    assert!(
        late < early + 32 * 1024,
        "memory grew from {early} to {late} KiB"
    );
}

/// A batch prints each answer as soon as it and those before it are ready:
/// a quick answer ahead of a long search comes out while the search still
/// runs, so a batch killed keeps what it printed.
#[test]
fn a_batch_prints_its_first_answers_before_a_long_search_ends() {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_query"))
        .current_dir(dir.path())
        .args(["--game", "connect-four", "--no-book", "--json", "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // One move from a four, then the empty board: with no book, a search
    // of tens of seconds.
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"4444443322\nstart\n").unwrap();
    drop(stdin);
    let stdout = child.stdout.take().unwrap();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut first = String::new();
        let _ = BufReader::new(stdout).read_line(&mut first);
        let _ = tx.send(first);
    });
    // Ample room on a busy machine; the search of the start takes far
    // longer without a book.
    let first = rx.recv_timeout(Duration::from_secs(20));
    let running = child.try_wait().unwrap().is_none();
    let _ = child.kill();
    let _ = child.wait();
    let first = first.expect("the first answer within 20 s");
    let j: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(
        (j["input"].as_str(), j["value"].as_i64()),
        (Some("4444443322"), Some(16))
    );
    assert!(running, "the first answer came only when the batch ended");
}
