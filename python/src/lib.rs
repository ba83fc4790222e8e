//! The native half of the `boardsolve` Python package: a database opened
//! through the probe crate, answering with the objects `json.loads` makes of
//! the lines of `query --json` (built from the typed answers, no text in
//! between: [`objects`]), the lines themselves, and `int32` buffers for
//! value-only batches (the Python half views them as NumPy arrays).
//!
//! Every call that may take long (a batch, `verify`, a search) runs on a
//! thread of its own without the interpreter lock, while the calling thread
//! waits for it and looks for signals every [`TICK`]: Ctrl-C raises
//! `KeyboardInterrupt` at once and stops the work (searches through their
//! [`Cancel`], batches between two chunks of positions). A batch goes by
//! stretches of [`STRETCH`] positions, taken from the list and turned into
//! Python objects one at a time, so that its memory besides the answers
//! stays bounded and other Python threads run between two stretches.

mod objects;
mod reserve;

use objects::fallible;

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use boardsolve_probe::json::{self, AnswerFields, ErrorFields};
use boardsolve_probe::whole::Progress;
use boardsolve_probe::{
    default_searchers, Answer, Cancel, ErrorKind, Game, ProbeError, Tablebase, MAX_POSITION, QUOTED,
};
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyFileNotFoundError, PyMemoryError, PyTypeError};
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyByteArray, PyList, PyString, PyTuple, PyType};
use rayon::prelude::*;

#[global_allocator]
static ALLOCATOR: reserve::WithReserve = reserve::WithReserve;

create_exception!(
    _boardsolve,
    Error,
    PyException,
    "Base class of every boardsolve error."
);
create_exception!(
    _boardsolve,
    DatabaseError,
    Error,
    "The file is missing, not a database, damaged, forged, or of a game this build does not know."
);
create_exception!(
    _boardsolve,
    CorruptDatabase,
    DatabaseError,
    "The database contradicts itself, holds a value the game rules out, or changed or lost bytes while open."
);
create_exception!(
    _boardsolve,
    PositionError,
    Error,
    "The position is malformed, too long or illegal in the database's game."
);
create_exception!(
    _boardsolve,
    Unreachable,
    PositionError,
    "The position cannot arise from the start of the game."
);
create_exception!(
    _boardsolve,
    NotInBook,
    Error,
    "The position, or one after a move from it, lies past the opening book."
);

/// `MissingDatabase`, a `DatabaseError` and a `FileNotFoundError` both:
/// made when the module loads (a class of two bases).
static MISSING: PyOnceLock<Py<PyType>> = PyOnceLock::new();

/// The exception of a missing file.
fn missing(py: Python<'_>, message: String) -> PyErr {
    match MISSING.get(py) {
        Some(class) => PyErr::from_type(class.bind(py).clone(), message),
        None => DatabaseError::new_err(message),
    }
}

/// The Python exception for a probe error.
fn to_py(py: Python<'_>, e: ProbeError) -> PyErr {
    let message = e.to_string();
    match e.kind() {
        ErrorKind::MissingFile => missing(py, message),
        ErrorKind::DamagedFile | ErrorKind::Corrupt => CorruptDatabase::new_err(message),
        ErrorKind::UnusableFile => DatabaseError::new_err(message),
        ErrorKind::MalformedPosition
        | ErrorKind::IllegalPosition
        | ErrorKind::MalformedMove
        | ErrorKind::IllegalMove => PositionError::new_err(message),
        ErrorKind::Unreachable => Unreachable::new_err(message),
        ErrorKind::NotInBook => NotInBook::new_err(message),
        _ => Error::new_err(message),
    }
}

/// How often a thread waiting for work looks for signals.
const TICK: Duration = Duration::from_millis(20);

/// Positions per parallel work item of a batch.
const CHUNK: usize = 256;

/// Positions a batch hands to its worker at a time: the unit of memory
/// besides the answers.
const STRETCH: usize = 4096;

/// The longest this thread holds the interpreter lock while it turns
/// answers into objects: then other threads may run, and signals are
/// looked at (CPython's own switch interval).
const SLICE: Duration = Duration::from_millis(5);

/// Lets other Python threads run, and signals be raised, while this thread
/// makes many objects: every [`SLICE`], the lock is released and taken
/// again, and the signals are checked.
struct Pacer {
    since: std::time::Instant,
    count: u32,
}

impl Pacer {
    fn new() -> Pacer {
        Pacer {
            since: std::time::Instant::now(),
            count: 0,
        }
    }

    /// One object made.
    #[inline]
    fn step(&mut self, py: Python<'_>) -> PyResult<()> {
        self.count += 1;
        if self.count.is_multiple_of(64) && self.since.elapsed() >= SLICE {
            py.detach(|| ());
            py.check_signals()?;
            self.since = std::time::Instant::now();
        }
        Ok(())
    }
}

/// A position as the caller gave it, or the first characters of one longer
/// than [`MAX_POSITION`] bytes (which is not copied).
enum Input {
    Text(String),
    TooLong(String),
}

impl Input {
    /// The position in `item`: a `str`, or a `TypeError`.
    fn from_py(item: &Bound<'_, PyAny>) -> PyResult<Input> {
        let text = item.cast::<PyString>().map_err(|_| {
            PyTypeError::new_err(format!(
                "a position is a str, not {}",
                item.get_type()
                    .name()
                    .map_or_else(|_| "something else".to_owned(), |n| n.to_string())
            ))
        })?;
        // Characters first: a string of more than MAX_POSITION of them is
        // too long, whatever its bytes, and is not copied.
        if text.len()? > MAX_POSITION {
            let head = fallible::substring(text, 0, QUOTED)?;
            return Ok(Input::TooLong(head.to_cow()?.into_owned()));
        }
        let text = text.to_cow()?;
        if text.len() > MAX_POSITION {
            return Ok(Input::TooLong(text.chars().take(QUOTED).collect()));
        }
        Ok(Input::Text(text.into_owned()))
    }

    /// The position's text, or the error of one too long.
    fn text(&self) -> Result<&str, ProbeError> {
        match self {
            Input::Text(t) => Ok(t),
            Input::TooLong(head) => Err(boardsolve_probe::too_long(head)),
        }
    }
}

/// One position of a batch answered, or refused, with its input.
enum Reply {
    Answer(String, Answer),
    Refused(String, String),
}

impl Reply {
    /// The object of the reply: the answer's dict, or `{"input", "error"}`.
    fn object<'py>(&self, b: &mut objects::Builder<'py>) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Reply::Answer(input, a) => b.build(&AnswerFields::new(input, a, None)),
            Reply::Refused(input, message) => b.build(&ErrorFields::new(Some(input), message)),
        }
    }

    /// The replies to `inputs`, in order, as `query --json -` answers its
    /// lines: their lookups made together ([`Tablebase::probe_many`]).
    fn all(tb: &Tablebase, inputs: Vec<Input>) -> Vec<Reply> {
        let texts: Vec<&str> = inputs
            .iter()
            .filter_map(|i| match i {
                Input::Text(t) => Some(t.as_str()),
                Input::TooLong(_) => None,
            })
            .collect();
        let mut answers = tb.probe_many(texts).into_iter();
        inputs
            .into_iter()
            .map(|i| match i {
                // One answer per text, in order.
                Input::Text(t) => match answers.next() {
                    Some(Ok(a)) => Reply::Answer(t, a),
                    Some(Err(e)) => Reply::Refused(t, e.to_string()),
                    None => Reply::Refused(t, "no answer".into()),
                },
                Input::TooLong(head) => Reply::Refused(
                    head,
                    format!("input line is longer than {MAX_POSITION} bytes"),
                ),
            })
            .collect()
    }
}

/// Stops long library work (`verify`) when the call's [`Cancel`] is set.
struct Stop(Cancel);

impl Progress for Stop {
    fn cancelled(&self) -> bool {
        self.0.is_cancelled()
    }
}

/// The exception of a panic in the work (a bug: said as such, never a
/// `PanicException`).
fn internal(panic: Box<dyn Any + Send>) -> PyErr {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    Error::new_err(format!("internal error: {what}"))
}

/// Starts `work` on a thread of its own: `Error` when the system refuses
/// a thread (`MemoryError` when it lacks the memory).
fn spawn(work: impl FnOnce() + Send + 'static) -> PyResult<()> {
    std::thread::Builder::new()
        .name("boardsolve".into())
        .spawn(work)
        .map(drop)
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::OutOfMemory | std::io::ErrorKind::WouldBlock => {
                PyMemoryError::new_err(format!("cannot start a thread: {e}"))
            }
            _ => Error::new_err(format!("cannot start a thread: {e}")),
        })
}

/// What a worker hands back: its result, or the panic it met.
type Outcome<T> = std::thread::Result<T>;

/// Waits, without the interpreter lock, for what the worker sends on
/// `rx`, looking for signals every [`TICK`]: a signal's exception (as
/// `KeyboardInterrupt`) sets `cancel` and is raised at once.
fn wait<T: Send>(py: Python<'_>, cancel: &Cancel, rx: &Mutex<Receiver<Outcome<T>>>) -> PyResult<T> {
    loop {
        let got = py.detach(|| match rx.lock() {
            Ok(rx) => rx.recv_timeout(TICK),
            Err(_) => Err(RecvTimeoutError::Disconnected),
        });
        match got {
            Ok(Ok(value)) => return Ok(value),
            Ok(Err(panic)) => return Err(internal(panic)),
            Err(RecvTimeoutError::Timeout) => {
                if let Err(e) = py.check_signals() {
                    cancel.cancel();
                    return Err(e);
                }
            }
            Err(RecvTimeoutError::Disconnected) => {
                return Err(Error::new_err(
                    "internal error: the worker ended without an answer",
                ))
            }
        }
    }
}

/// Runs `work` on a thread of its own, inside its [`Cancel`], and waits for
/// it (see [`wait`]).
fn detached<T: Send + 'static>(
    py: Python<'_>,
    work: impl FnOnce(&Cancel) -> T + Send + 'static,
) -> PyResult<T> {
    let cancel = Cancel::new();
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let theirs = cancel.clone();
    spawn(move || {
        let out = catch_unwind(AssertUnwindSafe(|| theirs.run(|| work(&theirs))));
        let _ = tx.send(out);
    })?;
    wait(py, &cancel, &Mutex::new(rx))
}

/// Answers `positions` (a list) stretch by stretch: the worker runs `work`
/// on each stretch, without the interpreter lock, while this thread takes
/// the next stretch from the list and hands each result to `take`, in
/// order, with the stretch's items. Signals are looked for while waiting; the first error (of
/// `take`, a signal, memory) stops the worker and is raised.
fn batch<'py, R: Send + 'static>(
    py: Python<'py>,
    tb: &Arc<Tablebase>,
    positions: &Bound<'py, PyList>,
    work: fn(&Tablebase, &Cancel, Vec<Input>) -> R,
    mut take: impl FnMut(R, &[Bound<'py, PyAny>]) -> PyResult<()>,
) -> PyResult<()> {
    reserve::refill();
    reserve::spent();
    let n = positions.len();
    let cancel = Cancel::new();
    let (in_tx, in_rx) = std::sync::mpsc::sync_channel::<Vec<Input>>(1);
    let (out_tx, out_rx) = std::sync::mpsc::sync_channel::<Outcome<R>>(1);
    let theirs = cancel.clone();
    let tb = Arc::clone(tb);
    spawn(move || {
        if n >= boardsolve_probe::BATCH_INDEX {
            tb.build_index();
        }
        for stretch in in_rx {
            if theirs.is_cancelled() {
                return;
            }
            let out = catch_unwind(AssertUnwindSafe(|| work(&tb, &theirs, stretch)));
            let failed = out.is_err();
            if out_tx.send(out).is_err() || failed {
                return;
            }
        }
    })?;
    let out_rx = Mutex::new(out_rx);
    let result = (|| {
        // The items of the stretches handed over, in order: the list may
        // change while the worker answers.
        let mut items = std::collections::VecDeque::with_capacity(2);
        let feed = |items: &mut std::collections::VecDeque<_>, from: usize| -> PyResult<()> {
            let stretch: Vec<Bound<'py, PyAny>> = (from..n.min(from + STRETCH))
                .map(|i| positions.get_item(i))
                .collect::<PyResult<_>>()?;
            let inputs = stretch
                .iter()
                .map(Input::from_py)
                .collect::<PyResult<Vec<_>>>()?;
            in_tx
                .send(inputs)
                .map_err(|_| Error::new_err("internal error: the worker stopped"))?;
            items.push_back(stretch);
            Ok(())
        };
        // One stretch in the worker's hands and one waiting: the worker
        // never waits for this thread's turning answers into objects.
        let mut next = 0;
        for _ in 0..2 {
            if next < n {
                feed(&mut items, next)?;
                next += STRETCH;
            }
        }
        for _ in (0..n).step_by(STRETCH) {
            let out = wait(py, &cancel, &out_rx)?;
            // The worker may always be ahead: signals are looked at here
            // too, not only while waiting.
            py.check_signals()?;
            let stretch = items.pop_front().unwrap_or_default();
            take(out, &stretch)?;
            if reserve::spent() {
                return Err(PyMemoryError::new_err(
                    "out of memory (the answers do not fit in what the system allows)",
                ));
            }
            if next < n {
                feed(&mut items, next)?;
                next += STRETCH;
            }
        }
        Ok(())
    })();
    if result.is_err() {
        cancel.cancel();
    }
    drop(in_tx);
    reserve::refill();
    result
}

/// A stretch cut into chunks, each answered as a whole by one thread.
fn chunks(stretch: Vec<Input>) -> Vec<Vec<Input>> {
    let mut chunks = Vec::with_capacity(stretch.len().div_ceil(CHUNK));
    let mut stretch = stretch.into_iter();
    loop {
        let chunk: Vec<Input> = stretch.by_ref().take(CHUNK).collect();
        if chunk.is_empty() {
            return chunks;
        }
        chunks.push(chunk);
    }
}

/// The replies of a stretch, made in parallel.
fn replies_of(tb: &Tablebase, cancel: &Cancel, stretch: Vec<Input>) -> Vec<Reply> {
    chunks(stretch)
        .into_par_iter()
        .map(|chunk| {
            if cancel.is_cancelled() {
                return Vec::new();
            }
            cancel.run(|| Reply::all(tb, chunk))
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect()
}

/// The JSON lines of a stretch, made in parallel.
fn lines_of(tb: &Tablebase, cancel: &Cancel, stretch: Vec<Input>) -> Vec<String> {
    chunks(stretch)
        .into_par_iter()
        .map(|chunk| {
            if cancel.is_cancelled() {
                return Vec::new();
            }
            cancel.run(|| {
                Reply::all(tb, chunk)
                    .into_iter()
                    .map(|r| match r {
                        Reply::Answer(input, a) => json::answer(&input, &a, None),
                        Reply::Refused(input, message) => json::error(Some(&input), &message),
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect::<Vec<_>>()
        .into_iter()
        .flatten()
        .collect()
}

/// The value and remoteness of each position of a stretch, or the first
/// error, made in parallel.
fn evals_of(
    tb: &Tablebase,
    cancel: &Cancel,
    stretch: Vec<Input>,
) -> Result<Vec<(i32, i32)>, ProbeError> {
    let chunks = stretch
        .par_chunks(CHUNK)
        .map(|chunk| {
            if cancel.is_cancelled() {
                return Ok(Vec::new());
            }
            let texts = chunk
                .iter()
                .map(Input::text)
                .collect::<Result<Vec<&str>, _>>()?;
            // What cannot be answered at all fails every position, before
            // any is read.
            tb.ready().map_err(|e| e.for_another())?;
            // The positions up to the first that does not parse: the
            // error of one before it comes first.
            let mut bad = None;
            let mut valid = Vec::with_capacity(texts.len());
            for t in &texts {
                match tb.parse(t) {
                    Ok(p) => valid.push(p),
                    Err(e) => {
                        bad = Some(e);
                        break;
                    }
                }
            }
            let evals = cancel.run(|| tb.evals(&valid));
            let mut out = Vec::with_capacity(evals.len());
            for e in evals {
                let e = e?;
                out.push((e.value, i32::try_from(e.remoteness).unwrap_or(i32::MAX)));
            }
            match bad {
                Some(e) => Err(e),
                None => Ok(out),
            }
        })
        .collect::<Vec<_>>();
    let mut all = Vec::with_capacity(stretch.len());
    for chunk in chunks {
        all.extend(chunk?);
    }
    Ok(all)
}

/// An open database (see the Python class `boardsolve.Database`).
#[pyclass(frozen, module = "boardsolve._boardsolve")]
struct Database {
    tb: Arc<Tablebase>,
    path: PathBuf,
    /// True when positions past the file are answered by search, so that
    /// one position may take long.
    searching: bool,
}

impl Database {
    /// Runs `f` on the tablebase: on a thread of its own, interruptible,
    /// when it may search; here, without the interpreter lock, otherwise.
    fn call<T: Send + 'static>(
        &self,
        py: Python<'_>,
        f: impl FnOnce(&Tablebase) -> Result<T, ProbeError> + Send + 'static,
    ) -> PyResult<T> {
        let out = if self.searching {
            let tb = Arc::clone(&self.tb);
            detached(py, move |_| f(&tb))?
        } else {
            py.detach(|| f(&self.tb))
        };
        out.map_err(|e| to_py(py, e))
    }
}

#[pymethods]
impl Database {
    #[new]
    #[pyo3(signature = (path, search_bits=None, cache_mib=None))]
    fn new(
        py: Python<'_>,
        path: PathBuf,
        search_bits: Option<u32>,
        cache_mib: Option<usize>,
    ) -> PyResult<Database> {
        let opened = {
            let path = path.clone();
            detached(py, move |_| {
                let mut tb = Tablebase::open(&path)?;
                if let Some(mib) = cache_mib {
                    tb = tb.with_cache_limit(mib.saturating_mul(1 << 20));
                }
                match search_bits {
                    Some(bits) => tb.with_search(bits),
                    None => Ok(tb),
                }
            })?
        };
        let tb = opened.map_err(|e| to_py(py, e))?;
        Ok(Database {
            searching: search_bits.is_some() && tb.game().has_book(),
            tb: Arc::new(tb),
            path,
        })
    }

    /// What `query --game NAME --variant SPEC` answers from without a
    /// file: the opening book that comes with the tools for the variant
    /// (Connect Four's 7x6 book), with the search past it, or search
    /// alone; `search_bits` sizes the search's table (by default as
    /// `query` sizes it).
    #[staticmethod]
    #[pyo3(signature = (name, variant="", search_bits=None))]
    fn for_game(
        py: Python<'_>,
        name: &str,
        variant: &str,
        search_bits: Option<u32>,
    ) -> PyResult<Database> {
        let game = Game::new(name, variant).map_err(|e| Error::new_err(e.to_string()))?;
        let opened = detached(py, move |_| {
            let tb = Tablebase::for_game(game)?;
            let bits = search_bits.or_else(|| game.default_search_bits(default_searchers()));
            match bits {
                Some(bits) => tb.with_search(bits),
                None => Ok(tb),
            }
        })?;
        let tb = opened.map_err(|e| to_py(py, e))?;
        let path = match tb.shipped() {
            Some(book) => book.name.into(),
            None => "(live search)".into(),
        };
        Ok(Database {
            searching: game.has_book(),
            tb: Arc::new(tb),
            path,
        })
    }

    #[getter]
    fn game(&self) -> &'static str {
        self.tb.game().name()
    }

    #[getter]
    fn variant(&self) -> &'static str {
        self.tb.game().variant()
    }

    #[getter]
    fn complete(&self) -> bool {
        self.tb.is_complete()
    }

    #[getter]
    fn records(&self) -> u64 {
        self.tb.len()
    }

    #[getter]
    fn score_meaning(&self) -> &'static str {
        self.tb.game().score_meaning()
    }

    /// The answer as the dict `json.loads` makes of its JSON line, or an
    /// exception.
    fn probe<'py>(
        &self,
        py: Python<'py>,
        position: &Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let input = Input::from_py(position)?;
        let (input, answer) = self.call(py, move |tb| {
            let answer = tb.probe(input.text()?)?;
            Ok((input, answer))
        })?;
        let input = input.text().map_err(|e| to_py(py, e))?;
        objects::Builder::new(py).build(&AnswerFields::new(input, &answer, None))
    }

    /// The answers as dicts, one per position, errors as
    /// `{"input", "error"}`. The answers of one stretch of positions are
    /// made in parallel, without the interpreter, while this thread turns
    /// those of the stretch before into objects that share their short
    /// strings.
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyList>,
    ) -> PyResult<Bound<'py, PyList>> {
        let mut builder = objects::Builder::new(py);
        let answers = fallible::list(py)?;
        let mut pacer = Pacer::new();
        batch(py, &self.tb, positions, replies_of, |replies, items| {
            for (reply, item) in replies.iter().zip(items) {
                // The answer's `input` is the caller's own str.
                if let (Reply::Answer(input, _), Ok(item)) = (reply, item.cast::<PyString>()) {
                    builder.seed(input, item);
                }
                answers.append(reply.object(&mut builder)?)?;
                pacer.step(py)?;
            }
            Ok(())
        })?;
        Ok(answers)
    }

    /// One JSON line per position, as `query --json -` prints them,
    /// answers and errors alike, made in parallel without the interpreter
    /// lock.
    fn probe_json_many<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyList>,
    ) -> PyResult<Bound<'py, PyList>> {
        let answers = fallible::list(py)?;
        let mut pacer = Pacer::new();
        batch(py, &self.tb, positions, lines_of, |lines, _| {
            for line in &lines {
                answers.append(fallible::string(py, line)?)?;
                pacer.step(py)?;
            }
            Ok(())
        })?;
        Ok(answers)
    }

    /// Values and remoteness of every position, as two buffers of native
    /// `int32`s, or the first position's error.
    fn values<'py>(
        &self,
        py: Python<'py>,
        positions: &Bound<'py, PyList>,
    ) -> PyResult<Bound<'py, PyList>> {
        let n = positions.len();
        let bytes = n
            .checked_mul(4)
            .ok_or_else(|| PyMemoryError::new_err("too many positions"))?;
        let values = PyByteArray::new_with(py, bytes, |_| Ok(()))?;
        let remoteness = PyByteArray::new_with(py, bytes, |_| Ok(()))?;
        let mut at = 0;
        batch(py, &self.tb, positions, evals_of, |evals, _| {
            let evals = evals.map_err(|e| to_py(py, e))?;
            // SAFETY: the arrays are this call's own, not yet seen by any
            // Python code, and this thread holds the interpreter lock.
            let (v, r) = unsafe { (values.as_bytes_mut(), remoteness.as_bytes_mut()) };
            for (value, far) in evals {
                v[at..at + 4].copy_from_slice(&value.to_ne_bytes());
                r[at..at + 4].copy_from_slice(&far.to_ne_bytes());
                at += 4;
            }
            Ok(())
        })?;
        let both = fallible::list(py)?;
        both.append(values)?;
        both.append(remoteness)?;
        Ok(both)
    }

    /// The position after a move, as text.
    fn play(
        &self,
        py: Python<'_>,
        position: &Bound<'_, PyAny>,
        mv: &Bound<'_, PyAny>,
    ) -> PyResult<String> {
        let (position, mv) = (Input::from_py(position)?, Input::from_py(mv)?);
        py.detach(|| {
            let position = self.tb.parse(position.text()?)?;
            Ok(position.play_text(mv.text()?)?.text())
        })
        .map_err(|e| to_py(py, e))
    }

    /// The moves of perfect play from a position to the end.
    fn line(&self, py: Python<'_>, position: &Bound<'_, PyAny>) -> PyResult<Vec<String>> {
        let input = Input::from_py(position)?;
        self.call(py, move |tb| {
            let line = tb.line(&tb.parse(input.text()?)?)?;
            Ok(line.iter().map(|m| m.name().to_owned()).collect())
        })
    }

    /// What `query --json info` prints, as JSON: of the file this database
    /// answers from (mapped when it was opened), whatever is at its path
    /// now.
    fn info(&self, py: Python<'_>) -> PyResult<String> {
        let path = self.path.display().to_string();
        py.detach(|| self.tb.info_json(&path))
            .map_err(|e| to_py(py, e))
    }

    /// Reads the whole file this database answers from and re-derives
    /// every value (`query verify`): the report as the JSON `query verify
    /// --json` prints, or `CorruptDatabase`.
    fn verify(&self, py: Python<'_>) -> PyResult<String> {
        let tb = Arc::clone(&self.tb);
        let path = self.path.display().to_string();
        let report = detached(py, move |cancel| {
            if !tb.has_file() {
                return Err("no database file".to_owned());
            }
            let report = tb
                .verify(&Stop(cancel.clone()))
                .map_err(|e| e.to_string())?;
            Ok(json::whole::verify(&path, tb.game(), Ok(&report)))
        })?;
        report.map_err(|message| {
            CorruptDatabase::new_err(format!("{}: {message}", self.path.display()))
        })
    }
}

#[pymodule]
fn _boardsolve(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    reserve::refill();
    m.add_class::<Database>()?;
    m.add("Error", py.get_type::<Error>())?;
    m.add("DatabaseError", py.get_type::<DatabaseError>())?;
    m.add("CorruptDatabase", py.get_type::<CorruptDatabase>())?;
    m.add("PositionError", py.get_type::<PositionError>())?;
    m.add("Unreachable", py.get_type::<Unreachable>())?;
    m.add("NotInBook", py.get_type::<NotInBook>())?;
    let bases = PyTuple::new(
        py,
        [
            py.get_type::<DatabaseError>().into_any(),
            py.get_type::<PyFileNotFoundError>().into_any(),
        ],
    )?;
    let namespace = pyo3::types::PyDict::new(py);
    namespace.set_item("__module__", "boardsolve._boardsolve")?;
    namespace.set_item(
        "__doc__",
        "The database file is missing (a DatabaseError and a FileNotFoundError).",
    )?;
    let class = py
        .get_type::<PyType>()
        .call1(("MissingDatabase", bases, namespace))?
        .cast_into::<PyType>()?;
    m.add("MissingDatabase", &class)?;
    let _ = MISSING.set(py, class.unbind());
    Ok(())
}
