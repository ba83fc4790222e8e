#!/usr/bin/env bash
# tests/c/run.sh PREFIX: the C library installed under PREFIX (capi/install
# --prefix PREFIX), used from C and C++ as a program that links it meets
# it, flags from pkg-config:
#
# - the install: the soname libboardsolve.so.0, the links, the pkg-config
#   file; every symbol the shared library exports is a function of the
#   header, each prefixed boardsolve_, and the shared and the static
#   library define every function of the header;
# - the header alone compiles as C99 and as C++17, warnings as errors;
# - tests/c/check.c (cc -std=c99 -Wall -Wextra -pedantic -Werror), linked
#   with the shared library and with the static one, answers a few hundred
#   random positions of every game, sorted, dense and packed files, as
#   `query --json` does, by key too, from threads, refuses bad input with
#   codes, and stops searches; and again under Valgrind (no error, no
#   block definitely or indirectly lost) and built with AddressSanitizer
#   and UndefinedBehaviorSanitizer (no error, and LeakSanitizer finds no
#   leak at all);
# - tests/cpp/walk.cpp (c++ -std=c++17, warnings as errors) walks the
#   line of perfect play of every game;
# - the program of docs/c.md, built with the commands the page gives,
#   prints what the page shows (tests/c/doc_example.sh).
#
# Needs BOARDSOLVE_BIN: the generator and query binaries and the
# random_positions example.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
prefix=${1:?usage: tests/c/run.sh PREFIX}
bin=${BOARDSOLVE_BIN:-$root/target/debug}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
say() { echo "tests/c: $*" >&2; }
die() { echo "tests/c: FAILED: $*" >&2; exit 1; }

# The install.
version=$(pkg-config --modversion boardsolve)
lib=$prefix/lib
[ -f "$lib/libboardsolve.so.$version" ] || die "no $lib/libboardsolve.so.$version"
[ "$(readlink "$lib/libboardsolve.so.0")" = "libboardsolve.so.$version" ] || die "libboardsolve.so.0"
[ "$(readlink "$lib/libboardsolve.so")" = libboardsolve.so.0 ] || die "libboardsolve.so"
soname=$(readelf -d "$lib/libboardsolve.so.$version" | sed -n 's/.*Library soname: \[\(.*\)\]/\1/p')
[ "$soname" = libboardsolve.so.0 ] || die "soname '$soname', not libboardsolve.so.0"
[ "$(pkg-config --libs boardsolve | xargs)" = "-L$lib -lboardsolve" ] || die "pkg-config --libs: $(pkg-config --libs boardsolve)"

# The header's functions (comments gone: the preprocessor drops them)
# against what each library exports.
header=$prefix/include/boardsolve.h
cc -E -P -x c "$header" | grep -o 'boardsolve_[a-z_]*[[:space:]]*(' | tr -d '( \t' | sort -u >"$work/declared"
nm -D --defined-only "$lib/libboardsolve.so.$version" | awk '{ print $3 }' | sort -u >"$work/exported"
# readelf, not nm: nm hands the archive's objects, which carry LLVM
# bitcode too, to the system's LTO plugin, which may be older than the
# compiler's LLVM and then lists no symbol.
readelf -Ws "$lib/libboardsolve.a" |
    awk '$5 == "GLOBAL" && $7 != "UND" && $8 ~ /^boardsolve_/ { print $8 }' | sort -u >"$work/static"
[ "$(wc -l <"$work/declared")" -ge 15 ] || die "the header declares too few functions"
if ! diff -u "$work/declared" "$work/exported" >&2; then
    die "the shared library exports other symbols than the header declares (above: - header, + library)"
fi
diff -u "$work/declared" "$work/static" >&2 || die "the static library's functions differ from the header's"
say "libboardsolve.so.$version (soname $soname) exports the $(wc -l <"$work/declared") functions of the header, all prefixed"

# The header alone, as C99 and as C++17.
strict=(-Wall -Wextra -pedantic -Werror)
echo '#include <boardsolve.h>' | cc -std=c99 "${strict[@]}" $(pkg-config --cflags boardsolve) -fsyntax-only -x c -
echo '#include <boardsolve.h>' | c++ -std=c++17 "${strict[@]}" $(pkg-config --cflags boardsolve) -fsyntax-only -x c++ -
say "boardsolve.h compiles as C99 and as C++17"

# The programs: shared, static, sanitized; C++.
rpath=-Wl,-rpath,$lib
cc -std=c99 "${strict[@]}" -o "$work/check" "$root/tests/c/check.c" \
    $(pkg-config --cflags --libs boardsolve) -lpthread "$rpath"
static_libs=$(pkg-config --static --libs boardsolve | sed 's/-lboardsolve\b/-l:libboardsolve.a/')
cc -std=c99 "${strict[@]}" -o "$work/check-static" "$root/tests/c/check.c" \
    $(pkg-config --cflags boardsolve) $static_libs -lpthread
ldd "$work/check-static" | grep -q libboardsolve && die "check-static links the shared library"
cc -std=c99 "${strict[@]}" -g -fsanitize=address,undefined -fno-omit-frame-pointer \
    -o "$work/check-asan" "$root/tests/c/check.c" $(pkg-config --cflags --libs boardsolve) -lpthread "$rpath"
c++ -std=c++17 "${strict[@]}" -o "$work/walk" "$root/tests/cpp/walk.cpp" \
    $(pkg-config --cflags --libs boardsolve) "$rpath"

# A database of every game, random positions, what `query` answers.
dbs=$work/dbs
mkdir -p "$work/scratch"
"$root/tests/c/data.sh" "$dbs"

for name in bsq4 dab c4 dand ttt; do
    for db in "$dbs/$name.db" "$dbs/$name.packed.db"; do
        "$work/check" answers "$db" "$dbs/$name.pos" "$dbs/$name.json"
    done
    "$work/walk" "$dbs/$name.db"
done
"$work/check-static" answers "$dbs/bsq4.db" "$dbs/bsq4.pos" "$dbs/bsq4.json"
"$work/check" threads "$dbs/bsq4.db" "$dbs/bsq4.pos" "$dbs/bsq4.json" 8
"$work/check" threads "$dbs/dand.packed.db" "$dbs/dand.pos" "$dbs/dand.json" 4
"$work/check" threads "$dbs/c4.db" "$dbs/c4.pos" "$dbs/c4.json" 4
"$work/check" errors "$dbs/bsq4.db" "$dbs/ttt.db" "$work/scratch"
"$work/check" search

# Under Valgrind and the sanitizers. The games a process sets up are kept
# for its life (the probe crate's Game), held through pointers into the
# middle of their blocks (hash tables, reference counts), which Valgrind
# calls "possibly lost": its verdict counts the blocks definitely or
# indirectly lost; LeakSanitizer follows such pointers, and counts every
# leak.
vg=(valgrind -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite,indirect
    --errors-for-leak-kinds=definite,indirect)
for run in "answers $dbs/bsq4.db $dbs/bsq4.pos $dbs/bsq4.json" \
    "answers $dbs/dab.packed.db $dbs/dab.pos $dbs/dab.json" \
    "answers $dbs/c4.db $dbs/c4.pos $dbs/c4.json" \
    "threads $dbs/dand.db $dbs/dand.pos $dbs/dand.json 4" \
    "errors $dbs/bsq4.db $dbs/ttt.db $work/scratch" search; do
    # shellcheck disable=SC2086 # the mode and its arguments, words
    "${vg[@]}" "$work/check" $run
    # shellcheck disable=SC2086
    ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=halt_on_error=1 "$work/check-asan" $run
done
say "Valgrind: no error, nothing definitely or indirectly lost; AddressSanitizer and UndefinedBehaviorSanitizer: no error, no leak"

# The programs of docs/c.md, built and run as the page shows.
"$root/tests/c/doc_example.sh" "$prefix" "$dbs"
say "every check passed"
