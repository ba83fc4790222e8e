//! `mpirun -n K generator ...` (feature `mpi`): the file of the one-process
//! run, byte for byte, on 1, 2 and 3 ranks; games the ranks do not build
//! are refused with a usage error.

use std::path::Path;
use std::process::{Command, Output};

const GENERATOR: &str = env!("CARGO_BIN_EXE_generator");

/// `generator ARGS -q -o OUT` on `ranks` ranks of an MPI job.
fn on_ranks(ranks: usize, args: &[&str], out: &Path) -> Output {
    Command::new("mpirun")
        .args(["--allow-run-as-root", "--oversubscribe", "-n"])
        .arg(ranks.to_string())
        .arg(GENERATOR)
        .args(args)
        .args(["-q", "-o"])
        .arg(out)
        .output()
        .expect("mpirun (Open MPI) is installed")
}

fn alone(args: &[&str], out: &Path) -> Output {
    Command::new(GENERATOR)
        .args(args)
        .args(["-q", "-o"])
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn ranks_write_the_one_process_file() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--game", "british-square", "--variant", "4x4"][..],
        &["--game", "british-square", "--variant", "5x5"],
        &["--game", "dandelions", "--variant", "3x3"],
        &["--game", "connect-four", "--variant", "4x4"],
    ] {
        let one = dir.path().join("one.db");
        let o = alone(args, &one);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let want = std::fs::read(&one).unwrap();
        for ranks in [1, 2, 3] {
            let path = dir.path().join(format!("ranks{ranks}.db"));
            let o = on_ranks(ranks, args, &path);
            assert!(
                o.status.success(),
                "{args:?} on {ranks} ranks: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            assert!(
                std::fs::read(&path).unwrap() == want,
                "{args:?} on {ranks} ranks"
            );
            if ranks > 1 {
                let text = String::from_utf8_lossy(&o.stdout);
                assert!(text.contains(&format!("on {ranks} ranks")), "{text}");
            }
            // Nothing is left beside the file.
            let names: Vec<String> = std::fs::read_dir(dir.path())
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect();
            assert!(names.iter().all(|n| !n.contains(".tmp-")), "{names:?}");
        }
    }
}

#[test]
fn games_the_ranks_do_not_build_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.db");
    let o = on_ranks(2, &["--game", "dots-and-boxes", "--variant", "2x2"], &path);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("is not generated over MPI ranks"), "{err}");
    assert!(!path.exists());
    // Each rank runs one thread: --threads has nothing to set.
    let o = on_ranks(2, &["--variant", "4x4", "--threads", "2"], &path);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--threads does not apply"));
    assert!(!path.exists());
}
