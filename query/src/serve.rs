//! `query serve`: the databases over HTTP, for programs and pages.
//!
//! `GET /` is the explorer, a page (embedded in the binary) that draws a
//! position, colours every move by its value, and plays a move on a click.
//! `GET /api/position?p=POSITION[&game=NAME&variant=SPEC]` answers with the
//! line `query --db FILE --json POSITION` prints; `GET /api/play?p=&m=`
//! gives the position after a move; `GET /api/info` lists the databases
//! served. Every error is a JSON object with a message and a
//! status: 400 a malformed or illegal position, 404 a game or variant not
//! served (or an unknown path), 413 an oversize request, 500 a corrupted
//! database, 503 a search that ran out of time.
//!
//! Safe by default: it listens on localhost unless told otherwise, reads
//! only the files given on its command line, bounds request size, and puts
//! a time limit on every answer; a pool of blocking threads answers many
//! clients at once.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use axum::extract::{Query, State};
use axum::http::{header, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Router;
use boardsolve::analysis::json;
use boardsolve::registry::AnyGame;
use boardsolve_probe::{ProbeError, Tablebase};
use clap::Args;
use tokio::sync::Semaphore;

/// Longest accepted request target (path and query), in bytes.
const MAX_URI: usize = 8192;

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// Address to listen on (a port of 0 picks a free one; the address is
    /// printed on stdout). Listening beyond localhost must be asked for.
    #[arg(long, default_value = "127.0.0.1:7878")]
    addr: SocketAddr,

    /// Time limit of one answer, in seconds (a search past an opening book
    /// can take long); past it the answer is status 503.
    #[arg(long, value_name = "SECONDS", default_value_t = 10.0)]
    time_limit: f64,

    /// `log2` of the entries of each live search's transposition table
    /// (8 bytes each), for positions past an opening book.
    #[arg(long, value_name = "BITS", default_value_t = 22)]
    table_bits: u32,
}

impl ServeArgs {
    /// Checks the options before anything is opened.
    pub fn check(&self) -> Result<(), String> {
        if !(self.time_limit > 0.0 && self.time_limit <= 86_400.0) {
            return Err(format!(
                "--time-limit {}: give more than 0 and at most 86400 seconds",
                self.time_limit
            ));
        }
        Ok(())
    }
}

/// One database served.
struct Served {
    tb: Tablebase,
}

/// What every request sees.
struct App {
    served: Vec<Served>,
    time_limit: Duration,
    /// Answers under way at once: a bound on the blocking threads.
    busy: Semaphore,
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
    let mut body = String::from("{\"error\":");
    json::string(&mut body, message);
    body.push('}');
    reply(status, body)
}

impl App {
    /// The index of the database a request names (`game`, `variant`), or
    /// of the only one; else the status and message of the refusal.
    fn pick(&self, params: &HashMap<String, String>) -> Result<usize, (StatusCode, String)> {
        let game = params.get("game").map(String::as_str);
        let variant = match (game, params.get("variant")) {
            (Some(g), Some(v)) => Some(
                AnyGame::new(g, v)
                    .map_err(|e| (StatusCode::NOT_FOUND, e.to_string()))?
                    .game()
                    .descriptor()
                    .variant
                    .clone(),
            ),
            (None, Some(_)) => {
                return Err((
                    StatusCode::BAD_REQUEST,
                    "a variant needs its game: give game= too".to_owned(),
                ))
            }
            _ => None,
        };
        let matching: Vec<usize> = (0..self.served.len())
            .filter(|&i| {
                let tb = &self.served[i].tb;
                game.is_none_or(|g| tb.game() == g)
                    && variant.as_deref().is_none_or(|v| tb.variant() == v)
            })
            .collect();
        match matching.as_slice() {
            [one] => Ok(*one),
            [] => Err((
                StatusCode::NOT_FOUND,
                format!(
                    "not served: {} (see /api/info)",
                    [game.unwrap_or(""), variant.as_deref().unwrap_or("")]
                        .join(" ")
                        .trim()
                ),
            )),
            _ => Err((
                StatusCode::BAD_REQUEST,
                "several databases are served: give game= and variant= (see /api/info)".to_owned(),
            )),
        }
    }
}

/// What a position request answers with.
#[derive(Clone, Copy)]
enum Answer {
    /// The JSON line of `query --json`.
    Json,
    /// The SVG picture of `query --svg`.
    Svg,
    /// The line of perfect play.
    Line,
}

async fn position(
    State(app): State<Arc<App>>,
    uri: Uri,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    answer(app, uri, params, Answer::Json).await
}

async fn line(
    State(app): State<Arc<App>>,
    uri: Uri,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    answer(app, uri, params, Answer::Line).await
}

async fn svg(
    State(app): State<Arc<App>>,
    uri: Uri,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    answer(app, uri, params, Answer::Svg).await
}

/// An answer made.
enum Body {
    /// A JSON line.
    Json(String),
    /// A picture, if the game has pictures.
    Svg(Option<String>),
    /// The moves of perfect play.
    Line(Vec<String>),
}

/// Answers a position request, within the time limit.
async fn answer(
    app: Arc<App>,
    uri: Uri,
    params: HashMap<String, String>,
    kind: Answer,
) -> Response {
    if uri.to_string().len() > MAX_URI {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request longer than 8192 bytes",
        );
    }
    let Some(p) = params.get("p").cloned() else {
        return error(StatusCode::BAD_REQUEST, "no position: give p=POSITION");
    };
    if p.len() > crate::lines::MAX_LINE {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("position is longer than {} bytes", crate::lines::MAX_LINE),
        );
    }
    let index = match app.pick(&params) {
        Ok(i) => i,
        Err((status, message)) => return error(status, &message),
    };
    let limit = app.time_limit;
    let out_of_time = || {
        error(
            StatusCode::SERVICE_UNAVAILABLE,
            &format!(
                "no answer within the time limit of {} s",
                limit.as_secs_f64()
            ),
        )
    };
    let work = async {
        let Ok(_permit) = app.busy.acquire().await else {
            return Err(error(StatusCode::SERVICE_UNAVAILABLE, "shutting down"));
        };
        let worker = Arc::clone(&app);
        let input = p.clone();
        tokio::task::spawn_blocking(move || {
            let tb = &worker.served[index].tb;
            match kind {
                Answer::Json => tb.probe_json_checked(&input).map(Body::Json),
                Answer::Svg => tb.svg(&input).map(Body::Svg),
                Answer::Line => tb.line(&input).map(Body::Line),
            }
        })
        .await
        .map_err(|_| error(StatusCode::INTERNAL_SERVER_ERROR, "the answer failed"))
    };
    match tokio::time::timeout(limit, work).await {
        Err(_) => out_of_time(),
        Ok(Err(r)) => r,
        Ok(Ok(Ok(Body::Json(line)))) => reply(StatusCode::OK, line),
        Ok(Ok(Ok(Body::Svg(Some(picture))))) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "image/svg+xml")],
            picture,
        )
            .into_response(),
        Ok(Ok(Ok(Body::Line(moves)))) => {
            let mut body = String::from("{\"line\":[");
            for (i, m) in moves.iter().enumerate() {
                if i > 0 {
                    body.push(',');
                }
                json::string(&mut body, m);
            }
            body.push_str("]}");
            reply(StatusCode::OK, body)
        }
        Ok(Ok(Ok(Body::Svg(None)))) => error(StatusCode::NOT_FOUND, "this game has no picture"),
        Ok(Ok(Err(e))) => {
            let status = match &e {
                ProbeError::Position(_) | ProbeError::Unreachable { .. } => StatusCode::BAD_REQUEST,
                ProbeError::NotInBook { .. } => StatusCode::NOT_FOUND,
                ProbeError::Corrupt { .. } | ProbeError::Open { .. } => {
                    StatusCode::INTERNAL_SERVER_ERROR
                }
                ProbeError::Search(_) => StatusCode::SERVICE_UNAVAILABLE,
            };
            reply(status, json::error(&p, &e.to_string()))
        }
    }
}

/// `GET /api/play?p=POSITION&m=MOVE`: the position after the move, as
/// `{"position": TEXT}` (the text carries the side to move and the score
/// where the game keeps them out of the board).
async fn play(
    State(app): State<Arc<App>>,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    let (Some(p), Some(m)) = (params.get("p"), params.get("m")) else {
        return error(StatusCode::BAD_REQUEST, "give p=POSITION and m=MOVE");
    };
    if p.len() + m.len() > crate::lines::MAX_LINE {
        return error(
            StatusCode::PAYLOAD_TOO_LARGE,
            &format!("position is longer than {} bytes", crate::lines::MAX_LINE),
        );
    }
    let index = match app.pick(&params) {
        Ok(i) => i,
        Err((status, message)) => return error(status, &message),
    };
    match app.served[index].tb.play(p, m) {
        Ok(next) => {
            let mut body = String::from("{\"position\":");
            json::string(&mut body, &next);
            body.push('}');
            reply(StatusCode::OK, body)
        }
        Err(e) => reply(StatusCode::BAD_REQUEST, json::error(p, &e.to_string())),
    }
}

async fn info(State(app): State<Arc<App>>) -> Response {
    let mut body = String::from("{\"databases\":[");
    for (i, s) in app.served.iter().enumerate() {
        if i > 0 {
            body.push(',');
        }
        body.push_str("{\"game\":");
        json::string(&mut body, s.tb.game());
        body.push_str(",\"variant\":");
        json::string(&mut body, s.tb.variant());
        body.push_str(&format!(
            ",\"records\":{},\"complete\":{},\"searched_past_the_book\":{}}}",
            s.tb.len(),
            s.tb.is_complete(),
            s.tb.has_book()
        ));
    }
    body.push_str("]}");
    reply(StatusCode::OK, body)
}

/// The explorer page (one file, no external resources).
const PAGE: &str = include_str!("explorer.html");

async fn page() -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        PAGE,
    )
        .into_response()
}

async fn not_found(uri: Uri) -> Response {
    error(
        StatusCode::NOT_FOUND,
        &format!("no such path: {} (try /api/info)", uri.path()),
    )
}

/// Serves `files` until interrupted.
pub fn run(files: &[PathBuf], args: &ServeArgs) -> Result<()> {
    let mut served = Vec::new();
    for path in files {
        let tb = Tablebase::open(path)?;
        let tb = if tb.has_book() {
            tb.with_search(args.table_bits)?
        } else {
            tb
        };
        if served
            .iter()
            .any(|s: &Served| s.tb.game() == tb.game() && s.tb.variant() == tb.variant())
        {
            anyhow::bail!(
                "{}: {} {} is served twice",
                path.display(),
                tb.game(),
                tb.variant()
            );
        }
        served.push(Served { tb });
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let app = Arc::new(App {
        served,
        time_limit: Duration::from_secs_f64(args.time_limit),
        busy: Semaphore::new(4 * cores),
    });
    let router = Router::new()
        .route("/", get(page))
        .route("/api/position", get(position))
        .route("/api/info", get(info))
        .route("/api/play", get(play))
        .route("/api/svg", get(svg))
        .route("/api/line", get(line))
        .fallback(not_found)
        .with_state(app);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("starting the server")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(args.addr)
            .await
            .with_context(|| format!("listening on {}", args.addr))?;
        let addr = listener.local_addr().context("listening")?;
        crate::emit(&format!("listening on http://{addr}\n")).map_err(|f| f.error)?;
        axum::serve(listener, router)
            .with_graceful_shutdown(async {
                let _ = tokio::signal::ctrl_c().await;
            })
            .await
            .context("serving")
    })
}
