//! Crash safety: SIGKILL the real generator at pseudo-random moments of a real
//! run, over an existing good database, and check that the target path always
//! holds the old file byte for byte or a complete new one, never anything
//! else; and that the temporary files of killed runs are cleaned up by the
//! next run.
//!
//! The job is Dots and Boxes 2x5 (a 128 MiB file; about 1 s in the test
//! profile, a third of it writing), over a British Square 4x4 database. Half
//! of the kills fall anywhere in the run, half in the writing phase (from the
//! moment the temporary file appears), where a non-atomic writer would be
//! caught. The seed is printed; set `CRASH_SAFETY_SEED` to replay a run.
#![cfg(unix)]

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use boardsolve::Database;

/// The job killed: big enough to spend a while writing, small enough to run
/// a dozen times.
const JOB: [&str; 4] = ["--game", "dots-and-boxes", "--variant", "2x5"];
/// Kills.
const RUNS: usize = 10;
const TARGET: &str = "t.db";

fn generator() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_generator"));
    c.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    c
}

/// A small deterministic generator of pseudo-random numbers (xorshift64*).
struct Rng(u64);

impl Rng {
    /// A number in `[0, 1)`.
    fn unit(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The process id in `name` if it is a temporary file of the generator
/// writing `TARGET`: `.t.db.tmp-PID-XXXXXX`.
fn temp_pid(name: &str) -> Option<u32> {
    let rest = name.strip_prefix(&format!(".{TARGET}.tmp-"))?;
    let (pid, random) = rest.split_once('-')?;
    if random.len() == 6 && random.bytes().all(|b| b.is_ascii_alphanumeric()) {
        pid.parse().ok()
    } else {
        None
    }
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

/// Whether the temporary file of the process `pid` is in `dir`.
fn temp_present(dir: &Path, pid: u32) -> bool {
    std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .any(|e| e.file_name().to_str().and_then(temp_pid) == Some(pid))
}

/// Polls until the child's temporary file appears in `dir` (returns the
/// time) or the child exits (returns `None`).
fn wait_for_temp(child: &mut Child, dir: &Path) -> Option<Instant> {
    loop {
        if temp_present(dir, child.id()) {
            return Some(Instant::now());
        }
        if child.try_wait().unwrap().is_some() {
            return None;
        }
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// The process id of a process that has exited and been reaped.
fn dead_pid() -> u32 {
    let mut child = Command::new("true").spawn().unwrap();
    let pid = child.id();
    child.wait().unwrap();
    pid
}

/// What the target holds.
#[derive(Debug, PartialEq)]
enum Found {
    Old,
    New,
}

/// Checks that `path` holds `old` byte for byte or a complete database equal
/// to the reference `new` (same length, same header, which holds the
/// records' checksum, and records that match it).
fn check_target(path: &Path, old: &[u8], new: &Database) -> Found {
    let len = std::fs::metadata(path)
        .unwrap_or_else(|e| panic!("the target must exist after a kill: {e}"))
        .len();
    if len == old.len() as u64 && std::fs::read(path).unwrap() == old {
        return Found::Old;
    }
    let db = Database::open(path)
        .unwrap_or_else(|e| panic!("the target is neither the old file nor a database: {e}"));
    assert_eq!(len, std::fs::metadata(new.path()).unwrap().len());
    assert_eq!(db.header(), new.header(), "a different database");
    db.verify_checksum()
        .expect("the new database's records are complete");
    Found::New
}

#[test]
fn sigkill_at_any_moment_leaves_the_old_file_or_the_new_one() {
    let t0 = Instant::now();
    let seed = std::env::var("CRASH_SAFETY_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    println!("CRASH_SAFETY_SEED={seed}");
    let mut rng = Rng(seed);

    // The reference new file, and the length of a run and of its phases.
    let reference_dir = tempfile::tempdir().unwrap();
    let reference = reference_dir.path().join(TARGET);
    let start = Instant::now();
    let mut child = generator()
        .args(JOB)
        .arg("-q")
        .arg("-o")
        .arg(&reference)
        .spawn()
        .unwrap();
    let temp_seen = wait_for_temp(&mut child, reference_dir.path());
    assert!(child.wait().unwrap().success());
    let run = start.elapsed();
    let writing = temp_seen.map_or(run / 3, |t| start + run - t);
    println!(
        "a run takes {:.2} s, {:.2} s of it with the temporary file",
        run.as_secs_f64(),
        writing.as_secs_f64()
    );
    let new = Database::open(&reference).unwrap();
    new.verify_checksum().unwrap();

    // The old database at the target.
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join(TARGET);
    assert!(generator()
        .args(["--variant", "4x4", "-q", "-o"])
        .arg(&target)
        .status()
        .unwrap()
        .success());
    let old = std::fs::read(&target).unwrap();
    Database::open(&target).unwrap().verify_checksum().unwrap();

    let mut killed_pids = Vec::new();
    let mut outcomes = Vec::new();
    for i in 0..RUNS {
        let mut child = generator()
            .args(JOB)
            .arg("-q")
            .arg("-o")
            .arg(&target)
            .spawn()
            .unwrap();
        let pid = child.id();
        let start = Instant::now();
        let phase = if i % 2 == 0 {
            // Anywhere in the run (and a little after), stratified so the
            // kills spread over the whole run.
            let slot = (i / 2) as f64 + rng.unit();
            let at = run.mul_f64(1.1 * slot / (RUNS / 2) as f64);
            std::thread::sleep(at.saturating_sub(start.elapsed()));
            "anywhere"
        } else {
            // While the temporary file exists.
            if wait_for_temp(&mut child, dir.path()).is_some() {
                std::thread::sleep(writing.mul_f64(0.9 * rng.unit()));
            }
            "writing"
        };
        let at = start.elapsed();
        // SIGKILL; an error only means the run has already ended.
        let _ = child.kill();
        let status = child.wait().unwrap();
        killed_pids.push(pid);

        let found = check_target(&target, &old, &new);
        let leftovers: Vec<String> = names(dir.path())
            .into_iter()
            .filter(|n| n != TARGET)
            .collect();
        for n in &leftovers {
            let owner = temp_pid(n).unwrap_or_else(|| panic!("an unexpected file {n}"));
            assert!(killed_pids.contains(&owner), "{n}: not a killed run's");
        }
        // A run that made its own temporary file had cleaned up the others
        // before; a finished run left none at all.
        if leftovers.iter().any(|n| temp_pid(n) == Some(pid)) {
            assert_eq!(leftovers.len(), 1, "{leftovers:?}");
        }
        if status.success() {
            assert_eq!(found, Found::New);
            assert!(leftovers.is_empty(), "{leftovers:?}");
        }
        println!(
            "run {i}: killed {phase} at {:.3} s: {} ({}), leftovers {leftovers:?}",
            at.as_secs_f64(),
            if status.success() {
                "had finished"
            } else {
                "killed"
            },
            match found {
                Found::Old => "old file",
                Found::New => "new file",
            }
        );
        outcomes.push(found);
        if outcomes.last() == Some(&Found::New) {
            std::fs::write(&target, &old).unwrap();
        }
    }
    assert!(
        outcomes.contains(&Found::Old),
        "some kill must come before the rename"
    );

    // A run to the end removes the leftovers of killed runs, and only those:
    // plant a stale one for sure, and files that must stay.
    let stale = format!(".{TARGET}.tmp-{}-AAAAAA", dead_pid());
    let keep = [
        format!(".other.db.tmp-{}-AAAAAA", dead_pid()),
        format!(".{TARGET}.tmp-AAAAAA"),
        "notes.txt".to_owned(),
    ];
    for n in std::iter::once(&stale).chain(&keep) {
        std::fs::write(dir.path().join(n), b"partial").unwrap();
    }
    assert!(generator()
        .args(JOB)
        .arg("-q")
        .arg("-o")
        .arg(&target)
        .status()
        .unwrap()
        .success());
    assert_eq!(check_target(&target, &old, &new), Found::New);
    let mut expected: Vec<String> = keep.to_vec();
    expected.push(TARGET.to_owned());
    expected.sort();
    assert_eq!(names(dir.path()), expected, "no temporary file is left");
    println!("{:.1} s in all", t0.elapsed().as_secs_f64());
}

/// Waits for the first line `child` writes on stderr (its handlers are
/// set by then), sends `signal` (a name `kill` takes) and gives its exit
/// status and all its stderr.
fn interrupt(mut child: Child, signal: &str) -> (Option<i32>, String) {
    use std::io::{BufRead, Read};
    let mut stderr = std::io::BufReader::new(child.stderr.take().unwrap());
    let mut text = String::new();
    stderr.read_line(&mut text).unwrap();
    let status = Command::new("kill")
        .args([&format!("-{signal}"), &child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
    stderr.read_to_string(&mut text).unwrap();
    (child.wait().unwrap().code(), text)
}

#[test]
fn ctrl_c_says_what_the_run_keeps_and_exits_130() {
    let dir = tempfile::tempdir().unwrap();
    // A book: its checkpoint is kept, and named.
    let book = dir.path().join("c4.db");
    let child = generator()
        .args(["--game", "connect-four", "--depth", "6", "-o"])
        .arg(&book)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let checkpoint = dir.path().join("c4.db.partial-depth6");
    let (code, stderr) = interrupt(child, "INT");
    assert_eq!(code, Some(130), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "generator: interrupted: the positions searched so far are kept in {}",
            checkpoint.display()
        )),
        "{stderr}"
    );
    assert!(!book.exists());

    // A complete solve keeps nothing, and says so; SIGTERM is 143.
    let child = generator()
        .args(JOB)
        .arg("-o")
        .arg(dir.path().join(TARGET))
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let (code, stderr) = interrupt(child, "TERM");
    assert_eq!(code, Some(143), "{stderr}");
    assert!(
        stderr.contains("generator: interrupted: nothing was written under"),
        "{stderr}"
    );
    assert!(!dir.path().join(TARGET).exists());
}
