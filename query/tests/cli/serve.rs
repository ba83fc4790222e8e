//! `query serve` as clients meet it: the same answers as `query --json`,
//! a JSON error with the documented status for every kind of bad request,
//! a time limit on searches, and many clients at once.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use boardsolve::core::{NoProgress, RecordLayout, Solution, Value};
use boardsolve::registry::AnyGame;
use boardsolve::solve::book::BookOptions;

/// A running server, stopped when dropped.
pub(crate) struct Server {
    pub(crate) child: Child,
    pub(crate) addr: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn serve(files: &[&Path], extra: &[&str]) -> Server {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_query"));
    for f in files {
        cmd.arg("--db").arg(f);
    }
    started(cmd, extra)
}

/// Starts `cmd serve --addr 127.0.0.1:0 extra...` and waits for its address.
pub(crate) fn started(mut cmd: Command, extra: &[&str]) -> Server {
    let mut child = cmd
        .arg("serve")
        .args(["--addr", "127.0.0.1:0"])
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .strip_prefix("listening on http://")
        .unwrap_or_else(|| panic!("{line:?}"))
        .to_owned();
    Server { child, addr }
}

/// `GET target`: the status and the body.
pub(crate) fn get(addr: &str, target: &str) -> (u16, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut response = String::new();
    s.read_to_string(&mut response).unwrap();
    let (head, body) = response.split_once("\r\n\r\n").unwrap();
    let status = head.split(' ').nth(1).unwrap().parse().unwrap();
    (status, body.trim_end().to_owned())
}

/// Percent-encodes a query value.
pub(crate) fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                char::from(b).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

pub(crate) fn write_db(dir: &Path, name: &str, variant: &str, depth: Option<u32>) -> PathBuf {
    let game = AnyGame::new(name, variant).unwrap();
    let solved = match depth {
        Some(d) => game
            .build_book(&BookOptions::new(d), &NoProgress)
            .unwrap()
            .unwrap()
            .into(),
        None => game.solve(&NoProgress).unwrap(),
    };
    let path = dir.join(format!("{name}-{variant}.db"));
    boardsolve::db::write_database(&path, game.game().descriptor(), &solved).unwrap();
    path
}

/// `query --db FILE --json POSITION`'s line.
pub(crate) fn query_line(db: &Path, position: &str) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(db)
        .args(["--json", position])
        .output()
        .unwrap();
    String::from_utf8(out.stdout).unwrap().trim_end().to_owned()
}

#[test]
fn answers_and_errors_over_http() {
    let dir = tempfile::tempdir().unwrap();
    let bsq = crate::common::bsq4_db();
    let dab = write_db(dir.path(), "dots-and-boxes", "2x2", None);
    let c4 = write_db(dir.path(), "connect-four", "5x4", Some(2));
    let server = serve(&[bsq, &dab, &c4], &[]);
    let a = server.addr.as_str();

    let (status, body) = get(a, "/api/info");
    assert_eq!(status, 200);
    let info: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(info["databases"].as_array().unwrap().len(), 3);

    // The same line as `query --json`, for each game; past the Connect
    // Four book by search.
    for (db, game, variant, positions) in [
        (
            bsq,
            "british-square",
            "4x4",
            &["start", "b2 c3", "0,5,10"][..],
        ),
        (&dab, "dots-and-boxes", "2x2", &["start", "0 1 2 A 0-0"]),
        (&c4, "connect-four", "5x4", &["3", "33", "3322", "332215"]),
    ] {
        for p in positions {
            let target = format!("/api/position?game={game}&variant={variant}&p={}", enc(p));
            let (status, body) = get(a, &target);
            assert_eq!(status, 200, "{p}: {body}");
            assert_eq!(body, query_line(db, p), "{p}");
        }
    }

    // Pictures: every legal move's shape carries its name and value, as in
    // the JSON answer.
    for (game, variant, p) in [
        ("british-square", "4x4", "b2 c3"),
        ("dots-and-boxes", "2x2", "0 1 2 A 0-0"),
        ("connect-four", "5x4", "3322"),
    ] {
        let q = format!("game={game}&variant={variant}&p={}", enc(p));
        let (status, picture) = get(a, &format!("/api/svg?{q}"));
        assert_eq!(status, 200, "{p}: {picture}");
        let (_, answer) = get(a, &format!("/api/position?{q}"));
        let answer: serde_json::Value = serde_json::from_str(&answer).unwrap();
        let doc = roxmltree::Document::parse(&picture).unwrap();
        let marks: Vec<(String, String)> = doc
            .descendants()
            .filter_map(|n| {
                Some((
                    n.attribute("data-move")?.to_owned(),
                    n.attribute("data-value")?.to_owned(),
                ))
            })
            .collect();
        let moves = answer["moves"].as_array().unwrap();
        assert_eq!(marks.len(), moves.len(), "{p}");
        for m in moves {
            let name = m["move"].as_str().unwrap();
            let value = marks
                .iter()
                .find(|(n, _)| n == name)
                .and_then(|(_, v)| v.parse::<i64>().ok());
            assert_eq!(value, m["value"].as_i64(), "{p}: {name}");
        }
    }

    // A picture asked with the move that led to it (`m`): the picture of
    // the position after the move, that move marked once; the position's
    // own picture marks nothing. A bad move is refused as /api/play
    // refuses it.
    let last_marks = |picture: &str| {
        let doc = roxmltree::Document::parse(picture).unwrap();
        let marks = doc
            .descendants()
            .filter(|n| n.attribute("data-mark") == Some("last"))
            .count();
        let title = doc
            .descendants()
            .find(|n| n.has_tag_name("title"))
            .and_then(|n| n.text())
            .map(str::to_owned);
        let moves: Vec<_> = doc
            .descendants()
            .filter_map(|n| Some((n.attribute("data-move")?, n.attribute("data-value")?)))
            .map(|(m, v)| format!("{m}:{v}"))
            .collect();
        (marks, title, moves)
    };
    for (game, variant, p, m) in [
        ("british-square", "4x4", "b2", "c3"),
        ("dots-and-boxes", "2x2", "0 1 2 A 0-0", "5"),
        ("connect-four", "5x4", "332", "2"),
    ] {
        let q = format!("game={game}&variant={variant}&p={}&m={m}", enc(p));
        let (status, marked) = get(a, &format!("/api/svg?{q}"));
        assert_eq!(status, 200, "{p} {m}: {marked}");
        assert!(marked.starts_with("<svg"), "{marked}");
        let (_, after) = get(a, &format!("/api/play?{q}"));
        let after: serde_json::Value = serde_json::from_str(&after).unwrap();
        let after = after["position"].as_str().unwrap();
        let q = format!("game={game}&variant={variant}&p={}", enc(after));
        let (status, plain) = get(a, &format!("/api/svg?{q}"));
        assert_eq!(status, 200, "{after}: {plain}");
        let (marks, title, moves) = last_marks(&marked);
        assert_eq!(marks, 1, "{p} {m}");
        assert_eq!(last_marks(&plain), (0, title, moves), "{p} {m}");
    }
    for (m, error) in [("c3", "illegal move"), ("zz", "malformed move")] {
        let target = format!("/api/svg?game=british-square&variant=4x4&p=c3&m={m}");
        let (status, body) = get(a, &target);
        assert_eq!(status, 400, "{m}: {body}");
        let j: serde_json::Value = serde_json::from_str(&body).unwrap();
        let message = j["error"].as_str().unwrap();
        assert!(message.starts_with(error), "{m}: {message}");
        let (_, played) = get(a, &target.replace("/api/svg", "/api/play"));
        assert_eq!(played, body, "{m}: as /api/play says");
    }

    // The line of perfect play, and the page.
    let (status, body) = get(a, "/api/line?game=british-square&variant=4x4&p=start");
    assert_eq!(status, 200);
    let line: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(line["line"].as_array().unwrap().len(), 8);
    let (status, page) = get(a, "/");
    assert_eq!(status, 200);
    assert!(page.contains("boardsolve explorer") && page.contains("data-move"));

    // Walking the game: the position after a move, score and side kept.
    let (status, body) = get(
        a,
        "/api/play?game=dots-and-boxes&variant=2x2&p=none%20A%200-0&m=0",
    );
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, r#"{"position":"0 B 0-0"}"#);
    let (status, _) = get(
        a,
        "/api/play?game=dots-and-boxes&variant=2x2&p=0%20B%200-0&m=0",
    );
    assert_eq!(status, 400);

    // Each kind of mistake: its status, and a JSON object with a message.
    let long = "a".repeat(5000);
    for (target, want) in [
        (
            "/api/position?game=british-square&variant=4x4&p=zz".to_owned(),
            400,
        ),
        (
            "/api/position?game=british-square&variant=4x4&p=XO".to_owned(),
            400,
        ),
        (
            "/api/position?game=british-square&variant=4x4".to_owned(),
            400,
        ),
        ("/api/position?p=start".to_owned(), 400),
        ("/api/position?variant=4x4&p=start".to_owned(), 400),
        ("/api/position?game=dandelions&p=start".to_owned(), 404),
        (
            "/api/position?game=british-square&variant=5x5&p=start".to_owned(),
            404,
        ),
        (
            "/api/position?game=chess&variant=8x8&p=start".to_owned(),
            404,
        ),
        ("/nowhere".to_owned(), 404),
        (
            "/api/line?game=british-square&variant=4x4&p=zz".to_owned(),
            400,
        ),
        (
            "/api/svg?game=british-square&variant=4x4&p=zz".to_owned(),
            400,
        ),
        (
            format!("/api/position?game=british-square&variant=4x4&p={long}"),
            413,
        ),
        (
            format!(
                "/api/position?game=british-square&p=x&pad={}",
                "b".repeat(9000)
            ),
            414,
        ),
    ] {
        let (status, body) = get(a, &target);
        assert_eq!(status, want, "{}: {body}", &target[..target.len().min(80)]);
        let j: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert!(j["error"].as_str().is_some_and(|m| !m.is_empty()), "{body}");
    }
}

#[test]
fn many_clients_at_once() {
    let db = crate::common::bsq4_db();
    let server = serve(&[db], &[]);
    let want = query_line(db, "b2 c3");
    std::thread::scope(|s| {
        for _ in 0..16 {
            s.spawn(|| {
                for _ in 0..20 {
                    let (status, body) = get(&server.addr, "/api/position?p=b2%20c3");
                    assert_eq!(status, 200);
                    assert_eq!(body, want);
                }
            });
        }
    });
}

/// A Connect Four 7x6 "book" of the start alone: every other position is
/// a search of a nearly empty board, far longer than any time limit here.
pub(crate) fn start_only_book(dir: &Path) -> PathBuf {
    let game = AnyGame::new("connect-four", "7x6").unwrap();
    let desc = game.game().descriptor();
    let layout = RecordLayout::for_game(desc);
    let start = game.game().canonical(game.game().start());
    let record = layout
        .pack(
            start,
            Value {
                net: 1,
                remoteness: 41,
            },
        )
        .unwrap();
    let book = Solution {
        records: vec![record],
        layout,
        start,
        layer_sizes: vec![1],
        complete: false,
    };
    let path = dir.join("c4.db");
    boardsolve::db::write_database(&path, desc, &book.into()).unwrap();
    path
}

#[test]
fn a_search_past_its_time_limit_is_503() {
    let dir = tempfile::tempdir().unwrap();
    let path = start_only_book(dir.path());
    let server = serve(&[&path], &["--time-limit", "0.2"]);
    let (status, body) = get(&server.addr, "/api/position?p=4");
    assert_eq!(status, 503, "{body}");
    assert!(body.contains("time limit"), "{body}");
    // The server still answers.
    assert_eq!(get(&server.addr, "/api/info").0, 200);
}

#[test]
fn options_that_do_not_apply_are_refused() {
    let db = crate::common::bsq4_db();
    for (args, code) in [
        (&["--json", "serve"][..], 2),
        (&["serve", "--time-limit", "0"], 2),
        (&["serve", "--addr", "nowhere"], 2),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_query"))
            .arg("--db")
            .arg(db)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(code), "{args:?}");
    }
    // Two --db outside serve: a usage error.
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(db)
        .arg("--db")
        .arg(db)
        .arg("start")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn packed_files_are_served_as_the_plain_ones() {
    let dir = tempfile::tempdir().unwrap();
    let plain = write_db(dir.path(), "british-square", "4x4", None);
    let dense = write_db(dir.path(), "dots-and-boxes", "2x2", None);
    let mut packed = Vec::new();
    for (i, p) in [&plain, &dense].into_iter().enumerate() {
        let out = dir.path().join(format!("packed-{i}.db"));
        let status = Command::new(env!("CARGO_BIN_EXE_query"))
            .arg("pack")
            .arg(p)
            .arg("-o")
            .arg(&out)
            .args(["--quiet", "--block-entries", "64"])
            .status()
            .unwrap();
        assert!(status.success());
        packed.push(out);
    }
    let server = serve(&[packed[0].as_path(), packed[1].as_path()], &[]);
    for (db, game, position) in [
        (&plain, "british-square", "b2 c3"),
        (&plain, "british-square", "start"),
        (&dense, "dots-and-boxes", "0,5,11 B"),
        (&dense, "dots-and-boxes", "none"),
    ] {
        let (status, body) = get(
            &server.addr,
            &format!("/api/position?game={game}&p={}", enc(position)),
        );
        assert_eq!(status, 200, "{body}");
        assert_eq!(body, query_line(db, position), "{game} {position}");
    }
    let (status, info) = get(&server.addr, "/api/info");
    assert_eq!(status, 200);
    assert!(info.contains("\"records\":10206"), "{info}");
}
