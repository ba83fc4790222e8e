#!/usr/bin/env bash
# tests/go/run.sh PREFIX: the Go package capi/go, over cgo, against the C
# library installed under PREFIX (capi/install --prefix PREFIX; cgo finds
# it with pkg-config): gofmt, go vet and go test, whose tests compare
# every answer with `query --json` on every game, probe by key, refuse bad
# input with codes, stop searches and probe from 16 goroutines at once
# (under the race detector); its example opens British Square 5x5 and
# prints what it shows.
#
# Needs BOARDSOLVE_BIN: the generator and query binaries and the
# random_positions example.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prefix=${1:?usage: tests/go/run.sh PREFIX}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export LD_LIBRARY_PATH=$prefix/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
"$root/tests/c/data.sh" "$work/dbs"
cd "$root/capi/go"
unformatted=$(gofmt -l .)
if [ -n "$unformatted" ]; then
    echo "tests/go: not formatted by gofmt: $unformatted" >&2
    exit 1
fi
go vet ./...
BOARDSOLVE_DBS=$work/dbs go test -race -count=1 -v ./... 2>&1 | grep -E -v '^=== RUN'
