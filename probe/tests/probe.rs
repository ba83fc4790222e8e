//! The probe API as an embedding program meets it: answers, typed errors
//! for every kind of bad input, and batches that survive a bad position.

use std::path::{Path, PathBuf};

use boardsolve::core::NoProgress;
use boardsolve::db::header::{Header, HEADER_SIZE};
use boardsolve::games::british_square::BritishSquare;
use boardsolve::games::connect_four::ConnectFour;
use boardsolve::solve::book::{build_book, BookOptions};
use boardsolve::{Game, Value};
use boardsolve_probe::{ErrorKind, OpenError, ProbeError, Tablebase};

fn bsq(dir: &Path, variant: &str) -> PathBuf {
    let game = BritishSquare::from_variant(variant).unwrap();
    let sol = boardsolve::solve::solve(&game, &NoProgress).unwrap();
    let path = dir.join(format!("bsq-{variant}.db"));
    boardsolve::db::write_database(&path, game.descriptor(), &sol.into()).unwrap();
    path
}

#[test]
fn answers_carry_every_move_and_agree_with_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(bsq(dir.path(), "3x3")).unwrap();
    assert_eq!(tb.game().name(), "british-square");
    assert_eq!(tb.game().variant(), "3x3");
    assert!(tb.is_complete());
    assert_eq!(tb.len(), 74);
    let start = tb.parse("start").unwrap();
    let answer = tb.answer(&start).unwrap();
    // X may not open in the centre on 3x3: 8 first moves.
    assert_eq!(answer.moves().len(), 8);
    assert_eq!(start.moves().len(), 8);
    assert!(answer.best_moves().count() >= 1);
    // The value of a position is the value of its best moves, and each
    // move's value, for the side making it, is the value of the position
    // after it turned round (the opponent is to move there).
    for m in answer.moves() {
        let after = tb.answer(&start.play(&m.mv).unwrap()).unwrap();
        assert_eq!(m.value, -after.value(), "{}", m.mv);
        assert_eq!(m.remoteness, after.remoteness());
        assert_eq!(m.best, m.value == answer.value());
        // A move read back from its name is the move.
        assert_eq!(start.parse_move(m.mv.name()).unwrap(), m.mv);
    }
    // The line of perfect play ends the game with the start's value.
    let line = tb.line(&start).unwrap();
    assert_eq!(line.len() as u32, answer.remoteness());
    let end = line.iter().fold(start, |p, m| p.play(m).unwrap());
    assert!(end.is_over());
    let last = tb.answer(&end).unwrap();
    assert_eq!(last.moves().len(), 0);
    // The end's value is for its side to move, the start's for X.
    let turned = if line.len().is_multiple_of(2) { 1 } else { -1 };
    assert_eq!(last.value() * turned, answer.value());
    assert_eq!(last.final_for_first(), Some(answer.value()));
    // A position read back from its text is the position.
    assert_eq!(tb.parse(&end.text()).unwrap(), end);
    // Batches keep the order and the errors.
    let many = tb.probe_many(["start", "not a position", line[0].name()]);
    assert_eq!(many.len(), 3);
    assert_eq!(many[0].as_ref().unwrap(), &answer);
    assert!(matches!(many[1], Err(ProbeError::Malformed { .. })));
    let together = tb.answers(&[start, end, start.play(&line[0]).unwrap()]);
    assert_eq!(together[0].as_ref().unwrap(), &answer);
    assert_eq!(together[1].as_ref().unwrap(), &last);
    assert_eq!(together[2].as_ref().unwrap(), many[2].as_ref().unwrap());
    let evals = tb.evals(&[start]);
    assert_eq!(evals[0].as_ref().unwrap(), &answer.eval());
}

#[test]
fn positions_of_another_game_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let three = Tablebase::open(bsq(dir.path(), "3x3")).unwrap();
    let four = Tablebase::open(bsq(dir.path(), "4x4")).unwrap();
    let p = four.parse("start").unwrap();
    match three.answer(&p) {
        Err(e @ ProbeError::OtherGame { .. }) => {
            assert_eq!(
                e.to_string(),
                "a position of british-square 4x4, not of british-square 3x3"
            );
            assert_eq!(e.kind(), ErrorKind::OtherGame);
        }
        other => panic!("{other:?}"),
    }
    // The same game opened twice is one game.
    let again = Tablebase::open(bsq(dir.path(), "3x3")).unwrap();
    assert_eq!(again.game(), three.game());
    assert!(three.answer(&again.parse("a1").unwrap()).is_ok());
}

#[test]
fn every_kind_of_bad_input_is_a_typed_error() {
    let dir = tempfile::tempdir().unwrap();
    let path = bsq(dir.path(), "3x3");
    let tb = Tablebase::open(&path).unwrap();
    // Malformed and illegal positions, told apart by their kind.
    for bad in ["", "z9", "XXXXXXXXXX"] {
        match tb.probe(bad) {
            Err(e @ ProbeError::Malformed { .. }) => {
                assert_eq!(e.kind(), ErrorKind::MalformedPosition);
                assert!(e.is_bad_input());
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    for bad in ["XO.......", "4,4"] {
        match tb.probe(bad) {
            Err(e @ ProbeError::Illegal { .. }) => {
                assert_eq!(e.kind(), ErrorKind::IllegalPosition)
            }
            other => panic!("{bad:?}: {other:?}"),
        }
    }
    // Bad moves are not bad positions.
    let start = tb.parse("start").unwrap();
    assert!(matches!(
        start.parse_move("z9"),
        Err(ProbeError::MalformedMove { .. })
    ));
    let b2 = start.play_text("b1").unwrap();
    assert!(matches!(
        b2.parse_move("b1"),
        Err(ProbeError::IllegalMove { .. })
    ));
    // Missing, foreign and damaged files.
    match Tablebase::open(dir.path().join("missing.db")) {
        Err(
            e @ ProbeError::Open {
                source: OpenError::Db(_),
                ..
            },
        ) => {
            assert_eq!(e.kind(), ErrorKind::MissingFile);
            assert!(matches!(&e, ProbeError::Open { path, .. } if path.ends_with("missing.db")));
        }
        other => panic!("{other:?}"),
    }
    std::fs::write(dir.path().join("text.db"), "not a database").unwrap();
    assert!(matches!(
        Tablebase::open(dir.path().join("text.db")),
        Err(ProbeError::Open { .. })
    ));
    assert!(matches!(
        Tablebase::open(dir.path()),
        Err(ProbeError::Open { .. })
    ));
    // A value the game rules out, checksums resealed: corrupt, not an
    // answer.
    let mut bytes = std::fs::read(&path).unwrap();
    let mut h = Header::decode(&bytes).unwrap();
    let game = BritishSquare::from_variant("3x3").unwrap();
    let start = game.canonical(game.start());
    let at = bytes[HEADER_SIZE..]
        .chunks_exact(8)
        .position(|r| h.layout.key(u64::from_le_bytes(r.try_into().unwrap())) == start)
        .unwrap();
    let forged = h
        .layout
        .pack(
            start,
            Value {
                net: 0,
                remoteness: 63,
            },
        )
        .unwrap();
    bytes[HEADER_SIZE + 8 * at..HEADER_SIZE + 8 * at + 8].copy_from_slice(&forged.to_le_bytes());
    h.records_checksum = xxhash_rust::xxh3::xxh3_128(&bytes[HEADER_SIZE..]);
    bytes[..HEADER_SIZE].copy_from_slice(&h.encode().unwrap());
    let bad = dir.path().join("forged.db");
    std::fs::write(&bad, bytes).unwrap();
    let tb = Tablebase::open(&bad).unwrap();
    match tb.probe("start") {
        Err(ProbeError::Corrupt { reason, .. }) => assert!(reason.contains("range"), "{reason}"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn past_a_book_is_not_in_the_book() {
    let dir = tempfile::tempdir().unwrap();
    let game = ConnectFour::from_variant("5x4").unwrap();
    let book = build_book(&game, &BookOptions::new(2), &NoProgress).unwrap();
    let path = dir.path().join("c4.db");
    boardsolve::db::write_database(&path, game.descriptor(), &book.into()).unwrap();
    let tb = Tablebase::open(&path).unwrap();
    assert!(!tb.is_complete());
    // One stone: in the book with its children.
    let one = tb.probe("3").unwrap();
    assert_eq!(one.moves().len(), 5);
    // Three stones: past the book.
    match tb.probe("333") {
        Err(ProbeError::NotInBook { position }) => assert!(position.contains('X'), "{position}"),
        other => panic!("{other:?}"),
    }
}

#[cfg(feature = "json")]
#[test]
fn json_lines_made_together_are_the_lines_made_alone() {
    let dir = tempfile::tempdir().unwrap();
    let long = "X".repeat(5000);
    let complete = Tablebase::open(bsq(dir.path(), "3x3")).unwrap();
    let game = ConnectFour::from_variant("5x4").unwrap();
    let book = build_book(&game, &BookOptions::new(2), &NoProgress).unwrap();
    let path = dir.path().join("c4.db");
    boardsolve::db::write_database(&path, game.descriptor(), &book.into()).unwrap();
    let book = Tablebase::open(&path).unwrap();
    for (tb, positions) in [
        (
            &complete,
            vec!["start", "z9", "1", "", long.as_str(), "1 9", "XO......."],
        ),
        // Answered, past the book, not a position.
        (&book, vec!["3", "333", "", "3", "44", "9", "33", "1"]),
    ] {
        let alone: Vec<String> = positions.iter().map(|p| tb.probe_json(p)).collect();
        assert_eq!(tb.probe_json_many(&positions), alone);
        assert!(alone.iter().any(|l| l.contains("\"error\"")));
        assert!(alone.iter().any(|l| l.contains("\"moves\"")));
    }
}

#[test]
fn playing_the_best_moves_keeps_the_score_to_the_end() {
    // Dots and Boxes keeps the side to move and the score in the text: a
    // walk by `play` must carry both, captures and extra turns included.
    let dir = tempfile::tempdir().unwrap();
    let game = boardsolve::games::dots_and_boxes::DotsAndBoxes::from_variant("2x2").unwrap();
    let sol = boardsolve::solve::dense::solve_dense(&game, &NoProgress).unwrap();
    let path = dir.path().join("dab.db");
    boardsolve::db::write_database(&path, game.descriptor(), &sol.into()).unwrap();
    let tb = Tablebase::open(&path).unwrap();
    let mut position = "none A 0-0".to_owned();
    let promised = tb.probe(&position).unwrap().value();
    loop {
        let p = tb.probe(&position).unwrap();
        assert_eq!(p.position().board(), position.split(' ').next().unwrap());
        let Some(best) = p.best_moves().next() else {
            break;
        };
        position = p.position().play(&best.mv).unwrap().text();
    }
    // At the end the text's score is the value promised at the start.
    let score = position.rsplit(' ').next().unwrap();
    let (a, b) = score.split_once('-').unwrap();
    let final_lead = a.parse::<i32>().unwrap() - b.parse::<i32>().unwrap();
    assert_eq!(final_lead, promised, "{position}");
    // Moves that are not legal here are errors.
    let none = tb.parse("none A 0-0").unwrap();
    assert!(matches!(
        none.play_text("99"),
        Err(ProbeError::MalformedMove { .. })
    ));
    let zero = tb.parse("0 A 0-0").unwrap();
    assert!(matches!(
        zero.play_text("0"),
        Err(ProbeError::IllegalMove { .. })
    ));
}

#[test]
fn a_picture_after_a_move_marks_that_move() {
    // Every position of British Square 3x3 and every move of it, passes
    // included: the picture after the move marks it once (a pass not at
    // all), the picture without it never, and both draw the same moves.
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(bsq(dir.path(), "3x3")).unwrap();
    let marks = |svg: &str| svg.matches("data-mark=\"last\"").count();
    let mut seen = std::collections::HashSet::new();
    let mut todo = vec![tb.parse("start").unwrap()];
    let (mut moves, mut passes) = (0, 0);
    while let Some(before) = todo.pop() {
        if !seen.insert(before.text()) {
            continue;
        }
        for mv in before.moves() {
            let after = before.play(&mv).unwrap();
            let answer = tb.answer(&after).unwrap();
            let plain = answer.svg().unwrap();
            let marked = answer.svg_after(&mv).unwrap();
            assert_eq!(marks(&plain), 0, "{before} {mv}");
            assert_eq!(marks(&marked), usize::from(!mv.is_pass()), "{before} {mv}");
            assert_eq!(
                marked.matches("data-move=").count(),
                plain.matches("data-move=").count(),
                "{before} {mv}"
            );
            moves += 1;
            passes += usize::from(mv.is_pass());
            todo.push(after);
        }
    }
    assert!(moves > 100 && passes > 0, "{moves} moves, {passes} passes");
}
