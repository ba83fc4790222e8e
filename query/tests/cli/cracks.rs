//! Hostile input that once got past the tools' checks: thread counts past
//! any use, search tables that fit one at a time but not together, the
//! other name of a variant over HTTP, a bad move called a bad position,
//! numbers in more than one form, misleading messages and a Dandelions
//! field no game reaches. Each is refused with words that say why.

use std::path::{Path, PathBuf};
use std::process::Command as Process;

use assert_cmd::Command;
use boardsolve::core::{RecordLayout, Solution, Value};
use boardsolve::registry::AnyGame;

use crate::first_contact::defaults;
use crate::serve::{get, serve, write_db};

fn query() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.current_dir(defaults());
    c
}

fn stderr_of(a: &assert_cmd::assert::Assert) -> String {
    String::from_utf8(a.get_output().stderr.clone()).unwrap()
}

#[test]
fn thread_counts_past_the_cap_are_usage_errors_that_name_it() {
    for n in ["0", "257", "100000", "4294967296"] {
        let a = query()
            .args(["--game", "connect-four", "--threads", n, "--json", "4"])
            .assert()
            .code(2);
        let err = stderr_of(&a);
        assert!(
            err.contains(&format!("--threads {n}: give 1 to 256")),
            "{err}"
        );
    }
    let a = Command::new(env!("CARGO_BIN_EXE_query"))
        .args(["serve", "--search-threads", "100000"])
        .assert()
        .code(2);
    assert!(stderr_of(&a).contains("--search-threads 100000: give 1 to 256"));
}

/// A Connect Four book of `variant` holding the start alone: enough for a
/// server to search the rest.
fn start_only_book(dir: &Path, variant: &str) -> PathBuf {
    let game = AnyGame::new("connect-four", variant).unwrap();
    let desc = game.game().descriptor();
    let layout = RecordLayout::for_game(desc);
    let start = game.game().canonical(game.game().start());
    let value = Value {
        net: 0,
        remoteness: 0,
    };
    let book = Solution {
        records: vec![layout.pack(start, value).unwrap()],
        layout,
        start,
        layer_sizes: vec![1],
        complete: false,
    };
    let path = dir.join(format!("c4-{variant}.db"));
    boardsolve::db::write_database(&path, desc, &book.into()).unwrap();
    path
}

/// `query serve` on `files` with `--table-bits bits` under an address-space
/// limit of `kib`: its exit status and stderr, or `None` when it started
/// (it is then stopped).
fn serve_limited(files: &[&Path], bits: u32, kib: u64) -> Option<(i32, String)> {
    let mut script = format!("ulimit -v {kib} && exec \"$0\"");
    for f in files {
        script.push_str(&format!(" --db '{}'", f.display()));
    }
    script.push_str(&format!(
        " serve --addr 127.0.0.1:0 --search-threads 1 --table-bits {bits}"
    ));
    let mut child = Process::new("sh")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_query"))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    if line.starts_with("listening on ") {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    }
    let out = child.wait_with_output().unwrap();
    Some((
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stderr).unwrap(),
    ))
}

#[test]
fn the_server_sums_its_search_tables_against_memory_before_it_listens() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (
        start_only_book(dir.path(), "7x6"),
        start_only_book(dir.path(), "6x5"),
    );
    // A table of 2^28 entries takes 2.06 GiB: one fits under a limit of
    // about 3.8 GiB, two do not.
    let kib = 4_000_000;
    assert_eq!(serve_limited(&[&a], 28, kib), None, "one table fits");
    let (code, err) = serve_limited(&[&a, &b], 28, kib).expect("refused");
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--table-bits 28: connect-four 7x6, connect-four 6x5 together:"),
        "{err}"
    );
    assert!(err.contains("4.1 GiB"), "{err}");
}

#[test]
fn the_other_name_of_a_variant_works_over_http_and_in_the_lists() {
    let dir = tempfile::tempdir().unwrap();
    let db = write_db(dir.path(), "k-in-a-row", "3x3,k=3", None);
    let s = serve(&[&db], &[]);
    for target in [
        "/api/position?game=tic-tac-toe&p=start",
        "/api/position?game=tic-tac-toe&variant=tic-tac-toe&p=start",
        "/api/position?game=tic-tac-toe&variant=3x3&p=start",
        "/api/position?game=k-in-a-row&variant=tic-tac-toe&p=start",
    ] {
        let (status, body) = get(&s.addr, target);
        assert_eq!(status, 200, "{target}: {body}");
        assert!(body.contains("\"positionValue\":\"tie\""), "{body}");
    }
    let (status, body) = get(
        &s.addr,
        "/api/position?game=tic-tac-toe&variant=4x4&p=start",
    );
    assert_eq!(status, 404, "{body}");
    assert!(body.contains("tic-tac-toe"), "{body}");
    assert!(
        !body.contains("--variant"),
        "a flag named to an HTTP client: {body}"
    );
    let (_, info) = get(&s.addr, "/api/info");
    assert!(info.contains("\"alias\":\"tic-tac-toe\""), "{info}");
    // The lists of games name it, with what it stands for.
    let a = query()
        .args(["--game", "no-such-game", "start"])
        .assert()
        .code(2);
    assert!(
        stderr_of(&a).contains("tic-tac-toe (k-in-a-row 3x3,k=3)"),
        "{}",
        stderr_of(&a)
    );
    let help = query().arg("--help").assert().success();
    let help = String::from_utf8(help.get_output().stdout.clone()).unwrap();
    assert!(
        help.contains("k-in-a-row, tic-tac-toe (k-in-a-row 3x3,k=3))"),
        "{help}"
    );
}

#[test]
fn a_bad_move_is_called_a_bad_move() {
    let s = serve(&[&defaults().join("bsq.db")], &[]);
    for (target, words) in [
        ("/api/play?p=a1&m=a1", r#"illegal move \"a1\""#),
        ("/api/play?p=start&m=pass", r#"illegal move \"pass\""#),
        ("/api/play?p=start&m=zz", r#"malformed move \"zz\""#),
    ] {
        let (status, body) = get(&s.addr, target);
        assert_eq!(status, 400, "{target}: {body}");
        assert!(body.contains(words), "{target}: {body}");
        assert!(!body.contains("position \\\""), "{target}: {body}");
    }
    // A bad position is still a bad position.
    let (status, body) = get(&s.addr, "/api/play?p=a1%20a1&m=b2");
    assert_eq!(status, 400);
    assert!(body.contains("illegal position"), "{body}");
}

#[test]
fn each_number_has_one_form_in_every_game() {
    for (game, bad) in [
        ("british-square", "+0 24"),
        ("british-square", "a1 +5"),
        ("british-square", "00"),
        ("dots-and-boxes", "+0"),
        ("dots-and-boxes", "00"),
        ("dots-and-boxes", "0 B +0-0"),
        ("dots-and-boxes", "0 B 0-01"),
        ("connect-four", "+4"),
        ("connect-four", "04"),
        ("connect-four", "4 +4"),
        ("connect-four", "4 04"),
        ("connect-four", "4,04"),
    ] {
        let a = query().args(["--game", game, "--json", bad]).assert();
        let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
        assert!(
            out.contains("malformed position") || out.contains("illegal position"),
            "{game} {bad:?}: {out}"
        );
        assert!(!out.contains("positionValue"), "{game} {bad:?}: {out}");
    }
    // The one form is read.
    for (game, good) in [
        ("british-square", "0 24"),
        ("dots-and-boxes", "0 B 0-0"),
        ("connect-four", "4 4"),
        ("connect-four", "4,4"),
    ] {
        query()
            .args(["--game", game, "--json", good])
            .assert()
            .success();
    }
    // Moves too, over HTTP.
    let dir = tempfile::tempdir().unwrap();
    let ttt = write_db(dir.path(), "k-in-a-row", "3x3,k=3", None);
    let s = serve(&[&ttt], &[]);
    for bad in ["a%2B1", "a01", "%2B1", "01"] {
        let (status, body) = get(&s.addr, &format!("/api/position?p={bad}"));
        assert_eq!(status, 400, "{bad}: {body}");
        let (status, body) = get(&s.addr, &format!("/api/play?p=start&m={bad}"));
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(body.contains("malformed move"), "{bad}: {body}");
    }
    let (status, _) = get(&s.addr, "/api/play?p=start&m=a1");
    assert_eq!(status, 200);
    let dandelions = write_db(dir.path(), "dandelions", "3x3", None);
    let s = serve(&[&dandelions], &[]);
    for bad in ["%2B1", "01", "a01", "%2B0"] {
        let (status, body) = get(&s.addr, &format!("/api/play?p=start&m={bad}"));
        assert_eq!(status, 400, "{bad}: {body}");
        assert!(body.contains("malformed move"), "{bad}: {body}");
    }
    let (status, _) = get(&s.addr, "/api/play?p=start&m=1");
    assert_eq!(status, 200);
}

#[test]
fn messages_name_the_token_to_blame() {
    let a = query()
        .args(["--game", "dots-and-boxes", "--json", "0 B A"])
        .assert()
        .code(1);
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(
        out.contains(r#"\"A\" follows the side to move \"B\""#),
        "{out}"
    );
    // A Connect Four picture takes the side to move after it, as the other
    // games' boards do; it must be the side the stones say.
    let empty = "......./......./......./......./......./.......";
    let one = "......./......./......./......./......./...X...";
    let a = query()
        .args(["--game", "connect-four", "--json", &format!("{one} O")])
        .assert()
        .success();
    // The same answer, from the position on (the input differs).
    let after_input = |out: &[u8]| {
        let out = String::from_utf8(out.to_vec()).unwrap();
        out[out.find("\"position\"").unwrap()..].to_owned()
    };
    let with_side = after_input(&a.get_output().stdout);
    let a = query()
        .args(["--game", "connect-four", "--json", one])
        .assert()
        .success();
    assert_eq!(with_side, after_input(&a.get_output().stdout));
    query()
        .args(["--game", "connect-four", "--json", &format!("{empty} X")])
        .assert()
        .success();
    let a = query()
        .args(["--game", "connect-four", "--json", &format!("{one} X")])
        .assert()
        .code(1);
    let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
    assert!(
        out.contains("X to move, but 1 X and 0 O make it O's turn"),
        "{out}"
    );
    assert!(!out.contains("cells"), "{out}");
}

#[test]
fn a_dandelions_field_no_game_reaches_is_refused() {
    for bad in ["F........................ 0", "F*....................... 0"] {
        let a = query()
            .args(["--game", "dandelions", "--json", bad])
            .assert()
            .code(1);
        let out = String::from_utf8(a.get_output().stdout.clone()).unwrap();
        assert!(out.contains("illegal position"), "{out}");
        assert!(out.contains("no order of these flowers and winds"), "{out}");
    }
    // The field the east wind leaves after a1's flower is taken.
    query()
        .args([
            "--game",
            "dandelions",
            "--json",
            "F****.................... 0",
        ])
        .assert()
        .success();
}
