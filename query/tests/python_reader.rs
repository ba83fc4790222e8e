//! Checks that `format-spec.md` is enough to read a database: the independent
//! Python reader `tests/python/bsq_reader.py`, written from the spec alone,
//! must agree with the `query` binary and with the library on every sampled
//! position, and must refuse damaged files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use boardsolve::game::british_square::BritishSquare;
use boardsolve::{Database, Edge, Game, Move, Player};
use serde_json::{json, Value as Json};
use tempfile::TempDir;

/// The small variants, all solved in milliseconds.
const SMALL_VARIANTS: &[&str] = &["3x3", "3x3,center-allowed", "4x4", "4x4,center-allowed"];

/// Inputs both readers must refuse, whatever the board size. (Case is left
/// out: the spec does not say whether `x`, `o` or `A1` are accepted.)
const BAD_INPUTS: &[&str] = &[
    "",
    "bogus",
    "0,0",
    "pass",
    "0 pass",
    "99",
    "z9",
    "start,0",
    "start X",
    "X.. X",
    "X.../.... X",
    "........................... O extra",
];

/// Positions per reader invocation, to stay far below argument-size limits.
const BATCH: usize = 400;

fn reader_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/python/bsq_reader.py")
}

/// Solves `variant` in-process and writes its database into `dir`.
fn build_db(dir: &TempDir, variant: &str) -> (BritishSquare, PathBuf) {
    let game = BritishSquare::from_variant(variant).unwrap();
    let sol = boardsolve::solver::solve(&game, &boardsolve::solver::NoProgress).unwrap();
    let path = dir.path().join(format!("bsq-{variant}.db"));
    boardsolve::db::write_database(&path, Game::descriptor(&game), &sol).unwrap();
    (game, path)
}

/// Deterministic pseudo-random numbers (Knuth's MMIX LCG), no extra crates.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

fn moves_of(game: &BritishSquare, state: u64) -> Vec<Edge> {
    let mut edges = Vec::new();
    game.moves(state, &mut edges);
    edges
}

fn move_name(mv: Move) -> String {
    if mv == Move::PASS {
        "pass".to_string()
    } else {
        mv.0.to_string()
    }
}

/// `a1` is cell 0: letters are columns from the left, digits rows from the top.
fn coordinate(game: &BritishSquare, cell: u16) -> String {
    let n = game.side() as u16;
    format!("{}{}", char::from(b'a' + (cell % n) as u8), cell / n + 1)
}

/// Board notation, rows separated by `/`, optionally with the side to move.
fn board_text(game: &BritishSquare, state: u64, with_side: bool) -> String {
    let n = game.side() as usize;
    let (x, o) = (game.x(state), game.o(state));
    let rows: Vec<String> = (0..n)
        .map(|r| {
            (0..n)
                .map(|c| match (x >> (r * n + c) & 1, o >> (r * n + c) & 1) {
                    (1, _) => 'X',
                    (_, 1) => 'O',
                    _ => '.',
                })
                .collect()
        })
        .collect();
    let side = if game.to_move(state) == Player::First {
        "X"
    } else {
        "O"
    };
    if with_side {
        format!("{} {side}", rows.join("/"))
    } else {
        rows.join("/")
    }
}

/// Positions to ask about: the text, and the state it denotes when known.
#[derive(Default)]
struct Samples {
    items: Vec<(String, Option<u64>)>,
    seen: HashSet<String>,
    forced_passes: usize,
    terminals: usize,
}

impl Samples {
    fn add(&mut self, text: String, state: Option<u64>) {
        if self.seen.insert(text.clone()) {
            self.items.push((text, state));
        }
    }

    fn add_state(&mut self, game: &BritishSquare, state: u64) {
        let text = board_text(game, state, true);
        if self.seen.contains(&text) {
            return;
        }
        match moves_of(game, state).as_slice() {
            [] => self.terminals += 1,
            [only] if only.mv == Move::PASS => self.forced_passes += 1,
            _ => {}
        }
        self.add(text, Some(state));
        // Without the side to move the reader has to derive it; compared with
        // `query` only, since for a forced pass it names the other position.
        self.add(board_text(game, state, false), None);
    }

    /// Texts with a known state, for the library comparison.
    fn known(&self) -> Vec<(String, u64)> {
        self.items
            .iter()
            .filter_map(|(t, s)| s.map(|s| (t.clone(), s)))
            .collect()
    }

    fn texts(&self) -> Vec<String> {
        self.items.iter().map(|(t, _)| t.clone()).collect()
    }
}

/// The start, every first move, and random playouts to the end of the game,
/// as boards (with and without the side to move) and as move lists.
fn sample_positions(game: &BritishSquare, playouts: usize, seed: u64) -> Samples {
    let mut samples = Samples::default();
    let start = game.start();
    samples.add("start".to_string(), Some(start));
    samples.add_state(game, start);
    for edge in moves_of(game, start) {
        samples.add(edge.mv.0.to_string(), Some(edge.child));
        samples.add(
            board_text(game, edge.child, true).replace('/', ""),
            Some(edge.child),
        );
        samples.add_state(game, edge.child);
    }
    let mut rng = Lcg(seed);
    for p in 0..playouts {
        let mut state = start;
        let mut history: Vec<Move> = Vec::new();
        loop {
            samples.add_state(game, state);
            if !history.is_empty() {
                samples.add(move_list(game, &history, p % 3), Some(state));
            }
            let edges = moves_of(game, state);
            if edges.is_empty() {
                break;
            }
            let edge = edges[rng.below(edges.len())];
            history.push(edge.mv);
            state = edge.child;
        }
    }
    samples
}

/// A move list in one of three styles: cell numbers with commas and forced
/// passes left out, coordinates with spaces, or cell numbers with passes.
fn move_list(game: &BritishSquare, history: &[Move], style: usize) -> String {
    let words: Vec<String> = history
        .iter()
        .filter(|&&mv| style == 2 || mv != Move::PASS)
        .map(|&mv| match style {
            1 => coordinate(game, mv.0),
            _ => move_name(mv),
        })
        .collect();
    words.join(if style == 1 { " " } else { "," })
}

fn run(cmd: &mut Command) -> Output {
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"))
}

/// One JSON object per input line of stdout.
fn json_lines(out: &Output, expected: usize, what: &str) -> Vec<Json> {
    let stdout = String::from_utf8(out.stdout.clone()).unwrap();
    let lines: Vec<Json> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(
        lines.len(),
        expected,
        "{what}: expected {expected} JSON lines; stderr:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    lines
}

/// Runs the Python reader on `texts`, in batches; one JSON object per text.
fn python_answers(db: &Path, texts: &[String]) -> Vec<Json> {
    let mut answers = Vec::new();
    for batch in texts.chunks(BATCH) {
        let out = run(Command::new("python3")
            .arg(reader_script())
            .arg(db)
            .args(batch));
        let lines = json_lines(&out, batch.len(), "python reader");
        let errors = lines.iter().any(|l| l.get("error").is_some());
        assert_eq!(
            out.status.code(),
            Some(if errors { 1 } else { 0 }),
            "python reader exit"
        );
        answers.extend(lines);
    }
    answers
}

fn query_answers(db: &Path, texts: &[String]) -> Vec<Json> {
    let mut answers = Vec::new();
    for batch in texts.chunks(BATCH) {
        let out = run(Command::new(env!("CARGO_BIN_EXE_query"))
            .arg("--db")
            .arg(db)
            .arg("--json")
            .args(batch));
        answers.extend(json_lines(&out, batch.len(), "query"));
    }
    answers
}

/// Sort key of a move name: cells in increasing order, then `pass`.
fn move_order(m: &Json) -> (bool, u64) {
    let name = m["move"].as_str().unwrap();
    (name == "pass", name.parse().unwrap_or(u64::MAX))
}

/// The compared fields of an answer, moves sorted by cell; `None` for errors.
fn comparable(answer: &Json) -> Option<Json> {
    if answer.get("error").is_some() {
        return None;
    }
    let mut moves: Vec<Json> = answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| json!({"move": m["move"], "value": m["value"], "remoteness": m["remoteness"]}))
        .collect();
    moves.sort_by_key(move_order);
    Some(json!({
        "position": answer["position"],
        "to_move": answer["to_move"],
        "value": answer["value"],
        "remoteness": answer["remoteness"],
        "moves": moves,
    }))
}

/// What the library says about `state`, in the reader's JSON shape.
fn library_answer(game: &BritishSquare, db: &Database, state: u64) -> Json {
    let a = boardsolve::analyze(game, db, state).unwrap();
    let mut moves: Vec<Json> = a
        .moves
        .iter()
        .map(|m| json!({"move": move_name(m.mv), "value": m.score, "remoteness": m.child_value.remoteness}))
        .collect();
    moves.sort_by_key(move_order);
    json!({
        "position": board_text(game, state, true),
        "to_move": game.player_name(a.to_move),
        "value": a.score,
        "remoteness": a.value.remoteness,
        "moves": moves,
    })
}

fn assert_python_matches_query(db: &Path, samples: &Samples) {
    let texts = samples.texts();
    let python = python_answers(db, &texts);
    let query = query_answers(db, &texts);
    for (((text, state), py), q) in samples.items.iter().zip(&python).zip(&query) {
        if let Some(py_moves) = py.get("moves").and_then(Json::as_array) {
            assert!(
                py_moves.is_sorted_by_key(move_order),
                "{text:?}: python moves not in cell order"
            );
        }
        // Only boards without the side to move may be refused (side unknown).
        assert!(
            state.is_none() || py.get("error").is_none(),
            "{text:?}: python {py}"
        );
        assert_eq!(
            comparable(py),
            comparable(q),
            "{text:?}: python {py} vs query {q}"
        );
    }
}

fn assert_python_matches_library(game: &BritishSquare, db_path: &Path, samples: &Samples) {
    let db = Database::open(db_path).unwrap();
    let known = samples.known();
    let texts: Vec<String> = known.iter().map(|(t, _)| t.clone()).collect();
    let python = python_answers(db_path, &texts);
    for ((text, state), py) in known.iter().zip(&python) {
        let expected = library_answer(game, &db, *state);
        assert_eq!(
            comparable(py),
            Some(expected.clone()),
            "{text:?}: python {py} vs library {expected}"
        );
    }
}

fn assert_coverage(variant: &str, samples: &Samples) {
    assert!(
        samples.terminals > 0,
        "{variant}: no terminal position sampled"
    );
    if !variant.starts_with("3x3") {
        assert!(
            samples.forced_passes > 0,
            "{variant}: no forced pass sampled"
        );
    }
}

#[test]
fn python_reader_matches_query_small_variants() {
    let dir = TempDir::new().unwrap();
    for (i, variant) in SMALL_VARIANTS.iter().enumerate() {
        let (game, path) = build_db(&dir, variant);
        let mut samples = sample_positions(&game, 60, 1 + i as u64);
        assert_coverage(variant, &samples);
        for bad in BAD_INPUTS {
            samples.add(bad.to_string(), None);
        }
        // Adjacent pieces: well-formed, but no legal game reaches it.
        let cells = game.cells() as usize;
        samples.add(format!("XO{} O", ".".repeat(cells - 2)), None);
        assert_python_matches_query(&path, &samples);
    }
}

#[test]
fn python_reader_matches_library_small_variants() {
    let dir = TempDir::new().unwrap();
    for (i, variant) in SMALL_VARIANTS.iter().enumerate() {
        let (game, path) = build_db(&dir, variant);
        let samples = sample_positions(&game, 60, 101 + i as u64);
        assert_coverage(variant, &samples);
        assert_python_matches_library(&game, &path, &samples);
    }
}

/// The standard game: solved once (the slow part), compared with both.
#[test]
fn python_reader_matches_query_and_library_5x5() {
    let dir = TempDir::new().unwrap();
    let (game, path) = build_db(&dir, "5x5");
    let samples = sample_positions(&game, 60, 2024);
    assert_coverage("5x5", &samples);
    assert_python_matches_query(&path, &samples);
    assert_python_matches_library(&game, &path, &samples);
}

#[test]
fn python_reader_rejects_damaged_files() {
    let dir = TempDir::new().unwrap();
    let (_, path) = build_db(&dir, "4x4");
    let good = std::fs::read(&path).unwrap();
    let reader_status = |bytes: &[u8], name: &str| {
        let damaged = dir.path().join(name);
        std::fs::write(&damaged, bytes).unwrap();
        let out = run(Command::new("python3")
            .arg(reader_script())
            .arg(&damaged)
            .arg("start"));
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    assert_eq!(
        reader_status(&good, "intact.db").0,
        Some(0),
        "intact copy must be accepted"
    );

    let mut damaged: Vec<(String, Vec<u8>)> = vec![
        (
            "truncated by one record".into(),
            good[..good.len() - 8].to_vec(),
        ),
        (
            "truncated by one byte".into(),
            good[..good.len() - 1].to_vec(),
        ),
        ("header only".into(), good[..4096].to_vec()),
        ("shorter than the header".into(), good[..100].to_vec()),
        ("padded".into(), [good.as_slice(), &[0u8; 8]].concat()),
    ];
    // magic, version, byte-order mark, flags, variant, a field, reserved, checksum
    for offset in [0, 8, 12, 28, 64, 131, 300, 4090] {
        let mut bytes = good.clone();
        bytes[offset] ^= 0x01;
        damaged.push((format!("header byte {offset} flipped"), bytes));
    }
    for (i, (what, bytes)) in damaged.iter().enumerate() {
        let (code, stderr) = reader_status(bytes, &format!("damaged-{i}.db"));
        assert_eq!(code, Some(3), "{what}: the reader must refuse the file");
        assert!(!stderr.trim().is_empty(), "{what}: no message on stderr");
    }
    let (code, _) = reader_status(&good, "intact.db");
    assert_eq!(code, Some(0));
    let missing = run(Command::new("python3")
        .arg(reader_script())
        .arg(dir.path().join("missing.db"))
        .arg("start"));
    assert_eq!(
        missing.status.code(),
        Some(3),
        "a missing file must be refused"
    );
}
