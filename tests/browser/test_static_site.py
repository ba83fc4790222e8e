"""The static explorer of `web/build-site` in a real browser.

`web/build-site` builds a folder of plain files (the explorer page, the
probe in WebAssembly run in a Web Worker, and the databases), served here
by nginx, which answers HTTP range requests, and by Python's
`http.server`, which does not (the page then downloads each database
whole). Headless Chromium loads the page, plays moves by clicking, and
every value shown is checked against what `query` prints for the same
position and file. Through a proxy that delays every request by 100 ms, the
page shows an answer before its line of perfect play, and reads a small
part of the file for each position; the times and bytes are written to
target/static-site-figures.json, which benches/headline.sh reads for its
time to the first answer (a benchmark, not a test: a busy machine takes
longer). A second site with a 1 s time cap shows
a search past an opening book timing out.

The binaries come from BOARDSOLVE_BIN (default: target/debug of the
repository); the browser and its driver from BOARDSOLVE_CHROMIUM and
BOARDSOLVE_CHROMEDRIVER, nginx from BOARDSOLVE_NGINX (default: nginx on
the PATH, or /usr/sbin/nginx). tests/run installs them.
"""

import http.client
import http.server
import json
import os
import pathlib
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select, WebDriverWait

from explorer_page import (BIN, ROOT, WAIT, check_against_query, check_computer_chart_undo_and_hints,
                           check_entry_box_and_bad_link, check_last_move_marked, check_layout,
                           check_link_with_moves, new_browser, open_page, page_url, query_json, run,
                           settle, shown)

NGINX = os.environ.get("BOARDSOLVE_NGINX") or shutil.which("nginx") or "/usr/sbin/nginx"
FIGURES = ROOT / "target" / "static-site-figures.json"

# The databases of the main site: (file, game, variant, book depth or None,
# packed). The first is the one the page opens on.
DATABASES = [
    ("bsq.db", "british-square", "5x5", None, True),
    ("dab-2x3.db", "dots-and-boxes", "2x3", None, False),
    ("c4-5x4.db", "connect-four", "5x4", 2, False),
    ("dandelions-3x3.db", "dandelions", "3x3", None, True),
]

# The Connect Four 7x6 book that comes with the tools, which web/build-site
# adds after the files given.
SHIPPED_C4 = ROOT / "src" / "games" / "connect_four" / "shipped" / "c4.db"

MOVES = 5
# The proxy's delay before each request.
DELAY = 0.1
# The most of the British Square file one position may read, its line of
# perfect play with it: a few blocks a move, never the file.
READ_AT_MOST = 0.05

# Run in every page before its scripts: records what #status and #error
# say and when #value is first filled.
RECORDER = """
window.__statuses = [];
window.__errors = [];
document.addEventListener("DOMContentLoaded", () => {
  const watch = (id, seen) => {
    const el = document.getElementById(id);
    if (el) new MutationObserver(() => seen(el.textContent))
      .observe(el, { childList: true, characterData: true, subtree: true });
  };
  watch("status", (t) => window.__statuses.push(t));
  watch("error", (t) => window.__errors.push(t));
  watch("value", (t) => {
    if (t !== "" && window.__firstAnswer === undefined) {
      window.__firstAnswer = performance.now();
      const line = document.getElementById("line");
      window.__lineAtFirstAnswer = line ? line.textContent : null;
    }
  });
});
"""


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for_port(port, proc, what, log=None):
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            break
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    proc.kill()
    details = pathlib.Path(log).read_text() if log and pathlib.Path(log).exists() else ""
    pytest.fail(f"{what} did not start: {details}")


@pytest.fixture(scope="session")
def dbs(tmp_path_factory):
    """The main site's databases, by file name."""
    tmp = tmp_path_factory.mktemp("static-dbs")
    paths = {}
    for name, game, variant, depth, packed in DATABASES:
        plain = tmp / ("plain-" + name if packed else name)
        args = [BIN / "generator", "--game", game, "--variant", variant, "-q", "-o", plain]
        if depth is not None:
            args += ["--depth", depth]
        run(*args)
        if packed:
            run(BIN / "query", "pack", "-q", plain, "-o", tmp / name)
            plain.unlink()
        paths[name] = tmp / name
    return paths


@pytest.fixture(scope="session")
def sites(tmp_path_factory):
    """The folder nginx serves: each site in a folder of its own."""
    return tmp_path_factory.mktemp("sites")


def build_site(out, dbs, *extra):
    args = [ROOT / "web" / "build-site", out]
    for db in dbs:
        args += ["--db", db]
    started = time.monotonic()
    result = run(*args, *extra)
    print(f"\nweb/build-site {out.name}: {time.monotonic() - started:.1f} s")
    assert "Built the static explorer in" in result.stdout
    return out


@pytest.fixture(scope="session")
def site(sites, dbs):
    return build_site(sites / "main", [dbs[name] for name, *_ in DATABASES])


@pytest.fixture(scope="session")
def nginx(sites, tmp_path_factory):
    """nginx serving the sites: (base URL, access log)."""
    tmp = tmp_path_factory.mktemp("nginx")
    port = free_port()
    log = tmp / "access.log"
    user = "user root;" if os.geteuid() == 0 else ""
    temps = " ".join(f"{k}_temp_path {tmp / k};" for k in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
    (tmp / "nginx.conf").write_text(f"""
daemon off;
{user}
worker_processes 1;
pid {tmp / "nginx.pid"};
error_log {tmp / "error.log"};
events {{ worker_connections 256; }}
http {{
    types {{ application/wasm wasm; text/javascript js; application/json json; text/html html; }}
    default_type application/octet-stream;
    log_format ranges '$status $body_bytes_sent "$request" "$http_range"';
    access_log {log} ranges;
    {temps}
    server {{ listen 127.0.0.1:{port}; root {sites}; }}
}}
""")
    proc = subprocess.Popen([NGINX, "-e", tmp / "error.log", "-c", tmp / "nginx.conf", "-p", tmp],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wait_for_port(port, proc, "nginx", tmp / "error.log")
    yield f"http://127.0.0.1:{port}", log
    proc.terminate()
    proc.wait(timeout=30)


def access_log(log, since=0):
    """(status, bytes, path, range) of each request logged after byte `since`."""
    with open(log, "rb") as f:
        f.seek(since)
        text = f.read().decode()
    found = []
    for line in text.splitlines():
        m = re.fullmatch(r'(\d+) (\d+) "(\S+) (\S+) [^"]*" "([^"]*)"', line)
        assert m, line
        found.append((int(m.group(1)), int(m.group(2)), urllib.parse.urlsplit(m.group(4)).path, m.group(5)))
    return found


@pytest.fixture(scope="session")
def browser():
    driver = new_browser(RECORDER)
    yield driver
    driver.quit()


def backend(driver, method, *args):
    """Calls window.explorerBackend.METHOD(*args) in the page: (ok, result)."""
    return driver.execute_async_script("""
        const [method, args, done] = [arguments[0], arguments[1], arguments[arguments.length - 1]];
        window.explorerBackend[method](...args).then((r) => done([true, r]), (e) => done([false, e.message]));
    """, method, list(args))


def pick(driver, index):
    Select(driver.find_element(By.ID, "db")).select_by_index(index)
    settle(driver)


def play_by_clicking(driver, db, moves, choose=lambda buttons, ply: buttons[ply % len(buttons)][0]):
    """Plays up to `moves` moves by clicking, checking every position; the
    positions reached."""
    history = [shown(driver)["position"]]
    for ply in range(moves):
        page = shown(driver)
        if not page["buttons"]:
            break
        move = choose(page["buttons"], ply)
        driver.find_element(By.CSS_SELECTOR, f'#moves [data-move="{move}"]').click()
        settle(driver)
        page = shown(driver)
        assert page["position"] != history[-1], f"clicking {move} changed nothing"
        check_against_query(db, page)
        history.append(page["position"])
    return history


# a. nginx: range requests.

def test_every_game_through_nginx_agrees_with_query(dbs, site, nginx, browser):
    base, log = nginx
    url = f"{base}/{site.name}"
    since = os.path.getsize(log)
    open_page(browser, url + "/")
    start = shown(browser)
    check_against_query(dbs["bsq.db"], start)

    # Answering the start of the packed British Square file read a small
    # part of it, by range requests only.
    requests = access_log(log, since)
    bsq = [(status, n) for status, n, path, _ in requests if path.endswith("/bsq.db")]
    assert bsq and all(status == 206 for status, _ in bsq), bsq
    size = dbs["bsq.db"].stat().st_size
    read = sum(n for _, n in bsq)
    print(f"\nnginx: the start of bsq.db (packed, {size} bytes) read {read} bytes"
          f" ({100 * read / size:.1f}%) in {len(bsq)} range requests, the line of perfect play included")
    assert read < size / 10

    # The databases given, then the book that comes with the tools.
    options = [o.text for o in browser.find_elements(By.CSS_SELECTOR, "#db option")]
    assert options == [f"{game} {variant}" for _, game, variant, *_ in DATABASES] + ["connect-four 7x6"]
    for index, (name, game, variant, depth, _) in enumerate(DATABASES):
        pick(browser, index)
        assert f"game={game}" in browser.current_url
        check_against_query(dbs[name], shown(browser))
        history = play_by_clicking(browser, dbs[name], MOVES)
        assert len(history) > 3, history
        if depth is not None:
            assert len(history) > depth + 1, "no position past the book was reached"

        # The link of a later position opens that position in a fresh page.
        link = page_url(url, game, variant, history[-2])
        open_page(browser, link)
        page = shown(browser)
        assert page["position"] == history[-2]
        href = urllib.parse.urlsplit(browser.find_element(By.ID, "link").get_attribute("href"))
        assert urllib.parse.parse_qs(href.fragment) == {"game": [game], "variant": [variant],
                                                       "p": [history[-2]]}
        check_against_query(dbs[name], page)
        open_page(browser, url + "/")

    # The shipped Connect Four book answers its early positions (their
    # values, every move's and the line of perfect play, which goes on
    # past the book by search) as query does from it.
    pick(browser, len(DATABASES))
    assert "game=connect-four" in browser.current_url
    check_against_query(SHIPPED_C4, shown(browser))
    for move in ("4",):
        browser.find_element(By.CSS_SELECTOR, f'#moves [data-move="{move}"]').click()
        settle(browser)
        check_against_query(SHIPPED_C4, shown(browser))
    open_page(browser, url + "/")

    # Every database was read by ranges, never whole (304: the browser
    # checked a range it had kept).
    for status, _, path, asked in access_log(log, since):
        if path.endswith(".db"):
            assert status in (206, 304) and asked.startswith("bytes="), (status, path, asked)


def test_backend_answers_as_query_serve_does(dbs, site, nginx, browser):
    """explorerBackend gives what the API of `query serve` gives for the same
    files (the site's, the shipped book among them): the info, the answer of
    `query --json`, the line, the picture (and the picture after a move,
    that move marked), the position after a move, and the messages of
    errors."""
    base, _ = nginx
    open_page(browser, f"{base}/{site.name}/")
    serve = subprocess.Popen([str(BIN / "query"), "serve", "--addr", "127.0.0.1:0"]
                             + [f"--db={dbs[name]}" for name, *_ in DATABASES]
                             + [f"--db={SHIPPED_C4}"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = serve.stdout.readline()
        match = re.fullmatch(r"listening on (http://\S+)\n", line)
        assert match, (line, serve.stderr.read())

        def api(path, params, as_text=False):
            """What serve answers: (ok, body), or the message of an error."""
            url = f"{match.group(1)}/api/{path}?{urllib.parse.urlencode(params)}"
            try:
                with urllib.request.urlopen(url) as r:
                    body = r.read().decode()
                    return [True, body if as_text else json.loads(body)]
            except urllib.error.HTTPError as e:
                return [False, json.loads(e.read())["error"]]

        assert backend(browser, "info") == api("info", {})
        for name, game, variant, depth, _ in DATABASES:
            # The start, a position after a move and, for the book, one
            # past it.
            first = query_json(dbs[name], "start")["moves"][0]["move"]
            ok, after = api("play", {"game": game, "variant": variant, "p": "start", "m": first})
            assert ok
            for p in ["start", after["position"]] + (["3 3 2 4"] if depth is not None else []):
                q = {"game": game, "variant": variant, "p": p}
                for path in ("position", "line"):
                    assert backend(browser, "api", path, q) == api(path, q), (path, q)
                assert backend(browser, "api", "svg", q, "text") == api("svg", q, as_text=True)
                m = query_json(dbs[name], p)["moves"][-1]["move"]
                q["m"] = m
                assert backend(browser, "api", "play", q) == api("play", q)
                marked = backend(browser, "api", "svg", q, "text")
                assert marked == api("svg", q, as_text=True), q
                assert marked[1].count('data-mark="last"') == 1, q
        for path, q in (("position", {"game": "british-square", "variant": "5x5", "p": "zz"}),
                        ("play", {"game": "british-square", "variant": "5x5", "p": "start", "m": "99"}),
                        ("svg", {"game": "british-square", "variant": "5x5", "p": "start", "m": "99"}),
                        ("svg", {"game": "british-square", "variant": "5x5", "p": "a1", "m": "a1"})):
            ok, message = backend(browser, "api", path, q)
            assert not ok and [ok, message] == api(path, q), (path, q)
    finally:
        serve.terminate()
        serve.wait(timeout=30)
    ok, message = backend(browser, "api", "position", {"game": "chess", "variant": "8x8", "p": "start"})
    assert not ok and "not served" in message


def test_computer_chart_undo_hints_and_layout(dbs, site, nginx, browser):
    """The page of the static site plays against the perfect player, draws
    the chart, undoes and redoes, hides hints, and fits 375 px, as the page
    of `query serve` does (the worker answering)."""
    base, log = nginx
    url = f"{base}/{site.name}"
    since = os.path.getsize(log)
    check_computer_chart_undo_and_hints(browser, url, dbs["bsq.db"], "british-square", "5x5")
    check_layout(browser, page_url(url, "british-square", "5x5", ai="second"), plies=2,
                 shots="static-site")
    # The favicon is in the page: nothing else is asked for.
    paths = {path for _, _, path, _ in access_log(log, since)}
    assert not any("favicon" in path for path in paths), paths


def test_bad_link_falls_back_to_the_start_and_a_typed_position_shows(dbs, site, nginx, browser):
    base, _ = nginx
    check_entry_box_and_bad_link(browser, f"{base}/{site.name}", dbs["bsq.db"], "british-square",
                                 "5x5", "b2 c3")


def test_a_link_with_moves_opens_their_line(dbs, site, nginx, browser):
    base, _ = nginx
    url = f"{base}/{site.name}"
    check_link_with_moves(browser, url, dbs["c4-5x4.db"], "connect-four", "5x4", list("3324"), "")
    check_link_with_moves(browser, url, dbs["bsq.db"], "british-square", "5x5", ["b2", "c3", "a1"], " ")


def test_the_move_just_played_is_marked_on_the_board(dbs, site, nginx, browser):
    base, _ = nginx
    url = f"{base}/{site.name}"
    for name, game, variant, *_ in DATABASES:
        check_last_move_marked(browser, url, dbs[name], game, variant)


# d. A search past an opening book, in the browser.

def test_connect_four_past_the_book_is_searched(dbs, site, nginx, browser):
    base, _ = nginx
    db = dbs["c4-5x4.db"]
    # Four stones past a two-ply book: this position and each after a move
    # are searched in the page's worker.
    p = "3 3 2 4"
    open_page(browser, page_url(f"{base}/{site.name}", "connect-four", "5x4", p))
    page = shown(browser)
    # The moves from the start: the page shows their board.
    assert page["position"] == query_json(db, p)["position"]
    check_against_query(db, page)
    history = play_by_clicking(browser, db, 3, choose=lambda buttons, ply: buttons[-1][0])
    assert len(history) == 4


# b. Python's http.server: no ranges, each file downloaded whole.

def test_server_without_ranges_downloads_whole_files(dbs, site, browser, tmp_path):
    port = free_port()
    log = tmp_path / "http.server.log"
    with open(log, "w") as err:
        server = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1",
                                   "--directory", site, str(port)],
                                  stdout=subprocess.DEVNULL, stderr=err)
    try:
        wait_for_port(port, server, "python3 -m http.server", log)
        # Slow enough to show the download's progress.
        browser.set_network_conditions(offline=False, latency=5, throughput=8 << 20)
        try:
            open_page(browser, f"http://127.0.0.1:{port}/")
        finally:
            browser.delete_network_conditions()
        check_against_query(dbs["bsq.db"], shown(browser))
        statuses = browser.execute_script("return window.__statuses")
        assert any(re.fullmatch(r"Loading bsq\.db: \d+%.*", s) for s in statuses), statuses
        history = play_by_clicking(browser, dbs["bsq.db"], 1)
        assert len(history) == 2
    finally:
        server.terminate()
        server.wait(timeout=30)
    requests = log.read_text()
    assert re.search(r'"GET /bsq\.db HTTP/1\.1" 200', requests), requests


# c. Through a proxy that delays every request: the answer shows before its
# line, and each position reads little.

class DelayingProxy:
    """A threaded HTTP proxy in front of `upstream` (host, port) that waits
    `delay` seconds before forwarding each request, passes Range and
    Content-Range through, and records (path, status, bytes) of each."""

    def __init__(self, upstream, delay):
        self.upstream = upstream
        self.delay = delay
        self.log = []
        self.lock = threading.Lock()
        self.started = time.monotonic()
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                proxy.forward(self, head=False)

            def do_HEAD(self):
                proxy.forward(self, head=True)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def forward(self, handler, head):
        started = time.monotonic()
        time.sleep(self.delay)
        headers = {k: handler.headers[k] for k in ("Range", "If-Range", "If-None-Match", "If-Modified-Since")
                   if handler.headers[k] is not None}
        conn = http.client.HTTPConnection(*self.upstream, timeout=60)
        try:
            conn.request(handler.command, handler.path, headers=headers)
            response = conn.getresponse()
            body = response.read()
        finally:
            conn.close()
        handler.send_response(response.status)
        for k in ("Content-Type", "Content-Range", "Accept-Ranges", "Last-Modified", "ETag"):
            if response.getheader(k) is not None:
                handler.send_header(k, response.getheader(k))
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        if not head:
            handler.wfile.write(body)
        with self.lock:
            self.log.append((urllib.parse.urlsplit(handler.path).path, response.status, len(body),
                             round(started - self.started, 3), round(time.monotonic() - self.started, 3)))

    def read(self, suffix=".db"):
        """(requests, bytes) so far of the paths ending in `suffix`."""
        with self.lock:
            hits = [n for path, _, n, *_ in self.log if path.endswith(suffix)]
        return len(hits), sum(hits)

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def test_through_a_slow_proxy(dbs, site, nginx):
    base, _ = nginx
    upstream = urllib.parse.urlsplit(base)
    proxy = DelayingProxy((upstream.hostname, upstream.port), DELAY)
    # A fresh browser: its own profile, nothing cached.
    driver = new_browser(RECORDER)
    try:
        proxy.started = time.monotonic()
        driver.get(f"{proxy.url}/{site.name}/")
        WebDriverWait(driver, WAIT, poll_frequency=0.02).until(
            lambda d: d.execute_script("return window.__firstAnswer !== undefined"
                                       " || document.getElementById('error').textContent !== ''"))
        first = driver.execute_script("return window.__firstAnswer") / 1000
        line_at_first_answer = driver.execute_script("return window.__lineAtFirstAnswer")
        answered = proxy.read("/bsq.db")
        everything = proxy.read("")
        databases = proxy.read(".db")
        timeline = list(proxy.log)
        settle(driver)
        page = shown(driver)
        check_against_query(dbs["bsq.db"], page)
        settled = proxy.read("/bsq.db")
        figures = {
            "delay_per_request_s": DELAY,
            "database": "british-square 5x5, packed",
            "file_bytes": dbs["bsq.db"].stat().st_size,
            "first_answer_s": round(first, 3),
            "first_answer_requests_all_files": everything[0],
            "first_answer_bytes_all_files": everything[1],
            "first_answer_requests": [f"{t0:.3f}-{t1:.3f} s {status} {n} bytes {path}"
                                      for path, status, n, t0, t1 in timeline],
            "positions": [{
                "position": page["position"],
                "answer": {"requests": answered[0], "bytes": answered[1]},
                "with_line": {"requests": settled[0], "bytes": settled[1]},
                "note": "bsq.db: its header, its index, the blocks; the other databases' headers: "
                        f"{databases[0] - answered[0]} requests, {databases[1] - answered[1]} bytes",
            }],
        }
        for ply in range(4):
            move = page["buttons"][ply % len(page["buttons"])][0]
            before = proxy.read("/bsq.db")
            clicked = time.monotonic()
            driver.find_element(By.CSS_SELECTOR, f'#moves [data-move="{move}"]').click()
            WebDriverWait(driver, WAIT, poll_frequency=0.02).until(
                lambda d: shown(d)["position"] != page["position"])
            answer_s = time.monotonic() - clicked
            answered = proxy.read("/bsq.db")
            settle(driver)
            settled_s = time.monotonic() - clicked
            page = shown(driver)
            check_against_query(dbs["bsq.db"], page)
            after = proxy.read("/bsq.db")
            figures["positions"].append({
                "position": page["position"],
                "answer_s": round(answer_s, 3),
                "with_line_s": round(settled_s, 3),
                "answer": {"requests": answered[0] - before[0], "bytes": answered[1] - before[1]},
                "with_line": {"requests": after[0] - before[0], "bytes": after[1] - before[1]},
            })
        # A move clicked while the line of perfect play is still being read
        # is played, and the page then shows the new position alone.
        pending = []
        for _ in range(2):
            move = page["buttons"][-1][0]
            pending.append(shown(driver)["line"] == "…")
            driver.find_element(By.CSS_SELECTOR, f'#moves [data-move="{move}"]').click()
            WebDriverWait(driver, WAIT, poll_frequency=0.02).until(
                lambda d: shown(d)["position"] != page["position"])
            page = shown(driver)
        settle(driver)
        check_against_query(dbs["bsq.db"], shown(driver))
        # (The second move is clicked as soon as the first one's answer shows.)
        figures["move_clicked_while_the_line_was_read"] = pending[1]
    finally:
        driver.quit()
        proxy.close()
    print("\nthrough a proxy adding 100 ms to each request:")
    print(json.dumps(figures, indent=1))
    FIGURES.parent.mkdir(exist_ok=True)
    FIGURES.write_text(json.dumps(figures, indent=1) + "\n")
    # The order of events: the answer shows first, and its line of perfect
    # play (which reads one round of blocks a move) fills in after it.
    assert line_at_first_answer in ("", "…"), line_at_first_answer
    # What each position read once everything settled: a few blocks, never
    # the file. (How long it took is benches/headline.sh's to judge.)
    size = figures["file_bytes"]
    for position in figures["positions"]:
        read = position["with_line"]
        assert read["bytes"] <= READ_AT_MOST * size, (position, size)
        assert read["requests"] <= 60, position
    assert all(n < size for path, _, n, *_ in timeline if path.endswith("/bsq.db")), timeline


# d. The time cap.

@pytest.fixture(scope="session")
def capped_site(sites, dbs, c4_7x5_book):
    """A site with a 1 s cap whose first database is a Connect Four 7x5 book
    of one move (conftest.py): the answer of a position past the start is a
    search of seconds."""
    return build_site(sites / "capped", [c4_7x5_book, dbs["dab-2x3.db"]], "--time-limit", "1")


def test_search_past_the_cap_times_out(dbs, capped_site, nginx, browser):
    base, _ = nginx
    started = time.monotonic()
    # A position one move in: in the book, but its moves lead out of it.
    open_page(browser, page_url(f"{base}/{capped_site.name}", "connect-four", "7x5", "4"))
    took = time.monotonic() - started
    error = browser.find_element(By.ID, "error").text
    assert error == "the search timed out: no answer within 1 s"
    # A deadline of behaviour with ample room: the 1 s cap fired, not a
    # search of seconds run to its end.
    assert took < 30, f"the timed-out answer took {took:.1f} s"
    statuses = browser.execute_script("return window.__statuses")
    assert "Searching…" in statuses, statuses
    assert browser.find_element(By.ID, "status").text == ""
    assert not browser.execute_script("return document.body.dataset.busy")
    # A fresh worker answers the next question.
    pick(browser, 1)
    page = shown(browser)
    check_against_query(dbs["dab-2x3.db"], page)
    play_by_clicking(browser, dbs["dab-2x3.db"], 1)
