//! Checks that `format-spec.md` is enough to read a database: the independent
//! Python reader `tests/python/bsq_reader.py`, written from the spec alone,
//! must agree with the `query` binary and with the library on every sampled
//! position, and must refuse damaged files.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use boardsolve::db::header::{header_checksum, HEADER_SIZE};
use boardsolve::games::british_square::BritishSquare;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::{Database, Edge, Game, Move, Player, Position, Value};
use serde_json::{json, Value as Json};
use tempfile::TempDir;

use crate::common::{records_resealed, with_value};

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
    let sol = boardsolve::solve::solve(&game, &boardsolve::core::NoProgress).unwrap();
    let path = dir.path().join(format!("bsq-{variant}.db"));
    boardsolve::db::write_database(&path, Game::descriptor(&game), &sol.into()).unwrap();
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

fn moves_of<G: Game>(game: &G, state: u64) -> Vec<Edge> {
    let mut edges = Vec::new();
    game.moves(state, &mut edges);
    edges
}

/// A move as a cell number (what move lists also take), or `pass`.
fn move_number(mv: Move) -> String {
    if mv == Move::PASS {
        "pass".to_string()
    } else {
        mv.0.to_string()
    }
}

/// A move as `query` and the reader name it: its cell's coordinate, or
/// `pass`.
fn move_name(game: &BritishSquare, mv: Move) -> String {
    if mv == Move::PASS {
        "pass".to_string()
    } else {
        coordinate(game, mv.0)
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
            _ => move_number(mv),
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
fn move_order(m: &Json) -> (bool, u64, u64) {
    let name = m["move"].as_str().unwrap();
    if let Ok(n) = name.parse() {
        return (false, n, 0);
    }
    // A coordinate: row (its digits) first, then column, as cells count.
    let row = name
        .get(1..)
        .and_then(|r| r.parse().ok())
        .unwrap_or(u64::MAX);
    let col = name.bytes().next().map_or(0, u64::from);
    (name == "pass", row, col)
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
        .map(|m| json!({"move": move_name(game, m.mv), "value": m.score, "remoteness": m.child_value.remoteness}))
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
    // Lies the checksums cannot see (format-spec.md, validation step 9 and
    // the range of values): one record more than 4x4 has, and a start
    // position worth more than the board.
    let mut longer = good.clone();
    let last = u64::from_le_bytes(longer[longer.len() - 8..].try_into().unwrap());
    longer.extend_from_slice(&(last + (1 << 12)).to_le_bytes());
    damaged.push((
        "one record more than the game has".into(),
        records_resealed(
            &crate::common::resealed(&longer, |h| h.record_count += 1),
            |_| {},
        ),
    ));
    let game = BritishSquare::from_variant("4x4").unwrap();
    let far = Value {
        net: 0,
        remoteness: 63,
    };
    damaged.push((
        "a start value out of range".into(),
        with_value(&good, game.canonical(game.start()), far),
    ));
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

// ---------------------------------------------------------------------------
// Dots and Boxes: the dense layout (format-spec.md sections 3b and 5)
// ---------------------------------------------------------------------------

/// Boards from one box to the standard 3x3 (2^24 entries), both orientations
/// of a rectangle; each is solved in well under a second.
const DAB_VARIANTS: &[&str] = &["1x1", "1x2", "2x2", "2x3", "3x2", "3x3"];

/// Solves a Dots and Boxes board in-process and writes its dense database.
fn build_dab_db(dir: &TempDir, variant: &str) -> (DotsAndBoxes, PathBuf) {
    let game = DotsAndBoxes::from_variant(variant).unwrap();
    let sol = boardsolve::solve::dense::solve_dense(&game, &boardsolve::core::NoProgress).unwrap();
    let path = dir.path().join(format!("dab-{variant}.db"));
    boardsolve::db::write_database(&path, Game::descriptor(&game), &sol.into()).unwrap();
    (game, path)
}

/// Edge numbers joined by `sep`, or `none` for the empty board.
fn edge_list(edges: &[u16], sep: &str) -> String {
    if edges.is_empty() {
        return "none".to_string();
    }
    let words: Vec<String> = edges.iter().map(u16::to_string).collect();
    words.join(sep)
}

fn player_name(player: Player) -> &'static str {
    match player {
        Player::First => "A",
        Player::Second => "B",
    }
}

/// Dots and Boxes positions to ask about: the text, and the position it
/// denotes (drawn edges, side to move, score so far) when it is legal.
#[derive(Default)]
struct DabSamples {
    items: Vec<(String, Option<Position>)>,
    seen: HashSet<String>,
    terminals: usize,
    with_score: usize,
    /// Positions where some move completes a box (the mover moves again).
    captures: usize,
    /// Positions where some move completes two boxes at once.
    doubles: usize,
}

impl DabSamples {
    fn add(&mut self, text: String, pos: Option<Position>) {
        if self.seen.insert(text.clone()) {
            if pos.is_some_and(|p| p.lead.is_some()) {
                self.with_score += 1;
            }
            self.items.push((text, pos));
        }
    }

    /// `pos`, reached by drawing `drawn` in this order, with `boxes` taken so
    /// far by A and B, written in several ways.
    fn add_position(
        &mut self,
        game: &DotsAndBoxes,
        pos: Position,
        drawn: &[u16],
        boxes: [u32; 2],
        rng: &mut Lcg,
    ) {
        let edges = moves_of(game, pos.state);
        self.terminals += usize::from(edges.is_empty());
        self.captures += usize::from(edges.iter().any(|e| e.reward > 0));
        self.doubles += usize::from(edges.iter().any(|e| e.reward == 2));
        let mut sorted = drawn.to_vec();
        sorted.sort_unstable();
        let side = player_name(pos.to_move);
        let bare = Position { lead: None, ..pos };
        // Without the side: A moves (the value does not depend on the side).
        let a_to_move = Position {
            to_move: Player::First,
            lead: None,
            ..pos
        };
        self.add(edge_list(&sorted, ","), Some(a_to_move));
        self.add(format!("{} {side}", edge_list(drawn, " ")), Some(bare));
        let [a, b] = boxes;
        self.add(
            format!("{} {side} {a}-{b}", edge_list(&sorted, ", ")),
            Some(pos),
        );
        // Any split of the closed boxes is a legal score, for either side.
        let closed = a + b;
        let a2 = rng.below(closed as usize + 1) as u32;
        let other = pos.to_move.opponent();
        self.add(
            format!(
                "{} {} {a2}-{}",
                edge_list(drawn, ","),
                player_name(other),
                closed - a2
            ),
            Some(Position {
                to_move: other,
                lead: Some(a2 as i32 - (closed - a2) as i32),
                ..pos
            }),
        );
    }
}

/// The start written every way, then random games to the end, every
/// position on the way written with and without side and score.
fn dab_sample_positions(game: &DotsAndBoxes, playouts: usize, seed: u64) -> DabSamples {
    let mut samples = DabSamples::default();
    let start = Position {
        state: 0,
        to_move: Player::First,
        lead: None,
    };
    let b_to_move = Position {
        to_move: Player::Second,
        ..start
    };
    samples.add("none".into(), Some(start));
    samples.add("start".into(), Some(start));
    samples.add("none A".into(), Some(start));
    samples.add("start B".into(), Some(b_to_move));
    samples.add(
        "none A 0-0".into(),
        Some(Position {
            lead: Some(0),
            ..start
        }),
    );
    samples.add(
        "start B 0-0".into(),
        Some(Position {
            lead: Some(0),
            ..b_to_move
        }),
    );
    let mut rng = Lcg(seed);
    for _ in 0..playouts {
        let mut pos = Position {
            lead: Some(0),
            ..start
        };
        let mut drawn: Vec<u16> = Vec::new();
        let mut boxes = [0u32; 2];
        loop {
            samples.add_position(game, pos, &drawn, boxes, &mut rng);
            let edges = moves_of(game, pos.state);
            if edges.is_empty() {
                break;
            }
            let edge = edges[rng.below(edges.len())];
            boxes[usize::from(pos.to_move == Player::Second)] += edge.reward as u32;
            drawn.push(edge.mv.0);
            pos = pos.play(&edge);
        }
    }
    samples
}

/// Inputs both readers must refuse: bad syntax, edges off the board or
/// listed twice, a score without a side or that does not add up.
fn dab_bad_inputs(game: &DotsAndBoxes) -> Vec<String> {
    let e = game.edge_count();
    let boxes = game.rows() * game.cols();
    let all: Vec<u16> = (0..e as u16).collect();
    let full = edge_list(&all, ",");
    let mut bad: Vec<String> = [
        "",
        "bogus",
        "0,0",
        "0 1 0",
        "99",
        "none 0",
        "0 none",
        "start,0",
        "none none",
        "0 C",
        "0;1",
        "0.5",
        "A",
        "B 0-0",
        "0 1-0",
        "none 0-0",
        "none A 0-1",
        "none B 1-0",
        "0 B 1-0",
        "0 B 1-",
        "0 B -",
        "0 B 1--0",
        "0 B 1-0-0",
        "0 B 0-0 extra",
        "0 B 0-0 A",
        "0 A B",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    bad.push(e.to_string());
    bad.push(format!("0,{}", e + 1));
    bad.push(format!("{full} A 0-0"));
    bad.push(format!("{full} B {boxes}-1"));
    bad.push(format!("{full} {boxes}-0"));
    bad.push(format!("{full},0"));
    bad
}

/// The compared fields of a Dots and Boxes answer, moves and best moves in
/// edge order, `final_for_first` null when absent; `None` for errors.
fn dab_comparable(answer: &Json) -> Option<Json> {
    if answer.get("error").is_some() {
        return None;
    }
    let mut moves: Vec<Json> = answer["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            json!({"move": m["move"], "edge": m["edge"], "value": m["value"],
                   "remoteness": m["remoteness"], "best": m["best"]})
        })
        .collect();
    moves.sort_by_key(move_order);
    let mut best = answer["best"].as_array().unwrap().clone();
    best.sort_by_key(|m| m.as_str().unwrap().parse::<u64>().unwrap());
    Some(json!({
        "position": answer["position"],
        "to_move": answer["to_move"],
        "value": answer["value"],
        "net": answer["net"],
        "remoteness": answer["remoteness"],
        "final_for_first": answer.get("final_for_first").cloned().unwrap_or(Json::Null),
        "best": best,
        "moves": moves,
    }))
}

/// What the library's moves and stored values say about `pos`, in the
/// reader's JSON shape: spec section 4 applied to [`Database::get`].
fn dab_library_answer(game: &DotsAndBoxes, db: &Database, pos: &Position) -> Json {
    let stored = db.get(pos.state).unwrap().unwrap();
    let moves: Vec<Json> = moves_of(game, pos.state)
        .iter()
        .map(|e| {
            let child = db.get(e.child).unwrap().unwrap();
            let value = if e.again {
                i32::from(e.reward) + child.net
            } else {
                -child.net
            };
            json!({"move": e.mv.0.to_string(), "edge": e.mv.0, "value": value,
                   "remoteness": child.remoteness, "best": value == stored.net})
        })
        .collect();
    let best: Vec<Json> = moves
        .iter()
        .filter(|m| m["best"] == true)
        .map(|m| m["move"].clone())
        .collect();
    json!({
        "position": game.format_position(pos.state),
        "to_move": player_name(pos.to_move),
        "value": stored.net,
        "net": stored.net,
        "remoteness": stored.remoteness,
        "final_for_first": pos.lead.map(|l| l + pos.to_move.sign() * stored.net),
        "best": best,
        "moves": moves,
    })
}

/// Runs the Python reader once on every sample and compares each answer
/// with `query`'s and, for legal positions, with the library's.
fn assert_dab_python_matches_query_and_library(
    game: &DotsAndBoxes,
    db_path: &Path,
    samples: &DabSamples,
) {
    let db = Database::open(db_path).unwrap();
    let texts: Vec<String> = samples.items.iter().map(|(t, _)| t.clone()).collect();
    let python = python_answers(db_path, &texts);
    let query = query_answers(db_path, &texts);
    for (((text, pos), py), q) in samples.items.iter().zip(&python).zip(&query) {
        if let Some(py_moves) = py.get("moves").and_then(Json::as_array) {
            assert!(
                py_moves.is_sorted_by_key(move_order),
                "{text:?}: python moves not in edge order"
            );
        }
        // Legal positions are answered, everything else refused, by both.
        assert_eq!(
            pos.is_some(),
            py.get("error").is_none(),
            "{text:?}: python {py}"
        );
        assert_eq!(
            pos.is_some(),
            q.get("error").is_none(),
            "{text:?}: query {q}"
        );
        assert_eq!(
            dab_comparable(py),
            dab_comparable(q),
            "{text:?}: python {py} vs query {q}"
        );
        if let Some(pos) = pos {
            let expected = dab_library_answer(game, &db, pos);
            assert_eq!(
                dab_comparable(py),
                dab_comparable(&expected),
                "{text:?}: python {py} vs library {expected}"
            );
        }
    }
}

fn assert_dab_coverage(variant: &str, samples: &DabSamples) {
    assert!(samples.terminals > 0, "{variant}: no finished game sampled");
    assert!(samples.with_score > 0, "{variant}: no score sampled");
    assert!(samples.captures > 0, "{variant}: no capture sampled");
    if variant != "1x1" {
        assert!(samples.doubles > 0, "{variant}: no double capture sampled");
    }
}

#[test]
fn python_reader_matches_query_and_library_dots_and_boxes() {
    let dir = TempDir::new().unwrap();
    for (i, variant) in DAB_VARIANTS.iter().enumerate() {
        let (game, path) = build_dab_db(&dir, variant);
        let mut samples = dab_sample_positions(&game, 8, 7 + i as u64);
        assert_dab_coverage(variant, &samples);
        for bad in dab_bad_inputs(&game) {
            samples.add(bad, None);
        }
        assert_dab_python_matches_query_and_library(&game, &path, &samples);
        if *variant == "3x3" {
            // The spec's fact: a win by 3 boxes for the second player.
            let start = &python_answers(&path, &["none".to_string()])[0];
            assert_eq!(start["net"], -3, "3x3 start: {start}");
        }
    }
}

#[test]
fn python_reader_knows_every_dense_dots_and_boxes_board() {
    // The reader takes the canonical specs (those a header holds) of the
    // boards the library gives a dense file, sides of 9 and 10 included.
    let specs = [
        "1x1", "3x4", "2x6", "1x9", "1x10", "10x1", "1x11", "3x5", "4x4", "0x3", "3by3", "3x",
    ];
    const DRIVER: &str = "
import sys
sys.path.insert(0, sys.argv[1])
import bsq_reader
for v in sys.argv[2:]:
    print(bsq_reader.DotsAndBoxes.from_variant(v) is not None)
";
    let script = reader_script();
    let out = run(Command::new("python3")
        .arg("-c")
        .arg(DRIVER)
        .arg(script.parent().unwrap())
        .args(specs));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let known: Vec<bool> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l == "True")
        .collect();
    let dense: Vec<bool> = specs
        .iter()
        .map(|v| DotsAndBoxes::from_variant(v).is_ok_and(|g| g.has_table()))
        .collect();
    assert_eq!(known, dense, "{specs:?}");
    assert_eq!(dense.iter().filter(|&&d| d).count(), 6);
}

/// The reader's `main` run on each file in a single Python process
/// (starting the interpreter is the slow part): per file, the exit status
/// it returns and what it writes on stderr.
fn python_statuses(files: &[PathBuf], position: &str) -> Vec<(i64, String)> {
    const DRIVER: &str = "
import contextlib, io, json, sys
sys.path.insert(0, sys.argv[1])
import bsq_reader
for path in sys.argv[3:]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = bsq_reader.main([path, sys.argv[2]])
    print(json.dumps({'status': status, 'stderr': err.getvalue()}))
";
    let script = reader_script();
    let out = run(Command::new("python3")
        .arg("-c")
        .arg(DRIVER)
        .arg(script.parent().unwrap())
        .arg(position)
        .args(files));
    assert!(
        out.status.success(),
        "python driver: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    json_lines(&out, files.len(), "python driver")
        .iter()
        .map(|l| {
            let status = l["status"].as_i64().unwrap();
            (status, l["stderr"].as_str().unwrap().to_string())
        })
        .collect()
}

fn query_status(db: &Path, position: &str) -> Option<i32> {
    run(Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("--db")
        .arg(db)
        .arg("--json")
        .arg(position))
    .status
    .code()
}

/// `good` with `edit` applied to the header and the header checksum
/// recomputed, so that only the checks after the checksum can catch it.
fn resealed(good: &[u8], edit: impl FnOnce(&mut [u8])) -> Vec<u8> {
    let mut bytes = good.to_vec();
    edit(&mut bytes[..4096]);
    let sum = header_checksum(&bytes[..4096]);
    bytes[4088..4096].copy_from_slice(&sum.to_le_bytes());
    bytes
}

/// Overwrites the NUL-padded string field at `at` of `width` bytes.
fn put_str(header: &mut [u8], at: usize, width: usize, text: &[u8]) {
    header[at..at + width].fill(0);
    header[at..at + text.len()].copy_from_slice(text);
}

#[test]
fn python_reader_rejects_damaged_dense_files() {
    let dir = TempDir::new().unwrap();
    let (_, path) = build_dab_db(&dir, "2x2"); // 12 edges: 4096 entries
    let good = std::fs::read(&path).unwrap();
    assert_eq!(good.len(), 4096 + (1 << 12));
    let write = |name: &str, bytes: &[u8]| {
        let p = dir.path().join(name);
        std::fs::write(&p, bytes).unwrap();
        p
    };
    let intact = write("intact.db", &good);
    python_answers(&intact, &["none".to_string()]); // asserts exit status 0
    assert_eq!(query_status(&intact, "none"), Some(0));

    let mut damaged: Vec<(String, Vec<u8>)> = vec![
        (
            "truncated by one entry".into(),
            good[..good.len() - 1].to_vec(),
        ),
        ("truncated by half".into(), good[..4096 + 2048].to_vec()),
        ("header only".into(), good[..4096].to_vec()),
        ("shorter than the header".into(), good[..100].to_vec()),
        (
            "padded by one byte".into(),
            [good.as_slice(), &[0u8]].concat(),
        ),
        (
            "padded by a page".into(),
            [good.as_slice(), &[0u8; 4096]].concat(),
        ),
    ];
    // Any header bit flipped: caught by the header checksum at the latest.
    for offset in [
        0, 8, 12, 16, 20, 24, 28, 32, 64, 128, 129, 131, 133, 136, 144, 168, 300, 4090,
    ] {
        let mut bytes = good.clone();
        bytes[offset] ^= 0x01;
        damaged.push((format!("header byte {offset} flipped"), bytes));
    }
    // Header fields changed and the checksum recomputed.
    let u32_at =
        |at: usize, v: u32| move |h: &mut [u8]| h[at..at + 4].copy_from_slice(&v.to_le_bytes());
    let u64_at =
        |at: usize, v: u64| move |h: &mut [u8]| h[at..at + 8].copy_from_slice(&v.to_le_bytes());
    let byte_at = |at: usize, v: u8| move |h: &mut [u8]| h[at] = v;
    let resealed_cases: Vec<(&str, Vec<u8>)> = vec![
        ("header_size 4097", resealed(&good, u32_at(16, 4097))),
        ("layout_kind 1 (sorted)", resealed(&good, u32_at(20, 1))),
        ("layout_kind 3", resealed(&good, u32_at(20, 3))),
        ("records_offset 0", resealed(&good, u64_at(144, 0))),
        ("key_shift 1", resealed(&good, byte_at(128, 1))),
        ("key_bits 11", resealed(&good, byte_at(129, 11))),
        ("key_bits 0", resealed(&good, byte_at(129, 0))),
        ("key_bits 37", resealed(&good, byte_at(129, 37))),
        ("value_shift 1", resealed(&good, byte_at(130, 1))),
        ("value_bits 7", resealed(&good, byte_at(131, 7))),
        ("remoteness_bits 6", resealed(&good, byte_at(133, 6))),
        (
            "record_count 2^12 - 1",
            resealed(&good, u64_at(136, (1 << 12) - 1)),
        ),
        (
            "key_bits and record_count 13",
            resealed(&good, |h| {
                h[129] = 13;
                h[136..144].copy_from_slice(&(1u64 << 13).to_le_bytes());
            }),
        ),
        ("flags bit 1", resealed(&good, u32_at(28, 3))),
        ("not marked complete", resealed(&good, u32_at(28, 0))),
        ("reserved byte 134", resealed(&good, byte_at(134, 1))),
        ("reserved byte 300", resealed(&good, byte_at(300, 1))),
        ("game_id 1", resealed(&good, u32_at(24, 1))),
        (
            "british-square name and id",
            resealed(&good, |h| {
                h[24..28].copy_from_slice(&1u32.to_le_bytes());
                put_str(h, 32, 32, b"british-square");
            }),
        ),
        (
            "game_name with a control byte",
            resealed(&good, |h| put_str(h, 32, 32, b"dots-and-boxes\x01")),
        ),
        (
            "variant 2x3 (other edge count)",
            resealed(&good, |h| put_str(h, 64, 64, b"2x3")),
        ),
        (
            "variant 9x9",
            resealed(&good, |h| put_str(h, 64, 64, b"9x9")),
        ),
        (
            "variant 02x2",
            resealed(&good, |h| put_str(h, 64, 64, b"02x2")),
        ),
        (
            "variant 2x2,x",
            resealed(&good, |h| put_str(h, 64, 64, b"2x2,x")),
        ),
        ("start_key 1", resealed(&good, u64_at(168, 1))),
    ];
    damaged.extend(resealed_cases.into_iter().map(|(w, b)| (w.to_string(), b)));
    let files: Vec<PathBuf> = damaged
        .iter()
        .enumerate()
        .map(|(i, (_, bytes))| write(&format!("damaged-{i}.db"), bytes))
        .collect();
    let statuses = python_statuses(&files, "none");
    for (((what, _), file), (status, stderr)) in damaged.iter().zip(&files).zip(&statuses) {
        assert_eq!(*status, 3, "{what}: the reader must refuse the file");
        assert!(!stderr.trim().is_empty(), "{what}: no message on stderr");
        assert_eq!(
            query_status(file, "none"),
            Some(3),
            "{what}: query must refuse the file too"
        );
    }
    // The same through the script's own exit status, once.
    let out = run(Command::new("python3")
        .arg(reader_script())
        .arg(&files[0])
        .arg("none"));
    assert_eq!(out.status.code(), Some(3), "{}", damaged[0].0);

    // Resealed changes that leave a valid file: both accept it.
    let accepted: Vec<(&str, Vec<u8>)> = vec![
        (
            "generator renamed",
            resealed(&good, |h| put_str(h, 176, 32, b"another writer 9")),
        ),
        ("records_checksum changed", resealed(&good, |h| h[152] ^= 1)),
    ];
    let files: Vec<PathBuf> = accepted
        .iter()
        .enumerate()
        .map(|(i, (_, bytes))| write(&format!("accepted-{i}.db"), bytes))
        .collect();
    let statuses = python_statuses(&files, "none");
    for (((what, _), file), (status, stderr)) in accepted.iter().zip(&files).zip(&statuses) {
        assert_eq!(*status, 0, "{what}: must be accepted; {stderr}");
        assert_eq!(query_status(file, "none"), Some(0), "{what}: query");
    }

    // A damaged entry: the reader does not verify the records checksum, so
    // the file opens, but both refuse the position whose answer the entry
    // contradicts (the start: key 0; the full board: key 2^12 - 1, which
    // must be 0) and still answer the others alike.
    let full = edge_list(&(0..12).collect::<Vec<u16>>(), ",");
    for (key, position) in [(0usize, "none".to_string()), ((1 << 12) - 1, full)] {
        let mut bytes = good.clone();
        bytes[4096 + key] ^= 0x01;
        let file = write(&format!("entry-{key}.db"), &bytes);
        let texts = vec![position, "0,5".to_string(), "1,2,3 B".to_string()];
        let py = python_answers(&file, &texts); // asserts exit status 1
        let q = query_answers(&file, &texts);
        assert!(
            py[0].get("error").is_some(),
            "entry {key}: python {}",
            py[0]
        );
        assert!(q[0].get("error").is_some(), "entry {key}: query {}", q[0]);
        for ((text, p), q) in texts.iter().zip(&py).zip(&q).skip(1) {
            assert!(p.get("error").is_none(), "{text:?}: {p}");
            assert_eq!(dab_comparable(p), dab_comparable(q), "{text:?}");
        }
    }
}

/// `query pack IN -o OUT --block-entries N`.
fn pack_with_query(input: &Path, output: &Path, block_entries: u32) {
    let out = run(Command::new(env!("CARGO_BIN_EXE_query"))
        .arg("pack")
        .arg(input)
        .arg("-o")
        .arg(output)
        .args(["--quiet", "--block-entries", &block_entries.to_string()]));
    assert!(
        out.status.success(),
        "query pack: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn python_reader_reads_packed_files_as_query_reads_the_plain_ones() {
    let dir = TempDir::new().unwrap();
    // British Square: sorted records, blocks of many sizes.
    for (i, variant) in ["4x4", "3x3,center-allowed", "5x5"].iter().enumerate() {
        let (game, plain) = build_db(&dir, variant);
        let samples = sample_positions(&game, 40, 300 + i as u64);
        let texts = samples.texts();
        let want = query_answers(&plain, &texts);
        for block in [64, 4096] {
            let packed = dir.path().join(format!("bsq-{variant}-{block}.packed.db"));
            pack_with_query(&plain, &packed, block);
            assert_eq!(
                python_answers(&packed, &texts),
                python_answers(&plain, &texts),
                "{variant}, blocks of {block}"
            );
            assert_eq!(
                query_answers(&packed, &texts),
                want,
                "{variant}, blocks of {block}"
            );
        }
    }
    // Dots and Boxes: dense tables, canonical entries only.
    for (i, variant) in ["2x2", "2x3", "3x3"].iter().enumerate() {
        let (game, plain) = build_dab_db(&dir, variant);
        let samples = dab_sample_positions(&game, 4, 400 + i as u64);
        let texts: Vec<String> = samples.items.iter().map(|(t, _)| t.clone()).collect();
        let packed = dir.path().join(format!("dab-{variant}.packed.db"));
        pack_with_query(&plain, &packed, 256);
        assert_eq!(
            python_answers(&packed, &texts),
            python_answers(&plain, &texts),
            "{variant}"
        );
    }
}

#[test]
fn python_reader_refuses_damaged_packed_files() {
    let dir = TempDir::new().unwrap();
    let (_, plain) = build_db(&dir, "3x3");
    let (_, dab) = build_dab_db(&dir, "1x2");
    let mut files = Vec::new();
    for (name, source) in [("bsq", &plain), ("dab", &dab)] {
        let packed = dir.path().join(format!("{name}.packed.db"));
        pack_with_query(source, &packed, 64);
        let good = std::fs::read(&packed).unwrap();
        // A bit flipped in each byte after the header, in turn: every one
        // is refused (a block's checksum or the index's) before any answer
        // comes from it.
        for at in (HEADER_SIZE..good.len()).step_by(3) {
            let mut bad = good.clone();
            bad[at] ^= 1 << (at % 8);
            let path = dir.path().join(format!("{name}-{at}.db"));
            std::fs::write(&path, bad).unwrap();
            files.push(path);
        }
    }
    // The start touches block 0 only; a position of every block is
    // needed to meet each flip: the reader's full check does.
    for (path, (status, stderr)) in files.iter().zip(python_statuses(&files, "--verify")) {
        assert_eq!(status, 3, "{}: {stderr}", path.display());
        assert!(
            stderr.contains("corrupt") || stderr.contains("checksum mismatch"),
            "{}: {stderr}",
            path.display()
        );
    }
}
