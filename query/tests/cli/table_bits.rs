//! `--table-bits`: the size of the search tables, checked against each
//! game's range and the memory available before anything is allocated,
//! with a usage error (exit status 2) rather than an abort.

use assert_cmd::Command;
use predicates::prelude::*;

fn query() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    // No default file is found: Connect Four is answered by search alone.
    c.current_dir(std::env::temp_dir());
    c
}

#[test]
fn a_size_out_of_the_games_range_is_a_usage_error() {
    query()
        .args(["--game", "connect-four", "--table-bits", "33", "44"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--table-bits 33: connect-four 7x6 takes 20 to 32",
        ));
    query()
        .args(["--game", "connect-four", "--table-bits", "40", "44"])
        .assert()
        .code(2)
        .stdout("")
        .stderr(predicate::str::contains(
            "--table-bits 40: no game takes it",
        ));
    query()
        .args(["--game", "dandelions", "--table-bits", "32", "start"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("dandelions 5x5 takes 11 to 31"));
    // A game answered from its database takes no size.
    query()
        .args(["--table-bits", "20", "--db"])
        .arg(crate::common::bsq4_db())
        .arg("start")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("--table-bits does not apply"));
}

#[test]
fn a_size_larger_than_the_memory_is_a_usage_error_not_an_abort() {
    // 2^32 entries of 8 bytes: 32 GiB, refused where the machine has less.
    let needed = 8u64 << 32;
    if boardsolve::solve::memory::available().is_some_and(|a| a < needed) {
        query()
            .args(["--game", "connect-four", "--table-bits", "32", "44"])
            .assert()
            .code(2)
            .stderr(predicate::str::contains("memory available"));
    }
}

#[cfg(target_os = "linux")]
#[test]
fn an_address_space_limit_is_counted_before_the_tables_are_made() {
    // 4 GiB of table under a 3 GB limit on the process's address space:
    // refused at start-up (exit status 2), where an allocation that failed
    // would have aborted the process (exit status 134).
    let bin = env!("CARGO_BIN_EXE_query");
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 3000000 && exec \"$0\" --game connect-four --table-bits 29 4444443322")
        .arg(bin)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("memory available"), "{stderr}");
    // The same limit leaves room for a small table.
    let out = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 3000000 && exec \"$0\" --game connect-four --table-bits 20 4444443322")
        .arg(bin)
        .current_dir(std::env::temp_dir())
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn a_size_in_range_answers_and_the_help_states_the_bounds() {
    query()
        .args([
            "--game",
            "connect-four",
            "--table-bits",
            "20",
            "--json",
            "4444443322",
        ])
        .assert()
        .success()
        .stdout(predicate::str::contains("\"value\":"));
    query().arg("--help").assert().success().stdout(
        predicate::str::contains("Connect Four takes 20 to 32")
            .and(predicate::str::contains("Dandelions takes 11 to 31"))
            .and(predicate::str::contains("memory available")),
    );
}

#[test]
fn a_size_no_game_takes_is_a_usage_error_whatever_the_files() {
    // No database in the directory: the option is wrong first.
    let empty = tempfile::tempdir().unwrap();
    query()
        .current_dir(empty.path())
        .args(["--table-bits", "40"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "--table-bits 40: no game takes it (11 to 34",
        ));
}
