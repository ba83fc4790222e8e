"""The package as Python code expects it to behave, whatever happens to the
file or the process: a database file truncated or rewritten under an open
`Database` is an exception, never a crash or a wrong value; `info()` and
`verify()` describe the file that answers; Ctrl-C stops every long call at
once; other threads run while a batch works; strings, lists and table sizes
beyond what the machine holds are exceptions, never an abort.

Whatever could kill the process runs in a child Python, so that a failure
is a test failing, not the test run dying.
"""

import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest

import boardsolve
from test_boardsolve import BIN, generate, positions, query_raw, run

HERE = pathlib.Path(__file__).resolve().parent


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Databases of each layout: sorted, packed and dense."""
    tmp = tmp_path_factory.mktemp("layouts")
    out = {
        "sorted": generate(tmp, "british-square", "4x4"),
        "dense": generate(tmp, "dots-and-boxes", "2x3"),
    }
    for plain, packed in (("sorted", "packed"), ("dense", "packed-dense")):
        path = tmp / f"{packed}.db"
        done = run(BIN / "query", "pack", out[plain], "-o", path, "--quiet",
                   "--block-entries", "64")
        assert done.returncode == 0, done.stderr
        out[packed] = path
    return out


GAME_OF = {
    "sorted": ("british-square", "4x4"),
    "packed": ("british-square", "4x4"),
    "dense": ("dots-and-boxes", "2x3"),
    "packed-dense": ("dots-and-boxes", "2x3"),
}


def child(script, *args, timeout=120, limit=None):
    """Runs `script` in a child Python with `args`: its exit status, its
    stdout's last line as JSON (or None) and its stderr."""
    env = dict(os.environ, PYTHONPATH=str(HERE))
    out = subprocess.run([sys.executable, "-c", script, *map(str, args)],
                         capture_output=True, text=True, timeout=timeout, env=env)
    lines = out.stdout.strip().splitlines()
    return out.returncode, (json.loads(lines[-1]) if lines else None), out.stderr


# A child that opens a database, answers positions, changes the file as
# told, and answers them again: every answer before and after, and what
# `values`, `probe` and `verify` raised after.
CHANGED = r"""
import json, os, sys
import boardsolve
path, how, texts = sys.argv[1], sys.argv[2], json.loads(sys.argv[3])
db = boardsolve.open(path, cache_mib=0)
before = db.probe_many(texts)
size = os.path.getsize(path)
if how == "half":
    os.truncate(path, size // 2 + 1)
elif how == "header":
    os.truncate(path, 4096)
else:
    seed = 0x2545F4914F6CDD1D
    noise = bytearray()
    for _ in range(size - 4096):
        seed ^= (seed << 13) & (2**64 - 1); seed ^= seed >> 7; seed ^= (seed << 17) & (2**64 - 1)
        noise.append(seed & 0xFF)
    with open(path, "r+b") as f:
        f.seek(4096); f.write(noise); f.flush(); os.fsync(f.fileno())
after = db.probe_many(texts)
raised = {}
good = [t for t, b in zip(texts, before) if "error" not in b]
for name, call in (("values", lambda: db.values(good)),
                   ("probe", lambda: [db.probe(t) for t in good]),
                   ("verify", db.verify)):
    try:
        call()
        raised[name] = None
    except Exception as e:
        raised[name] = type(e).__name__
print(json.dumps({"before": before, "after": after, "raised": raised}))
"""


# Every change to every layout but noise over a plain dense table: there
# any byte is an entry, so noise is caught only where a value is out of
# range or contradicts its moves, which `verify` checks of every entry.
CHANGES = [(how, layout)
           for how in ["half", "header", "noise"]
           for layout in ["sorted", "packed", "dense", "packed-dense"]
           if (how, layout) != ("noise", "dense")]


@pytest.mark.parametrize("how,layout", CHANGES)
def test_a_file_changed_under_an_open_database_is_corrupt_never_a_crash(
        files, tmp_path, layout, how):
    path = tmp_path / "changing.db"
    shutil.copy(files[layout], path)
    texts = positions(*GAME_OF[layout], 300, 21)
    code, out, err = child(CHANGED, path, how, json.dumps(texts))
    assert code == 0, f"the child died ({code}): {err[-2000:]}"
    corrupt = same = 0
    for b, a in zip(out["before"], out["after"]):
        if a == b:
            same += "error" not in b
            continue
        assert "error" not in b and a["error"].startswith("database corrupted"), (b, a)
        corrupt += 1
    assert corrupt > 0
    if how == "half":
        assert same > 0
    # Each call that met the loss says so with the class of a corrupt file.
    assert out["raised"]["verify"] == "CorruptDatabase"
    assert out["raised"]["values"] == "CorruptDatabase"
    assert out["raised"]["probe"] == "CorruptDatabase"


def test_values_apply_the_checks_probe_applies(files, tmp_path):
    """A header left valid over records of noise: every way of asking says
    the database is corrupted, none answers or calls the position
    unreachable."""
    path = tmp_path / "noise.db"
    data = bytearray(files["sorted"].read_bytes())
    seed = 12345
    for i in range(4096, len(data)):
        seed = (seed * 6364136223846793005 + 1442695040888963407) % 2**64
        data[i] = seed >> 56
    path.write_bytes(bytes(data))
    db = boardsolve.open(path)
    texts = positions("british-square", "4x4", 200, 3)[2:]
    with pytest.raises(boardsolve.CorruptDatabase):
        db.probe("start")
    with pytest.raises(boardsolve.CorruptDatabase):
        db.values(texts)
    for t in texts:
        with pytest.raises(boardsolve.CorruptDatabase):
            db.values([t])
    assert all(a["error"].startswith("database corrupted") for a in db.probe_many(texts))


def test_info_and_verify_describe_the_file_that_answers(files, tmp_path):
    path = tmp_path / "db.db"
    shutil.copy(files["sorted"], path)
    db = boardsolve.open(path)
    info = db.info()
    start = db.probe("start")
    # Replaced atomically by another game's file (as `generator` does), then
    # removed: the open database still answers from, describes and
    # verifies the file it mapped.
    other = tmp_path / "other.db"
    shutil.copy(files["dense"], other)
    os.replace(other, path)
    assert boardsolve.open(path).info()["game"] == "dots-and-boxes"
    assert db.info() == info and info["game"] == "british-square"
    assert db.verify()["records"] == 10206
    assert db.probe("start") == start
    os.remove(path)
    assert db.info() == info
    report = db.verify()
    assert report["ok"] and report["records"] == 10206


def test_open_takes_a_str_or_a_path_and_names_a_missing_file(files, tmp_path):
    for wrong in (None, 3, b"bsq.db", ["bsq.db"]):
        with pytest.raises(TypeError):
            boardsolve.open(wrong)
    assert not (pathlib.Path.cwd() / "None").exists()
    assert boardsolve.open(files["sorted"]).game == "british-square"
    assert boardsolve.open(str(files["sorted"])).game == "british-square"
    with pytest.raises(boardsolve.MissingDatabase) as e:
        boardsolve.open(tmp_path / "missing.db")
    assert isinstance(e.value, FileNotFoundError)
    assert isinstance(e.value, boardsolve.DatabaseError)
    assert "missing.db" in str(e.value)
    # A damaged header is a corrupt file; a text file is not a database.
    damaged = bytearray(files["sorted"].read_bytes())
    damaged[200] ^= 1
    (tmp_path / "damaged.db").write_bytes(bytes(damaged))
    with pytest.raises(boardsolve.CorruptDatabase):
        boardsolve.open(tmp_path / "damaged.db")
    (tmp_path / "text.db").write_text("not a database")
    with pytest.raises(boardsolve.DatabaseError) as e:
        boardsolve.open(tmp_path / "text.db")
    assert not isinstance(e.value, (boardsolve.CorruptDatabase, FileNotFoundError))


def test_strings_and_lists_are_bounded_like_the_lines_of_query(files):
    db = boardsolve.open(files["sorted"])
    huge = "a1 " * 30_000_000  # 90 MB
    for call in (db.probe, db.line, lambda p: db.values([p]), lambda p: db.play(p, "a1"),
                 lambda p: db.play("start", p)):
        with pytest.raises(boardsolve.PositionError) as e:
            call(huge)
        assert len(str(e.value)) < 200 and "longer than 4096 bytes" in str(e.value)
    # In a batch, the same line as `query --json -` prints for it.
    texts = ["start", "x" * 5000, "é" * 2100, "b2"]
    lines = db.probe_lines(texts)
    assert lines == query_raw(files["sorted"], texts)
    assert db.probe_many(texts)[1] == json.loads(lines[1])
    assert len(lines[1]) < 200 and "longer than 4096 bytes" in lines[1]
    for wrong in ("start", b"start"):
        with pytest.raises(TypeError):
            db.probe_many(wrong)
    with pytest.raises(TypeError):
        db.probe_many(["start", 3])
    with pytest.raises(TypeError):
        db.probe(None)


# A child that caps its address space, then asks for more answers than fit.
CAPPED = r"""
import json, resource, sys
import boardsolve
db = boardsolve.open(sys.argv[1])
call = sys.argv[2]
texts = ["start"] * 10_000_000
db.probe_lines(texts[:10_000])  # the threads are started
size = int(open("/proc/self/status").read().split("VmSize:")[1].split()[0]) * 1024
resource.setrlimit(resource.RLIMIT_AS, (size + (768 << 20), resource.RLIM_INFINITY))
try:
    getattr(db, call)(texts)
    raised = None
except MemoryError:
    raised = "MemoryError"
# Still alive, and answering once the memory is back.
print(json.dumps({"raised": raised, "then": db.probe("start")["value"]}))
"""


@pytest.mark.parametrize("call", ["probe_lines", "probe_many"])
def test_answers_past_a_memory_cap_are_memory_error_not_an_abort(files, call):
    code, out, err = child(CAPPED, files["sorted"], call, timeout=300)
    assert code == 0, f"the child died ({code}): {err[-2000:]}"
    assert out == {"raised": "MemoryError", "then": 0}, err[-2000:]


SEARCH_CAPPED = r"""
import json, resource, sys
import boardsolve
resource.setrlimit(resource.RLIMIT_AS, (4 << 30, resource.RLIM_INFINITY))
try:
    db = boardsolve.open(sys.argv[1], search_bits=int(sys.argv[2]))
    db.probe(sys.argv[3])
    print(json.dumps("answered"))
except boardsolve.Error as e:
    print(json.dumps(type(e).__name__))
"""


def test_a_search_table_larger_than_memory_is_refused_at_open(tmp_path):
    book = generate(tmp_path, "connect-four", "5x4", depth=3)
    deep = next(t for t in positions("connect-four", "5x4", 300, 11)
                if t.count("X") + t.count("O") > 4)
    code, out, err = child(SEARCH_CAPPED, book, 32, deep)
    assert code == 0, f"the child died ({code}): {err[-2000:]}"
    assert out == "Error", err[-2000:]
    code, out, err = child(SEARCH_CAPPED, book, 20, deep)
    assert (code, out) == (0, "answered"), err[-2000:]


# A child that makes a long call, sends itself SIGINT from another thread
# after a while, and says how long KeyboardInterrupt took to come.
INTERRUPTED = r"""
import json, os, signal, sys, threading, time
import boardsolve
# Python's own Ctrl-C handler, as in a terminal: a job a shell starts in
# the background inherits SIGINT ignored, and Python then keeps it so.
signal.signal(signal.SIGINT, signal.default_int_handler)
path, options, call, texts, repeat = sys.argv[1:6]
db = boardsolve.open(path, **json.loads(options))
texts = open(texts).read().splitlines() * int(repeat)
sent = []
def interrupt():
    time.sleep(0.3)
    sent.append(time.monotonic())
    os.kill(os.getpid(), signal.SIGINT)
threading.Thread(target=interrupt, daemon=True).start()
start = time.monotonic()
try:
    if call == "probe":
        for t in texts:
            db.probe(t)
    else:
        getattr(db, call)(*([texts] if call != "verify" else []))
    print(json.dumps({"finished": time.monotonic() - start}))
except KeyboardInterrupt:
    print(json.dumps({"interrupted": time.monotonic() - sent[0]}))
"""


# A deadline of behaviour, not a speed: KeyboardInterrupt comes within
# milliseconds of the signal (tens of them on busy cores). A call that
# never looked at signals would raise it only at its end, the rest of the
# call after the signal: on a 2-core Xeon, 1.7 s for `verify` and 3 s
# or more for the others, longer on a busy machine. So within 1 s: room
# for a busy machine, and still short of that.
AT_ONCE = 1.0


def lines_file(path, texts):
    """`texts` written to `path`, one a line."""
    path.write_text("".join(t + "\n" for t in texts))
    return path


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """British Square 5x5 (8.7 million records), and a file of random
    positions of it."""
    tmp = tmp_path_factory.mktemp("big")
    texts = positions("british-square", "5x5", 10_000, 9)
    return generate(tmp, "british-square", "5x5"), lines_file(tmp / "positions", texts)


@pytest.mark.parametrize("call,repeat", [
    ("values", 1000), ("probe_many", 200), ("probe_lines", 500), ("verify", 1),
])
def test_ctrl_c_stops_every_long_call_at_once(big, call, repeat):
    path, texts = big
    code, out, err = child(INTERRUPTED, path, "{}", call, texts, repeat)
    assert code == 0, f"the child died ({code}): {err[-2000:]}"
    assert "PanicException" not in err and "panicked" not in err, err[-2000:]
    assert "interrupted" in out, f"{call} finished in {out['finished']:.1f} s: make it longer"
    print(f"\n{call}: KeyboardInterrupt {out['interrupted'] * 1000:.0f} ms after the signal")
    assert out["interrupted"] < AT_ONCE, out


def test_ctrl_c_stops_searches_past_a_book(tmp_path):
    book = generate(tmp_path, "connect-four", "5x4", depth=3)
    deep = lines_file(tmp_path / "positions", [
        t for t in positions("connect-four", "5x4", 3000, 17) if t.count("X") + t.count("O") > 3])
    # Repeated positions come from the search table: probe_many takes
    # more of them (5 s in all on a 2-core Xeon) to last well past AT_ONCE.
    for call, repeat in (("probe_many", 400), ("probe", 100)):
        code, out, err = child(INTERRUPTED, book, json.dumps({"search_bits": 20}), call, deep, repeat)
        assert code == 0, f"the child died ({code}): {err[-2000:]}"
        assert "interrupted" in out, f"{call} finished in {out['finished']:.1f} s"
        print(f"\n{call}: KeyboardInterrupt {out['interrupted'] * 1000:.0f} ms after the signal")
        assert out["interrupted"] < AT_ONCE, (call, out)


def test_other_threads_run_while_a_batch_works(big):
    path, texts = big
    db = boardsolve.open(path)
    texts = texts.read_text().splitlines() * 30
    ticks = []
    stop = threading.Event()

    def ticker():
        while not stop.is_set():
            ticks.append(time.monotonic())
            time.sleep(0.01)

    t = threading.Thread(target=ticker)
    t.start()
    try:
        start = time.monotonic()
        db.probe_many(texts)
        end = time.monotonic()
    finally:
        stop.set()
        t.join()
    during = [x for x in ticks if start <= x <= end]
    assert end - start > 0.5, "make the batch longer"
    # The ticker ticks while the batch works: had the batch held the GIL,
    # one gap would span it. (It holds the GIL to read its texts and to
    # build the answers' objects, about half of it here.) How often the
    # ticker ticks depends on how busy the cores are (the test command
    # builds beside pytest), so only the gaps are bounded.
    edges = [start] + during + [end]
    longest = max(b - a for a, b in zip(edges, edges[1:]))
    assert len(during) >= 3 and longest < (end - start) * 0.75, (len(during), longest, end - start)
