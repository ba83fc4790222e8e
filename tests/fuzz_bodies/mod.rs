//! The checks behind the fuzz targets, shared by `fuzz/fuzz_targets/*.rs`
//! (which include this file with `#[path]`) and by `tests/fuzz_corpus.rs`
//! (which replays the stored corpus and regressions through them with a
//! plain `cargo test`, no nightly or libFuzzer needed).
//!
//! Each function takes the raw bytes of one fuzz input and panics when an
//! invariant breaks. Malformed input must be rejected with an error, never
//! a panic.

use std::borrow::Cow;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use boardsolve::analysis::verify::verify;
use boardsolve::core::layout::{LayoutKind, RecordLayout};
use boardsolve::core::Corrupted;
use boardsolve::core::NoProgress;
use boardsolve::db::header::{header_checksum, Header, HEADER_SIZE};
use boardsolve::games::british_square::BritishSquare;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::{
    analyze, principal_variation, AnyGame, Database, Edge, Game, Position, Presentation, Value,
};

/// The check of one fuzz target: panics on a broken invariant.
pub type Check = fn(&[u8]);

/// Every target, by the name of its fuzz target and corpus directory.
pub const TARGETS: &[(&str, Check)] = &[
    ("db_open", db_open),
    ("parse_british_square", parse_british_square),
    ("parse_dots_and_boxes", parse_dots_and_boxes),
    ("variant_specs", variant_specs),
];

/// Databases with more records than this are opened and looked into, but
/// not verified (to keep a fuzz run fast).
const VERIFY_LIMIT: u64 = 100_000;

/// Offsets of the two checksums in the header (`format-spec.md`, section 2).
const RECORDS_CHECKSUM_AT: usize = 152;
const HEADER_CHECKSUM_AT: usize = HEADER_SIZE - 8;

// ---------------------------------------------------------------- db_open

/// The file reader: `Header::decode`, `Database::open` and, when it opens,
/// lookups, the index, the checksum and the full verification.
///
/// Random bytes almost never carry valid checksums, so the input is also
/// tried "resealed": with both checksums recomputed, which lets the fuzzer
/// reach the checks behind them (a buggy writer rather than a damaged disk).
pub fn db_open(data: &[u8]) {
    open_and_exercise(data);
    if let Some(sealed) = reseal(data) {
        if sealed != data {
            open_and_exercise(&sealed);
        }
    }
}

/// `data` with its records checksum and header checksum recomputed.
pub fn reseal(data: &[u8]) -> Option<Vec<u8>> {
    if data.len() < HEADER_SIZE {
        return None;
    }
    let mut b = data.to_vec();
    let records = xxhash_rust::xxh3::xxh3_128(&b[HEADER_SIZE..]);
    b[RECORDS_CHECKSUM_AT..RECORDS_CHECKSUM_AT + 16].copy_from_slice(&records.to_le_bytes());
    let header = header_checksum(&b);
    b[HEADER_CHECKSUM_AT..HEADER_SIZE].copy_from_slice(&header.to_le_bytes());
    Some(b)
}

fn open_and_exercise(bytes: &[u8]) {
    let decoded = Header::decode(bytes);
    if let Ok(h) = &decoded {
        // The header is fully tiled by its fields: a decoded header encodes
        // back to the very same bytes.
        let encoded = h.encode().expect("a decoded header encodes");
        assert_eq!(encoded[..], bytes[..HEADER_SIZE], "header bytes round trip");
    }
    let openable = decoded
        .as_ref()
        .ok()
        .and_then(|h| h.expected_file_size().ok())
        == Some(bytes.len() as u64);
    with_scratch_file(bytes, |path| match Database::open(path) {
        Ok(db) => {
            assert!(openable, "opened a file whose header or size is wrong");
            assert_eq!(Some(db.header()), decoded.as_ref().ok());
            exercise_db(&db, bytes);
        }
        Err(e) => {
            assert!(!openable, "a valid file did not open: {e}");
            let _ = e.to_string();
        }
    });
}

/// A packed file that opened: lookups and verification end in an answer
/// or an error, never a panic, and never an answer from a block that
/// fails its checks.
fn exercise_packed(db: &Database, bytes: &[u8]) {
    let h = db.header().clone();
    let mut keys = vec![h.start_key, 0, 1, u64::MAX];
    let tail = &bytes[bytes.len().saturating_sub(64)..];
    for chunk in tail.chunks_exact(8) {
        keys.push(u64::from_le_bytes(chunk.try_into().expect("8 bytes")));
    }
    let mut many = Vec::new();
    if db.get_many(&keys, &mut many).is_ok() {
        assert_eq!(many.len(), keys.len());
    }
    let verified = db.verify_checksum().is_ok();
    if let Ok(game) = AnyGame::from_header(&h) {
        if h.record_count <= VERIFY_LIMIT {
            let report = verify(db, game.game(), &NoProgress);
            assert!(
                report.is_err() || verified,
                "verified a packed file whose blocks fail"
            );
        }
    }
}

fn exercise_db(db: &Database, bytes: &[u8]) {
    if db.is_packed() {
        exercise_packed(db, bytes);
        return;
    }
    let h = db.header().clone();
    let n = db.len();
    assert_eq!(n, h.record_count);
    assert_eq!(db.is_empty(), n == 0);
    let layout = h.layout;
    match h.kind {
        LayoutKind::Sorted => {
            assert_eq!(db.raw_records().len() as u64, n);
            assert!(db.dense_entries().is_empty());
        }
        LayoutKind::Dense => {
            assert_eq!(db.dense_entries().len() as u64, n);
            assert!(db.raw_records().is_empty());
        }
    }

    // Keys to look up: edge cases, keys of records and their neighbours,
    // and numbers taken from the input.
    let mut keys = vec![h.start_key, 0, 1, u64::MAX, u64::MAX >> 1];
    if layout.key_bits < 64 {
        keys.push(1 << layout.key_bits);
        keys.push((1 << layout.key_bits) - 1);
    }
    let samples: Vec<usize> = if n == 0 {
        Vec::new()
    } else {
        let n = n as usize;
        vec![0, 1.min(n - 1), n / 3, n / 2, n - 1]
    };
    for &i in &samples {
        let k = match h.kind {
            LayoutKind::Sorted => layout.key(db.record(i).expect("sampled record")),
            LayoutKind::Dense => i as u64,
        };
        keys.extend([k, k.wrapping_sub(1), k.wrapping_add(1)]);
    }
    let tail = &bytes[bytes.len().saturating_sub(64)..];
    for chunk in tail.chunks_exact(8) {
        let r = u64::from_le_bytes(chunk.try_into().expect("8 bytes"));
        keys.extend([r, layout.key(r), r >> 40]);
    }

    // Lookups one by one, many at once, with and without the index: they
    // must agree whenever the records are in order (the file format's
    // promise). In an unordered file a lookup that meets records out of
    // order fails, saying the file is corrupted; any lookup may give
    // garbage, but none panics.
    let in_order = match h.kind {
        LayoutKind::Dense => true,
        LayoutKind::Sorted => {
            let recs = db.raw_records();
            recs.windows(2)
                .all(|w| u64::from_le(w[0]) < u64::from_le(w[1]))
        }
    };
    let ordered = |found: Result<Option<Value>, Corrupted>, what: &str| match found {
        Ok(v) => Some(v),
        Err(e) => {
            assert!(!in_order, "{what}: a lookup in an ordered file failed: {e}");
            None
        }
    };
    let plain: Vec<_> = keys.iter().map(|&k| ordered(db.get(k), "get")).collect();
    if in_order {
        for (&k, found) in keys.iter().zip(&plain) {
            let found = found.expect("an ordered file answers every lookup");
            assert_eq!(db.find(k).is_some(), found.is_some(), "find({k:#x})");
        }
    }
    let mut many = Vec::new();
    let answered = db.get_many(&keys, &mut many);
    assert!(
        answered.is_ok() || !in_order,
        "get_many in an ordered file failed"
    );
    if in_order {
        assert_eq!(many.len(), keys.len());
        let plain: Vec<_> = plain.iter().map(|v| v.flatten()).collect();
        assert_eq!(many, plain, "get_many and get disagree (no index)");
    }
    db.build_index();
    db.build_index();
    let indexed: Vec<_> = keys
        .iter()
        .map(|&k| ordered(db.get(k), "get (index)"))
        .collect();
    let answered = db.get_many(&keys, &mut many);
    assert!(
        answered.is_ok() || !in_order,
        "get_many (index) in an ordered file failed"
    );
    if in_order {
        assert_eq!(indexed, plain, "get with and without the index disagree");
        let plain: Vec<_> = plain.iter().map(|v| v.flatten()).collect();
        assert_eq!(many, plain, "get_many and get disagree (index)");
    }
    match h.kind {
        LayoutKind::Dense => {
            let entries = db.dense_entries();
            for &k in &keys {
                let want = usize::try_from(k)
                    .ok()
                    .and_then(|i| entries.get(i))
                    .map(|&b| layout.dense_value(k, b));
                assert_eq!(db.get(k), Ok(want), "dense key {k:#x}");
            }
        }
        LayoutKind::Sorted if in_order => {
            for &i in &samples {
                // A record whose key is in range is found at its index,
                // unless an equal key comes first (a duplicate).
                let r = db.record(i).expect("sampled record");
                let k = layout.key(r);
                let first = (0..i)
                    .rev()
                    .take_while(|&j| db.record(j).map(|q| layout.key(q)) == Some(k))
                    .last()
                    .unwrap_or(i);
                if layout.key_bits >= 64 || k >> layout.key_bits == 0 {
                    assert_eq!(db.find(k), Some(first), "record {i}");
                    let want = layout.value(db.record(first).expect("record"));
                    assert_eq!(db.get(k), Ok(Some(want)), "record {i}");
                } else {
                    assert_eq!(db.find(k), None, "record {i}: key out of range");
                }
            }
        }
        LayoutKind::Sorted => {}
    }

    let checksum_ok = db.verify_checksum().is_ok();
    if n > VERIFY_LIMIT {
        return;
    }
    let Ok(game) = AnyGame::from_header(&h) else {
        return;
    };
    let game = game.game();
    assert_eq!(game.descriptor().variant, h.variant);
    match verify(db, game, &NoProgress) {
        Ok(report) => {
            assert!(checksum_ok, "verified a file whose checksum is wrong");
            assert_eq!(report.records, n);
            assert_eq!(report.children_checked, h.is_complete());
            if h.is_complete() {
                // A verified complete database answers every position it
                // holds, and the line of perfect play from the start.
                let start = game.start();
                let a = analyze(game, db, start).expect("a verified database answers the start");
                assert_eq!(Ok(Some(a.value)), db.get(h.start_key));
                let line = principal_variation(game, db, start)
                    .expect("a verified database gives the perfect line");
                assert_eq!(line.len() as u32, a.value.remoteness);
                for &i in &samples {
                    let key = match h.kind {
                        LayoutKind::Sorted => layout.key(db.record(i).expect("sampled record")),
                        LayoutKind::Dense => i as u64,
                    };
                    analyze(game, db, key).expect("a verified database answers its records");
                }
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
}

/// Runs `f` on a file holding `bytes`. One scratch file per thread is
/// reused, unnamed on Linux (nothing is left behind if the fuzzer exits).
fn with_scratch_file<R>(bytes: &[u8], f: impl FnOnce(&Path) -> R) -> R {
    fn scratch_dir() -> PathBuf {
        let shm = Path::new("/dev/shm");
        if shm.is_dir() {
            shm.to_path_buf()
        } else {
            std::env::temp_dir()
        }
    }
    thread_local! {
        static SCRATCH: (File, PathBuf) = scratch();
    }
    #[cfg(target_os = "linux")]
    fn scratch() -> (File, PathBuf) {
        use std::os::fd::AsRawFd;
        let file = tempfile::tempfile_in(scratch_dir()).expect("scratch file");
        let path = PathBuf::from(format!("/proc/self/fd/{}", file.as_raw_fd()));
        (file, path)
    }
    #[cfg(not(target_os = "linux"))]
    fn scratch() -> (File, PathBuf) {
        let (file, path) = tempfile::NamedTempFile::new_in(scratch_dir())
            .expect("scratch file")
            .into_parts();
        let path = path.keep().expect("keep scratch file");
        (file, path)
    }
    SCRATCH.with(|(file, path)| {
        file.set_len(0).expect("truncate scratch file");
        let mut w = file;
        std::io::Seek::rewind(&mut w).expect("rewind scratch file");
        w.write_all(bytes).expect("write scratch file");
        f(path)
    })
}

// ---------------------------------------------------------------- parsers

/// The input as text: itself when it is UTF-8, else its lossy conversion.
fn text_of(data: &[u8]) -> Cow<'_, str> {
    String::from_utf8_lossy(data)
}

fn british_squares() -> &'static [BritishSquare] {
    static GAMES: OnceLock<Vec<BritishSquare>> = OnceLock::new();
    GAMES.get_or_init(|| {
        [
            "5x5",
            "4x4",
            "3x3",
            "5x5,center-allowed",
            "4x4,center-allowed",
            "3x3,center-allowed",
        ]
        .iter()
        .map(|v| BritishSquare::from_variant(v).expect("known variant"))
        .collect()
    })
}

fn dots_and_boxes() -> &'static [DotsAndBoxes] {
    static GAMES: OnceLock<Vec<DotsAndBoxes>> = OnceLock::new();
    GAMES.get_or_init(|| {
        ["1x1", "1x2", "2x2", "2x3", "3x3", "3x4"]
            .iter()
            .map(|v| DotsAndBoxes::from_variant(v).expect("known variant"))
            .collect()
    })
}

/// British Square positions and moves, on every board size.
pub fn parse_british_square(data: &[u8]) {
    let text = text_of(data);
    for game in british_squares() {
        let pos = parse_any(game, &text);
        if let Ok(p) = pos {
            assert_eq!(p.to_move, game.to_move(p.state), "{text:?}");
            assert_eq!(p.lead, game.lead(p.state), "{text:?}");
            // The notation holds everything: the position itself round trips.
            let written = game.format_position(p.state);
            assert_eq!(game.parse(&written), Ok(p), "{text:?} -> {written:?}");
        }
    }
}

/// Dots and Boxes positions and moves, on boards from 1x1 to 3x4.
pub fn parse_dots_and_boxes(data: &[u8]) {
    let text = text_of(data);
    for game in dots_and_boxes() {
        let pos = parse_any(game, &text);
        if let Ok(p) = pos {
            // `format_position` writes the edges only; with the side to move
            // and the score (when given) appended the position round trips.
            let mut written = game.format_position(p.state);
            written.push(' ');
            written.push_str(game.player_name(p.to_move));
            if let Some(lead) = p.lead {
                let closed = closed_boxes(game, p.state) as i32;
                assert_eq!((closed + lead) % 2, 0, "{text:?}");
                let a = (closed + lead) / 2;
                written.push_str(&format!(" {a}-{}", closed - a));
            }
            assert_eq!(game.parse(&written), Ok(p), "{text:?} -> {written:?}");
        }
    }
}

fn closed_boxes(game: &DotsAndBoxes, state: u64) -> u32 {
    game.box_masks().iter().filter(|&&b| state & b == b).count() as u32
}

/// What every game's parser must do with any text: `parse` and
/// `parse_position` agree, and a parsed state keeps the game's contract.
fn parse_any(game: &dyn Presentation, text: &str) -> Result<Position, boardsolve::PositionError> {
    let pos = game.parse(text);
    let state = game.parse_position(text);
    assert_eq!(
        pos.as_ref().map(|p| p.state),
        state.as_ref().copied(),
        "{text:?}"
    );
    if let Err(e) = &pos {
        let _ = e.to_string();
    }
    let start = game.start();
    check_parsed_move(game, start, text);
    if let Ok(p) = &pos {
        check_state(game, p, text);
        check_parsed_move(game, p.state, text);
        for tok in text.split_whitespace().take(4) {
            check_parsed_move(game, p.state, tok);
        }
    }
    pos
}

/// A move the parser accepts is one of the state's moves.
fn check_parsed_move(game: &dyn Game, state: u64, text: &str) {
    if let Ok(mv) = game.parse_move(state, text) {
        let mut edges = Vec::new();
        game.moves(state, &mut edges);
        assert!(
            edges.iter().any(|e| e.mv == mv),
            "parse_move({state:#x}, {text:?}) = {mv:?} is not a legal move"
        );
    }
}

/// The engine's contract (`Game`'s documentation) on one state.
fn check_state(game: &dyn Presentation, pos: &Position, text: &str) {
    let s = pos.state;
    let desc = game.descriptor();
    assert!(
        game.is_valid_key(s),
        "{text:?} parsed to an invalid key {s:#x}"
    );
    if desc.key_bits < 64 {
        assert_eq!(s >> desc.key_bits, 0, "{text:?}");
    }
    let layer = game.layer(s);
    assert!(layer < game.layer_count(), "{text:?}");
    assert_eq!(
        game.parse_position(&game.format_position(s)),
        Ok(s),
        "{text:?}"
    );

    // Symmetries: the canonical key is the smallest image, and a canonical
    // key of the class.
    let canonical = game.canonical(s);
    let images: Vec<u64> = (0..game.symmetry_count())
        .map(|sym| game.transform(s, sym))
        .collect();
    assert_eq!(images[0], s, "symmetry 0 is the identity");
    assert_eq!(Some(&canonical), images.iter().min(), "{text:?}");
    assert_eq!(game.canonical(canonical), canonical, "{text:?}");
    for &t in &images {
        assert!(game.is_valid_key(t), "{text:?}: image {t:#x}");
        assert_eq!(game.canonical(t), canonical, "{text:?}: image {t:#x}");
        assert_eq!(game.layer(t), layer, "{text:?}: image {t:#x}");
        assert_eq!(game.to_move(t), game.to_move(s), "{text:?}");
    }

    // Moves: valid children, never an earlier layer; the fast canonical
    // children agree with the slow path; each move's notation reads back;
    // the symmetries map moves to moves.
    let mut edges = Vec::new();
    game.moves(s, &mut edges);
    let mut canon = Vec::new();
    game.canonical_children(s, &mut canon);
    assert_eq!(canon.len(), edges.len(), "{text:?}");
    for (e, c) in edges.iter().zip(&canon) {
        assert_eq!(c.mv, e.mv, "{text:?}");
        assert_eq!(
            c.child,
            game.canonical(e.child),
            "{text:?}: move {:?}",
            e.mv
        );
        assert_eq!((c.reward, c.again), (e.reward, e.again), "{text:?}");
        assert!(game.is_valid_key(e.child), "{text:?}: move {:?}", e.mv);
        assert!(game.layer(e.child) >= layer, "{text:?}: move {:?}", e.mv);
        let name = game.format_move(e.mv);
        let mut written = String::new();
        game.write_move(e.mv, &mut written);
        assert_eq!(written, name);
        assert_eq!(game.parse_move(s, &name), Ok(e.mv), "{text:?}: {name:?}");
        let after = pos.play(e);
        assert_eq!(after.state, e.child);
    }
    for (sym, &t) in images.iter().enumerate() {
        let mut mapped: Vec<Edge> = Vec::new();
        game.moves(t, &mut mapped);
        assert_eq!(mapped.len(), edges.len(), "{text:?}: symmetry {sym}");
        for e in &edges {
            let mv = game.transform_move(e.mv, sym);
            let m = mapped.iter().find(|m| m.mv == mv);
            let m = m.unwrap_or_else(|| panic!("{text:?}: symmetry {sym} loses {:?}", e.mv));
            assert_eq!(m.child, game.transform(e.child, sym), "{text:?}: sym {sym}");
            assert_eq!((m.reward, m.again), (e.reward, e.again), "{text:?}");
        }
    }

    // Drawings and scores: no panics.
    let _ = game.render(s);
    let marks: Vec<_> = edges
        .iter()
        .map(|e| boardsolve::MoveMark {
            mv: e.mv,
            score: i32::from(e.reward),
            outcome: boardsolve::Outcome::of(i32::from(e.reward)),
            best: e.again,
        })
        .collect();
    let _ = game.render_move_map(s, &marks, &boardsolve::render::plain);
    let _ = game.render_svg(s, None, &marks, "fuzz <title> & more");
    // The picture after a move, that move marked.
    if let Some(e) = edges.first() {
        let _ = game.render_svg(e.child, Some(e.mv), &[], "after");
    }
    let _ = game.score(s, 0);
    let _ = game.lead(s);
}

// ---------------------------------------------------------------- variants

/// Variant specs of both games, and any game name (first line) with any
/// spec (the rest).
pub fn variant_specs(data: &[u8]) {
    let text = text_of(data);
    for name in ["british-square", "dots-and-boxes"] {
        check_variant(name, &text);
    }
    if let Some((name, spec)) = text.split_once('\n') {
        check_variant(name, spec);
    }
}

fn check_variant(name: &str, spec: &str) {
    let game = match AnyGame::new(name, spec) {
        Ok(g) => g,
        Err(e) => {
            let _ = e.to_string();
            return;
        }
    };
    let g = game.game();
    let desc = g.descriptor().clone();
    assert_eq!(desc.name, name);
    // The canonical variant spec names the same game, and is canonical.
    let again = AnyGame::new(name, &desc.variant).expect("canonical spec parses");
    assert_eq!(again.game().descriptor(), &desc, "{spec:?}");
    assert!((1..=64).contains(&desc.key_bits), "{spec:?}");
    assert!(g.is_valid_key(g.start()), "{spec:?}");
    assert!(g.is_valid_key(g.canonical(g.start())), "{spec:?}");
    assert!(g.layer(g.start()) < g.layer_count(), "{spec:?}");
    let _ = game.label();
    let _ = game.default_file_name();
    // Every game the registry sets up whose database can be written (some
    // boards are only searched: Dots and Boxes 5x5's records would not fit
    // 64 bits) can be named in a header, and a reader sets the same game up
    // from it.
    if desc.storage_error().is_some() {
        return;
    }
    let kind = LayoutKind::for_game(&desc);
    let layout = RecordLayout::for_game(&desc);
    assert!(layout.is_well_formed_for(kind), "{spec:?}: {layout:?}");
    let header = Header {
        game_id: desc.id,
        flags: boardsolve::db::header::FLAG_COMPLETE,
        game_name: desc.name.to_owned(),
        variant: desc.variant.clone(),
        kind,
        layout,
        // A complete file holds exactly the states the game has.
        record_count: g.limits().exact_states.unwrap_or(0),
        records_checksum: 0,
        start_key: g.canonical(g.start()),
        generator: "fuzz".to_owned(),
        packed: None,
    };
    let bytes = header.encode().expect("a registry game fits a header");
    let decoded = Header::decode(&bytes).expect("an encoded header decodes");
    assert_eq!(decoded, header);
    let read = AnyGame::from_header(&decoded).expect("the header names the game");
    assert_eq!(read.game().descriptor(), &desc);
}
