//! `query serve`: the databases over HTTP, for programs and pages.
//!
//! `GET /` is the explorer, a page (embedded in the binary) that draws a
//! position, colours every move by its value, and plays a move on a click.
//! `GET /api/position?p=POSITION[&game=NAME&variant=SPEC]` answers with the
//! line `query --db FILE --json POSITION` prints; `GET /api/svg?p=` its
//! picture (with `&m=MOVE`, the picture after that move, the move marked);
//! `GET /api/play?p=&m=` gives the position after a move; `GET /api/info`
//! lists the games served. Every error is a JSON object with a message and
//! a status: 400 a malformed or illegal position or move (or a request
//! that is not HTTP), 404 a game or variant not served (or an unknown
//! path), 405 a method other than GET, 413 an oversize position, 414 an
//! oversize request target, 431 an oversize header, 500 a corrupted
//! database, 503 a search that ran out of time or found no room.
//!
//! Two lanes: lookups in a database run at once on the threads that read
//! the requests, and never wait behind searches; searches (positions past
//! an opening book, or every position of a game served without a file) run
//! on a fixed pool of lower-priority threads behind a bounded queue
//! ([`pool`]), each stopped when its time is up or its client goes.
//! Connections are bounded in number, time to send a header and idle time
//! ([`net`]).
//!
//! Safe by default: it listens on localhost unless told otherwise, reads
//! only the files given on its command line, and bounds every request.

mod net;
mod pool;

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use axum::body::Body as HttpBody;
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use boardsolve::cli::{EXIT_SUCCESS, MAX_LINE};
use boardsolve_probe::{json, Cancel, Game, Move, Position, ProbeError, Tablebase, MAX_SEARCHERS};

use crate::args::{DbArgs, ServeArgs, SERVE_TABLE_BITS};
use crate::failure::{usage, Failure};
use crate::source::{open_db, open_tablebase};

/// Longest accepted request target (path and query), in bytes.
const MAX_URI: usize = 8192;

/// After Ctrl-C or SIGTERM, the time the answers under way have to finish.
const GRACE: Duration = Duration::from_secs(5);

impl ServeArgs {
    /// Checks the options before anything is opened.
    pub fn check(&self) -> Result<(), String> {
        for (name, value) in [
            ("--time-limit", self.time_limit),
            ("--header-timeout", self.header_timeout),
            ("--idle-timeout", self.idle_timeout),
        ] {
            if !(value > 0.0 && value <= 86_400.0) {
                return Err(format!(
                    "{name} {value}: give more than 0 and at most 86400 seconds"
                ));
            }
        }
        if let Some(n) = self.search_threads {
            if !(1..=MAX_SEARCHERS).contains(&n) {
                return Err(format!("--search-threads {n}: give 1 to {MAX_SEARCHERS}"));
            }
        }
        if self.search_queue > 65_536 {
            return Err(format!(
                "--search-queue {}: give at most 65536",
                self.search_queue
            ));
        }
        let files = open_files_limit();
        if let Some(n) = self.max_connections {
            let most = files.map_or(1 << 20, |f| f.saturating_sub(64).max(1));
            if n == 0 || n > most {
                return Err(format!(
                    "--max-connections {n}: give 1 to {most} (the limit of open files, less \
                     room for the server's own)"
                ));
            }
        }
        if self.max_age > 31_536_000 {
            return Err(format!(
                "--max-age {}: give at most 31536000 seconds (a year)",
                self.max_age
            ));
        }
        for origin in &self.cors {
            if origin != "*" && HeaderValue::from_str(origin).is_err() {
                return Err(format!("--cors {origin:?}: not an origin"));
            }
        }
        Ok(())
    }

    /// The search threads.
    pub fn search_threads(&self) -> usize {
        self.search_threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
    }

    /// Checks that `game`'s search tables of `2^table_bits` entries fit,
    /// one for each search thread.
    pub fn check_tables(&self, game: Game, table_bits: u32) -> Result<(), String> {
        match game.check_search(table_bits, self.search_threads()) {
            Some(Err(e)) => Err(format!("--table-bits {table_bits}: {}: {e}", game.label())),
            _ => Ok(()),
        }
    }

    fn max_connections(&self) -> usize {
        self.max_connections
            .unwrap_or_else(|| open_files_limit().map_or(1024, |f| (f / 2).clamp(1, 1024)))
    }
}

/// The process's limit of open files (its soft limit), if known.
fn open_files_limit() -> Option<usize> {
    #[cfg(unix)]
    {
        let mut limit = libc::rlimit {
            rlim_cur: 0,
            rlim_max: 0,
        };
        // SAFETY: getrlimit writes the struct it is given.
        if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) } == 0
            && limit.rlim_cur != libc::RLIM_INFINITY
        {
            return Some(usize::try_from(limit.rlim_cur).unwrap_or(usize::MAX));
        }
        None
    }
    #[cfg(not(unix))]
    {
        None
    }
}

/// What to serve: a database file, or a game answered by search alone.
pub enum Source {
    /// A database (its game searched past it, if it is an opening book).
    File(PathBuf),
    /// A game with search and no file.
    Search(Game),
    /// A game with the book that comes with the tools, and search past it.
    Shipped(Game),
}

/// One game served.
struct Served {
    /// The database (if any) and its game, with the search past it: made
    /// once, its tables kept from request to request.
    tb: Tablebase,
    /// What the answers' ETags are derived from: the records' checksum, or
    /// the search's version.
    tag: [u8; 16],
}

impl Served {
    /// The game served.
    fn game(&self) -> Game {
        self.tb.game()
    }

    /// True when positions past the book (or every position, without a
    /// file) are searched: the search was made when the server started
    /// ([`open`]).
    fn searched(&self) -> bool {
        self.tb.is_searched()
    }
}

/// What every request sees.
struct App {
    served: Vec<Served>,
    time_limit: Duration,
    searches: pool::Pool,
    /// Cache-Control of answers.
    cache: HeaderValue,
}

/// A JSON response.
fn reply(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "application/json")],
        body + "\n",
    )
        .into_response()
}

/// An error object without an input.
fn error(status: StatusCode, message: &str) -> Response {
    reply(status, json::error(None, message))
}

impl App {
    /// The index of the game a request names (`game`, `variant`), or of
    /// the only one; else the status and message of the refusal.
    fn pick(&self, params: &HashMap<String, String>) -> Result<usize, (StatusCode, String)> {
        let game = params.get("game").map(String::as_str);
        let asked = params.get("variant").map(String::as_str);
        // The game's registry name, and the variant when one is named (by
        // variant=, or by another name of one variant).
        let (name, variant) = match (game, asked) {
            (Some(g), v) => {
                let (name, variant) = Game::canonical(g, v.unwrap_or(""))
                    .map_err(|e| (StatusCode::NOT_FOUND, e.to_string()))?;
                (Some(name), variant)
            }
            (None, Some(_)) => {
                return Err((
                    StatusCode::BAD_REQUEST,
                    "a variant needs its game: give game= too".to_owned(),
                ))
            }
            (None, None) => (None, None),
        };
        let matching: Vec<usize> = (0..self.served.len())
            .filter(|&i| {
                let g = self.served[i].game();
                name.is_none_or(|name| g.name() == name)
                    && variant.as_deref().is_none_or(|v| g.variant() == v)
            })
            .collect();
        match matching.as_slice() {
            [one] => Ok(*one),
            [] => Err((
                StatusCode::NOT_FOUND,
                format!(
                    "not served: {} (see /api/info)",
                    [name.unwrap_or(""), variant.as_deref().unwrap_or("")]
                        .join(" ")
                        .trim()
                ),
            )),
            _ => Err((
                StatusCode::BAD_REQUEST,
                "several games are served: give game= and variant= (see /api/info)".to_owned(),
            )),
        }
    }
}

/// What a position request answers with.
#[derive(Clone, Copy, Debug)]
enum Answer {
    /// The JSON line of `query --json`.
    Json,
    /// The SVG picture of `query --svg`.
    Svg,
    /// The line of perfect play.
    Line,
    /// The position after a move.
    Play,
}

/// An answer made.
enum Body {
    /// A JSON line.
    Json(String),
    /// A picture, if the game has pictures.
    Svg(Option<String>),
    /// The moves of perfect play, as `{"line":[...]}`.
    Line(String),
}

/// The status of a position refused for `e`.
fn status(e: &ProbeError) -> StatusCode {
    match e {
        ProbeError::NotInBook { .. } => StatusCode::NOT_FOUND,
        ProbeError::Stopped | ProbeError::TimedOut => StatusCode::SERVICE_UNAVAILABLE,
        e if e.is_bad_input() => StatusCode::BAD_REQUEST,
        ProbeError::Unreachable { .. } => StatusCode::BAD_REQUEST,
        _ => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

/// Where an answer comes from: the file's lookups alone, or the search.
#[derive(Clone, Copy)]
enum Lane {
    Lookup,
    Search,
}

/// Answers `p` (the request's `input`), on `lane`; a picture marks
/// `last`, the move that led to `p`, when the request gave it.
fn compute(
    s: &Served,
    lane: Lane,
    kind: Answer,
    input: &str,
    p: &Position,
    last: Option<&Move>,
) -> Result<Body, ProbeError> {
    let tb = &s.tb;
    let answer = |p| match lane {
        Lane::Lookup => tb.answer_from_file(p),
        Lane::Search => tb.answer(p),
    };
    Ok(match kind {
        Answer::Json | Answer::Play => Body::Json(json::answer(input, &answer(p)?, None)),
        Answer::Svg => {
            let a = answer(p)?;
            Body::Svg(match last {
                Some(mv) => a.svg_after(mv),
                None => a.svg(),
            })
        }
        Answer::Line => Body::Line(json::line(&match lane {
            Lane::Lookup => tb.line_from_file(p)?,
            Lane::Search => tb.line(p)?,
        })),
    })
}

/// The ETag of an answer: the served game's tag, what is asked and the
/// request's parameters that say it.
fn etag(s: &Served, kind: Answer, params: &HashMap<String, String>) -> HeaderValue {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(&s.tag);
    h.update(&[kind as u8]);
    for key in ["p", "m"] {
        h.update(&[0xff]);
        if let Some(v) = params.get(key) {
            h.update(v.as_bytes());
        }
    }
    let g = s.game();
    h.update(&[0xff]);
    h.update(g.name().as_bytes());
    h.update(&[0xff]);
    h.update(g.variant().as_bytes());
    HeaderValue::from_str(&format!("\"{:016x}\"", h.digest())).expect("hex is a header value")
}

/// True when `If-None-Match` names `tag` (or `*`).
fn not_modified(headers: &HeaderMap, tag: &HeaderValue) -> bool {
    let tag = tag.as_bytes();
    headers
        .get_all(header::IF_NONE_MATCH)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(str::trim)
        .any(|t| t == "*" || t.strip_prefix("W/").unwrap_or(t).as_bytes() == tag)
}

/// 304 for an answer the client holds.
fn unchanged(tag: HeaderValue, cache: &HeaderValue) -> Response {
    (
        StatusCode::NOT_MODIFIED,
        [(header::ETAG, tag), (header::CACHE_CONTROL, cache.clone())],
    )
        .into_response()
}

async fn position(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    answer(app, headers, params, Answer::Json).await
}

async fn line(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    answer(app, headers, params, Answer::Line).await
}

async fn svg(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    answer(app, headers, params, Answer::Svg).await
}

/// Answers a position request: from the database at once when it can,
/// else by a search on the pool, within the time limit.
async fn answer(
    app: Arc<App>,
    headers: HeaderMap,
    params: HashMap<String, String>,
    kind: Answer,
) -> Response {
    let Some(p) = params.get("p").cloned() else {
        return error(StatusCode::BAD_REQUEST, "no position: give p=POSITION");
    };
    // A picture may be asked as the position after a move of `p` (`m`),
    // that move marked on it.
    let last = match kind {
        Answer::Svg => params.get("m"),
        _ => None,
    };
    if p.len() + last.map_or(0, String::len) > MAX_LINE {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("position is longer than {MAX_LINE} bytes"),
        );
    }
    let index = match app.pick(&params) {
        Ok(i) => i,
        Err((status, message)) => return error(status, &message),
    };
    let served = &app.served[index];
    let tag = etag(served, kind, &params);
    // Parsed once, whichever lane answers. A conditional request is
    // answered 304 only for a request that would be answered 200: a
    // malformed or illegal position (or move) gets its error.
    let parsed = served.tb.parse(&p).and_then(|before| match last {
        Some(m) => {
            let mv = before.parse_move(m)?;
            Ok((before.play(&mv)?, Some(mv)))
        }
        None => Ok((before, None)),
    });
    let (position, last) = match parsed {
        Ok(parsed) => parsed,
        Err(e) => return respond(&app, Err(e), &p, tag),
    };
    // The lookup lane: the database alone, now (and cheap enough to make
    // before a 304, which then vouches for the position too).
    if served.tb.has_file() {
        match compute(served, Lane::Lookup, kind, &p, &position, last.as_ref()) {
            Err(ProbeError::NotInBook { .. }) if served.searched() => {}
            Ok(ref body) if !matches!(body, Body::Svg(None)) && not_modified(&headers, &tag) => {
                return unchanged(tag, &app.cache)
            }
            done => return respond(&app, done, &p, tag),
        }
    }
    // The search lane: a position past the book, well-formed; a client
    // that holds its answer is not made to wait for a search.
    if not_modified(&headers, &tag) {
        return unchanged(tag, &app.cache);
    }
    // The search lane.
    let limit = app.time_limit;
    let out_of_time = || {
        error(
            StatusCode::SERVICE_UNAVAILABLE,
            &format!(
                "the search timed out: no answer within the time limit of {} s",
                limit.as_secs_f64()
            ),
        )
    };
    let deadline = Instant::now() + limit;
    let worker = Arc::clone(&app);
    let input = p.clone();
    let queued = app.searches.submit(deadline, move |cancel: &Cancel| {
        let s = &worker.served[index];
        cancel.run(|| compute(s, Lane::Search, kind, &input, &position, last.as_ref()))
    });
    let mut pending = match queued {
        Ok(p) => p,
        Err(pool::Full) => {
            let mut r = error(
                StatusCode::SERVICE_UNAVAILABLE,
                &format!(
                    "busy: all {} search threads are taken and the queue is full; try again",
                    app.searches.threads()
                ),
            );
            r.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
            return r;
        }
    };
    let deadline = tokio::time::Instant::from_std(deadline);
    match tokio::time::timeout_at(deadline, pending.answer()).await {
        Err(_) | Ok(Some(Err(ProbeError::Stopped | ProbeError::TimedOut))) => out_of_time(),
        Ok(None) if tokio::time::Instant::now() >= deadline => out_of_time(),
        Ok(None) => error(StatusCode::INTERNAL_SERVER_ERROR, "the search failed"),
        Ok(Some(done)) => respond(&app, done, &p, tag),
    }
}

/// The response of an answer made, or refused.
fn respond(app: &App, done: Result<Body, ProbeError>, p: &str, tag: HeaderValue) -> Response {
    let mut r = match done {
        Ok(Body::Json(line)) => reply(StatusCode::OK, line),
        Ok(Body::Svg(Some(picture))) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "image/svg+xml")],
            picture,
        )
            .into_response(),
        Ok(Body::Line(body)) => reply(StatusCode::OK, body),
        Ok(Body::Svg(None)) => return error(StatusCode::NOT_FOUND, "this game has no picture"),
        Err(e) => return reply(status(&e), json::error(Some(p), &e.to_string())),
    };
    let h = r.headers_mut();
    h.insert(header::ETAG, tag);
    h.insert(header::CACHE_CONTROL, app.cache.clone());
    r
}

/// `GET /api/play?p=POSITION&m=MOVE`: the position after the move, as
/// `{"position": TEXT}` (the text carries the side to move and the score
/// where the game keeps them out of the board).
async fn play(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    let (Some(p), Some(m)) = (params.get("p"), params.get("m")) else {
        return error(StatusCode::BAD_REQUEST, "give p=POSITION and m=MOVE");
    };
    if p.len() + m.len() > MAX_LINE {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("position is longer than {MAX_LINE} bytes"),
        );
    }
    let index = match app.pick(&params) {
        Ok(i) => i,
        Err((status, message)) => return error(status, &message),
    };
    let served = &app.served[index];
    let tag = etag(served, Answer::Play, &params);
    let played = served.tb.parse(p).and_then(|p| p.play_text(m));
    match played {
        // Conditional only once the move is known to be legal.
        Ok(_) if not_modified(&headers, &tag) => unchanged(tag, &app.cache),
        Ok(next) => {
            let mut r = reply(StatusCode::OK, json::played(&next.text()));
            r.headers_mut().insert(header::ETAG, tag);
            r.headers_mut()
                .insert(header::CACHE_CONTROL, app.cache.clone());
            r
        }
        Err(e) => reply(
            StatusCode::BAD_REQUEST,
            json::error(Some(p), &e.to_string()),
        ),
    }
}

async fn info(State(app): State<Arc<App>>) -> Response {
    let mut body = String::from("{\"databases\":[");
    for (i, s) in app.served.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        body.push_str(&s.tb.served_json());
    }
    body.push_str("]}");
    let mut r = reply(StatusCode::OK, body);
    r.headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    r
}

/// The explorer page (one file, no external resources).
const PAGE: &str = include_str!("../explorer.html");

async fn page(headers: HeaderMap) -> Response {
    static TAG: std::sync::LazyLock<HeaderValue> = std::sync::LazyLock::new(|| {
        HeaderValue::from_str(&format!(
            "\"{:016x}\"",
            xxhash_rust::xxh3::xxh3_64(PAGE.as_bytes())
        ))
        .expect("hex is a header value")
    });
    let tag = TAG.clone();
    let no_cache = HeaderValue::from_static("no-cache");
    if not_modified(&headers, &tag) {
        return unchanged(tag, &no_cache);
    }
    (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/html; charset=utf-8"),
            ),
            (header::ETAG, tag),
            (header::CACHE_CONTROL, no_cache),
        ],
        PAGE,
    )
        .into_response()
}

async fn not_found(request: Request) -> Response {
    error(
        StatusCode::NOT_FOUND,
        &format!("no such path: {} (try /api/info)", request.uri().path()),
    )
}

/// Refuses a request target over [`MAX_URI`] bytes with 414.
async fn bounded_target(request: Request, next: Next) -> Response {
    let len = request
        .uri()
        .path_and_query()
        .map_or(0, |pq| pq.as_str().len());
    if len > MAX_URI {
        return error(
            StatusCode::URI_TOO_LONG,
            &format!("request target longer than {MAX_URI} bytes"),
        );
    }
    next.run(request).await
}

/// Every error answer a JSON object, and none cached: those the router
/// makes itself (405, a query string it cannot read) get one in place of
/// their text.
async fn json_errors(mut response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    response
        .headers_mut()
        .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    let is_json = response
        .headers()
        .get(header::CONTENT_TYPE)
        .is_some_and(|t| t.as_bytes().starts_with(b"application/json"));
    if is_json {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let reason = status.canonical_reason().unwrap_or("error").to_lowercase();
    let message = match text.trim() {
        "" => reason,
        t => format!("{reason}: {t}"),
    };
    let body = json::error(None, &message) + "\n";
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    parts.headers.remove(header::CONTENT_LENGTH);
    Response::from_parts(parts, HttpBody::from(body))
}

/// The CORS layer of `--cors`.
fn cors(origins: &[String]) -> tower_http::cors::CorsLayer {
    use tower_http::cors::{AllowOrigin, CorsLayer};
    let allow = if origins.iter().any(|o| o == "*") {
        AllowOrigin::any()
    } else {
        AllowOrigin::list(origins.iter().filter_map(|o| HeaderValue::from_str(o).ok()))
    };
    CorsLayer::new()
        .allow_origin(allow)
        .allow_methods([axum::http::Method::GET, axum::http::Method::HEAD])
        .allow_headers([header::IF_NONE_MATCH])
        .expose_headers([header::ETAG])
        .max_age(Duration::from_secs(86_400))
}

/// Opens what `sources` name and sets up their searches.
fn open(
    sources: Vec<Source>,
    args: &ServeArgs,
    table_bits: u32,
    cache_bytes: usize,
) -> Result<Vec<Served>> {
    let threads = args.search_threads();
    let mut served: Vec<Served> = Vec::new();
    for source in sources {
        let (tb, name) = match source {
            Source::File(path) => {
                let tb = open_tablebase(&path)?.with_cache_limit(cache_bytes);
                // A server answers many lookups: the small index makes each
                // several times faster.
                tb.build_index();
                (tb, path.display().to_string())
            }
            Source::Search(game) => {
                let name = format!("{} (search)", game.label());
                (Tablebase::without_file(game)?, name)
            }
            Source::Shipped(game) => {
                let tb = Tablebase::for_game(game)?;
                let name = match tb.shipped() {
                    Some(book) => book.name.to_owned(),
                    None => format!("{} (search)", tb.game().label()),
                };
                (tb, name)
            }
        };
        let game = tb.game();
        if served.iter().any(|s| s.game() == game) {
            anyhow::bail!("{name}: {} is served twice", game.label());
        }
        let tag = match tb.records_checksum() {
            Some(sum) => sum.to_le_bytes(),
            None => xxhash_rust::xxh3::xxh3_128(
                format!("search {} {}", game.label(), env!("CARGO_PKG_VERSION")).as_bytes(),
            )
            .to_le_bytes(),
        };
        let tb = match tb.is_searched() {
            true => tb
                .with_searchers(table_bits, threads)
                .with_context(|| format!("{name}: setting up the search"))?,
            false => tb,
        };
        served.push(Served { tb, tag });
    }
    Ok(served)
}

/// `query serve`: serves what the flags name (each `--db FILE`, or what
/// `query` would answer from) until Ctrl-C or SIGTERM.
pub fn run(db_args: &DbArgs, args: &ServeArgs) -> Result<u8, Failure> {
    if db_args.json {
        return Err(usage(
            "--json does not apply to serve, whose answers are JSON",
        ));
    }
    args.check().map_err(|e| usage(&e))?;
    if db_args.threads.is_some() {
        return Err(usage(
            "--threads does not apply to serve: its searches run on --search-threads threads, one answer on those idle",
        ));
    }
    if db_args.no_book && !db_args.db.is_empty() {
        return Err(usage(
            "--no-book does not apply to serve with --db: serve a game by search alone with --game and --variant",
        ));
    }
    let (sources, searched) = if db_args.db.is_empty() {
        // The default file of --game and --variant, or search alone for a
        // game that has it, as `query` answers.
        let source = crate::source::Source::open(db_args)?;
        let game = source.game();
        let searched = match source.tb().is_searched() {
            true => vec![game],
            false => Vec::new(),
        };
        match (source.shipped(), source.tb().has_file()) {
            (true, _) => (vec![Source::Shipped(game)], searched),
            (false, true) => (vec![Source::File(PathBuf::from(&source.path))], searched),
            (false, false) => (vec![Source::Search(game)], searched),
        }
    } else {
        if db_args.game.is_some() || db_args.variant.is_some() {
            return Err(usage(
                "--game and --variant do not apply to serve with --db: the files say their games",
            ));
        }
        let mut searched = Vec::new();
        for path in &db_args.db {
            let tb = open_db(path)?;
            if tb.is_searched() {
                searched.push(tb.game());
            }
        }
        (
            db_args.db.iter().cloned().map(Source::File).collect(),
            searched,
        )
    };
    // Search tables the machine cannot hold are refused before anything
    // is allocated: one for each search thread.
    let table_bits = db_args.table_bits.unwrap_or(SERVE_TABLE_BITS);
    for &game in &searched {
        args.check_tables(game, table_bits).map_err(|e| usage(&e))?;
    }
    if searched.len() > 1 {
        boardsolve_probe::check_searches(&searched, table_bits, args.search_threads()).map_err(
            |e| {
                let games: Vec<String> = searched.iter().map(|g| g.label()).collect();
                usage(&format!(
                    "--table-bits {table_bits}: {} together: {e}",
                    games.join(", ")
                ))
            },
        )?;
    }
    listen(sources, args, table_bits, db_args.cache_bytes())?;
    Ok(EXIT_SUCCESS)
}

/// Serves `sources` until Ctrl-C or SIGTERM, searching with tables of
/// `2^table_bits` entries.
pub fn listen(
    sources: Vec<Source>,
    args: &ServeArgs,
    table_bits: u32,
    cache_bytes: usize,
) -> Result<()> {
    let served = open(sources, args, table_bits, cache_bytes)?;
    // Deep recursions of the searches: room to spare.
    let searches = pool::Pool::new(args.search_threads(), args.search_queue, 16 << 20)
        .context("starting the search threads")?;
    let app = Arc::new(App {
        served,
        time_limit: Duration::from_secs_f64(args.time_limit),
        searches,
        cache: HeaderValue::from_str(&format!("public, max-age={}", args.max_age))
            .expect("digits are a header value"),
    });
    let mut router = Router::new()
        .route("/", get(page))
        .route("/api/position", get(position))
        .route("/api/info", get(info))
        .route("/api/play", get(play))
        .route("/api/svg", get(svg))
        .route("/api/line", get(line))
        .fallback(not_found)
        .with_state(Arc::clone(&app))
        .layer(middleware::from_fn(bounded_target))
        .layer(middleware::map_response(json_errors));
    if !args.cors.is_empty() {
        router = router.layer(cors(&args.cors));
    }
    let limits = net::Limits {
        header: Duration::from_secs_f64(args.header_timeout),
        idle: Duration::from_secs_f64(args.idle_timeout),
        connections: args.max_connections(),
        grace: GRACE,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the server")?;
    let served = runtime.block_on(async {
        // Caught before the address is printed: a client told of the
        // server may stop it at once.
        let stop = net::stop_signal().context("catching Ctrl-C and SIGTERM")?;
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("listening on {}", args.addr))?;
        let addr = listener.local_addr().context("listening")?;
        crate::failure::emit(&format!("listening on http://{addr}\n")).map_err(|f| f.error)?;
        net::serve(listener, router, limits, stop, || app.searches.cancel_all())
            .await
            .context("serving")
    });
    // The connections left after the grace are dropped, not waited for.
    runtime.shutdown_timeout(Duration::from_millis(100));
    served
}
