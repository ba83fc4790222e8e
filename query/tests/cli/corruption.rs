//! The corruption corpus: damaged, lying, foreign and unreadable database
//! files, in both layouts. Each case must be refused with the error that
//! names what is wrong (in-process) and, through `query`, with a one-line
//! message and exit status 3; never a panic.
//!
//! The exhaustive cases (every truncation length, every header bit) run
//! in-process against the library's reader; one case of each kind also runs
//! through the `query` binary.

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use boardsolve::analysis::verify::verify;
use boardsolve::core::NoProgress;
use boardsolve::db::header::{header_checksum, Header, HEADER_SIZE};
use boardsolve::games::british_square::BritishSquare;
use boardsolve::games::dots_and_boxes::DotsAndBoxes;
use boardsolve::registry::{AnyGame, OpenError};
use boardsolve::solve::dense::solve_dense;
use boardsolve::solve::solve;
use boardsolve::{Database, DbError, Game};
use predicates::str::contains;
use tempfile::TempDir;

use crate::common::{records_resealed, resealed};

/// A small sorted file (British Square 3x3, 74 records) and a small dense
/// file (Dots and Boxes 2x2, 4096 entries), as bytes.
fn good_files(dir: &TempDir) -> [(&'static str, Vec<u8>); 2] {
    let bsq = BritishSquare::from_variant("3x3").unwrap();
    let sol = solve(&bsq, &NoProgress).unwrap();
    let a = dir.path().join("bsq3.db");
    boardsolve::db::write_database(&a, bsq.descriptor(), &sol.into()).unwrap();
    let dab = DotsAndBoxes::from_variant("2x2").unwrap();
    let sol = solve_dense(&dab, &NoProgress).unwrap();
    let b = dir.path().join("dab2.db");
    boardsolve::db::write_database(&b, dab.descriptor(), &sol.into()).unwrap();
    [
        ("sorted", std::fs::read(a).unwrap()),
        ("dense", std::fs::read(b).unwrap()),
    ]
}

/// Writes `bytes` to a new file in `dir`.
fn put(dir: &TempDir, name: &str, bytes: &[u8]) -> PathBuf {
    let p = dir.path().join(name);
    std::fs::write(&p, bytes).unwrap();
    p
}

/// Sets header bytes and recomputes the header checksum by hand (for fields
/// `Header::encode` would refuse to write).
fn patched(good: &[u8], at: usize, bytes: &[u8]) -> Vec<u8> {
    let mut out = good.to_vec();
    out[at..at + bytes.len()].copy_from_slice(bytes);
    let sum = header_checksum(&out[..HEADER_SIZE]);
    out[HEADER_SIZE - 8..HEADER_SIZE].copy_from_slice(&sum.to_le_bytes());
    out
}

fn open(path: &Path) -> Result<(Database, AnyGame), OpenError> {
    AnyGame::open(path)
}

/// Opens and fully verifies a file, as `query verify` does.
fn verify_file(path: &Path) -> Result<(), OpenError> {
    let (db, game) = open(path)?;
    verify(&db, game.game(), &NoProgress)
        .map(|_| ())
        .map_err(OpenError::from)
}

fn query(path: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_query"));
    c.arg("--db").arg(path);
    c
}

#[test]
fn every_truncation_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (layout, good) in good_files(&dir) {
        // Every length up to the header's end and a stride through the
        // records, plus the last few bytes, plus one byte too many.
        let lengths: Vec<usize> = (0..=HEADER_SIZE + 16)
            .chain((HEADER_SIZE + 16..good.len()).step_by(61))
            .chain(good.len() - 9..good.len())
            .collect();
        let path = dir.path().join(format!("cut-{layout}.db"));
        for len in lengths {
            std::fs::write(&path, &good[..len]).unwrap();
            match Database::open(&path) {
                Err(DbError::TooSmall { .. }) if len < HEADER_SIZE => {}
                Err(DbError::Size { .. }) if len >= HEADER_SIZE => {}
                other => panic!("{layout}, {len} bytes: {other:?}"),
            }
        }
        let mut padded = good.clone();
        padded.push(0);
        std::fs::write(&path, &padded).unwrap();
        assert!(matches!(Database::open(&path), Err(DbError::Size { .. })));
        query(&path)
            .assert()
            .code(3)
            .stderr(contains("truncated or padded"));
    }
}

#[test]
fn every_header_bit_flip_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for (layout, good) in good_files(&dir) {
        for byte in 0..HEADER_SIZE {
            for bit in 0..8 {
                let mut b = good[..HEADER_SIZE].to_vec();
                b[byte] ^= 1 << bit;
                let err = Header::decode(&b).expect_err("a flipped header bit went unnoticed");
                let ok = match byte {
                    0..=7 => matches!(err, DbError::BadMagic),
                    8..=11 => matches!(err, DbError::UnsupportedVersion { .. }),
                    12..=15 => matches!(err, DbError::ByteOrder { .. }),
                    _ => matches!(err, DbError::HeaderChecksum { .. }),
                };
                assert!(ok, "{layout}: byte {byte} bit {bit}: {err}");
            }
        }
        let mut b = good.clone();
        b[200] ^= 4;
        query(&put(&dir, &format!("hdr-{layout}.db"), &b))
            .assert()
            .code(3)
            .stderr(contains("header checksum mismatch"));
    }
}

#[test]
fn record_bit_flips_fail_verification() {
    let dir = tempfile::tempdir().unwrap();
    for (layout, good) in good_files(&dir) {
        let records = good.len() - HEADER_SIZE;
        let path = dir.path().join(format!("rec-{layout}.db"));
        // A spread of bits over the whole record area.
        for i in 0..64usize {
            let bit = (i * 7919 + 13) % (records * 8);
            let mut b = good.clone();
            b[HEADER_SIZE + bit / 8] ^= 1 << (bit % 8);
            std::fs::write(&path, &b).unwrap();
            // Opening only checks the header and size: the file opens...
            let (db, _) = open(&path).unwrap();
            // ...and the checksum catches the flip.
            assert!(
                matches!(db.verify_checksum(), Err(DbError::RecordsChecksum)),
                "{layout}: bit {bit}"
            );
        }
        query(&path)
            .args(["verify", "-q"])
            .assert()
            .code(3)
            .stderr(contains("records checksum mismatch"));
    }
}

#[test]
fn lies_the_checksums_cannot_see_are_found_by_verify() {
    let dir = tempfile::tempdir().unwrap();
    let [(_, sorted), (_, dense)] = good_files(&dir);

    // Two neighbouring records in the middle swapped (and the checksums
    // recomputed): not sorted.
    let swapped = records_resealed(&sorted, |r| {
        let mid = r.len() / 16 * 8;
        let (a, b) = r.split_at_mut(mid + 8);
        a[mid..].swap_with_slice(&mut b[..8]);
    });
    let p = put(&dir, "swapped.db", &swapped);
    match verify_file(&p) {
        Err(OpenError::Db(DbError::BadRecord { reason, .. })) => {
            assert!(reason.contains("strictly ascending"), "{reason}")
        }
        other => panic!("{other:?}"),
    }
    query(&p)
        .args(["verify", "-q"])
        .assert()
        .code(3)
        .stderr(contains("not strictly ascending"));

    // A value changed in the sorted file (net field of the last record).
    let wrong_value = records_resealed(&sorted, |r| {
        let n = r.len();
        r[n - 8] ^= 1 << 6;
    });
    let p = put(&dir, "value.db", &wrong_value);
    match verify_file(&p) {
        Err(OpenError::Db(DbError::BadRecord { reason, .. })) => {
            assert!(reason.contains("children give"), "{reason}")
        }
        other => panic!("{other:?}"),
    }

    // A dense entry changed: its parents or itself no longer add up.
    let wrong_entry = records_resealed(&dense, |r| r[0b0101_0101_0101] ^= 4);
    let p = put(&dir, "entry.db", &wrong_entry);
    assert!(matches!(
        verify_file(&p),
        Err(OpenError::Db(DbError::BadRecord { .. }))
    ));
    query(&p)
        .args(["verify", "-q"])
        .assert()
        .code(3)
        .stderr(contains("children give"));
}

#[test]
fn lying_or_foreign_headers_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let [(_, sorted), (_, dense)] = good_files(&dir);
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        (
            "record count one more",
            resealed(&sorted, |h| h.record_count += 1),
            "truncated or padded",
        ),
        (
            "record count one less",
            resealed(&sorted, |h| h.record_count -= 1),
            "truncated or padded",
        ),
        (
            "record count huge",
            resealed(&sorted, |h| h.record_count = u64::MAX / 4),
            "cannot fit",
        ),
        (
            "dense count not 2^bits",
            patched(&dense, 136, &4095u64.to_le_bytes()),
            "dense file",
        ),
        (
            "wrong magic",
            {
                let mut b = sorted.clone();
                b[..8].copy_from_slice(b"SQLite f");
                b
            },
            "bad magic",
        ),
        (
            "future version",
            patched(&sorted, 8, &3u32.to_le_bytes()),
            "unsupported format version 3",
        ),
        (
            "a version 2 header on sorted records",
            patched(&sorted, 8, &2u32.to_le_bytes()),
            "not a layout of format version 2",
        ),
        (
            "big-endian mark",
            patched(&sorted, 12, &0x0D0C_0B0Au32.to_le_bytes()),
            "byte-order mark",
        ),
        (
            "unknown layout kind",
            patched(&sorted, 20, &7u32.to_le_bytes()),
            "layout_kind",
        ),
        (
            "sorted file claiming to be dense",
            patched(&sorted, 20, &2u32.to_le_bytes()),
            "record_layout",
        ),
        (
            "unknown game",
            resealed(&sorted, |h| h.game_name = "chess".into()),
            "unknown game \"chess\"",
        ),
        (
            "game id of another game",
            resealed(&sorted, |h| h.game_id = 2),
            "has id 1, not 2",
        ),
        (
            "variant of another size",
            resealed(&sorted, |h| h.variant = "4x4".into()),
            "differs from this game's layout",
        ),
        (
            "unknown variant",
            resealed(&dense, |h| h.variant = "9x9".into()),
            "bad variant",
        ),
        (
            "wrong start key",
            resealed(&sorted, |h| h.start_key = 5),
            "start_key",
        ),
        (
            "dense file not marked complete",
            resealed(&dense, |h| h.flags = 0),
            "marked complete",
        ),
        (
            "empty file",
            Vec::new(),
            "shorter than the 4096 byte header",
        ),
        (
            "text file",
            b"X...X/...../...../...../....O O\n".to_vec(),
            "shorter than",
        ),
    ];
    for (what, bytes, message) in cases {
        let p = put(&dir, "case.db", &bytes);
        let err = open(&p).err().unwrap_or_else(|| panic!("{what}: opened"));
        assert!(
            err.to_string().contains(message),
            "{what}: {err} (wanted {message:?})"
        );
        query(&p)
            .assert()
            .code(3)
            .stderr(contains(message))
            .stdout("");
    }
}

#[test]
fn another_games_file_and_unreadable_paths_exit_3() {
    let dir = tempfile::tempdir().unwrap();
    let [(_, sorted), (_, dense)] = good_files(&dir);
    let bsq = put(&dir, "bsq.db", &sorted);
    let dab = put(&dir, "dab.db", &dense);
    query(&bsq)
        .args(["--game", "dots-and-boxes"])
        .assert()
        .code(3)
        .stderr(contains(
            "database holds british-square 3x3, not dots-and-boxes",
        ));
    query(&dab)
        .args(["--game", "british-square", "start"])
        .assert()
        .code(3)
        .stderr(contains("not british-square"));
    query(dir.path())
        .assert()
        .code(3)
        .stderr(contains("not a regular file"));
    query(&dir.path().join("missing.db"))
        .assert()
        .code(3)
        .stderr(contains("No such file"));
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let locked = put(&dir, "locked.db", &sorted);
        std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).unwrap();
        // Root reads anything: the case only means something for others.
        if std::fs::read(&locked).is_err() {
            query(&locked)
                .assert()
                .code(3)
                .stderr(contains("Permission denied"));
        } else {
            eprintln!("running as root: the permission case is skipped");
        }
    }
}
