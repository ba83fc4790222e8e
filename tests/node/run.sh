#!/usr/bin/env bash
# The npm package of the WebAssembly probe: packed with `npm pack`,
# installed from the tarball into a scratch project, and tested there with
# Node's test runner against `query --json` (package.test.mjs).
# Needs BOARDSOLVE_BIN: the generator and query binaries and the
# random_positions example.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
bin=${BOARDSOLVE_BIN:-$root/target/debug}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tgz=$("$root/web/build-npm" "$work/pack")
dbs="$work/dbs"
mkdir -p "$dbs"
gen() { # gen GAME VARIANT [generator options...]
    local name="$dbs/$1,$2.db"
    "$bin/generator" --game "$1" --variant "$2" "${@:3}" -q -o "$name"
    "$bin/query" pack "$name" -o "${name%.db}.packed.db" -q
}
gen british-square 4x4
gen dots-and-boxes 2x2
gen connect-four 5x4 --depth 4 --table-bits 20
gen dandelions 3x3
mkdir "$work/project"
cd "$work/project"
npm init -y >/dev/null
npm install --no-audit --no-fund --silent "$tgz"
cp "$root/tests/node/package.test.mjs" .
BOARDSOLVE_BIN="$bin" BOARDSOLVE_DBS="$dbs" BOARDSOLVE_ROOT="$root" node --test package.test.mjs
