//! `query serve` against clients that are slow, idle, many or gone, and
//! operators who stop it: bounded time, connections, threads and memory; a
//! JSON body on every error answer; ETags, CORS, the games' descriptions,
//! and games served by search without a file.

use std::io::{ErrorKind, Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

use super::serve::{enc, get, serve, start_only_book, started, write_db, Server};

/// A response read from a stream: status, header lines (lower-case
/// names), body.
pub(super) struct Answer {
    pub(super) status: u16,
    pub(super) headers: Vec<(String, String)>,
    pub(super) body: String,
}

impl Answer {
    pub(super) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// The body, as the JSON error object every error answer is.
    pub(super) fn error_message(&self) -> String {
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "{} {}",
            self.status,
            self.body
        );
        let j: serde_json::Value = serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("{}: {e}: {:?}", self.status, self.body));
        let m = j["error"].as_str().unwrap_or_default().to_owned();
        assert!(!m.is_empty(), "{}", self.body);
        m
    }
}

/// Reads one response (its body by Content-Length, or to the end).
pub(super) fn read_answer(s: &mut TcpStream) -> Answer {
    s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    while !buf.ends_with(b"\r\n\r\n") {
        match s.read(&mut byte) {
            Ok(1) => buf.push(byte[0]),
            other => panic!(
                "no complete head: {other:?} after {:?}",
                String::from_utf8_lossy(&buf)
            ),
        }
    }
    let head = String::from_utf8(buf).unwrap();
    let mut lines = head.split("\r\n");
    let status = lines
        .next()
        .unwrap()
        .split(' ')
        .nth(1)
        .unwrap()
        .parse()
        .unwrap();
    let headers: Vec<(String, String)> = lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let (n, v) = l.split_once(':').unwrap();
            (n.trim().to_ascii_lowercase(), v.trim().to_owned())
        })
        .collect();
    let length = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .map(|(_, v)| v.parse::<usize>().unwrap());
    let mut body = Vec::new();
    match length {
        Some(n) => {
            body.resize(n, 0);
            s.read_exact(&mut body).unwrap();
        }
        None if status == 304 => {}
        None => {
            s.read_to_end(&mut body).unwrap();
        }
    }
    Answer {
        status,
        headers,
        body: String::from_utf8(body).unwrap(),
    }
}

/// Sends `request` as is on a new connection and reads the answer.
pub(super) fn raw(addr: &str, request: &[u8]) -> Answer {
    let mut s = TcpStream::connect(addr).unwrap();
    s.write_all(request).unwrap();
    read_answer(&mut s)
}

/// `GET target` with extra header lines, on a new connection.
pub(super) fn get_with(addr: &str, target: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = format!("GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n");
    for (n, v) in headers {
        request.push_str(&format!("{n}: {v}\r\n"));
    }
    request.push_str("\r\n");
    raw(addr, request.as_bytes())
}

/// How long until the server closes `s` (reading nothing), if it does
/// within `within`.
fn closed_within(s: &mut TcpStream, within: Duration) -> Option<Duration> {
    let started = Instant::now();
    s.set_read_timeout(Some(within)).unwrap();
    let mut buf = [0u8; 256];
    match s.read(&mut buf) {
        Ok(0) => Some(started.elapsed()),
        Ok(n) => panic!("the server wrote {:?}", String::from_utf8_lossy(&buf[..n])),
        Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => None,
        Err(_) => Some(started.elapsed()),
    }
}

fn signal(server: &Server, name: &str) {
    let status = Command::new("kill")
        .args(["-s", name, &server.child.id().to_string()])
        .status()
        .unwrap();
    assert!(status.success());
}

/// Waits for the server to exit: its status, and how long it took.
fn exit_within(server: &mut Server, within: Duration) -> (Option<i32>, Duration) {
    let started = Instant::now();
    loop {
        if let Some(status) = server.child.try_wait().unwrap() {
            return (status.code(), started.elapsed());
        }
        assert!(
            started.elapsed() < within,
            "still running {within:?} after the signal"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn serve_cuts_off_a_header_sent_slowly_but_not_an_idle_connection() {
    let db = crate::common::bsq4_db();
    // An idle time-out far past the header's and any wait below, so that
    // only the header time-out can close a connection here.
    let server = serve(&[db], &["--header-timeout", "1", "--idle-timeout", "120"]);
    // Connected, silent: idle, and given the idle time-out.
    let mut idle = TcpStream::connect(&server.addr).unwrap();
    // A header one byte every 100 ms for 30 s: never complete, and never
    // idle long, so only the header time-out can end it.
    let mut slow = TcpStream::connect(&server.addr).unwrap();
    slow.write_all(b"G").unwrap();
    let first_byte = Instant::now();
    let mut writer = slow.try_clone().unwrap();
    let trickle = std::thread::spawn(move || {
        for b in b"ET /api/info HTTP/1.1\r\nHost: x\r\nX-Slow: "
            .iter()
            .cycle()
            .take(300)
        {
            std::thread::sleep(Duration::from_millis(100));
            if writer.write_all(&[*b]).is_err() {
                return;
            }
        }
    });
    // A deadline of behaviour: the trickle goes on for 30 s, so a close
    // within 20 s is the 1 s time-out's, with ample room for a busy
    // machine; none before 0.9 s, as the time-out cannot fire early.
    let closed = closed_within(&mut slow, Duration::from_secs(20))
        .map(|_| first_byte.elapsed())
        .expect("a header sent one byte at a time is cut off within 20 s");
    eprintln!("a header sent slowly: closed {closed:?} after its first byte");
    assert!(
        closed >= Duration::from_millis(900),
        "closed {closed:?} after its first byte, with --header-timeout 1"
    );
    trickle.join().unwrap();
    // The idle connection outlived the header time-out, and answers.
    idle.write_all(b"GET /api/info HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    assert_eq!(read_answer(&mut idle).status, 200);
}

#[test]
fn serve_closes_an_idle_connection_at_the_idle_time_out() {
    let db = crate::common::bsq4_db();
    let server = serve(&[db], &["--idle-timeout", "1"]);
    // After an answer, kept alive, then idle.
    let mut kept = TcpStream::connect(&server.addr).unwrap();
    kept.write_all(b"GET /api/position?p=start HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    assert_eq!(read_answer(&mut kept).status, 200);
    // Never a byte.
    let mut silent = TcpStream::connect(&server.addr).unwrap();
    // Closed well before the default of 60 s: the time-out given fired
    // (ample room for a busy machine).
    for (what, s) in [("after an answer", &mut kept), ("silent", &mut silent)] {
        closed_within(s, Duration::from_secs(20))
            .unwrap_or_else(|| panic!("{what}: still open 20 s later"));
    }
}

#[test]
fn serve_makes_room_at_the_cap_from_idle_connections_and_else_closes_at_once() {
    let db = crate::common::bsq4_db();
    // A header time-out far past the waits below, so that a connection
    // refused at the cap is told from one that waits for a place.
    let server = serve(&[db], &["--max-connections", "3", "--header-timeout", "60"]);
    let ask = |s: &mut TcpStream| {
        s.write_all(b"GET /api/info HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        read_answer(s).status
    };
    // Three connections answered, then idle: the first is idle the longest.
    let mut idle: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            assert_eq!(ask(&mut s), 200);
            std::thread::sleep(Duration::from_millis(50));
            s
        })
        .collect();
    // A fourth is served: the longest idle made room, the others stay.
    let mut fourth = TcpStream::connect(&server.addr).unwrap();
    assert_eq!(ask(&mut fourth), 200);
    // Closed long before the idle time-out (60 s) could close it: a
    // deadline of behaviour with ample room for a busy machine.
    closed_within(&mut idle[0], Duration::from_secs(20))
        .expect("the connection idle the longest is closed within 20 s");
    assert_eq!(ask(&mut idle[2]), 200);
    drop(idle);
    drop(fourth);
    std::thread::sleep(Duration::from_millis(200));

    // Three connections each in the middle of a header: none idle, so one
    // past the cap is closed at once without an answer.
    let mut busy: Vec<TcpStream> = (0..3)
        .map(|_| {
            let mut s = TcpStream::connect(&server.addr).unwrap();
            s.write_all(b"GET /api/info HTTP/1.1\r\n").unwrap();
            s
        })
        .collect();
    // Time for the server to read their first bytes (a busy machine may
    // take a while): until then they count as idle, and would make room.
    std::thread::sleep(Duration::from_secs(1));
    let mut over = TcpStream::connect(&server.addr).unwrap();
    let _ = over.write_all(b"GET /api/info HTTP/1.1\r\nHost: x\r\n\r\n");
    // Closed without an answer (an answer fails `closed_within`), well
    // before the header time-out (60 s) of the others would free a place
    // for it: refused at once, with ample room for a busy machine.
    closed_within(&mut over, Duration::from_secs(20))
        .expect("a connection past the cap is closed within 20 s");
    // The headers finish and are answered.
    for s in &mut busy {
        s.write_all(b"Host: x\r\n\r\n").unwrap();
        assert_eq!(read_answer(s).status, 200);
    }
    // One closes: room for another.
    drop(busy.pop());
    let started = Instant::now();
    loop {
        let mut s = TcpStream::connect(&server.addr).unwrap();
        let _ = s.write_all(b"GET /api/info HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let mut text = String::new();
        let _ = s.read_to_string(&mut text);
        if text.starts_with("HTTP/1.1 200") {
            break;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no room made");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn serve_stops_on_sigterm_and_ctrl_c_with_status_0_despite_half_sent_requests() {
    let db = crate::common::bsq4_db();
    for name in ["TERM", "INT"] {
        let mut server = serve(&[db], &[]);
        let mut half = TcpStream::connect(&server.addr).unwrap();
        half.write_all(b"GET /api/info HTTP/1.1\r\nHo").unwrap();
        let _idle = TcpStream::connect(&server.addr).unwrap();
        std::thread::sleep(Duration::from_millis(200));
        signal(&server, name);
        let (code, took) = exit_within(&mut server, Duration::from_secs(30));
        eprintln!("SIG{name}: exited {took:?} after the signal");
        assert_eq!(code, Some(0), "SIG{name}");
        // At once (milliseconds), not after the 5 s of grace that answers
        // under way would have: 4 s is room for a busy machine, and a
        // second short of the grace, so that waiting it out cannot pass.
        assert!(took < Duration::from_secs(4), "SIG{name}: {took:?}");
        // Its connections are closed (the process is gone: at once).
        assert!(closed_within(&mut half, Duration::from_secs(20)).is_some());
    }
}

#[test]
fn serve_stops_on_ctrl_c_after_timed_out_searches_finishing_the_answer_under_way() {
    let dir = tempfile::tempdir().unwrap();
    let c4 = start_only_book(dir.path());
    let mut server = serve(&[&c4], &["--time-limit", "2", "--search-threads", "1"]);
    // Four answers that time out (their searches go on no longer).
    let clients: Vec<_> = ["4", "3", "5", "2"]
        .into_iter()
        .map(|p| {
            let addr = server.addr.clone();
            std::thread::spawn(move || get(&addr, &format!("/api/position?p={p}")).0)
        })
        .collect();
    for c in clients {
        assert_eq!(c.join().unwrap(), 503);
    }
    // A newcomer's search under way when Ctrl-C comes: it gets its answer.
    let addr = server.addr.clone();
    let newcomer = std::thread::spawn(move || {
        let mut s = TcpStream::connect(&addr).unwrap();
        s.write_all(b"GET /api/position?p=44 HTTP/1.1\r\nHost: x\r\n\r\n")
            .unwrap();
        read_answer(&mut s).status
    });
    // A second for its request to reach the server (on a busy machine it
    // may take a while); its answer comes at its time limit, 2 s.
    std::thread::sleep(Duration::from_secs(1));
    signal(&server, "INT");
    let (code, took) = exit_within(&mut server, Duration::from_secs(30));
    eprintln!("SIGINT with a search under way: exited {took:?} after the signal");
    assert_eq!(code, Some(0));
    // The answer under way ends at its time limit (about 1 s after the
    // signal), and nothing waits for the searches that timed out: the
    // exit comes before the grace of 5 s is over. 4 s is room for a busy
    // machine, and a second short of the grace, so that waiting it out
    // cannot pass.
    assert!(took < Duration::from_secs(4), "{took:?}");
    assert_eq!(newcomer.join().unwrap(), 503);
}

#[test]
fn serve_gives_every_error_answer_a_json_body() {
    let db = crate::common::bsq4_db();
    let server = serve(&[db], &[]);
    let a = server.addr.as_str();
    let many_fields: String = (0..200).map(|i| format!("X-Field-{i}: {i}\r\n")).collect();
    let cases: Vec<(Vec<u8>, u16, &str)> = vec![
        (b"GARBAGE\r\n\r\n".to_vec(), 400, "not HTTP"),
        (
            b"GET /api/info HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n".to_vec(),
            400,
            "a malformed header",
        ),
        (
            b"POST /api/info HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                .to_vec(),
            405,
            "POST",
        ),
        (
            b"DELETE /api/position?p=start HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                .to_vec(),
            405,
            "DELETE",
        ),
        (
            format!(
                "GET /api/position?p={} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
                "a".repeat(20_000)
            )
            .into_bytes(),
            414,
            "a 20 KB target",
        ),
        (
            format!("GET /?{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(1 << 20)).into_bytes(),
            431,
            "a 1 MB target",
        ),
        (
            format!("GET /api/info HTTP/1.1\r\nHost: x\r\n{many_fields}\r\n").into_bytes(),
            431,
            "200 header fields",
        ),
        (
            b"GET /api/position?p=%FF HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
            400,
            "a query string that is not UTF-8",
        ),
        (
            b"GET /nowhere HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_vec(),
            404,
            "an unknown path",
        ),
    ];
    for (request, status, what) in cases {
        let mut s = TcpStream::connect(a).unwrap();
        // The server may answer and close before reading all of a large
        // request.
        let _ = s.write_all(&request);
        let answer = read_answer(&mut s);
        assert_eq!(answer.status, status, "{what}: {}", answer.body);
        answer.error_message();
        assert_eq!(answer.header("cache-control"), Some("no-store"), "{what}");
    }
}

#[test]
fn serve_answers_carry_an_etag_and_304_while_the_database_is_the_same() {
    let db = crate::common::bsq4_db();
    let server = serve(&[db], &["--max-age", "60"]);
    let a = server.addr.as_str();
    let target = "/api/position?p=b2%20c3";
    let first = get_with(a, target, &[]);
    assert_eq!(first.status, 200);
    assert_eq!(first.header("cache-control"), Some("public, max-age=60"));
    let tag = first.header("etag").expect("an ETag").to_owned();
    assert!(tag.starts_with('"') && tag.ends_with('"'), "{tag}");
    for held in [
        tag.clone(),
        format!("W/{tag}"),
        format!("\"other\", {tag}"),
        "*".to_owned(),
    ] {
        let again = get_with(a, target, &[("If-None-Match", &held)]);
        assert_eq!(again.status, 304, "If-None-Match: {held}");
        assert_eq!(again.body, "");
        assert_eq!(again.header("etag"), Some(tag.as_str()));
    }
    assert_eq!(
        get_with(a, target, &[("If-None-Match", "\"other\"")]).status,
        200
    );
    // Each answer its own tag: another position, the picture, the picture
    // after a move, the line, a move.
    let mut tags = vec![tag.clone()];
    for t in [
        "/api/position?p=b2",
        "/api/svg?p=b2%20c3",
        "/api/svg?p=b2&m=c3",
        "/api/line?p=b2%20c3",
        "/api/play?p=b2%20c3&m=a1",
    ] {
        let r = get_with(a, t, &[]);
        assert_eq!(r.status, 200, "{t}");
        tags.push(r.header("etag").expect(t).to_owned());
    }
    let mut distinct = tags.clone();
    distinct.sort();
    distinct.dedup();
    assert_eq!(distinct.len(), tags.len(), "{tags:?}");
    // Errors: no tag, never cached; an illegal move of a picture is
    // refused, never 304.
    let bad = get_with(a, "/api/position?p=zz", &[]);
    assert_eq!(bad.status, 400);
    assert_eq!(bad.header("etag"), None);
    assert_eq!(bad.header("cache-control"), Some("no-store"));
    let bad = get_with(a, "/api/svg?p=b2&m=b2", &[("If-None-Match", "*")]);
    assert_eq!(bad.status, 400);
    assert_eq!(bad.header("etag"), None);
    // The same position from another database (the start's value changed,
    // the checksums resealed): another tag.
    let dir = tempfile::tempdir().unwrap();
    let other = dir.path().join("other.db");
    let good = std::fs::read(db).unwrap();
    let game = boardsolve::registry::AnyGame::new("british-square", "4x4").unwrap();
    let start = game.game().canonical(game.game().start());
    std::fs::write(
        &other,
        crate::common::with_value(
            &good,
            start,
            boardsolve::Value {
                net: 2,
                remoteness: 8,
            },
        ),
    )
    .unwrap();
    let second = serve(&[&other], &[]);
    let from_other = get_with(&second.addr, target, &[("If-None-Match", &tag)]);
    assert_eq!(from_other.status, 200);
    assert_ne!(from_other.header("etag"), Some(tag.as_str()));
}

#[test]
fn serve_cors_lets_the_named_origin_call_the_api() {
    let db = crate::common::bsq4_db();
    let server = serve(&[db], &["--cors", "https://example.org"]);
    let a = server.addr.as_str();
    let r = get_with(a, "/api/info", &[("Origin", "https://example.org")]);
    assert_eq!(r.status, 200);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://example.org")
    );
    let r = get_with(a, "/api/info", &[("Origin", "https://elsewhere.example")]);
    assert_eq!(r.header("access-control-allow-origin"), None);
    // The preflight of a request with If-None-Match.
    let r = raw(
        a,
        b"OPTIONS /api/position?p=start HTTP/1.1\r\nHost: x\r\nOrigin: https://example.org\r\n\
          Access-Control-Request-Method: GET\r\nAccess-Control-Request-Headers: if-none-match\r\n\
          Connection: close\r\n\r\n",
    );
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.header("access-control-allow-origin"),
        Some("https://example.org")
    );
    assert!(r
        .header("access-control-allow-methods")
        .is_some_and(|m| m.contains("GET")));
    // Without --cors, no other site is let in.
    let plain = serve(&[db], &[]);
    let r = get_with(
        &plain.addr,
        "/api/info",
        &[("Origin", "https://example.org")],
    );
    assert_eq!(r.header("access-control-allow-origin"), None);
}

#[test]
fn serve_info_describes_each_games_players() {
    let dir = tempfile::tempdir().unwrap();
    let c4 = write_db(dir.path(), "connect-four", "5x4", Some(2));
    let bsq = crate::common::bsq4_db();
    let server = serve(&[bsq, &c4], &[]);
    let (status, body) = get(&server.addr, "/api/info");
    assert_eq!(status, 200);
    let info: serde_json::Value = serde_json::from_str(&body).unwrap();
    let of = |game: &str| {
        info["databases"]
            .as_array()
            .unwrap()
            .iter()
            .find(|d| d["game"] == game)
            .unwrap()
            .clone()
    };
    let c4 = of("connect-four");
    assert!(c4["about"].as_str().unwrap().contains("Connect Four"));
    let players = c4["players"].as_array().unwrap();
    assert_eq!(players[0]["name"], "X");
    assert!(players[0]["pieces"].as_str().unwrap().contains("red"));
    assert_eq!(players[1]["name"], "O");
    assert!(players[1]["pieces"].as_str().unwrap().contains("yellow"));
    assert_eq!(c4["file"], true);
    let bsq = of("british-square");
    assert_eq!(bsq["players"][0]["name"], "X");
}

#[test]
fn serve_answers_a_game_with_search_without_its_file_as_query_does() {
    let dir = tempfile::tempdir().unwrap();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_query"));
    cmd.current_dir(dir.path())
        .args(["--game", "connect-four", "--variant", "5x4"]);
    let server = started(cmd, &[]);
    let (status, body) = get(&server.addr, "/api/info");
    assert_eq!(status, 200);
    let info: serde_json::Value = serde_json::from_str(&body).unwrap();
    let d = &info["databases"][0];
    assert_eq!(
        (d["game"].as_str(), d["file"].as_bool()),
        (Some("connect-four"), Some(false))
    );
    assert_eq!(d["searched_past_the_book"], true);
    for p in ["start", "33", "332215"] {
        let (status, body) = get(&server.addr, &format!("/api/position?p={}", enc(p)));
        assert_eq!(status, 200, "{p}: {body}");
        let out = Command::new(env!("CARGO_BIN_EXE_query"))
            .current_dir(dir.path())
            .args(["--game", "connect-four", "--variant", "5x4", "--json", p])
            .output()
            .unwrap();
        assert!(out.status.success());
        assert_eq!(
            body,
            String::from_utf8(out.stdout).unwrap().trim_end(),
            "{p}"
        );
    }
    let (status, body) = get(&server.addr, "/api/line?p=332215");
    assert_eq!(status, 200, "{body}");
    // A game without search still needs its file (exit status 3).
    let out = Command::new(env!("CARGO_BIN_EXE_query"))
        .current_dir(dir.path())
        .args(["--game", "british-square", "serve", "--addr", "127.0.0.1:0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(3));
}

#[test]
fn serve_refuses_search_tables_out_of_range_or_memory_as_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let c4 = start_only_book(dir.path());
    for bits in ["40", "32"] {
        let out = Command::new(env!("CARGO_BIN_EXE_query"))
            .arg("--db")
            .arg(&c4)
            .args(["serve", "--addr", "127.0.0.1:0", "--search-threads", "256"])
            .args(["--table-bits", bits])
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "--table-bits {bits}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("--table-bits"), "{err}");
    }
    for args in [
        &["--search-threads", "0"][..],
        &["--header-timeout", "0"],
        &["--idle-timeout", "-1"],
        &["--max-connections", "0"],
        &["--cors", "a\nb"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_query"))
            .arg("--db")
            .arg(&c4)
            .args(["serve", "--addr", "127.0.0.1:0"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
    }
}

#[test]
fn serve_refuses_a_search_at_once_when_the_threads_and_the_queue_are_full() {
    let dir = tempfile::tempdir().unwrap();
    let c4 = start_only_book(dir.path());
    let server = serve(
        &[&c4],
        &[
            "--time-limit",
            "10",
            "--search-threads",
            "1",
            "--search-queue",
            "1",
        ],
    );
    let addr = server.addr.as_str();
    std::thread::scope(|s| {
        // One searching, one waiting.
        let held: Vec<_> = ["4", "3"]
            .into_iter()
            .map(|p| s.spawn(move || get(addr, &format!("/api/position?p={p}")).0))
            .collect();
        // A second for both to reach the server (a busy machine may take
        // a while), well within their time limit (10 s).
        std::thread::sleep(Duration::from_secs(1));
        let asked = Instant::now();
        let r = get_with(addr, "/api/position?p=5", &[]);
        let took = asked.elapsed();
        eprintln!("refused after {took:?}");
        assert_eq!(r.status, 503);
        // Refused, not queued: a queued search would have waited out its
        // time limit and said so.
        assert!(r.error_message().contains("busy"), "{}", r.body);
        // At once: well before the time limit (10 s) it would have waited
        // out in the queue, with 5 s of room for a busy machine.
        assert!(took < Duration::from_secs(5), "{took:?}");
        assert_eq!(r.header("retry-after"), Some("1"));
        for h in held {
            assert_eq!(h.join().unwrap(), 503);
        }
    });
}

/// The process's threads and resident memory (bytes), from /proc.
#[cfg(target_os = "linux")]
fn threads_and_memory(pid: u32) -> (u64, u64) {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let field = |name: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.split_whitespace().next())
            .and_then(|v| v.parse().ok())
            .unwrap()
    };
    (field("Threads:"), field("VmRSS:") * 1024)
}

/// The CPU time the process has used, in seconds.
#[cfg(target_os = "linux")]
fn cpu_seconds(pid: u32) -> f64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    // The fields after the command's closing parenthesis; utime and stime
    // are the 14th and 15th of the line.
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap();
    ticks / 100.0
}

#[test]
#[cfg(target_os = "linux")]
fn serve_keeps_lookups_out_of_the_search_queue_and_threads_bounded_under_a_flood() {
    use std::sync::atomic::{AtomicBool, Ordering};
    /// Stops the flood when dropped, even by a failed assertion.
    struct Stop<'a>(&'a AtomicBool);
    impl Drop for Stop<'_> {
        fn drop(&mut self) {
            self.0.store(true, Ordering::Relaxed);
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let c4 = start_only_book(dir.path());
    let bsq = crate::common::bsq4_db();
    // Two search threads: six of the eight searches wait in the queue.
    let server = serve(&[bsq, &c4], &["--time-limit", "4", "--search-threads", "2"]);
    let pid = server.child.id();
    let (threads_before, _) = threads_and_memory(pid);
    // Two rounds of searches at least, and on until there were 20 lookups:
    // counts, not a speed, so that a busy machine takes longer rather than
    // fails (two minutes at most).
    let flood_for = Duration::from_secs(8);
    let enough_lookups = 20;
    let done = AtomicBool::new(false);
    let started = Instant::now();
    let addr = server.addr.as_str();
    let (mut latencies, peak, slowest) = std::thread::scope(|s| {
        // Eight clients, each asking two-stone positions again as soon as
        // it is answered.
        let done = &done;
        let flood: Vec<_> = (0..8)
            .map(|i| {
                s.spawn(move || {
                    let mut slowest = Duration::ZERO;
                    let mut n = 0;
                    while !done.load(Ordering::Relaxed) {
                        let p = format!("{}{}", 1 + (i + n) % 7, 1 + (i * 3 + n) % 7);
                        let asked = Instant::now();
                        let (status, body) =
                            get(addr, &format!("/api/position?game=connect-four&p={p}"));
                        slowest = slowest.max(asked.elapsed());
                        assert!(status == 503 || status == 200, "{status} {body}");
                        n += 1;
                    }
                    slowest
                })
            })
            .collect();
        // Lookups of British Square meanwhile, and the process's size.
        let stop = Stop(done);
        let mut latencies = Vec::new();
        let mut peak = (0, 0);
        std::thread::sleep(Duration::from_millis(300));
        while (started.elapsed() < flood_for || latencies.len() < enough_lookups)
            && started.elapsed() < Duration::from_secs(120)
        {
            let asked = Instant::now();
            let (status, _) = get(addr, "/api/position?game=british-square&p=b2%20c3");
            latencies.push(asked.elapsed());
            assert_eq!(status, 200);
            let (t, m) = threads_and_memory(pid);
            peak = (peak.0.max(t), peak.1.max(m));
            std::thread::sleep(Duration::from_millis(10));
        }
        drop(stop);
        let slowest = flood.into_iter().map(|h| h.join().unwrap()).max().unwrap();
        (latencies, peak, slowest)
    });
    let stopped = Instant::now();
    latencies.sort();
    let p99 = latencies[(latencies.len() * 99).div_ceil(100) - 1];
    eprintln!(
        "flood: {} lookups, median {:?}, p99 {p99:?}; peak {} threads (before {threads_before}), \
         {} MiB; slowest search answer {slowest:?}",
        latencies.len(),
        latencies[latencies.len() / 2],
        peak.0,
        peak.1 >> 20
    );
    assert!(
        latencies.len() >= enough_lookups,
        "{} lookups",
        latencies.len()
    );
    // How fast the lookups were is a benchmark's to judge
    // (benches/serve_flood.py); here, that they never waited behind a
    // search. The first lookup comes 0.3 s into the flood, behind six
    // queued searches: queued with them, it would wait until the searches
    // running reach their time limit (4 s), 3.7 s. So the slowest lookup
    // stays under half the time limit, 2 s, which leaves room for a busy
    // machine on both sides.
    let slowest_lookup = latencies[latencies.len() - 1];
    assert!(
        slowest_lookup < Duration::from_secs(2),
        "slowest lookup {slowest_lookup:?}"
    );
    // Searches answered by their time limit (4 s, waiting in the queue
    // included): 20 s is room for a busy machine, where one left to run
    // would take minutes.
    assert!(slowest < Duration::from_secs(20), "{slowest:?}");
    // Threads: those of the start (the runtime's and the two search
    // threads), and while the searches run, at most two a searcher
    // besides them: an idle searcher lent to another search runs on a
    // thread of that search, and a Connect Four search adds a helper on
    // one more. Bounded, whatever the number of requests.
    assert!(peak.0 <= threads_before + 4, "{} threads", peak.0);
    assert!(peak.1 < 400 << 20, "{} MiB", peak.1 >> 20);
    // Idle once the clients stop: every search was answered by then, and
    // none goes on past its answer (it stops within milliseconds; sampled
    // from 4 s on, room for a busy machine).
    std::thread::sleep(Duration::from_secs(4).saturating_sub(stopped.elapsed()));
    let cpu = cpu_seconds(pid);
    std::thread::sleep(Duration::from_secs(1));
    let busy = cpu_seconds(pid) - cpu;
    eprintln!("CPU in the second from 4 s after the flood: {busy:.2} s");
    assert!(busy < 0.1, "{busy} s of CPU in a second after the flood");
}

/// The CPU time the process's thread named `name` has used, in seconds.
/// A listing of `/proc/PID/task` may skip a live thread while others
/// come and go (it is read by position), so an absent name is looked for
/// again a few times before the thread is taken to be missing.
#[cfg(target_os = "linux")]
fn thread_cpu_seconds(pid: u32, name: &str) -> f64 {
    for _ in 0..20 {
        for task in std::fs::read_dir(format!("/proc/{pid}/task")).unwrap() {
            let Ok(task) = task else { continue };
            let path = task.path();
            let comm = std::fs::read_to_string(path.join("comm")).unwrap_or_default();
            if comm.trim() != name {
                continue;
            }
            let Ok(stat) = std::fs::read_to_string(path.join("stat")) else {
                continue;
            };
            let after = &stat[stat.rfind(')').unwrap() + 2..];
            let f: Vec<&str> = after.split_whitespace().collect();
            return (f[11].parse::<f64>().unwrap() + f[12].parse::<f64>().unwrap()) / 100.0;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    panic!("no thread {name}");
}

/// Asserts that the search thread is idle from 2 s on: no CPU in the half
/// second after. (It stops within milliseconds; 2 s is room for a busy
/// machine, where a search left running would go on to its time limit,
/// 60 s, or to the answer of a search of minutes.)
#[cfg(target_os = "linux")]
fn search_stops_within_2_s(pid: u32, since: Instant, what: &str) {
    std::thread::sleep(Duration::from_secs(2).saturating_sub(since.elapsed()));
    let cpu = thread_cpu_seconds(pid, "search-0");
    std::thread::sleep(Duration::from_millis(500));
    let busy = thread_cpu_seconds(pid, "search-0") - cpu;
    // One clock tick (10 ms) of slack for the sampling.
    assert!(busy <= 0.011, "{what}: the search thread ran {busy} s more");
}

#[test]
#[cfg(target_os = "linux")]
fn serve_stops_the_search_of_a_client_that_goes_or_times_out() {
    let dir = tempfile::tempdir().unwrap();
    let c4 = start_only_book(dir.path());
    // One search thread: a search left running would hold it, for its
    // time limit of 60 s.
    let server = serve(&[&c4], &["--time-limit", "60", "--search-threads", "1"]);
    let pid = server.child.id();
    let late = late_position();
    let mut gone = TcpStream::connect(&server.addr).unwrap();
    gone.write_all(b"GET /api/position?p=4 HTTP/1.1\r\nHost: x\r\n\r\n")
        .unwrap();
    // The search under way (its thread runs at a lower priority: on a
    // busy machine it may take a while to get its first 0.2 s of CPU; 30 s
    // is ample, and half its time limit).
    let started = Instant::now();
    while thread_cpu_seconds(pid, "search-0") < 0.2 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the search never ran"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    drop(gone);
    search_stops_within_2_s(pid, Instant::now(), "a client gone");
    // The search thread is free again.
    let asked = Instant::now();
    let (status, body) = get(&server.addr, &format!("/api/position?p={}", enc(&late)));
    let took = asked.elapsed();
    eprintln!("the late position, after a client left: {took:?}");
    assert_eq!(status, 200, "{body}");
    // A search of a moment, where the search left running would hold the
    // thread to its time limit, at least 60 - 30 - 2.5 s later: under 20 s
    // is room for a busy machine, and well short of that.
    assert!(took < Duration::from_secs(20), "{took:?}");
    drop(server);

    // A search past its time limit stops with its answer.
    let server = serve(&[&c4], &["--time-limit", "0.5", "--search-threads", "1"]);
    let pid = server.child.id();
    assert_eq!(get(&server.addr, "/api/position?p=4").0, 503);
    search_stops_within_2_s(pid, Instant::now(), "a time-out");
    let (status, body) = get(&server.addr, &format!("/api/position?p={}", enc(&late)));
    assert_eq!(status, 200, "{body}");
}

/// A Connect Four 7x6 position late enough to search in a moment (the
/// first of the benchmark set Test_L3_R1).
fn late_position() -> String {
    "2252576253462244111563365343671351441".to_owned()
}
