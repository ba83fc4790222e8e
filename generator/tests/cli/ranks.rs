//! `mpirun -n K generator ...` (feature `mpi`): the file of the one-process
//! run, byte for byte, on 1, 2 and 3 ranks; a job that loses a rank leaves
//! no file, and run again resumes and writes the same bytes.

use std::path::Path;
use std::process::{Command, Output};

const GENERATOR: &str = env!("CARGO_BIN_EXE_generator");

/// `mpirun ... -n RANKS generator`: as root, more ranks than cores, and
/// a job that hangs is ended after 5 minutes (a failure, not a stuck
/// suite). Each job keeps its Open MPI session files in a directory of its
/// own, returned beside the command and removed when dropped: jobs of
/// tests running side by side otherwise share `/tmp/ompi.HOST.UID`, and one
/// job removing it as another creates it fails the second with "File
/// exists".
fn mpirun(ranks: usize) -> (Command, tempfile::TempDir) {
    let session = tempfile::Builder::new()
        .prefix("ompi")
        .tempdir()
        .expect("a directory for the job's session files");
    let mut c = Command::new("mpirun");
    c.env("TMPDIR", session.path())
        .env("OMPI_MCA_orte_tmpdir_base", session.path());
    c.args([
        "--allow-run-as-root",
        "--oversubscribe",
        "--timeout",
        "300",
        "-n",
    ])
    .arg(ranks.to_string())
    .arg(GENERATOR);
    (c, session)
}

/// `generator ARGS -q -o OUT` on `ranks` ranks of an MPI job.
fn on_ranks(ranks: usize, args: &[&str], out: &Path) -> Output {
    let (mut job, _session) = mpirun(ranks);
    job.args(args)
        .args(["-q", "-o"])
        .arg(out)
        .output()
        .expect("mpirun (Open MPI) is installed")
}

/// `generator ARGS -q -o OUT` started on 2 ranks, its output dropped; the
/// job's session directory lives as long as the returned value.
fn spawn_on_two_ranks(args: &[&str], out: &Path) -> (std::process::Child, tempfile::TempDir) {
    let (mut job, session) = mpirun(2);
    let child = job
        .args(args)
        .args(["-q", "-o"])
        .arg(out)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("mpirun (Open MPI) is installed");
    (child, session)
}

fn alone(args: &[&str], out: &Path) -> Output {
    Command::new(GENERATOR)
        .args(args)
        .args(["-q", "-o"])
        .arg(out)
        .output()
        .unwrap()
}

/// `generator ARGS` alone, then on each number of `ranks`, in `dir`: the
/// same bytes every time, the summary naming the ranks, and nothing left
/// beside the file (no temporary file, no plain file the ranks packed).
fn ranks_write_what_one_process_writes(dir: &Path, args: &[&str], ranks: &[usize]) {
    let one = dir.join("one.db");
    let o = alone(args, &one);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let want = std::fs::read(&one).unwrap();
    for &ranks in ranks {
        let path = dir.join(format!("ranks{ranks}.db"));
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
        let names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            names
                .iter()
                .all(|n| !n.contains(".tmp-") && !n.contains(".plain")),
            "{names:?}"
        );
    }
}

#[test]
fn ranks_write_the_one_process_file() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &["--game", "british-square", "--variant", "4x4"][..],
        &["--game", "british-square", "--variant", "5x5"],
        &["--game", "dandelions", "--variant", "3x3"],
        &["--game", "connect-four", "--variant", "4x4"],
        // Dense tables: blocks solved on every rank, written by rank 0.
        &["--game", "dots-and-boxes", "--variant", "2x3"],
        &["--game", "dots-and-boxes", "--variant", "3x3"],
        // Books: rank 0 builds, every rank searches.
        &[
            "--game",
            "connect-four",
            "--variant",
            "5x4",
            "--depth",
            "6",
            "--table-bits",
            "20",
        ],
        &[
            "--game",
            "dandelions",
            "--variant",
            "3x3",
            "--depth",
            "4",
            "--table-bits",
            "20",
        ],
        // Dots and Boxes past the tables: its start, searched on a rank.
        &[
            "--game",
            "dots-and-boxes",
            "--variant",
            "1x11",
            "--depth",
            "0",
            "--table-bits",
            "20",
        ],
    ] {
        ranks_write_what_one_process_writes(dir.path(), args, &[1, 2, 3]);
    }
}

#[test]
fn an_error_names_its_rank_and_ends_the_job() {
    for args in [
        &["--variant", "4x4"][..],
        &["--game", "dots-and-boxes", "--variant", "2x2"],
        &["--game", "connect-four", "--variant", "4x4", "--depth", "3"],
    ] {
        let o = on_ranks(2, args, Path::new("/nonexistent/dir/x.db"));
        assert!(!o.status.success(), "{args:?}");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(
            err.contains("generator: rank 0: error: "),
            "{args:?}: {err}"
        );
        assert!(err.contains("/nonexistent/dir/x.db"), "{args:?}: {err}");
    }
}

#[test]
fn options_that_do_not_apply_on_ranks_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("d.db");
    // Each rank runs one thread: --threads has nothing to set.
    let o = on_ranks(2, &["--variant", "4x4", "--threads", "2"], &path);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--threads does not apply"));
    assert!(!path.exists());
}

/// The process of rank `rank` of a running job writing `out`, found by its
/// command line and the rank Open MPI gives it in its environment.
fn rank_process(out: &Path, rank: usize) -> Option<u32> {
    let want = format!("OMPI_COMM_WORLD_RANK={rank}");
    for entry in std::fs::read_dir("/proc").ok()? {
        let Ok(entry) = entry else { continue };
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let cmdline = std::fs::read(entry.path().join("cmdline")).unwrap_or_default();
        let cmdline = String::from_utf8_lossy(&cmdline);
        if !cmdline.starts_with(GENERATOR) || !cmdline.contains(&*out.to_string_lossy()) {
            continue;
        }
        let environ = std::fs::read(entry.path().join("environ")).unwrap_or_default();
        if environ.split(|&b| b == 0).any(|var| var == want.as_bytes()) {
            return Some(pid);
        }
    }
    None
}

#[test]
fn a_job_that_loses_a_rank_resumes_and_writes_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let args = [
        "--game",
        "dandelions",
        "--variant",
        "4x4",
        "--depth",
        "7",
        "--table-bits",
        "20",
    ];
    let one = dir.path().join("one.db");
    let o = alone(&args, &one);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let out = dir.path().join("book.db");
    let checkpoint = dir.path().join("book.db.partial-depth7");
    let (job, _session) = spawn_on_two_ranks(&args, &out);
    // Once the checkpoint holds some searches (it starts with a 32-byte
    // header), rank 1 dies.
    let t0 = std::time::Instant::now();
    let killed = loop {
        let saved = std::fs::metadata(&checkpoint).map_or(0, |m| m.len());
        if saved > 32 {
            if let Some(pid) = rank_process(&out, 1) {
                assert!(Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status()
                    .unwrap()
                    .success());
                break true;
            }
        }
        // Seconds; 300 s, the job's own time-out (`mpirun --timeout`), is
        // room for a busy machine.
        if t0.elapsed() > std::time::Duration::from_secs(300) {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let mut job = job;
    let status = job.wait().unwrap();
    assert!(killed, "the checkpoint never grew");
    assert!(!status.success(), "the job went on without rank 1");
    assert!(!out.exists(), "a file under the final name");
    assert!(checkpoint.exists());

    // Run again: it resumes from the checkpoint and writes the same file.
    let (mut again, _session) = mpirun(2);
    let o = again.args(args).arg("-o").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("resuming from"), "{err}");
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&one).unwrap());
    assert!(!checkpoint.exists(), "the checkpoint outlived the book");
}

/// Runs the dense-table job `args` on 2 ranks and kills rank 1 once the
/// first of its 12 waves is marked done (in `progress`, a name in the job's
/// directory); runs it again, which must resume after that wave and write
/// the one-process file, leaving nothing beside it.
fn dense_job_resumes_after_its_last_wave(args: &[&str], progress: &str) {
    let dir = tempfile::tempdir().unwrap();
    let one = dir.path().join("one.db");
    let o = alone(args, &one);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    let out = dir.path().join("table.db");
    let progress = dir.path().join(progress);
    let (mut job, _session) = spawn_on_two_ranks(args, &out);
    let t0 = std::time::Instant::now();
    let mut rank1 = None;
    let killed = loop {
        if rank1.is_none() {
            rank1 = rank_process(&out, 1);
        }
        if let (Some(pid), true) = (rank1, progress.exists()) {
            let _ = Command::new("kill")
                .args(["-KILL", &pid.to_string()])
                .status();
            break true;
        }
        // Seconds; 300 s, the job's own time-out (`mpirun --timeout`), is
        // room for a busy machine.
        if t0.elapsed() > std::time::Duration::from_secs(300) || job.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(std::time::Duration::from_micros(200));
    };
    let status = job.wait().unwrap();
    assert!(
        killed,
        "the job ended, or 300 s passed, before its first wave was marked"
    );
    assert!(!status.success(), "the job went on without rank 1");
    assert!(!out.exists(), "a file under the final name");

    let (mut again, _session) = mpirun(2);
    let o = again.args(args).arg("-o").arg(&out).output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("resumed from") && err.contains("of the 12 waves were done"),
        "{err}"
    );
    assert!(std::fs::read(&out).unwrap() == std::fs::read(&one).unwrap());
    let left: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert!(
        !left
            .iter()
            .any(|n| n.contains("partial") || n.contains(".plain")),
        "{left:?}"
    );
}

#[test]
fn a_dense_job_that_loses_a_rank_resumes_after_its_last_wave() {
    dense_job_resumes_after_its_last_wave(
        &["--game", "dots-and-boxes", "--variant", "2x5"],
        "table.db.partial.progress",
    );
}

#[test]
fn a_packed_dense_job_that_loses_a_rank_resumes_after_its_last_wave() {
    // The ranks write the plain table beside the output, then pack it.
    dense_job_resumes_after_its_last_wave(
        &[
            "--game",
            "dots-and-boxes",
            "--variant",
            "2x5",
            "--layout",
            "packed",
        ],
        ".table.db.plain.partial.progress",
    );
}

#[test]
fn ranks_write_the_one_process_packed_file() {
    let dir = tempfile::tempdir().unwrap();
    for args in [
        &[
            "--game",
            "british-square",
            "--variant",
            "4x4",
            "--layout",
            "packed",
        ][..],
        &[
            "--game",
            "dots-and-boxes",
            "--variant",
            "2x3",
            "--layout",
            "packed",
            "--block-entries",
            "128",
        ],
        &[
            "--game",
            "connect-four",
            "--variant",
            "5x4",
            "--depth",
            "6",
            "--table-bits",
            "20",
            "--layout",
            "packed",
        ],
    ] {
        ranks_write_what_one_process_writes(dir.path(), args, &[1, 2]);
    }
}
