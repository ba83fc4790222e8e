#!/usr/bin/env bash
# tests/c/data.sh DIR: what the C, C++ and Go tests of the C library read,
# written into DIR: a database of every game, sorted or dense (NAME.db)
# and packed (NAME.packed.db); 300 random positions of each (NAME.pos)
# and the lines `query --json` prints for them (NAME.json); and bsq.db,
# British Square 5x5, which the examples of docs/c.md open. NAME is bsq4
# (British Square 4x4), dab (Dots and Boxes 2x2), c4 (a Connect Four 5x4
# book of 4 plies, searched past it), dand (Dandelions 3x3) and ttt
# (tic-tac-toe).
#
# Needs BOARDSOLVE_BIN: the generator and query binaries and the
# random_positions example.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
dir=${1:?usage: tests/c/data.sh DIR}
bin=${BOARDSOLVE_BIN:-$root/target/debug}
mkdir -p "$dir"
gen() { # gen NAME GAME VARIANT [generator options...]
    "$bin/generator" --game "$2" --variant "$3" "${@:4}" -q -o "$dir/$1.db" >/dev/null
    "$bin/query" pack "$dir/$1.db" -o "$dir/$1.packed.db" -q >/dev/null
    "$bin/examples/random_positions" 300 5 "$3" "$2" >"$dir/$1.pos"
    "$bin/query" --db "$dir/$1.db" --json - <"$dir/$1.pos" >"$dir/$1.json"
}
gen bsq4 british-square 4x4
gen dab dots-and-boxes 2x2
gen c4 connect-four 5x4 --depth 4 --table-bits 20
gen dand dandelions 3x3
gen ttt k-in-a-row 3x3,k=3
"$bin/generator" -q -o "$dir/bsq.db" >/dev/null
