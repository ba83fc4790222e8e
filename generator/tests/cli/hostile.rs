//! Hostile output paths and options: what is not a regular file is never
//! replaced, a link is replaced itself and never the file it points to, a
//! book checkpoint follows no link, and every option is checked before the
//! first byte is written.

use std::os::unix::fs::FileTypeExt;
use std::path::Path;
use std::process::Command as Process;

use assert_cmd::Command;
use boardsolve::Database;
use predicates::str::contains;

fn generator() -> Command {
    Command::new(env!("CARGO_BIN_EXE_generator"))
}

/// The names in `dir`, sorted.
fn names(dir: &Path) -> Vec<String> {
    let mut n: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    n.sort();
    n
}

/// Runs the 3x3 British Square generator into `target`, which must be
/// refused with exit 1 and a message naming `what`, before any solving.
fn refused(target: &Path, what: &str) {
    generator()
        .args(["--variant", "3x3", "--quiet", "-o"])
        .arg(target)
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(1)
        .stderr(contains(what))
        .stderr(contains(target.display().to_string()));
}

#[test]
fn a_missing_directory_is_refused_before_any_work() {
    let dir = tempfile::tempdir().unwrap();
    refused(
        &dir.path().join("absent/out.db"),
        "absent: no such directory",
    );
    let file = dir.path().join("plain");
    std::fs::write(&file, b"x").unwrap();
    refused(&file.join("out.db"), "a regular file, not a directory");
    // A book too: refused before its checkpoint is opened.
    generator()
        .args([
            "--game",
            "dots-and-boxes",
            "--variant",
            "1x11",
            "--depth",
            "0",
            "-q",
            "-o",
        ])
        .arg(dir.path().join("absent/book.db"))
        .timeout(std::time::Duration::from_secs(60))
        .assert()
        .code(1)
        .stderr(contains("absent: no such directory"));
    assert_eq!(names(dir.path()), ["plain"]);
}

#[test]
fn only_regular_files_are_replaced() {
    let dir = tempfile::tempdir().unwrap();

    let fifo = dir.path().join("out.fifo");
    let made = Process::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success());
    refused(&fifo, "a named pipe, not a regular file");
    assert!(std::fs::symlink_metadata(&fifo)
        .unwrap()
        .file_type()
        .is_fifo());

    let sub = dir.path().join("out.dir");
    std::fs::create_dir(&sub).unwrap();
    refused(&sub, "a directory, not a regular file");
    assert!(sub.is_dir());

    let socket = dir.path().join("out.sock");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    refused(&socket, "a socket, not a regular file");

    // A device node of our own (as root; /dev/null itself is checked in
    // process below, where nothing can be written).
    let device = dir.path().join("out.null");
    let made = Process::new("mknod")
        .arg(&device)
        .args(["c", "1", "3"])
        .status()
        .unwrap();
    if made.success() {
        refused(&device, "a character device, not a regular file");
        assert!(std::fs::symlink_metadata(&device)
            .unwrap()
            .file_type()
            .is_char_device());
    }
    match boardsolve::db::writer::check_target(Path::new("/dev/null")) {
        Err(e) => assert!(e.to_string().contains("character device"), "{e}"),
        Ok(()) => panic!("/dev/null accepted as an output"),
    }

    // Nothing but what the test made: no temporary file left behind.
    let mut expected = vec!["out.dir", "out.fifo", "out.sock"];
    if device.exists() {
        expected.push("out.null");
    }
    expected.sort();
    assert_eq!(names(dir.path()), expected);
}

#[test]
fn a_link_is_replaced_itself_never_its_target() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let link = dir.path().join("out.db");
    std::os::unix::fs::symlink(&victim, &link).unwrap();
    generator()
        .args(["--variant", "3x3", "--quiet", "-o"])
        .arg(&link)
        .assert()
        .success();
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    let meta = std::fs::symlink_metadata(&link).unwrap();
    assert!(meta.is_file(), "the link became the database");
    assert_eq!(Database::open(&link).unwrap().len(), 74);

    // A dangling link to a device path is replaced the same way.
    let dangling = dir.path().join("dangling.db");
    std::os::unix::fs::symlink("/dev/null", &dangling).unwrap();
    generator()
        .args(["--variant", "3x3", "--quiet", "-o"])
        .arg(&dangling)
        .assert()
        .success();
    assert!(std::fs::symlink_metadata(&dangling).unwrap().is_file());
}

#[test]
fn a_checkpoint_link_is_never_followed_and_options_come_first() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let output = dir.path().join("c4.db");
    let link = dir.path().join("c4.db.partial-depth3");
    std::os::unix::fs::symlink(&victim, &link).unwrap();

    // A Connect Four 5x4 book of depth 3 into `output`, with `extra`.
    let book = |extra: &[&str]| {
        let mut c = generator();
        c.args(["--game", "connect-four", "--variant", "5x4", "--depth", "3"])
            .args(extra)
            .args(["--quiet", "-o"])
            .arg(&output);
        c
    };

    // A bad option is found before anything is written.
    book(&["--table-bits", "16"])
        .assert()
        .code(2)
        .stderr(contains("--table-bits 16"));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(!output.exists());

    // Good options: the link is refused, not followed.
    book(&[]).assert().code(1).stderr(contains("symbolic link"));
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert!(std::fs::symlink_metadata(&link)
        .unwrap()
        .file_type()
        .is_symlink());
    assert!(!output.exists());
}

#[test]
fn thread_counts_are_bounded() {
    for n in ["0", "20000"] {
        generator()
            .args(["--variant", "3x3", "--quiet", "--threads", n, "-o"])
            .arg("/nonexistent/never-written.db")
            .timeout(std::time::Duration::from_secs(30))
            .assert()
            .code(2)
            .stderr(contains(format!("--threads {n}: give 1 to")));
    }
}

#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    for args in [&["--list-games"][..], &["--help"], &["--version"]] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = Process::new(env!("CARGO_BIN_EXE_generator"))
            .args(args)
            .stdout(full)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("generator: error"), "{args:?}: {stderr}");
    }
}
