//! `query serve` at the edges of HTTP: a new client right after a burst of
//! connections over the cap, headers at and over the promised 64 KiB, a
//! client that speaks HTTP/2, and conditional requests for positions that
//! are not valid.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use super::serve::serve;
use super::serve_limits::{get_with, raw, read_answer, Answer};

/// `GET /api/info` with one extra header field `X-Big` of `a`s, sized so
/// that the whole header is `total` bytes.
fn request_of(total: usize) -> Vec<u8> {
    let mut r = b"GET /api/info HTTP/1.1\r\nHost: x\r\nX-Big: ".to_vec();
    // The field's value fills all but the empty line that ends the header.
    r.resize(total - 4, b'a');
    r.extend_from_slice(b"\r\n\r\n");
    assert_eq!(r.len(), total);
    r
}

#[test]
fn serve_answers_a_new_client_right_after_a_burst_over_the_cap() {
    let db = crate::common::bsq4_db();
    for (cap, burst) in [(8, 20), (64, 200), (256, 600)] {
        for round in 0..3 {
            let server = serve(&[db], &["--max-connections", &cap.to_string()]);
            // Connections that never send a byte, past the cap: each new one
            // takes the place of one idle the longest, or is closed.
            let held: Vec<TcpStream> = (0..burst)
                .map(|_| TcpStream::connect(&server.addr).unwrap())
                .collect();
            std::thread::sleep(Duration::from_millis(200));
            // A client now is answered: its place is the one its own
            // eviction frees, whatever the burst left waiting.
            for ask in 0..3 {
                let a = get_with(&server.addr, "/api/position?p=a1", &[]);
                assert_eq!(
                    a.status, 200,
                    "cap {cap}, burst {burst}, round {round}, ask {ask}: {}",
                    a.body
                );
            }
            drop(held);
        }
    }
}

#[test]
fn serve_refuses_a_header_over_64_kib_with_431_and_takes_one_at_it() {
    let db = crate::common::bsq4_db();
    let server = serve(&[db], &[]);
    // One field of 100,000 bytes, sent whole before the answer is read.
    let mut big = b"GET /api/info HTTP/1.1\r\nHost: x\r\nX-Big: ".to_vec();
    big.resize(big.len() + 100_000, b'a');
    big.extend_from_slice(b"\r\n\r\n");
    for request in [big, request_of(64 * 1024 + 1)] {
        let a = raw(&server.addr, &request);
        assert_eq!(a.status, 431, "{} bytes: {}", request.len(), a.body);
        assert!(a.error_message().contains("64 KiB"), "{}", a.body);
        assert_eq!(a.header("cache-control"), Some("no-store"));
    }
    // At the limit: answered.
    let a = raw(&server.addr, &request_of(64 * 1024));
    assert_eq!(a.status, 200, "{}", a.body);
    // Kept alive: a second request over the limit, sent with the first,
    // is held to the same limit, after the first is answered.
    let mut s = TcpStream::connect(&server.addr).unwrap();
    let mut two = request_of(64 * 1024);
    two.extend_from_slice(&request_of(64 * 1024 + 1));
    s.write_all(&two).unwrap();
    assert_eq!(read_answer(&mut s).status, 200);
    let second = read_answer(&mut s);
    assert_eq!(second.status, 431, "{}", second.body);
}

#[test]
fn serve_answers_an_http2_preface_with_a_json_400() {
    let db = crate::common::bsq4_db();
    let server = serve(&[db], &[]);
    // The client preface of HTTP/2 with prior knowledge, then an empty
    // SETTINGS frame, as a client sends them before reading.
    let mut hello = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".to_vec();
    hello.extend_from_slice(&[0, 0, 0, 4, 0, 0, 0, 0, 0]);
    for cut in [hello.len(), 5] {
        let mut s = TcpStream::connect(&server.addr).unwrap();
        for piece in hello.chunks(cut) {
            s.write_all(piece).unwrap();
            std::thread::sleep(Duration::from_millis(20));
        }
        let a = read_answer(&mut s);
        assert_eq!(a.status, 400, "{}", a.body);
        assert!(a.error_message().contains("HTTP/2"), "{}", a.body);
        assert_eq!(a.header("connection"), Some("close"));
        // Then the server closes, once the client has.
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let mut rest = Vec::new();
        s.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        assert_eq!(s.read_to_end(&mut rest).unwrap(), 0, "{rest:?}");
    }
    // HTTP/1.1 clients go on being served.
    assert_eq!(get_with(&server.addr, "/api/info", &[]).status, 200);
}

#[test]
fn serve_checks_a_conditional_request_only_once_it_is_valid() {
    let db = crate::common::bsq4_db();
    let server = serve(&[db], &[]);
    let any = [("If-None-Match", "*")];
    let status = |target: &str| -> Answer { get_with(&server.addr, target, &any) };
    // Malformed positions, and an illegal move: their errors, not 304.
    for target in [
        "/api/position?p=zz",
        "/api/svg?p=zz",
        "/api/line?p=zz",
        "/api/play?p=zz&m=a1",
        "/api/play?p=a1&m=zz",
        "/api/play?p=a1&m=a1",
    ] {
        let a = status(target);
        assert_eq!(a.status, 400, "{target}: {}", a.body);
        assert!(!a.error_message().is_empty());
    }
    // Valid requests: 304, for `*` and for the answer's own tag.
    for target in [
        "/api/position?p=a1",
        "/api/svg?p=a1",
        "/api/line?p=a1",
        "/api/play?p=a1&m=d4",
    ] {
        assert_eq!(status(target).status, 304, "{target}");
        let first = get_with(&server.addr, target, &[]);
        assert_eq!(first.status, 200, "{target}: {}", first.body);
        let tag = first.header("etag").unwrap().to_owned();
        let again = get_with(&server.addr, target, &[("If-None-Match", &tag)]);
        assert_eq!(again.status, 304, "{target}");
    }
}
