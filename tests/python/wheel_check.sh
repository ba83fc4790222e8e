#!/usr/bin/env bash
# The Python package as a user gets it: the abi3 wheel `maturin build
# --release` makes, installed with pip into a clean virtual environment on a
# PATH with no cargo or rustc, answers positions as `query` does.
#
# Usage: tests/python/wheel_check.sh [PYTHON...]
# Each PYTHON (default: python3) gets a clean venv of its own; the one abi3
# wheel serves them all (python3.9 and python3.13 both, say).
# Environment: BOARDSOLVE_BIN, the directory of generator and query (default
# target/debug); MATURIN (default target/python-venv/bin/maturin, where
# tests/run installs it). NumPy comes from the package index; nothing else
# does.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${BOARDSOLVE_BIN:-$root/target/debug}
maturin=${MATURIN:-$root/target/python-venv/bin/maturin}
[ "$#" -gt 0 ] || set -- python3
scratch=$(mktemp -d "${TMPDIR:-/tmp}/boardsolve-wheel.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
fail() {
    echo "wheel_check: FAIL: $*" >&2
    exit 1
}

# The version a release carries: the workspace's, which the Python
# package's must repeat.
version=$(sed -n 's/^version = "\([0-9.]*\)"$/\1/p' "$root/Cargo.toml" | head -n 1)
python_version=$(sed -n 's/^version = "\([0-9.]*\)"$/\1/p' "$root/python/pyproject.toml" | head -n 1)
[ -n "$version" ] && [ "$version" = "$python_version" ] ||
    fail "python/pyproject.toml has version '$python_version', the workspace '$version'"

# The wheel, built as a release would be.
"$maturin" build --release --locked --manifest-path "$root/python/Cargo.toml" --out "$scratch/wheels"
wheels=("$scratch"/wheels/*.whl)
[ "${#wheels[@]}" = 1 ] && [ -f "${wheels[0]}" ] || fail "expected one wheel, found: ${wheels[*]}"
wheel=${wheels[0]}
case "$(basename "$wheel")" in
    "boardsolve-$version-cp39-abi3-"*.whl) ;;
    *) fail "not an abi3 wheel for CPython 3.9 and later: $(basename "$wheel")" ;;
esac

# Its metadata: what an index shows, and the licences.
python3 - "$wheel" "$version" <<'EOF' || fail "incomplete wheel metadata"
import email.parser, sys, zipfile

wheel = zipfile.ZipFile(sys.argv[1])
names = wheel.namelist()
version = sys.argv[2]
info = f"boardsolve-{version}.dist-info/"
meta = email.parser.Parser().parsestr(wheel.read(info + "METADATA").decode())
tags = email.parser.Parser().parsestr(wheel.read(info + "WHEEL").decode()).get_all("Tag")
want = {
    "Name": "boardsolve",
    "Version": version,
    "License-Expression": "MIT OR Apache-2.0",
    "Requires-Python": ">=3.9",
}
bad = [f"{k}: {meta.get(k)!r}, expected {v!r}" for k, v in want.items() if meta.get(k) != v]
if not meta.get("Summary"):
    bad.append("no Summary")
if not (meta.get("Description-Content-Type") or "").startswith("text/markdown") or "boardsolve" not in meta.get_payload():
    bad.append("no long description (the README)")
classifiers = meta.get_all("Classifier") or []
if "Programming Language :: Rust" not in classifiers or "Typing :: Typed" not in classifiers:
    bad.append(f"classifiers: {classifiers}")
if not any(d.startswith("numpy") for d in meta.get_all("Requires-Dist") or []):
    bad.append("numpy is not a dependency")
for lic in ("LICENSE-MIT", "LICENSE-APACHE"):
    if lic not in (meta.get_all("License-File") or []) or info + "licenses/" + lic not in names:
        bad.append(f"{lic} missing")
if any(not t.startswith("cp39-abi3-") for t in tags):
    bad.append(f"tags {tags}")
if not any(n.startswith("boardsolve/_boardsolve.abi3.") for n in names):
    bad.append("no abi3 extension module")
for line in bad:
    print("  " + line, file=sys.stderr)
sys.exit(1 if bad else 0)
EOF

# A small database, and query's answers from it.
db="$scratch/bsq-4x4.db"
"$bin/generator" --game british-square --variant 4x4 -q -o "$db" >/dev/null
positions=(start "a1" "a1 d4" "b2 c3" "a1 d4 c1" "a1 d4 c1 d2" "0 15 2" "X..O/..../..../.... X")
"$bin/query" --db "$db" --json "${positions[@]}" >"$scratch/answers.jsonl"
[ "$(wc -l <"$scratch/answers.jsonl")" = "${#positions[@]}" ] || fail "query gave no answer to each position"
bad_position=zz
if "$bin/query" --db "$db" --json "$bad_position" >"$scratch/refusal.jsonl" 2>/dev/null; then
    fail "query answered the malformed position $bad_position"
fi

# Each Python: a clean venv, the wheel installed and run with no Rust
# toolchain on the PATH, from outside the source tree.
mkdir "$scratch/elsewhere"
for python in "$@"; do
    venv=$(mktemp -d "$scratch/venv.XXXXXX")
    "$python" -m venv "$venv"
    clean=(env -u PYTHONPATH -u PYTHONHOME -u VIRTUAL_ENV -u CARGO_HOME -u RUSTUP_HOME PATH="$venv/bin:/usr/bin:/bin")
    if "${clean[@]}" sh -c 'command -v cargo || command -v rustc'; then
        fail "cargo or rustc is on the clean PATH"
    fi
    pip=("${clean[@]}" "$venv/bin/python" -m pip -q --disable-pip-version-check)
    "${pip[@]}" install --only-binary :all: "numpy>=1.21"
    # --no-index: pip cannot fetch or build anything else.
    "${pip[@]}" install --no-index "$wheel"
    (cd "$scratch/elsewhere" && "${clean[@]}" "$venv/bin/python" -I - \
        "$db" "$scratch/answers.jsonl" "$bad_position" "$scratch/refusal.jsonl" <<'EOF') || fail "the wheel on $python"
import json, os, sys

import boardsolve

db_path, answers_path, bad_position, refusal_path = sys.argv[1:]
venv = os.path.realpath(sys.prefix)
where = os.path.realpath(boardsolve.__file__)
assert where.startswith(venv + os.sep), f"boardsolve imported from {where}, not from {venv}"
lines = open(answers_path).read().splitlines()
expected = [json.loads(line) for line in lines]
positions = [e["input"] for e in expected]

db = boardsolve.open(db_path)
problems = []
if (db.game, db.variant, db.complete) != ("british-square", "4x4", True):
    problems.append(f"database: {db.game} {db.variant} complete={db.complete}")
for want in expected:
    got = db.probe(want["input"])
    for key in ("position", "to_move", "value", "remoteness", "best", "moves"):
        if got.get(key) != want.get(key):
            problems.append(f"{want['input']!r}: {key} {got.get(key)!r}, query says {want.get(key)!r}")
    if got != want:
        problems.append(f"{want['input']!r}: probe gives {got}, query gives {want}")
if db.probe_many(positions) != expected:
    problems.append("probe_many differs from query")
if db.probe_lines(positions) != lines:
    problems.append("probe_lines differs from query's text")
values, remoteness = db.values(positions)
if values.tolist() != [e["value"] for e in expected]:
    problems.append(f"values {values.tolist()}")
if remoteness.tolist() != [e["remoteness"] for e in expected]:
    problems.append(f"remoteness {remoteness.tolist()}")
refusal = open(refusal_path).read().splitlines()
if db.probe_lines([bad_position]) != refusal:
    problems.append(f"{bad_position!r}: {db.probe_lines([bad_position])}, query says {refusal}")
try:
    db.probe(bad_position)
    problems.append(f"{bad_position!r} answered")
except boardsolve.PositionError:
    pass
for p in problems:
    print("  " + p, file=sys.stderr)
if problems:
    sys.exit(1)
print(f"wheel_check: Python {sys.version.split()[0]}: {len(positions)} positions answered as query does")
EOF
done
echo "wheel_check: OK: $(basename "$wheel")"
