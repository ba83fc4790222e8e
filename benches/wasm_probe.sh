#!/bin/bash
# The WebAssembly figures of docs/performance.md: the size of the .wasm
# (raw and gzip -9), and probes a second in Node.js against the native
# probe crate, alternating, RUNS times each, on the same positions of DB.
#
#   cargo build --release --example random_positions
#   benches/wasm_probe.sh 3 bsq.db
#   benches/wasm_probe.sh 3 bsq.packed.db
#
# Each run prints two JSON lines (web/bench/probe_rate.mjs and the
# probe_rate example): medians of 5 passes over 20,000 positions, the file
# in memory (Node) or mapped (native).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
runs=$1
db=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
(cd "$root" && cargo build -q --release --locked -p boardsolve-probe --features json --example probe_rate)
"$root/web/build-wasm" "$dir/pkg"
cp "$root/web/js/boardsolve.js" "$root/web/js/node.js" "$dir/pkg/"
wasm=$dir/pkg/boardsolve_wasm_bg.wasm
echo "{\"wasm_bytes\":$(stat -c %s "$wasm"),\"wasm_gzip_bytes\":$(gzip -9 -c "$wasm" | wc -c)}"
game=$("$root/target/release/query" --db "$db" info --json | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["game"], d["variant"])')
# shellcheck disable=SC2086 # game and variant, two words
"$root/target/release/examples/random_positions" 20000 7 ${game#* } ${game% *} >"$dir/positions"
for _ in $(seq "$runs"); do
  node "$root/web/bench/probe_rate.mjs" "$dir/pkg" "$db" "$dir/positions" 5
  "$root/target/release/examples/probe_rate" "$db" "$dir/positions" 5
done
