//! What the generator announces before it starts: the estimate line.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use boardsolve::registry::{self, DatabaseKind};

/// The first line `generator ARGS` writes on stderr; the run is then
/// stopped (a long build is not waited for).
fn first_line(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_generator"))
        .current_dir(dir.path())
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stderr.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    // The run may have ended already.
    let _ = child.kill();
    child.wait().unwrap();
    line
}

/// A short solve says so, without a sample.
#[test]
fn a_short_solve_expects_under_a_second() {
    let line = first_line(&["--variant", "4x4", "--threads", "2"]);
    assert!(
        line.starts_with("generator: solving british-square 4x4: expect under a second"),
        "{line}"
    );
}

/// The default book of every game whose database is a book is long: its
/// estimate is scaled by a sample of the work timed before it is printed.
#[test]
fn a_long_book_announces_a_calibrated_estimate() {
    for info in registry::GAMES {
        let DatabaseKind::Book { default_depth } = info.kind else {
            continue;
        };
        let line = first_line(&["--game", info.name, "--threads", "2"]);
        let start = format!(
            "generator: building the {} ",
            registry::AnyGame::new(info.name, "").unwrap().label()
        );
        assert!(line.starts_with(&start), "{line}");
        assert!(
            line.contains(&format!(
                "opening book of depth {default_depth}: expect about "
            )),
            "{line}"
        );
        assert!(line.contains(" on 2 threads ("), "{line}");
        assert!(
            line.contains("scaled by a sample of the work, which took "),
            "{line}"
        );
        assert!(line.trim_end().ends_with("x as long here"), "{line}");
    }
}

/// `--quiet` prints no estimate (and times no sample).
#[test]
fn quiet_runs_announce_nothing() {
    let line = first_line(&["--variant", "4x4", "--quiet"]);
    assert_eq!(line, "");
}
