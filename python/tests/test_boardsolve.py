"""The Python package against the `query` tool: the same answers on 10,000
positions across the four games, value-only batches that agree, and
exceptions (never a crash) for bad positions and bad files.

The binaries come from BOARDSOLVE_BIN (default: target/debug of the
repository, which `cargo test` builds, examples included).
"""

import json
import os
import pathlib
import struct
import subprocess
import sys

import numpy as np
import pytest

import boardsolve

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("BOARDSOLVE_BIN", ROOT / "target" / "debug"))
sys.path.insert(0, str(ROOT / "tests" / "python"))
from bsq_reader import xxh3_64  # noqa: E402  (the format's header checksum)

# (game, variant, book depth or None, positions to compare)
GAMES = [
    ("british-square", "4x4", None, 4000),
    ("dots-and-boxes", "2x2", None, 2000),
    ("connect-four", "4x4", None, 2000),
    ("dandelions", "3x3", None, 2000),
]


def run(*args, stdin=None):
    out = subprocess.run([str(a) for a in args], input=stdin, capture_output=True,
                         text=True, check=False)
    return out


def generate(tmp, game, variant, depth=None):
    path = tmp / f"{game}-{variant}.db"
    args = [BIN / "generator", "--game", game, "--variant", variant, "-q", "-o", path]
    if depth is not None:
        args += ["--depth", str(depth)]
    out = run(*args)
    assert out.returncode == 0, out.stderr
    return path


def positions(game, variant, n, seed):
    out = run(BIN / "examples" / "random_positions", n, seed, variant, game)
    assert out.returncode == 0, out.stderr
    return out.stdout.splitlines()


def query_raw(db, texts, source=()):
    where = ["--db", db] if db is not None else list(source)
    out = run(BIN / "query", *where, "--json", "-", stdin="\n".join(texts) + "\n")
    assert out.returncode in (0, 1), out.stderr
    lines = out.stdout.splitlines()
    assert len(lines) == len(texts)
    return lines


def query_lines(db, texts, source=()):
    return [json.loads(line) for line in query_raw(db, texts, source)]


@pytest.fixture(scope="session")
def dbs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dbs")
    return {(g, v): generate(tmp, g, v, d) for g, v, d, _ in GAMES}


@pytest.mark.parametrize("game,variant,depth,n", GAMES)
def test_answers_agree_with_query(dbs, game, variant, depth, n):
    db_path = dbs[(game, variant)]
    texts = positions(game, variant, n, 7) + ["not a position", "", "quote \" back \\ tab \t é 😀 \x01"]
    db = boardsolve.open(db_path)
    assert (db.game, db.variant, db.complete) == (game, variant, True)
    raw = query_raw(db_path, texts)
    expected = [json.loads(line) for line in raw]
    assert db.probe_many(texts) == expected
    # The JSON text itself, byte for byte, and the keys in the same order.
    assert db.probe_lines(texts) == raw
    assert [list(a) for a in db.probe_many(texts[:50])] == [list(a) for a in expected[:50]]
    # One by one: the same dicts, and the errors as exceptions.
    for text, want in list(zip(texts, expected))[:300] + list(zip(texts, expected))[-2:]:
        if "error" in want:
            with pytest.raises(boardsolve.PositionError) as e:
                db.probe(text)
            assert str(e.value) == want["error"]
        else:
            assert db.probe(text) == want
    # Values alone: two int32 arrays that agree with the full answers.
    good = [t for t, w in zip(texts, expected) if "error" not in w]
    values, remoteness = db.values(good)
    assert values.dtype == np.int32 and remoteness.dtype == np.int32
    want = [w for w in expected if "error" not in w]
    assert values.tolist() == [w["value"] for w in want]
    assert remoteness.tolist() == [w["remoteness"] for w in want]
    with pytest.raises(boardsolve.PositionError):
        db.values(good[:3] + ["not a position"])


def test_positions_past_a_book_are_searched(tmp_path):
    db_path = generate(tmp_path, "connect-four", "5x4", depth=3)
    texts = positions("connect-four", "5x4", 300, 11)
    expected = query_lines(db_path, texts)
    db = boardsolve.open(db_path, search_bits=22)
    assert not db.complete
    assert db.probe_many(texts) == expected
    # Without search, a position past the book is an exception.
    plain = boardsolve.open(db_path)
    deep = next(t for t in texts if t.count("X") + t.count("O") > 4)
    with pytest.raises(boardsolve.NotInBook):
        plain.probe(deep)


def test_a_game_without_a_file_answers_as_query_does():
    # Connect Four 7x6: the book that comes with the tools, as `query
    # --game connect-four` answers from it (its early positions at once).
    texts = ["start", "4", "44", "", "not a position"]
    out = run(BIN / "query", "--game", "connect-four", "--json", "-", stdin="\n".join(texts) + "\n")
    assert out.returncode == 1, out.stderr
    expected = [json.loads(line) for line in out.stdout.splitlines()]
    db = boardsolve.for_game("connect-four", search_bits=20)
    assert (db.game, db.variant, db.complete) == ("connect-four", "7x6", False)
    assert db.probe_many(texts) == expected
    # A board without a shipped book: search alone, as query does.
    small = boardsolve.for_game("connect-four", "5x4", search_bits=20)
    assert small.probe("start") == query_lines(None, ["start"], ["--game", "connect-four", "--variant", "5x4"])[0]
    with pytest.raises(boardsolve.Error, match="unknown game"):
        boardsolve.for_game("chess")


def test_info_line_and_verify(dbs):
    db_path = dbs[("british-square", "4x4")]
    db = boardsolve.open(db_path)
    info = run(BIN / "query", "--db", db_path, "--json", "info")
    assert db.info() == json.loads(info.stdout)
    assert len(db) == 10206 and db.info()["records"] == 10206
    line = db.line("start")
    assert len(line) == db.probe("start")["remoteness"]
    end = db.probe(" ".join(line))
    assert end["moves"] == [] and end["value"] == db.probe("start")["value"]
    report = db.verify()
    assert report["ok"] and report["records"] == 10206


@pytest.mark.parametrize("game,variant,depth,n", GAMES + [("connect-four", "5x4", 3, 0)])
def test_info_and_verify_are_the_objects_query_prints(dbs, tmp_path, game, variant, depth, n):
    # The same objects as `query --json info` and `query verify --json`,
    # field for field, for every game and for an opening book.
    db_path = dbs.get((game, variant)) or generate(tmp_path, game, variant, depth)
    db = boardsolve.open(db_path)
    info = run(BIN / "query", "--db", db_path, "info", "--json")
    assert info.returncode == 0, info.stderr
    assert db.info() == json.loads(info.stdout)
    verify = run(BIN / "query", "--db", db_path, "verify", "-q", "--json")
    assert verify.returncode == 0, verify.stderr
    report = db.verify()
    assert report == json.loads(verify.stdout)
    assert report["ok"] and report["db"] == str(db_path)
    assert report["children_checked"] == (depth is None)
    assert 0 < report["derived"] <= report["records"] == len(db)


def reseal_header(data):
    struct.pack_into("<Q", data, 4088, xxh3_64(bytes(data[:4088])))


def test_bad_files_raise(dbs, tmp_path):
    good = dbs[("british-square", "4x4")].read_bytes()
    with pytest.raises(boardsolve.DatabaseError) as e:
        boardsolve.open(tmp_path / "missing.db")
    assert "missing.db" in str(e.value)
    (tmp_path / "text.db").write_text("not a database")
    cases = {
        "text.db": None,
        "truncated.db": good[:-8],
        "padded.db": good + b"\0" * 8,
        "header-flip.db": good[:100] + bytes([good[100] ^ 1]) + good[101:],
    }
    for name, data in cases.items():
        if data is not None:
            (tmp_path / name).write_bytes(data)
        with pytest.raises(boardsolve.DatabaseError):
            boardsolve.open(tmp_path / name)
    with pytest.raises(boardsolve.DatabaseError):
        boardsolve.open(tmp_path)
    # A forged count, the header checksum recomputed, in a sparse file of
    # the size the header claims (16 GiB).
    forged = bytearray(good[:4096])
    struct.pack_into("<Q", forged, 136, 1 << 31)
    reseal_header(forged)
    with open(tmp_path / "count.db", "wb") as f:
        f.write(forged)
        f.truncate(4096 + 8 * (1 << 31))
    with pytest.raises(boardsolve.DatabaseError) as e:
        boardsolve.open(tmp_path / "count.db")
    assert "record_count" in str(e.value)
    # The start record's remoteness out of range: corrupt, not an answer.
    start_key = struct.unpack_from("<Q", good, 168)[0]
    count = struct.unpack_from("<Q", good, 136)[0]
    records = [struct.unpack_from("<Q", good, 4096 + 8 * i)[0] for i in range(count)]
    at = next(i for i, r in enumerate(records) if r >> 12 == start_key)
    damaged = bytearray(good)
    struct.pack_into("<Q", damaged, 4096 + 8 * at, (records[at] & ~0x3F) | 63)
    (tmp_path / "far.db").write_bytes(damaged)
    db = boardsolve.open(tmp_path / "far.db")
    with pytest.raises(boardsolve.CorruptDatabase):
        db.probe("start")
    with pytest.raises(boardsolve.CorruptDatabase):
        db.values(["start"])
    with pytest.raises(boardsolve.CorruptDatabase):
        db.verify()
    assert db.probe_many(["start"])[0]["error"].startswith("database corrupted")


def test_exceptions_form_one_family():
    for cls in (boardsolve.DatabaseError, boardsolve.CorruptDatabase,
                boardsolve.PositionError, boardsolve.Unreachable,
                boardsolve.NotInBook):
        assert issubclass(cls, boardsolve.Error)
    assert issubclass(boardsolve.CorruptDatabase, boardsolve.DatabaseError)
    assert issubclass(boardsolve.Unreachable, boardsolve.PositionError)


def test_a_named_pipe_is_refused_without_waiting(tmp_path):
    fifo = tmp_path / "in.fifo"
    os.mkfifo(fifo)
    with pytest.raises(boardsolve.DatabaseError) as e:
        boardsolve.open(fifo)
    assert "named pipe" in str(e.value)



def test_play_walks_a_game_keeping_the_score(dbs):
    db = boardsolve.open(dbs[("dots-and-boxes", "2x2")])
    position = "none A 0-0"
    promised = db.probe(position)["value"]
    while True:
        answer = db.probe(position)
        if not answer["best"]:
            break
        position = db.play(position, answer["best"][0])
    a, b = position.rsplit(" ", 1)[1].split("-")
    assert int(a) - int(b) == promised
    with pytest.raises(boardsolve.PositionError, match='malformed move "99"'):
        db.play("none A 0-0", "99")
    with pytest.raises(boardsolve.PositionError, match='illegal move "0"'):
        db.play("0 B 0-0", "0")


# One position per game with the second player to move: (game, variant,
# position, the second player, its value, the first player's final score).
SECOND_TO_MOVE = [
    ("british-square", "4x4", "a1 b3 d1", "O", 1, -1),
    ("dots-and-boxes", "2x2", "0 B 0-0", "B", -2, 2),
    ("connect-four", "7x6", "4", "O", -1, 1),
    ("k-in-a-row", "3x3,k=3", "b2 a2 a1", "O", -1, 1),
    ("dandelions", "3x3", "F........ -", "wind", -2, 2),
]


@pytest.mark.parametrize("game,variant,position,mover,value,for_first", SECOND_TO_MOVE)
def test_the_value_is_the_side_to_moves(dbs, game, variant, position, mover, value,
                                        for_first):
    # The one sign rule: a position's value is for the side to move, a
    # move's for the side making it; only final_for_first is on one side.
    if (game, variant) in dbs:
        db = boardsolve.open(dbs[(game, variant)])
    else:
        db = boardsolve.for_game(game, variant, search_bits=20)
    a = db.probe(position)
    assert (a["to_move"], a["value"], a["final_for_first"]) == (mover, value, for_first)
    assert "final" not in a
    assert a["positionValue"] == ("win" if value > 0 else "lose" if value < 0 else "tie")
    assert max(m["value"] for m in a["moves"]) == value
    assert {m["move"] for m in a["moves"] if m["value"] == value} == set(a["best"])
    values, _ = db.values([position])
    assert values.tolist() == [value]


def test_the_other_name_of_a_variant_opens_it():
    # tic-tac-toe is k-in-a-row 3x3,k=3, as --game tic-tac-toe is.
    db = boardsolve.for_game("tic-tac-toe")
    assert (db.game, db.variant) == ("k-in-a-row", "3x3,k=3")
    assert db.probe("start")["positionValue"] == "tie"
    assert boardsolve.for_game("tic-tac-toe", "3x3").variant == "3x3,k=3"
    with pytest.raises(boardsolve.Error, match="tic-tac-toe"):
        boardsolve.for_game("tic-tac-toe", "4x4")


@pytest.mark.parametrize("game,variant,depth,n", GAMES)
def test_packed_files_answer_as_the_plain_ones(dbs, tmp_path, game, variant, depth, n):
    plain = dbs[(game, variant)]
    packed = tmp_path / "packed.db"
    out = run(BIN / "query", "pack", plain, "-o", packed, "--quiet", "--block-entries", "64")
    assert out.returncode == 0, out.stderr
    texts = positions(game, variant, n // 4, 13) + ["not a position"]
    a, b = boardsolve.open(plain), boardsolve.open(packed)
    assert b.info()["layout_kind"] == "packed"
    assert b.info()["records"] == a.info()["records"]
    assert b.probe_lines(texts) == a.probe_lines(texts)
    good = [t for t in texts if t != "not a position"]
    for x, y in zip(a.values(good), b.values(good)):
        assert x.tolist() == y.tolist()
    assert b.line("start") == a.line("start")
    assert b.verify()["ok"]


def test_a_damaged_block_raises_corrupt_database(dbs, tmp_path):
    packed = tmp_path / "packed.db"
    out = run(BIN / "query", "pack", dbs[("british-square", "4x4")], "-o", packed,
              "--quiet", "--block-entries", "64")
    assert out.returncode == 0, out.stderr
    data = bytearray(packed.read_bytes())
    data[4096 + 10] ^= 0x20  # inside the first block: the start's
    bad = tmp_path / "bad.db"
    bad.write_bytes(bytes(data))
    db = boardsolve.open(bad)  # the header and the index are intact
    with pytest.raises(boardsolve.CorruptDatabase) as e:
        db.probe("start")
    assert "checksum" in str(e.value)
    with pytest.raises(boardsolve.CorruptDatabase):
        db.verify()


def test_a_packed_file_answers_with_no_cache(dbs, tmp_path):
    packed = tmp_path / "packed.db"
    out = run(BIN / "query", "pack", dbs[("dots-and-boxes", "2x2")], "-o", packed, "--quiet")
    assert out.returncode == 0, out.stderr
    texts = positions("dots-and-boxes", "2x2", 200, 3)
    assert (boardsolve.open(packed, cache_mib=0).probe_lines(texts)
            == boardsolve.open(dbs[("dots-and-boxes", "2x2")]).probe_lines(texts))
