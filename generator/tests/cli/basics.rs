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
    // The target is a directory: refused before any work.
    let target = dir.path().join("occupied");
    std::fs::create_dir(&target).unwrap();
    std::fs::write(target.join("keep"), b"x").unwrap();
    generator()
        .args(["--variant", "3x3", "-q", "-o"])
        .arg(&target)
        .assert()
        .code(1)
        .stderr(predicates::str::contains("a directory, not a regular file"));
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
    // Usage errors: exit status 2, whatever is wrong.
    for (args, message) in [
        (&["--game", "chess"][..], "unknown game \"chess\""),
        (&["--variant", "7x7"], "7x7"),
        (&["--variant", "sideways"], "unknown option"),
        (&["--threads", "0"], "--threads"),
        (&["--no-such-flag"], "--no-such-flag"),
        (&["--table-bits", "20"], "--table-bits is for opening books"),
        (&["--depth", "3"], "--depth is for opening books"),
        (
            &["--game", "connect-four", "--table-bits", "40"],
            "--table-bits 40",
        ),
        (
            &["--game", "dots-and-boxes", "--variant", "5x7"],
            "boards up to 63 edges",
        ),
        // Searched, but its records would not fit a database.
        (
            &["--game", "dots-and-boxes", "--variant", "5x5"],
            "more than 64",
        ),
        (&["--game", "dots-and-boxes", "--variant", "3by3"], "RxC"),
    ] {
        generator()
            .args(args)
            .args(["-q", "-o", "/nonexistent/never-written.db"])
            .assert()
            .code(2)
            .stderr(predicates::str::contains(message));
    }
    // The list of games comes from the registry, every game with its
    // variants.
    let list = generator().arg("--list-games").assert().success();
    let list = String::from_utf8(list.get_output().stdout.clone()).unwrap();
    for g in boardsolve::registry::GAMES {
        assert!(list.contains(g.name), "{list}");
        assert!(
            list.split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
                .contains(&g.variants.split_whitespace().collect::<Vec<_>>().join(" ")),
            "{list}"
        );
    }
    let help = generator().arg("--help").assert().success();
    let help = String::from_utf8(help.get_output().stdout.clone()).unwrap();
    assert!(help.contains("Exit status:"), "{help}");
    for g in boardsolve::registry::GAMES {
        assert!(help.contains(g.name), "{help}");
    }
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
    assert_eq!(db.get(0).unwrap().unwrap().net, -3);
    assert!(leftovers(dir.path()).is_empty());
}

#[test]
fn variants_get_their_own_default_files() {
    // The names `query --game G --variant V` looks for (see the query's
    // tests), one rule from the registry.
    let dir = tempfile::tempdir().unwrap();
    for (args, file) in [
        (
            &["--variant", "center-allowed"][..],
            "bsq-5x5-center-allowed.db",
        ),
        (&["--variant", "4x4"], "bsq-4x4.db"),
        (
            &["--game", "dots-and-boxes", "--variant", "2x2"],
            "dab-2x2.db",
        ),
        (&["--game", "dots-and-boxes"], "dab.db"),
    ] {
        generator()
            .current_dir(dir.path())
            .args(args)
            .arg("-q")
            .assert()
            .success()
            .stdout(predicates::str::contains(format!("wrote {file}")));
        assert!(dir.path().join(file).is_file(), "{file}");
    }
    // A failed write is a failed run: exit status 1.
    generator()
        .current_dir(dir.path())
        .args(["-q", "--variant", "3x3", "-o", "no-such-dir/x.db"])
        .assert()
        .code(1);
}
