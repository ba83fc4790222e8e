#!/usr/bin/env bash
# Connect Four full answers against the anchor solver, by turns: for each
# position, the exact score of the position and of every legal move, as
# `query --no-book --game connect-four --json POSITION` answers it (search
# alone, every thread of the machine), and as Christophe Steininger's
# solver answers it through benches/c4_anchor/full_answer.cpp (its
# `Solver::solve_strong` on the position and on each move, one process a
# position, its defaults: every thread, a 1 GB table). Both in fresh
# processes, anchor and ours alternating (which goes first alternates from
# one run to the next). Prints a Markdown table of medians (wall and CPU
# seconds) on stdout, progress on stderr; fails when a score differs.
#
#   C4_ANCHOR_SRC=DIR benches/c4_anchor.sh [--runs N] [POSITION...]
#   benches/c4_anchor.sh --anchor-src DIR [--runs N] [POSITION...]
#
# DIR is a checkout of github.com/ChristopheSteininger/c4 (its src/solver
# is built with g++ -O3 -flto -march=native) or a bare git directory (its
# HEAD is exported). Positions default to the early positions of issue 53:
# 44 35 4453 3344 445362 435261. --runs N (default 1) repeats each pair.
# Everything is built under target/c4-anchor/ (CARGO_TARGET_DIR is
# honoured); nothing of the anchor goes into the repository.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
work="$target/c4-anchor"
src="${C4_ANCHOR_SRC:-}"
runs=1
positions=()
while [ $# -gt 0 ]; do
    case "$1" in
        --anchor-src) src="$2"; shift 2 ;;
        --runs) runs="$2"; shift 2 ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "c4_anchor.sh: unknown option $1" >&2; exit 2 ;;
        *) positions+=("$1"); shift ;;
    esac
done
[ ${#positions[@]} -gt 0 ] || positions=(44 35 4453 3344 445362 435261)
if [ -z "$src" ]; then
    echo "c4_anchor.sh: give the anchor's source: C4_ANCHOR_SRC=DIR or --anchor-src DIR" >&2
    exit 2
fi

mkdir -p "$work"
if [ -d "$src/src/solver" ]; then
    tree="$src"
elif git --git-dir="$src" rev-parse HEAD >/dev/null 2>&1; then
    tree="$work/src-tree"
    rm -rf "$tree" && mkdir -p "$tree"
    git --git-dir="$src" archive HEAD src | tar -x -C "$tree"
else
    echo "c4_anchor.sh: $src holds neither src/solver nor a git repository" >&2
    exit 2
fi
anchor="$work/full_answer"
echo "building the anchor from $src" >&2
g++ -std=c++20 -O3 -flto -march=native -DNDEBUG -I"$tree/src" \
    "$tree"/src/solver/*.cpp "$tree"/src/solver/parallel/*.cpp "$tree"/src/solver/util/*.cpp \
    "$root/benches/c4_anchor/full_answer.cpp" -o "$anchor" -lpthread
echo "building query" >&2
(cd "$root" && cargo build --release -q -p query)
query="$target/release/query"

# One timed process: prints "wall cpu" on the last line of stderr's file.
timed() {
    local out="$1"; shift
    /usr/bin/time -f "%e %U %S" -o "$out.time" "$@" >"$out" 2>"$out.err"
}

results="$work/results.txt"
: >"$results"
for p in "${positions[@]}"; do
    for r in $(seq 1 "$runs"); do
        order=(anchor ours)
        [ $((r % 2)) -eq 0 ] && order=(ours anchor)
        for who in "${order[@]}"; do
            case "$who" in
                anchor) timed "$work/a.out" "$anchor" "$p" ;;
                ours) timed "$work/o.out" "$query" --no-book --game connect-four --json "$p" ;;
            esac
        done
        python3 - "$p" "$work/a.out" "$work/o.out" >>"$results" <<'EOF'
import json, sys
p, a, o = sys.argv[1:4]
line = open(a).read().split()
anchor = [line[1]] + line[2:-1]
ours = json.loads(open(o).read())
mine = [str(ours["value"])] + ["-"] * 7
for m in ours["moves"]:
    mine[m["column"]] = str(m["value"])
if mine != anchor:
    sys.exit(f"{p}: scores differ: anchor {anchor}, ours {mine}")
def t(path):
    wall, user, sys_ = open(path + ".time").read().split()[-3:]
    return float(wall), float(user) + float(sys_)
(aw, ac), (ow, oc) = t(a), t(o)
print(p, aw, ac, ow, oc)
EOF
        echo "$(tail -1 "$results")" >&2
    done
done

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
cpu="$cpu (family $(grep -m1 "^cpu family" /proc/cpuinfo | cut -d: -f2 | tr -d " ") model $(grep -m1 "^model\s*:" /proc/cpuinfo | cut -d: -f2 | tr -d " "))"
python3 - "$results" "$(nproc)" "$cpu" <<'EOF'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    p, *t = line.split()
    rows.setdefault(p, []).append([float(x) for x in t])
print(f"{sys.argv[3]}, {sys.argv[2]} threads; medians of {min(len(v) for v in rows.values())} "
      "pair(s), seconds")
print()
print("| position | anchor wall | anchor CPU | ours wall | ours CPU | ours / anchor (wall) |")
print("|---|---|---|---|---|---|")
tot = [0.0] * 4
for p, v in rows.items():
    m = [statistics.median(x[i] for x in v) for i in range(4)]
    tot = [a + b for a, b in zip(tot, m)]
    print(f"| `{p}` | {m[0]:.2f} | {m[1]:.2f} | {m[2]:.2f} | {m[3]:.2f} | {m[2] / m[0]:.2f} |")
print(f"| total | {tot[0]:.2f} | {tot[1]:.2f} | {tot[2]:.2f} | {tot[3]:.2f} | "
      f"**{tot[2] / tot[0]:.2f}** |")
EOF
