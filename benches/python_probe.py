"""Throughput of the Python package over bsq.db (medians of 5 runs).

    target/python-venv/bin/python benches/python_probe.py bsq.db pos1m.txt [N]

`pos1m.txt` is `cargo run --release --example random_positions -- 1000000 7`;
the batches of answers take its first N positions (200,000 by default).
On one thread: `RAYON_NUM_THREADS=1 taskset -c 0 ...` (the answers and the
objects then share one core).
"""

import gc
import json
import statistics
import sys
import time

import boardsolve


def median_seconds(f, runs=5):
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        f()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def loads_all(lines):
    # As probe_many runs: without the cycle collector.
    gc.disable()
    try:
        return [json.loads(line) for line in lines]
    finally:
        gc.enable()


def main():
    db = boardsolve.open(sys.argv[1])
    positions = open(sys.argv[2]).read().splitlines()
    few = positions[: int(sys.argv[3]) if len(sys.argv) > 3 else 200_000]
    count = f"{len(few):,}"
    for name, f, n in [
        (f"probe_many (dicts), {count} positions", lambda: db.probe_many(few), len(few)),
        (f"probe_lines (JSON text), {count} positions", lambda: db.probe_lines(few), len(few)),
        ("json.loads of probe_lines (the dicts CPython's decoder makes)",
         lambda: loads_all(db.probe_lines(few)), len(few)),
        ("values (two NumPy arrays), all positions", lambda: db.values(positions), len(positions)),
    ]:
        s = median_seconds(f)
        print(f"{name}: {s:.3f} s, {n / s:,.0f} a second")


if __name__ == "__main__":
    main()
