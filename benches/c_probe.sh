#!/bin/bash
# The C library's figures of docs/performance.md: probes a second from C
# (benches/c_rate.c, against the library capi/install installs) and from
# the probe crate (probe/examples/key_rate.rs), by turns, RUNS times each,
# on one thread and the same inputs: a million keys drawn from DB's
# records (seed 1) and 100,000 random positions (random_positions, seed
# 7). DB is a sorted file, such as bsq.db.
#
#   cargo build --release --example random_positions
#   benches/c_probe.sh 5 bsq.db
#
# Each run prints two JSON lines, each rate the median of 5 passes; the
# last line gives the medians over the runs and the C library's rates as
# fractions of the probe crate's: by key, one at a time and in batches; a
# whole answer from text, against the crate's `probe` and against it with
# the answer's moves read; the JSON line, against the crate writing the
# same line and against its `probe` alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=$1
db=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd "$root" && cargo build -q --release --locked -p boardsolve-probe --features json --example key_rate)
"$root/capi/install" --prefix "$dir/prefix" >/dev/null
export PKG_CONFIG_PATH=$dir/prefix/lib/pkgconfig
# shellcheck disable=SC2046 # pkg-config's flags, words
cc -std=c99 -O2 -o "$dir/c_rate" "$root/benches/c_rate.c" $(pkg-config --cflags --libs boardsolve) \
    -Wl,-rpath,"$dir/prefix/lib"
python3 - "$db" "$dir/keys" <<'PY'
import random, struct, sys
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"BSOLVEDB" and struct.unpack_from("<I", data, 20)[0] == 1, "a sorted file"
shift, count = data[128], struct.unpack_from("<Q", data, 136)[0]
rng = random.Random(1)
keys = [struct.unpack_from("<Q", data, 4096 + 8 * rng.randrange(count))[0] >> shift for _ in range(1_000_000)]
open(sys.argv[2], "wb").write(struct.pack("<%dQ" % len(keys), *keys))
PY
game=$("$root/target/release/query" --db "$db" info --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["game"], d["variant"])')
# shellcheck disable=SC2086 # game and variant, two words
"$root/target/release/examples/random_positions" 100000 7 ${game#* } ${game% *} >"$dir/positions"
for _ in $(seq "$runs"); do
    "$root/target/release/examples/key_rate" "$db" "$dir/keys" "$dir/positions" 5 | tee -a "$dir/runs"
    "$dir/c_rate" "$db" "$dir/keys" "$dir/positions" 5 | tee -a "$dir/runs"
done
python3 - "$dir/runs" <<'PY'
import json, statistics, sys
runs = [json.loads(l) for l in open(sys.argv[1])]
def medians(side):
    rows = [r[side] for r in runs if side in r]
    return {k: statistics.median(r[k] for r in rows) for k in rows[0] if k.endswith("_per_s")}
rust, c = medians("probe_crate"), medians("c_library")
ratio = lambda a, b: round(c[a] / rust[b], 3)
print(json.dumps({"medians": {"probe_crate": rust, "c_library": c}, "c_over_probe_crate": {
    "keys": ratio("keys_per_s", "keys_per_s"),
    "keys_batch": ratio("keys_batch_per_s", "keys_batch_per_s"),
    "whole_answer_over_probe": ratio("probe_per_s", "probe_per_s"),
    "whole_answer_over_probe_and_moves": ratio("probe_per_s", "probe_moves_per_s"),
    "json_over_probe_and_json": ratio("json_per_s", "json_per_s"),
    "json_over_probe": ratio("json_per_s", "probe_per_s")}}))
PY
