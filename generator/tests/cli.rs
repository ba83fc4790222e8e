//! The generator as a user runs it.

use std::path::Path;

use assert_cmd::Command;
use boardsolve::Database;

fn generator() -> Command {
    Command::new(env!("CARGO_BIN_EXE_generator"))
}

/// Files in `dir` whose names mark them as temporary.
fn leftovers(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect()
}

#[test]
fn writes_a_valid_database_and_reports_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("small.db");
    let out = generator()
        .args(["--variant", "4x4", "--quiet", "--json", "-o"])
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let j: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(j["states"], 10206);
    assert_eq!(j["variant"], "4x4");
    assert_eq!(j["start_value"], 0);
    let db = Database::open(&path).unwrap();
    db.verify_checksum().unwrap();
    assert_eq!(db.len(), 10206);
    assert_eq!(db.header().game_name, "british-square");
    assert!(leftovers(dir.path()).is_empty());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(
            mode & 0o777,
            0o644,
            "readable by everyone, like any data file"
        );
    }
}

#[test]
fn default_output_name_follows_the_variant() {
    let dir = tempfile::tempdir().unwrap();
    generator()
        .current_dir(dir.path())
        .args(["--variant", "3x3,center-allowed", "--threads", "1"])
        .assert()
        .success()
        .stdout(predicates::str::contains("76 canonical states"));
    assert!(dir.path().join("bsq-3x3-center-allowed.db").is_file());
}

#[test]
fn replaces_an_existing_file_atomically() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.db");
    std::fs::write(&path, b"old contents").unwrap();
    generator()
        .args(["--variant", "3x3", "-q", "-o"])
        .arg(&path)
        .assert()
        .success();
    assert_eq!(Database::open(&path).unwrap().len(), 74);
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn a_failed_write_leaves_no_partial_file() {
    let dir = tempfile::tempdir().unwrap();
    // The target is a directory: the final rename fails after all the work.
    let target = dir.path().join("occupied");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("keep"), b"x").unwrap();
    generator()
        .args(["--variant", "3x3", "-q", "-o"])
        .arg(&target)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("generator: error: writing"));
    assert!(target.join("keep").is_file());
    assert!(leftovers(dir.path()).is_empty());
    // A directory that does not exist.
    generator()
        .args(["--variant", "3x3", "-q", "-o"])
        .arg(dir.path().join("no/such/dir/x.db"))
        .assert()
        .code(1);
}

#[test]
fn bad_arguments_are_explained() {
    generator()
        .args(["--game", "chess"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("unknown game \"chess\""));
    generator()
        .args(["--variant", "7x7"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("7x7"));
    generator()
        .args(["--variant", "sideways"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("unknown option"));
    generator().args(["--threads", "0"]).assert().code(1);
    generator().args(["--no-such-flag"]).assert().code(2);
    generator()
        .arg("--list-games")
        .assert()
        .success()
        .stdout(predicates::str::contains("british-square"));
}

#[test]
fn generator_writes_a_dense_table_and_reports_the_root_value() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.db");
    let out = generator()
        .args([
            "--game",
            "dots-and-boxes",
            "--variant",
            "3x3",
            "-q",
            "--json",
            "-o",
        ])
        .arg(&path)
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let j: serde_json::Value = serde_json::from_slice(&out).unwrap();
    assert_eq!(j["layout"], "dense");
    assert_eq!(j["states"], 1u64 << 24);
    assert_eq!(j["start_value"], -3);
    assert_eq!(j["start_remoteness"], 24);
    assert_eq!(j["bytes"], 4096 + (1u64 << 24));
    assert_eq!(std::fs::metadata(&path).unwrap().len(), 4096 + (1 << 24));
    let db = Database::open(&path).unwrap();
    db.verify_checksum().unwrap();
    assert_eq!(db.header().game_name, "dots-and-boxes");
    assert_eq!(db.get(0).unwrap().net, -3);
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn boards_too_big_are_refused() {
    generator()
        .args(["--game", "dots-and-boxes", "--variant", "4x4", "-q"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("40 edges"));
    generator()
        .args(["--game", "dots-and-boxes", "--variant", "3by3", "-q"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("RxC"));
}
