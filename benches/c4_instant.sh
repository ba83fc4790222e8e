#!/usr/bin/env bash
# How long a full Connect Four answer takes from a fresh `query` process:
# positions from seeded random games (every ply from 0 to --max-ply, each
# move drawn uniformly among the legal ones, a game's positions until it
# ends), each answered by `query --game connect-four --json POSITION` (the
# position and every move's exact score) in a process of its own, from the
# current directory (so with the book query finds there, or the one it
# ships with). Prints a Markdown table of the wall times by ply, and the
# percentiles over all positions, on stdout; progress on stderr.
#
#   benches/c4_instant.sh [--games N] [--seed S] [--min-ply P] [--max-ply P]
#                         [-- QUERY ARGS...]
#
# --games N random games (default 20), --seed S their seed (default 1),
# --min-ply and --max-ply the plies measured (default 0 and 20; the games
# are the same whatever the range). Arguments after `--` go to every
# query (e.g. `-- --no-book`). Builds query with `cargo build --release`
# (CARGO_TARGET_DIR is honoured).
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
target="${CARGO_TARGET_DIR:-$root/target}"
games=20
seed=1
min_ply=0
max_ply=20
extra=()
while [ $# -gt 0 ]; do
    case "$1" in
        --games) games="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --min-ply) min_ply="$2"; shift 2 ;;
        --max-ply) max_ply="$2"; shift 2 ;;
        --) shift; extra=("$@"); break ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "c4_instant.sh: unknown argument $1" >&2; exit 2 ;;
    esac
done
(cd "$root" && cargo build --release -q -p query)
query="$target/release/query"
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"

python3 - "$query" "$games" "$seed" "$min_ply" "$max_ply" "$cpu" "${extra[@]}" <<'EOF'
import json, random, statistics, subprocess, sys, time

query, cpu = sys.argv[1], sys.argv[6]
games, seed, min_ply, max_ply = (int(x) for x in sys.argv[2:6])
extra = sys.argv[7:]
W, H = 7, 6

def won(board, col, row, who):
    for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
        n = 1
        for s in (1, -1):
            c, r = col + s * dc, row + s * dr
            while 0 <= c < W and 0 <= r < H and board[c][r] == who:
                n += 1
                c, r = c + s * dc, r + s * dr
        if n >= 4:
            return True
    return False

rng = random.Random(seed)
positions = []  # (ply, moves)
for _ in range(games):
    board = [[None] * H for _ in range(W)]
    moves = ""
    for ply in range(max_ply + 1):
        if ply >= min_ply:
            positions.append((ply, moves))
        if ply == max_ply:
            break
        col = rng.choice([c for c in range(W) if board[c][H - 1] is None])
        row = board[col].index(None)
        who = ply % 2
        board[col][row] = who
        moves += str(col + 1)
        if won(board, col, row, who) or len(moves) == W * H:
            break

times = {}
slowest = []
for i, (ply, moves) in enumerate(positions):
    p = moves or "start"
    t = time.monotonic()
    out = subprocess.run([query, "--game", "connect-four", "--json", *extra, p],
                         capture_output=True, text=True)
    dt = time.monotonic() - t
    if out.returncode != 0 or "error" in json.loads(out.stdout.splitlines()[-1]):
        sys.exit(f"{p}: query failed: {out.stderr.strip() or out.stdout.strip()}")
    times.setdefault(ply, []).append(dt)
    slowest.append((dt, p))
    print(f"{i + 1}/{len(positions)} ply {ply} {p}: {dt:.3f} s", file=sys.stderr)

def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))]

every = [t for ts in times.values() for t in ts]
print(f"{cpu}; {len(every)} positions of {games} random games (seed {seed}), plies {min_ply} to "
      f"{max_ply}; `query --game connect-four --json {' '.join(extra)} POSITION`, wall seconds")
print()
print("| ply | positions | p50 | p90 | max |")
print("|---|---|---|---|---|")
for ply in sorted(times):
    ts = times[ply]
    print(f"| {ply} | {len(ts)} | {statistics.median(ts):.3f} | {pct(ts, 0.9):.3f} | {max(ts):.3f} |")
print(f"| all | {len(every)} | **{statistics.median(every):.3f}** | **{pct(every, 0.9):.3f}** "
      f"| **{max(every):.3f}** |")
print()
print(f"p99 {pct(every, 0.99):.3f} s; the slowest: "
      + ", ".join(f"`{p}` {t:.2f} s" for t, p in sorted(slowest, reverse=True)[:5]))
EOF
