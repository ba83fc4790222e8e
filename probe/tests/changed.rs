//! A tablebase whose file changes underneath it (truncated, or rewritten
//! in place by another program) keeps its process alive and answers only
//! what the file still holds: the rest is `ProbeError::Corrupt`. And a
//! position longer than a line of `query` is refused briefly.

use std::path::{Path, PathBuf};

use boardsolve::core::NoProgress;
use boardsolve::db::header::HEADER_SIZE;
use boardsolve::games::british_square::BritishSquare;
use boardsolve::Game;
use boardsolve_probe::{Answer, Position, ProbeError, Tablebase, MAX_POSITION};

fn bsq(dir: &Path, variant: &str) -> PathBuf {
    let game = BritishSquare::from_variant(variant).unwrap();
    let sol = boardsolve::solve::solve(&game, &NoProgress).unwrap();
    let path = dir.join(format!("bsq-{variant}.db"));
    boardsolve::db::write_database(&path, game.descriptor(), &sol.into()).unwrap();
    path
}

/// The positions of 200 random games, and their answers.
fn random_games(tb: &Tablebase) -> Vec<(Position, Answer)> {
    let mut out = Vec::new();
    let mut seed = 7u64;
    for _ in 0..200 {
        let mut position = tb.parse("start").unwrap();
        loop {
            let answer = tb.answer(&position).unwrap();
            let moves = position.moves();
            out.push((position, answer));
            if moves.is_empty() {
                break;
            }
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let pick = &moves[(seed >> 33) as usize % moves.len()];
            position = position.play(pick).unwrap();
        }
    }
    out
}

#[test]
fn a_file_cut_or_overwritten_underneath_is_corrupt_where_it_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let path = bsq(dir.path(), "4x4");
    let len = std::fs::metadata(&path).unwrap().len();
    for (cut, noise) in [
        (len / 2 + 1, false),
        (HEADER_SIZE as u64, false),
        (len, true),
    ] {
        let here = dir.path().join("changing.db");
        std::fs::copy(&path, &here).unwrap();
        let tb = Tablebase::open(&here).unwrap();
        let before = random_games(&tb);
        let file = std::fs::OpenOptions::new().write(true).open(&here).unwrap();
        if noise {
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            let bytes: Vec<u8> = (HEADER_SIZE as u64..len)
                .map(|_| {
                    seed ^= seed << 13;
                    seed ^= seed >> 7;
                    seed ^= seed << 17;
                    seed as u8
                })
                .collect();
            std::os::unix::fs::FileExt::write_all_at(&file, &bytes, HEADER_SIZE as u64).unwrap();
        } else {
            file.set_len(cut).unwrap();
        }
        let (mut same, mut corrupt) = (0, 0);
        for (position, want) in &before {
            match tb.answer(position) {
                Ok(got) => {
                    assert_eq!(&got, want, "{position}");
                    same += 1;
                }
                Err(ProbeError::Corrupt { .. }) => corrupt += 1,
                Err(e) => panic!("{position}: {e}"),
            }
            match tb.eval(position) {
                Ok(e) => assert_eq!(e, want.eval(), "{position}"),
                Err(ProbeError::Corrupt { .. }) => {}
                Err(e) => panic!("{position}: {e}"),
            }
        }
        assert!(corrupt > 0, "cut at {cut}, noise: {noise}");
        if cut == len / 2 + 1 {
            assert!(same > 0, "nothing answered below the cut");
        }
    }
}

#[test]
fn a_position_longer_than_a_line_is_refused_briefly() {
    let dir = tempfile::tempdir().unwrap();
    let tb = Tablebase::open(bsq(dir.path(), "3x3")).unwrap();
    let long = "a1 ".repeat(MAX_POSITION);
    let e = tb.probe(&long).unwrap_err();
    assert!(matches!(e, ProbeError::Malformed { .. }), "{e}");
    assert!(e.to_string().len() < 200, "{e}");
    assert!(matches!(tb.parse(&long), Err(ProbeError::Malformed { .. })));
    let start = tb.parse("start").unwrap();
    assert!(matches!(
        start.play_text(&long),
        Err(ProbeError::MalformedMove { .. })
    ));
    // The line `query --json -` prints for it.
    #[cfg(feature = "json")]
    {
        let line: serde_json::Value = serde_json::from_str(&tb.probe_json(&long)).unwrap();
        assert_eq!(line["input"], "a1 ".repeat(14)[..40]);
        assert_eq!(
            line["error"],
            format!("input line is longer than {MAX_POSITION} bytes")
        );
    }
    // Up to the limit, a position is read as usual.
    let padded = format!("{:<width$}", "a1", width = MAX_POSITION);
    assert!(!matches!(tb.probe(&padded), Err(ref e) if e.to_string().contains("longer")));
}
