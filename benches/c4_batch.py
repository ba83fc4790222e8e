#!/usr/bin/env python3
"""benches/c4_batch.py [--query PATH ...] [--positions N] [--seed S]
[--min-ply P] [--max-ply P] [--runs R]: Connect Four positions just past the
shipped book, answered as one batch (`query --game connect-four --json -`,
in an empty folder: the shipped book and search), by each QUERY in turns.

The positions come from seeded random games, each stopped at a ply drawn
uniformly from --min-ply to --max-ply (default 9 to 12), a game won on the
way drawn again. For each run it prints the batch's wall time, when its
first answer came (and that as a share of the wall time), and the CPU time
(user + system) per position; then the medians of each QUERY.
"""
import argparse
import os
import random
import resource
import statistics
import subprocess
import tempfile
import time

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


def positions(n, seed, lo, hi):
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        target = rng.randint(lo, hi)
        board = [[None] * H for _ in range(W)]
        moves = ""
        for ply in range(target):
            col = rng.choice([c for c in range(W) if board[c][H - 1] is None])
            row = board[col].index(None)
            board[col][row] = ply % 2
            moves += str(col + 1)
            if won(board, col, row, ply % 2):
                break
        else:
            out.append(moves)
    return out


def run(query, data, n):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    with tempfile.TemporaryDirectory() as empty:
        started = time.monotonic()
        p = subprocess.Popen([query, "--game", "connect-four", "--json", "-"], cwd=empty,
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL)
        p.stdin.write(data)
        p.stdin.close()
        first, lines = None, 0
        for _ in p.stdout:
            first = first if first is not None else time.monotonic() - started
            lines += 1
        p.wait()
        wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    assert lines == n and p.returncode == 0, (query, lines, p.returncode)
    return wall, first, cpu / n


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--query", action="append")
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--min-ply", type=int, default=9)
    ap.add_argument("--max-ply", type=int, default=12)
    ap.add_argument("--runs", type=int, default=3)
    a = ap.parse_args()
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    queries = a.query or [os.path.join(root, "target", "release", "query")]
    pos = positions(a.positions, a.seed, a.min_ply, a.max_ply)
    data = ("\n".join(pos) + "\n").encode()
    print(f"{a.positions} positions, plies {a.min_ply} to {a.max_ply}, seed {a.seed}")
    results = {q: [] for q in queries}
    for r in range(a.runs):
        for q in queries:
            wall, first, cpu = run(q, data, len(pos))
            results[q].append((wall, first, cpu))
            print(f"run {r + 1} {q}: wall {wall:.2f} s, first answer {first:.2f} s "
                  f"({100 * first / wall:.1f}%), CPU {cpu:.3f} s a position")
    for q, rs in results.items():
        wall = statistics.median(x[0] for x in rs)
        first = statistics.median(x[1] for x in rs)
        cpu = statistics.median(x[2] for x in rs)
        print(f"median {q}: wall {wall:.2f} s, first answer {first:.2f} s "
              f"({100 * first / wall:.1f}%), CPU {cpu:.3f} s a position")


if __name__ == "__main__":
    main()
