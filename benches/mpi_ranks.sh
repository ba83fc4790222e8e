#!/bin/bash
# The MPI figures of docs/cluster.md: one generator process (two threads)
# against 1, 2 and 4 ranks of an MPI job, RUNS times each, on the same
# arguments; checks that every file is the one-process file, byte for byte.
#
#   cargo build --release --features mpi -p generator
#   benches/mpi_ranks.sh 5 --variant 5x5
#   benches/mpi_ranks.sh 3 --game dandelions --depth 3
#
# Prints one line a run: wall, user and system seconds and the largest
# resident set (KB) from /usr/bin/time, and the summary's total_seconds
# (from the end of MPI's start-up to the file renamed into place).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
generator=$root/target/release/generator
runs=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
for _ in $(seq "$runs"); do
  for k in 0 1 2 4; do
    if [ "$k" = 0 ]; then
      launch=()
    else
      launch=(mpirun --allow-run-as-root --oversubscribe -n "$k")
    fi
    /usr/bin/time -o "$dir/time" -f "wall=%e user=%U sys=%S maxrss_kb=%M" \
      "${launch[@]}" "$generator" "$@" -o "$dir/$k.db" -q --json >"$dir/summary.json"
    total=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['total_seconds'])" "$dir/summary.json")
    echo "ranks=$k $(tail -1 "$dir/time") total_seconds=$total"
    cmp -s "$dir/0.db" "$dir/$k.db" || echo "ranks=$k: the file differs from the one-process file"
  done
done
