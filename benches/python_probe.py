"""Throughput of the Python package over bsq.db (medians of 5 runs).

    target/python-venv/bin/python benches/python_probe.py bsq.db pos1m.txt

`pos1m.txt` is `cargo run --release --example random_positions -- 1000000 7`.
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
    few = positions[:200_000]
    for name, f, n in [
        ("probe_many (dicts), 200,000 positions", lambda: db.probe_many(few), len(few)),
        ("probe_lines (JSON text), 200,000 positions", lambda: db.probe_lines(few), len(few)),
        ("json.loads of probe_lines (the dicts CPython's decoder makes)",
         lambda: loads_all(db.probe_lines(few)), len(few)),
        ("values (two NumPy arrays), all positions", lambda: db.values(positions), len(positions)),
    ]:
        s = median_seconds(f)
        print(f"{name}: {s:.3f} s, {n / s:,.0f} a second")


if __name__ == "__main__":
    main()
