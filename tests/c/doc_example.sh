#!/usr/bin/env bash
# tests/c/doc_example.sh PREFIX DIR: the examples of docs/c.md, as a reader
# runs them. The C program (the page's `c` block) is built with each `cc`
# command of the page's `sh` blocks (shared and static), against the
# library installed under PREFIX, and run in DIR, which holds bsq.db: it
# must print the page's `text` block. The Go program's statements (the
# page's `go` block) must be those of the Go package's example,
# capi/go/example_test.go, which `go test` runs and checks.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prefix=${1:?usage: tests/c/doc_example.sh PREFIX DIR}
dir=${2:?usage: tests/c/doc_example.sh PREFIX DIR}
doc=$root/docs/c.md
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
die() { echo "tests/c/doc_example.sh: FAILED: $*" >&2; exit 1; }

# block LANG N: the lines of the page's Nth block fenced ```LANG.
block() {
    awk -v lang="$1" -v want="$2" '
        $0 == "```" && inside { inside = 0; next }
        $0 == "```" lang { n++; inside = (n == want); next }
        inside { print }' "$doc"
}

block c 1 >"$work/start.c"
block text 1 >"$work/expected"
[ -s "$work/start.c" ] && [ -s "$work/expected" ] || die "no c or text block in docs/c.md"
builds=0
n=1
while true; do
    sh_block=$(block sh "$n")
    [ -n "$sh_block" ] || break
    while IFS= read -r command; do
        case $command in
            "cc "*) ;;
            *) continue ;;
        esac
        rm -f "$work/start"
        (cd "$work" && bash -c "$command") || die "the build command: $command"
        (cd "$dir" && LD_LIBRARY_PATH=$prefix/lib "$work/start") >"$work/printed" ||
            die "the program failed (built by: $command)"
        diff -u "$work/expected" "$work/printed" >&2 ||
            die "the program prints other lines than docs/c.md shows (above: - page, + program), built by: $command"
        builds=$((builds + 1))
    done <<<"$sh_block"
    n=$((n + 1))
done
[ "$builds" -ge 2 ] || die "docs/c.md gives $builds cc commands; the shared and the static build were expected"

# The Go program's statements are the example's.
block go 1 | sed -n '/^func main() {$/,/^}$/p' | sed '1d; $d' >"$work/go-page"
sed -n '/^func Example() {$/,/^\t\/\/ Output:$/p' "$root/capi/go/example_test.go" | sed '1d; $d' >"$work/go-example"
[ -s "$work/go-page" ] || die "no Go program in docs/c.md"
diff -u "$work/go-page" "$work/go-example" >&2 ||
    die "the Go program of docs/c.md is not capi/go/example_test.go's example (above: - page, + example)"
echo "tests/c: the programs of docs/c.md print what the page shows ($builds builds)" >&2
