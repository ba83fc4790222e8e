"""A flood of slow searches against `query serve`, with lookups meanwhile.

    python3 benches/serve_flood.py QUERY BSQ_DB C4_BOOK [CLIENTS] [SECONDS]

Serves BSQ_DB (British Square) and C4_BOOK (a Connect Four 7x6 book of at
most one move, so that a position of two stones is a search of minutes)
with --time-limit 1. CLIENTS clients (default 8) each ask two-stone
Connect Four positions again as soon as they are answered, for SECONDS
(default 10); meanwhile one client asks a British Square position every
20 ms (from the file POSITIONS names, URL-encoded, one a line; default
pos100k.url), and the server's threads and resident memory are sampled
every 250 ms. Then: the CPU the server uses in each of the 3 seconds after
the clients stop, and how long it takes to exit on Ctrl-C with a
half-sent request open. Prints the figures as JSON. Linux (/proc) only;
the standard library only.
"""
import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import threading
import time

query, bsq, c4 = sys.argv[1:4]
clients = int(sys.argv[4]) if len(sys.argv) > 4 else 8
seconds = float(sys.argv[5]) if len(sys.argv) > 5 else 10
proc = subprocess.Popen([query, "--db", bsq, "--db", c4, "serve", "--addr", "127.0.0.1:0",
                         "--time-limit", "1"],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
host, port = proc.stdout.readline().strip().removeprefix("listening on http://").split(":")
port = int(port)
with open(os.environ.get("POSITIONS", "pos100k.url")) as f:
    positions = [line.rstrip("\n") for _, line in zip(range(5000), f)]
tick = os.sysconf("SC_CLK_TCK")


def get(target):
    c = http.client.HTTPConnection(host, port, timeout=60)
    try:
        c.request("GET", target)
        r = c.getresponse()
        r.read()
        return r.status
    except OSError as e:
        return type(e).__name__
    finally:
        c.close()


def threads_and_memory():
    with open(f"/proc/{proc.pid}/status") as f:
        fields = dict(line.split(":", 1) for line in f)
    return int(fields["Threads"]), int(fields["VmRSS"].split()[0]) * 1024


def cpu():
    with open(f"/proc/{proc.pid}/stat") as f:
        after = f.read().rsplit(")", 1)[1].split()
    return (int(after[11]) + int(after[12])) / tick


stop = time.monotonic() + seconds
statuses, answer_times = {}, []
lock = threading.Lock()


def flood(i):
    n = 0
    while time.monotonic() < stop:
        p = f"{1 + (i + n) % 7}{1 + (3 * i + n) % 7}"
        t = time.monotonic()
        s = get(f"/api/position?game=connect-four&p={p}")
        with lock:
            statuses[s] = statuses.get(s, 0) + 1
            answer_times.append(time.monotonic() - t)
        n += 1


threads = [threading.Thread(target=flood, args=(i,)) for i in range(clients)]
for t in threads:
    t.start()
lookups, samples = [], []
time.sleep(0.3)
next_sample = 0
while time.monotonic() < stop:
    t = time.monotonic()
    s = get(f"/api/position?game=british-square&p={random.choice(positions)}")
    lookups.append((time.monotonic() - t, s))
    if t >= next_sample:
        samples.append(threads_and_memory())
        next_sample = t + 0.25
    time.sleep(0.02)
for t in threads:
    t.join()
ended = time.monotonic()
after = []
c0 = cpu()
for k in range(3):
    time.sleep(max(0, ended + k + 1 - time.monotonic()))
    c1 = cpu()
    after.append(round(c1 - c0, 2))
    c0 = c1
threads_now, rss_now = threads_and_memory()

# Ctrl-C with a half-sent request open.
half = socket.create_connection((host, port))
half.sendall(b"GET /api/info HTTP/1.1\r\nHo")
time.sleep(0.3)
t = time.monotonic()
proc.send_signal(signal.SIGINT)
try:
    code = proc.wait(timeout=15)
    stopped = {"exit_status": code, "after_s": round(time.monotonic() - t, 3)}
except subprocess.TimeoutExpired:
    stopped = "still running 15 s after Ctrl-C"
    proc.kill()
    proc.wait()

lat = sorted(x for x, _ in lookups)


def ms(q):
    return round(1000 * lat[min(len(lat) - 1, int(q * len(lat)))], 2)


print(json.dumps({
    "query": query, "clients": clients, "seconds": seconds,
    "lookups": len(lat),
    "lookup_ms": {"median": ms(0.5), "p99": ms(0.99), "max": round(1000 * lat[-1], 2)},
    "lookups_failed": sum(1 for _, s in lookups if s != 200),
    "search_answers": statuses,
    "search_answer_slowest_s": round(max(answer_times), 2),
    "threads_most": max(t for t, _ in samples),
    "resident_most_mib": max(m for _, m in samples) >> 20,
    "threads_after": threads_now, "resident_after_mib": rss_now >> 20,
    "cpu_s_in_each_second_after": after,
    "ctrl_c_with_a_half_sent_request": stopped,
}, indent=1))
