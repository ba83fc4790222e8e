//! The native half of the `boardsolve` Python package: a database opened
//! through the probe crate, answering in the JSON of `query --json` (the
//! Python half turns it into dicts) and in NumPy arrays for value-only
//! batches. Long work runs with the interpreter lock released.

mod objects;

use std::path::PathBuf;

use boardsolve::core::NoProgress;
use boardsolve::registry::AnyGame;
use boardsolve_probe::{ProbeError, Tablebase};
use numpy::{IntoPyArray, PyArray1};
use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyList;
use rayon::prelude::*;

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
    "The database contradicts itself or holds a value the game rules out."
);
create_exception!(
    _boardsolve,
    PositionError,
    Error,
    "The position is malformed or illegal in the database's game."
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

/// The Python exception for a probe error.
fn to_py(e: ProbeError) -> PyErr {
    let message = e.to_string();
    match e {
        ProbeError::Open { .. } => DatabaseError::new_err(message),
        ProbeError::Corrupt { .. } => CorruptDatabase::new_err(message),
        ProbeError::Position(_) => PositionError::new_err(message),
        ProbeError::Unreachable { .. } => Unreachable::new_err(message),
        ProbeError::NotInBook { .. } => NotInBook::new_err(message),
        ProbeError::Search(_) => Error::new_err(message),
    }
}

/// One NumPy column of a value-only batch.
type Column<'py> = Bound<'py, PyArray1<i32>>;

/// Positions per parallel work item of a batch.
const CHUNK: usize = 1024;

/// Positions whose answers `probe_many` makes while it builds the objects
/// of the stretch before.
const STRETCH: usize = 4 * CHUNK;

/// An open database (see the Python class `boardsolve.Database`).
#[pyclass(frozen, module = "boardsolve._boardsolve")]
struct Database {
    tb: Tablebase,
    path: PathBuf,
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
        let opened = py.detach(|| {
            let mut tb = Tablebase::open(&path)?;
            if let Some(mib) = cache_mib {
                tb = tb.with_cache_limit(mib.saturating_mul(1 << 20));
            }
            match search_bits {
                Some(bits) => tb.with_search(bits),
                None => Ok(tb),
            }
        });
        Ok(Database {
            tb: opened.map_err(to_py)?,
            path,
        })
    }

    #[getter]
    fn game(&self) -> &str {
        self.tb.game()
    }

    #[getter]
    fn variant(&self) -> &str {
        self.tb.variant()
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
        self.tb.score_meaning()
    }

    /// The answer as the dict `json.loads` makes of its JSON line, or an
    /// exception.
    fn probe<'py>(&self, py: Python<'py>, position: &str) -> PyResult<Bound<'py, PyAny>> {
        let line = py
            .detach(|| {
                self.tb.probe(position)?;
                Ok(self.tb.probe_json(position))
            })
            .map_err(to_py)?;
        objects::Builder::new(py).build(&line)
    }

    /// The answers as dicts, one per position, errors as
    /// `{"input", "error"}`. The lines of one stretch of positions are made
    /// in parallel, without the interpreter, while this thread turns those
    /// of the stretch before into objects that share their short strings.
    fn probe_many<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<String>,
    ) -> PyResult<Bound<'py, PyList>> {
        if positions.len() >= boardsolve_probe::BATCH_INDEX {
            self.tb.build_index();
        }
        let mut builder = objects::Builder::new(py);
        let mut answers = Vec::with_capacity(positions.len());
        let (tx, rx) = std::sync::mpsc::sync_channel::<Vec<String>>(2);
        std::thread::scope(|scope| {
            scope.spawn(move || {
                for stretch in positions.chunks(STRETCH) {
                    let lines = stretch
                        .par_chunks(CHUNK)
                        .flat_map_iter(|chunk| chunk.iter().map(|p| self.tb.probe_json(p)))
                        .collect();
                    if tx.send(lines).is_err() {
                        return; // the builder failed
                    }
                }
            });
            for lines in rx {
                for line in &lines {
                    answers.push(builder.build(line)?);
                }
            }
            Ok::<(), PyErr>(())
        })?;
        PyList::new(py, answers)
    }

    /// One JSON line per position, as `query --json -` prints them,
    /// answers and errors alike, made in parallel without the interpreter
    /// lock.
    fn probe_json_many(&self, py: Python<'_>, positions: Vec<String>) -> Vec<String> {
        py.detach(|| {
            if positions.len() >= boardsolve_probe::BATCH_INDEX {
                self.tb.build_index();
            }
            positions
                .par_chunks(CHUNK)
                .flat_map_iter(|chunk| chunk.iter().map(|p| self.tb.probe_json(p)))
                .collect()
        })
    }

    /// Values and remoteness of every position, as two arrays.
    fn values<'py>(
        &self,
        py: Python<'py>,
        positions: Vec<String>,
    ) -> PyResult<(Column<'py>, Column<'py>)> {
        let evals = py.detach(|| {
            positions
                .par_chunks(CHUNK)
                .map(|chunk| {
                    self.tb
                        .eval_many(chunk)
                        .into_iter()
                        .collect::<Result<Vec<_>, _>>()
                })
                .collect::<Result<Vec<_>, _>>()
        });
        let evals = evals.map_err(to_py)?;
        let n = positions.len();
        let mut values = Vec::with_capacity(n);
        let mut remoteness = Vec::with_capacity(n);
        for e in evals.iter().flatten() {
            values.push(e.value);
            remoteness.push(i32::try_from(e.remoteness).unwrap_or(i32::MAX));
        }
        Ok((values.into_pyarray(py), remoteness.into_pyarray(py)))
    }

    /// The position after a move, as text.
    fn play(&self, position: &str, mv: &str) -> PyResult<String> {
        self.tb.play(position, mv).map_err(to_py)
    }

    /// The moves of perfect play from a position to the end.
    fn line(&self, py: Python<'_>, position: &str) -> PyResult<Vec<String>> {
        py.detach(|| self.tb.line(position)).map_err(to_py)
    }

    /// What `query --json info` prints, as JSON.
    fn info(&self, py: Python<'_>) -> PyResult<String> {
        py.detach(|| {
            let (db, game) = AnyGame::open(&self.path).map_err(|source| ProbeError::Open {
                path: self.path.clone(),
                source,
            })?;
            let path = self.path.display().to_string();
            Ok(boardsolve::analysis::json::info(
                &path,
                &db,
                game.present(),
            )?)
        })
        .map_err(|e: ProbeError| to_py(e))
    }

    /// Reads the whole file and re-derives every value (`query verify`):
    /// the report as JSON, or `CorruptDatabase`.
    fn verify(&self, py: Python<'_>) -> PyResult<String> {
        let report = py.detach(|| -> Result<_, String> {
            let (db, game) = AnyGame::open(&self.path).map_err(|e| e.to_string())?;
            let report = boardsolve::analysis::verify::verify(&db, game.game(), &NoProgress)
                .map_err(|e| e.to_string())?;
            Ok(serde_json::json!({
                "db": self.path, "ok": true, "game": game.game().descriptor().name,
                "variant": game.game().descriptor().variant,
                "records": report.records, "children_checked": report.children_checked,
                "derived": report.derived,
            })
            .to_string())
        });
        report.map_err(CorruptDatabase::new_err)
    }
}

#[pymodule]
fn _boardsolve(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add_class::<Database>()?;
    m.add("Error", py.get_type::<Error>())?;
    m.add("DatabaseError", py.get_type::<DatabaseError>())?;
    m.add("CorruptDatabase", py.get_type::<CorruptDatabase>())?;
    m.add("PositionError", py.get_type::<PositionError>())?;
    m.add("Unreachable", py.get_type::<Unreachable>())?;
    m.add("NotInBook", py.get_type::<NotInBook>())?;
    Ok(())
}
