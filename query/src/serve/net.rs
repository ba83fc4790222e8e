//! Connections: accepted up to a cap (idle ones making room for new), each read with a time limit on its
//! request header and closed when idle, and all of them let go on Ctrl-C
//! or SIGTERM within a bounded time.
//!
//! hyper reads and writes HTTP/1.1; this module owns the sockets. Each
//! connection is in one of three phases, which its task watches:
//!
//! * idle: no request under way and no byte of the next one read; closed
//!   after the idle time-out, or at once when a new connection finds every
//!   place taken and this one has been idle the longest;
//! * header: bytes of a request arrived, the header is not complete yet;
//!   closed unless the header is complete within the header time-out from
//!   its first byte (however slowly the bytes come);
//! * busy: requests are being answered (each answer has its own limits).
//!
//! hyper answers a request it cannot parse (400, 414, 431) itself, with an
//! empty body; [`Tracked`] gives that answer a JSON body, as every other
//! error answer has.

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::Duration;

use axum::body::Body;
use axum::http::{Request, Response};
use axum::Router;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{oneshot, watch, Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;
use tower::ServiceExt;

/// The limits of connections.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// From a request's first byte to the end of its header.
    pub header: Duration,
    /// Between requests.
    pub idle: Duration,
    /// Connections open at once.
    pub connections: usize,
    /// After Ctrl-C or SIGTERM, for the answers under way.
    pub grace: Duration,
}

const IDLE: u8 = 0;
const HEADER: u8 = 1;
const BUSY: u8 = 2;

/// A connection's phase, shared by its socket, its requests and its task
/// (all polled by that one task).
struct Phase {
    phase: AtomicU8,
    /// Requests under way.
    busy: AtomicU64,
    /// When the phase began, in milliseconds from `origin`.
    since: AtomicU64,
    origin: Instant,
}

impl Phase {
    fn new() -> Phase {
        Phase {
            phase: AtomicU8::new(IDLE),
            busy: AtomicU64::new(0),
            since: AtomicU64::new(0),
            origin: Instant::now(),
        }
    }

    fn now(&self) -> u64 {
        self.origin.elapsed().as_millis() as u64
    }

    fn get(&self) -> u8 {
        self.phase.load(Ordering::Relaxed)
    }

    /// Bytes arrived.
    fn read(&self) {
        if self.get() == IDLE {
            self.since.store(self.now(), Ordering::Relaxed);
            self.phase.store(HEADER, Ordering::Relaxed);
        }
    }

    /// A request's header is complete: it is being answered.
    fn begin(&self) {
        self.busy.fetch_add(1, Ordering::Relaxed);
        self.phase.store(BUSY, Ordering::Relaxed);
    }

    /// A request is answered (or given up).
    fn end(&self) {
        if self.busy.fetch_sub(1, Ordering::Relaxed) == 1 {
            self.since.store(self.now(), Ordering::Relaxed);
            self.phase.store(IDLE, Ordering::Relaxed);
        }
    }

    /// When the current phase began, as an instant.
    fn idle_since(&self) -> Instant {
        self.origin + Duration::from_millis(self.since.load(Ordering::Relaxed))
    }

    /// When the connection is to be closed, if nothing happens before.
    fn deadline(&self, limits: &Limits) -> Option<Instant> {
        let since = self.origin + Duration::from_millis(self.since.load(Ordering::Relaxed));
        match self.get() {
            IDLE => Some(since + limits.idle),
            HEADER => Some(since + limits.header),
            _ => None,
        }
    }
}

/// Marks a request under way until dropped.
struct Answering(Arc<Phase>);

impl Drop for Answering {
    fn drop(&mut self) {
        self.0.end();
    }
}

/// The service of one connection: the router, with the connection's phase
/// kept.
#[derive(Clone)]
struct Service {
    router: Router,
    phase: Arc<Phase>,
}

impl hyper::service::Service<Request<Incoming>> for Service {
    type Response = Response<Body>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Response<Body>, Infallible>> + Send>>;

    fn call(&self, request: Request<Incoming>) -> Self::Future {
        self.phase.begin();
        let answering = Answering(Arc::clone(&self.phase));
        let router = self.router.clone();
        Box::pin(async move {
            let response = router.oneshot(request).await;
            drop(answering);
            response
        })
    }
}

/// Serves `router` on `listener` until `stop` resolves (on Ctrl-C or
/// SIGTERM: [`stop_signal`]), then lets the answers under way finish for
/// at most `limits.grace`; `on_stop` runs when the grace is over (it
/// cancels the searches).
pub async fn serve(
    listener: TcpListener,
    router: Router,
    limits: Limits,
    stop_when: impl Future<Output = ()>,
    on_stop: impl FnOnce(),
) -> io::Result<()> {
    let open = Arc::new(Semaphore::new(limits.connections));
    let idle = Arc::new(Registry::default());
    let (stop, stopping) = watch::channel(false);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.keep_alive(true)
        // The time-outs are this module's: hyper's header time-out also
        // runs while a connection is idle.
        .header_read_timeout(None)
        // One contiguous buffer per write, which [`Tracked`] reads.
        .writev(false)
        // [`Tracked`] holds headers to [`MAX_HEAD`]; hyper's own check, at
        // twice that, is a second line.
        .max_buf_size(2 * MAX_HEAD);
    tokio::pin!(stop_when);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    Err(_) => {
                        // Out of descriptors, or a connection reset before
                        // it was taken: wait a little rather than spin.
                        tokio::time::sleep(Duration::from_millis(10)).await;
                        continue;
                    }
                };
                let _ = stream.set_nodelay(true);
                let phase = Arc::new(Phase::new());
                let service = Service { router: router.clone(), phase: Arc::clone(&phase) };
                let connection = http.serve_connection(
                    TokioIo::new(Tracked::new(stream, Arc::clone(&phase))),
                    service,
                );
                let stopping = stopping.clone();
                let open = Arc::clone(&open);
                let idle = Arc::clone(&idle);
                let permit = match Arc::clone(&open).try_acquire_owned() {
                    Ok(permit) => Ok(permit),
                    // At the cap, the connection idle the longest makes
                    // room, as nginx reuses its keep-alive connections: idle
                    // connections held open lock no one out. With none idle,
                    // the new one is closed at once.
                    Err(_) => match idle.evict_longest_idle() {
                        Some(handoff) => Err(handoff),
                        None => continue,
                    },
                };
                tokio::spawn(async move {
                    let permit = match permit {
                        Ok(permit) => permit,
                        Err(handoff) => match make_room(handoff, &open, &idle).await {
                            Some(permit) => permit,
                            None => return,
                        },
                    };
                    let (id, eviction) = idle.add(Arc::clone(&phase));
                    drive(connection, &phase, limits, stopping, &eviction).await;
                    // Evicted: the place goes to the connection that asked
                    // for it; else back to all.
                    if let Some(to) = idle.remove(id, &eviction) {
                        let _ = to.send(permit);
                    }
                });
            }
            () = &mut stop_when => break,
        }
    }
    // Stop accepting: new connections are refused from now on.
    drop(listener);
    let _ = stop.send(true);
    let all = u32::try_from(limits.connections).unwrap_or(u32::MAX);
    let _ = tokio::time::timeout(limits.grace, open.acquire_many(all)).await;
    on_stop();
    Ok(())
}

/// How long a connection accepted at the cap waits for its place: an idle
/// connection closes at once when asked, so this is ample.
const EVICTION: Duration = Duration::from_secs(5);

/// The place of a connection accepted at the cap: handed over by the idle
/// connection it evicted as that one closes, or freed by any other. An
/// evicted connection that turned busy before it saw the request keeps
/// its place, and the next idle the longest is asked; with none idle, or
/// none after [`EVICTION`], the new connection is closed (None).
///
/// Each new connection waits for the place its own eviction frees, so a
/// burst over the cap cannot leave a later client queued behind earlier
/// ones.
async fn make_room(
    mut handoff: oneshot::Receiver<OwnedSemaphorePermit>,
    open: &Arc<Semaphore>,
    idle: &Registry,
) -> Option<OwnedSemaphorePermit> {
    let deadline = Instant::now() + EVICTION;
    loop {
        tokio::select! {
            handed = &mut handoff => match handed {
                Ok(permit) => return Some(permit),
                // It turned busy: ask the next.
                Err(_) => handoff = idle.evict_longest_idle()?,
            },
            freed = Arc::clone(open).acquire_owned() => return freed.ok(),
            () = tokio::time::sleep_until(deadline) => return None,
        }
    }
}

/// The open connections, so that one idle the longest can be closed when
/// a new one needs its room.
#[derive(Default)]
struct Registry {
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    next: u64,
    by_id: HashMap<u64, (Arc<Phase>, Arc<Eviction>)>,
}

/// A request to an idle connection to close and hand its place on.
#[derive(Default)]
struct Eviction {
    /// Tells the connection's task.
    asked: Notify,
    /// Where its place goes; taken (and dropped) if it turned busy.
    to: Mutex<Option<oneshot::Sender<OwnedSemaphorePermit>>>,
}

impl Eviction {
    /// The connection is busy after all: the asker looks elsewhere.
    fn decline(&self) {
        self.to.lock().unwrap_or_else(|e| e.into_inner()).take();
    }
}

impl Registry {
    fn lock(&self) -> std::sync::MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Adds a connection: its id, and its eviction.
    fn add(&self, phase: Arc<Phase>) -> (u64, Arc<Eviction>) {
        let mut open = self.lock();
        let id = open.next;
        open.next += 1;
        let eviction = Arc::new(Eviction::default());
        open.by_id.insert(id, (phase, Arc::clone(&eviction)));
        (id, eviction)
    }

    /// Removes a connection that closed: where its place goes, if a new
    /// connection asked for it. (Under the lock that eviction takes too,
    /// so an eviction is either seen here or never made.)
    fn remove(
        &self,
        id: u64,
        eviction: &Eviction,
    ) -> Option<oneshot::Sender<OwnedSemaphorePermit>> {
        let mut open = self.lock();
        open.by_id.remove(&id);
        let to = eviction.to.lock().unwrap_or_else(|e| e.into_inner()).take();
        drop(open);
        to
    }

    /// Asks the connection idle the longest to close and hand its place
    /// on: where the place will come; None when no connection is idle.
    fn evict_longest_idle(&self) -> Option<oneshot::Receiver<OwnedSemaphorePermit>> {
        let mut open = self.lock();
        let oldest = open
            .by_id
            .iter()
            .filter(|(_, (phase, _))| phase.get() == IDLE)
            .min_by_key(|(_, (phase, _))| phase.idle_since())
            .map(|(&id, _)| id)?;
        // Out of the list at once: the next connection at the cap picks
        // another.
        let (_, eviction) = open.by_id.remove(&oldest)?;
        let (tx, rx) = oneshot::channel();
        *eviction.to.lock().unwrap_or_else(|e| e.into_inner()) = Some(tx);
        eviction.asked.notify_one();
        Some(rx)
    }
}

/// The largest request header read, in bytes (past it, 431).
const MAX_HEAD: usize = 64 * 1024;

/// Resolves on Ctrl-C (SIGINT) or SIGTERM, which from the call on no
/// longer end the process.
pub fn stop_signal() -> io::Result<impl Future<Output = ()>> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let mut term = signal(SignalKind::terminate())?;
        let mut int = signal(SignalKind::interrupt())?;
        Ok(async move {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        })
    }
    #[cfg(not(unix))]
    {
        Ok(async {
            let _ = tokio::signal::ctrl_c().await;
        })
    }
}

type Connection = hyper::server::conn::http1::Connection<TokioIo<Tracked>, Service>;

/// Runs one connection to its end: closed by the client, by a time-out, or
/// by the server stopping.
async fn drive(
    connection: Connection,
    phase: &Phase,
    limits: Limits,
    mut stopping: watch::Receiver<bool>,
    eviction: &Eviction,
) {
    tokio::pin!(connection);
    // How often the phase is looked at when no deadline is near: a header
    // that begins while the connection is idle is then timed from its
    // first byte.
    let every = limits.header.min(limits.idle);
    let mut stopped = false;
    loop {
        let now = Instant::now();
        let wake = match phase.deadline(&limits) {
            Some(deadline) if deadline <= now => return,
            Some(deadline) => deadline.min(now + every),
            None => now + every,
        };
        tokio::select! {
            _ = &mut connection => return,
            () = tokio::time::sleep_until(wake) => {}
            // Room wanted for a new connection: closed if still idle.
            () = eviction.asked.notified() => {
                if phase.get() == IDLE {
                    return;
                }
                eviction.decline();
            }
            changed = stopping.changed(), if !stopped => {
                stopped = true;
                if changed.is_err() || phase.get() != BUSY {
                    // Nothing under way: closed at once, whatever half of a
                    // request was sent.
                    return;
                }
                // The answers under way are finished, then it closes.
                connection.as_mut().graceful_shutdown();
            }
        }
        if stopped && phase.get() != BUSY {
            return;
        }
    }
}

/// A socket that tells its connection's phase when bytes arrive, refuses
/// what hyper would not answer as promised (an HTTP/2 preface, a header
/// over [`MAX_HEAD`]), and gives hyper's own error answers a JSON body.
struct Tracked {
    stream: TcpStream,
    phase: Arc<Phase>,
    /// Bytes to write before anything else: an error answer rewritten.
    out: Vec<u8>,
    written: usize,
    /// The requests' headers, as their bytes arrive.
    heads: HeadScan,
    /// Refused: `out` holds the answer; nothing more reaches hyper.
    refused: bool,
    /// Refused, and the answer written and the write side shut.
    shut: bool,
}

/// What the connection's first bytes say when they are HTTP/2's: the
/// request line of its client preface, sent with prior knowledge.
const H2_PREFACE: &[u8] = b"PRI * HTTP/2.0";

/// Why a connection is refused before hyper reads its request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Refuse {
    /// It speaks HTTP/2 with prior knowledge.
    Http2,
    /// A request header over [`MAX_HEAD`] bytes.
    TooLarge,
}

/// Reads the requests' headers from the bytes as they arrive, across
/// reads however they are cut: a header ends at its empty line (CR LF or a
/// bare LF, as httparse reads it). The server takes no request bodies, so
/// bytes after one header's end belong to the next: hyper's own limit,
/// checked only between reads, would let a header run past the promised
/// size by up to one read.
#[derive(Default)]
struct HeadScan {
    /// Bytes of the connection matched against [`H2_PREFACE`], while they
    /// match.
    preface: usize,
    /// The preface no longer matches.
    not_h2: bool,
    /// Bytes of the current header so far.
    bytes: usize,
    /// The last byte ended a line.
    line_start: bool,
    /// The current header has a byte other than CR or LF (blank lines
    /// before a request line are skipped, not an end).
    content: bool,
}

impl HeadScan {
    /// Takes the bytes read; a refusal when they make one.
    fn scan(&mut self, data: &[u8]) -> Option<Refuse> {
        if !self.not_h2 {
            for (&b, &want) in data.iter().zip(&H2_PREFACE[self.preface..]) {
                if b != want {
                    self.not_h2 = true;
                    break;
                }
                self.preface += 1;
            }
            if !self.not_h2 && self.preface == H2_PREFACE.len() {
                return Some(Refuse::Http2);
            }
        }
        for &b in data {
            self.bytes += 1;
            if self.bytes > MAX_HEAD {
                return Some(Refuse::TooLarge);
            }
            match b {
                b'\n' if self.line_start && self.content => {
                    // The empty line: the header is complete.
                    *self = HeadScan {
                        not_h2: true,
                        ..HeadScan::default()
                    };
                    continue;
                }
                b'\n' => self.line_start = true,
                b'\r' => {}
                _ => {
                    self.line_start = false;
                    self.content = true;
                }
            }
        }
        None
    }
}

impl Tracked {
    fn new(stream: TcpStream, phase: Arc<Phase>) -> Tracked {
        Tracked {
            stream,
            phase,
            out: Vec::new(),
            written: 0,
            heads: HeadScan::default(),
            refused: false,
            shut: false,
        }
    }

    /// Writes the refusal's answer, shuts the write side, then reads and
    /// drops what the client still sends until it closes: closing with
    /// its bytes unread would reset the connection, and could lose the
    /// answer before the client reads it. The header time-out bounds the
    /// wait ([`drive`]: the phase stays "header"). Ready (as the end of
    /// the stream, for hyper) when the client has closed.
    fn poll_refused(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        ready!(self.drain(cx))?;
        if !self.shut {
            ready!(Pin::new(&mut self.stream).poll_shutdown(cx))?;
            self.shut = true;
        }
        let mut scratch = [0u8; 4096];
        loop {
            let mut dropped = ReadBuf::new(&mut scratch);
            ready!(Pin::new(&mut self.stream).poll_read(cx, &mut dropped))?;
            if dropped.filled().is_empty() {
                return Poll::Ready(Ok(()));
            }
        }
    }

    /// Writes what is left of `out`.
    fn drain(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        while self.written < self.out.len() {
            let n = ready!(Pin::new(&mut self.stream).poll_write(cx, &self.out[self.written..]))?;
            if n == 0 {
                return Poll::Ready(Err(io::ErrorKind::WriteZero.into()));
            }
            self.written += n;
        }
        self.out.clear();
        self.written = 0;
        Poll::Ready(Ok(()))
    }
}

impl AsyncRead for Tracked {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        if this.refused {
            return this.poll_refused(cx);
        }
        let before = buf.filled().len();
        let r = ready!(Pin::new(&mut this.stream).poll_read(cx, buf));
        if buf.filled().len() > before {
            this.phase.read();
            if let Some(why) = this.heads.scan(&buf.filled()[before..]) {
                // hyper sees none of these bytes, and then the end.
                buf.set_filled(before);
                this.out = refusal(why);
                this.written = 0;
                this.refused = true;
                return this.poll_refused(cx);
            }
        }
        Poll::Ready(r)
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        if this.refused {
            // The refusal is the answer.
            return Poll::Ready(Ok(buf.len()));
        }
        if let Some((start, status)) = automatic_error(buf) {
            if start > 0 {
                return Pin::new(&mut this.stream).poll_write(cx, &buf[..start]);
            }
            this.out = json_error_answer(status, buf);
            // Written as far as the socket takes now; flush and shutdown
            // write the rest.
            if let Poll::Ready(Err(e)) = this.drain(cx) {
                return Poll::Ready(Err(e));
            }
            return Poll::Ready(Ok(buf.len()));
        }
        Pin::new(&mut this.stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        Pin::new(&mut this.stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        ready!(this.drain(cx))?;
        if this.shut {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut this.stream).poll_shutdown(cx)
    }
}

/// Where in `buf` hyper's own answer to a request it could not parse
/// begins, and its status: a complete head at the end of `buf`, status
/// 4xx, with an empty body. Every error answer the router makes has a
/// body, and no body this server writes holds a CR LF, so the pattern
/// cannot match anything else.
fn automatic_error(buf: &[u8]) -> Option<(usize, u16)> {
    if !buf.ends_with(b"\r\n\r\n") {
        return None;
    }
    let tail = buf.len().saturating_sub(512);
    let start = tail + memrfind(&buf[tail..], b"HTTP/1.")?;
    let head = &buf[start..];
    let status = head.get(9..12)?;
    if head.get(8) != Some(&b' ') || status[0] != b'4' {
        return None;
    }
    let status: u16 = std::str::from_utf8(status).ok()?.parse().ok()?;
    // One head: its end is the end of `buf`.
    if head.windows(4).position(|w| w == b"\r\n\r\n")? + 4 != head.len() {
        return None;
    }
    let lower = head.to_ascii_lowercase();
    lower
        .windows(19)
        .any(|w| w == b"\r\ncontent-length: 0")
        .then_some((start, status))
}

fn memrfind(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).rposition(|w| w == needle)
}

/// The answer to a connection refused before hyper read its request.
fn refusal(why: Refuse) -> Vec<u8> {
    let (status, message) = match why {
        Refuse::Http2 => (
            400,
            "HTTP/2 is not served: this server speaks HTTP/1.1 (send the request without \
             the HTTP/2 preface)",
        ),
        Refuse::TooLarge => (431, TOO_LARGE),
    };
    error_answer(status, message, b"")
}

const TOO_LARGE: &str = "request header too large: at most 100 fields and 64 KiB";

/// The answer of status `status` with a JSON body, in place of hyper's
/// `head` (whose other headers, the date, are kept).
fn json_error_answer(status: u16, head: &[u8]) -> Vec<u8> {
    let message = match status {
        400 => "malformed request: not an HTTP/1.1 request this server reads",
        414 => "request target too long",
        431 => TOO_LARGE,
        _ => "request refused",
    };
    error_answer(status, message, head)
}

/// The answer of status `status` with `message` in a JSON body, and the
/// headers of `head` (an answer's head: its status line is replaced) but
/// for its length and connection.
fn error_answer(status: u16, message: &str, head: &[u8]) -> Vec<u8> {
    let reason = axum::http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("Error");
    let body = boardsolve_probe::json::error(None, message) + "\n";
    let mut out = format!(
        "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n\
         content-length: {}\r\ncache-control: no-store\r\nconnection: close\r\n",
        body.len()
    )
    .into_bytes();
    let text = String::from_utf8_lossy(head);
    for line in text.split("\r\n").skip(1) {
        let name = line.split(':').next().unwrap_or("").to_ascii_lowercase();
        if line.is_empty() || name == "content-length" || name == "connection" {
            continue;
        }
        out.extend_from_slice(line.as_bytes());
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(b"\r\n");
    out.extend_from_slice(body.as_bytes());
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Scans `data` cut into pieces of `cut` bytes.
    fn scan_in_pieces(data: &[u8], cut: usize) -> Option<Refuse> {
        let mut heads = HeadScan::default();
        data.chunks(cut).find_map(|piece| heads.scan(piece))
    }

    #[test]
    fn head_scan_refuses_a_header_over_the_limit_however_it_is_cut() {
        let request = |filler: usize| {
            let mut r = b"GET /api/info HTTP/1.1\r\nHost: x\r\nX-Big: ".to_vec();
            let fixed = r.len() + 4;
            r.resize(r.len() + filler - fixed, b'a');
            r.extend_from_slice(b"\r\n\r\n");
            assert_eq!(r.len(), filler);
            r
        };
        for cut in [1, 7, 4096, 1 << 20] {
            // Exactly the limit, twice in a row (kept alive): taken.
            let mut two = request(MAX_HEAD);
            two.extend_from_slice(&request(MAX_HEAD));
            assert_eq!(scan_in_pieces(&two, cut), None, "cut {cut}");
            // One byte more: refused.
            assert_eq!(
                scan_in_pieces(&request(MAX_HEAD + 1), cut),
                Some(Refuse::TooLarge),
                "cut {cut}"
            );
            // With bare line feeds, and blank lines before the request.
            let mut bare = b"\r\n\nGET / HTTP/1.1\nHost: x\n\n".to_vec();
            bare.extend_from_slice(&request(MAX_HEAD));
            assert_eq!(scan_in_pieces(&bare, cut), None, "cut {cut}");
        }
        // Blank lines alone never end a header: they count toward it.
        assert_eq!(
            scan_in_pieces(&b"\r\n".repeat(MAX_HEAD), 512),
            Some(Refuse::TooLarge)
        );
    }

    #[test]
    fn head_scan_knows_the_http2_preface_alone() {
        let preface = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
        for cut in [1, 3, 14, 24] {
            assert_eq!(
                scan_in_pieces(preface, cut),
                Some(Refuse::Http2),
                "cut {cut}"
            );
        }
        for other in [
            &b"PRI * HTTP/1.1\r\n\r\n"[..],
            b"GET / HTTP/1.1\r\n\r\nPRI * HTTP/2.0\r\n\r\n",
            b"PRIX",
        ] {
            assert_eq!(scan_in_pieces(other, 1), None);
        }
    }

    #[test]
    fn refusals_are_json_answers_that_close() {
        for (why, status) in [(Refuse::Http2, "400"), (Refuse::TooLarge, "431")] {
            let answer = String::from_utf8(refusal(why)).unwrap();
            let (head, body) = answer.split_once("\r\n\r\n").unwrap();
            assert!(head.starts_with(&format!("HTTP/1.1 {status} ")), "{head}");
            assert!(head.contains("\r\nconnection: close"), "{head}");
            assert!(head.contains(&format!("content-length: {}", body.len())));
            assert!(body.starts_with("{\"error\":"), "{body}");
        }
    }

    #[test]
    fn finds_the_empty_error_answers_alone() {
        let empty = b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\n\
                      date: Mon, 01 Jan 2024 00:00:00 GMT\r\n\r\n";
        assert_eq!(automatic_error(empty), Some((0, 431)));
        let mut after = b"HTTP/1.1 200 OK\r\ncontent-length: 3\r\n\r\n{}\n".to_vec();
        after.extend_from_slice(empty);
        assert_eq!(automatic_error(&after), Some((41, 431)));
        for other in [
            &b"HTTP/1.1 304 Not Modified\r\netag: \"x\"\r\n\r\n"[..],
            b"HTTP/1.1 404 Not Found\r\ncontent-length: 13\r\n\r\n",
            b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\n\r\nmore",
        ] {
            assert_eq!(automatic_error(other), None);
        }
        let answer = String::from_utf8(json_error_answer(431, empty)).unwrap();
        let (head, body) = answer.split_once("\r\n\r\n").unwrap();
        assert!(head.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(head.contains("\r\ndate: Mon"));
        assert!(head.contains(&format!("content-length: {}", body.len())));
        assert!(body.starts_with("{\"error\":"));
    }
}
