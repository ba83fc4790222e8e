"""What both browser suites share: the paths of the tools, a headless
Chromium, and reading the explorer page (the one page source of `query
serve` and of `web/build-site`) and checking it against `query`.

The binaries come from BOARDSOLVE_BIN (default: target/debug of the
repository); the browser and its driver from BOARDSOLVE_CHROMIUM and
BOARDSOLVE_CHROMEDRIVER (default: Debian's paths).
"""

import json
import os
import pathlib
import re
import subprocess
import urllib.parse

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

ROOT = pathlib.Path(__file__).resolve().parents[2]
BIN = pathlib.Path(os.environ.get("BOARDSOLVE_BIN", ROOT / "target" / "debug"))
CHROMIUM = os.environ.get("BOARDSOLVE_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("BOARDSOLVE_CHROMEDRIVER", "/usr/bin/chromedriver")

# The longest wait for the page to answer, in seconds.
WAIT = 120


def run(*args, stdin=None, check=True):
    """Runs a command to its end; with `check`, fails the test unless it
    exits 0."""
    out = subprocess.run([str(a) for a in args], input=stdin, capture_output=True,
                         text=True, check=False)
    if check:
        assert out.returncode == 0, f"{' '.join(map(str, args))}: {out.stderr}"
    return out


def new_browser(before_scripts=None):
    """A headless Chromium; `before_scripts` runs in every page before its
    own scripts."""
    options = Options()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage",
                 "--disable-gpu", "--window-size=1200,1600"):
        options.add_argument(flag)
    driver = webdriver.Chrome(service=Service(executable_path=CHROMEDRIVER), options=options)
    if before_scripts:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument",
                               {"source": before_scripts})
    return driver


def page_url(base, game=None, variant=None, position=None):
    """The page at `base`, opened on a game and a position (the link format
    `#game=NAME&variant=SPEC&p=POSITION`)."""
    q = {}
    if game is not None:
        q = {"game": game, "variant": variant}
    if position is not None:
        q["p"] = position
    return f"{base}/#{urllib.parse.urlencode(q)}" if q else f"{base}/"


def open_page(driver, url):
    """Load the page afresh (not just a new fragment of the same page)."""
    driver.get("about:blank")
    driver.get(url)
    settle(driver)


def settle(driver, wait=WAIT):
    """Wait until the page has answered and is idle."""
    WebDriverWait(driver, wait, poll_frequency=0.02).until(lambda d: d.execute_script(
        "return !document.body.dataset.busy"
        " && document.getElementById('position').textContent !== ''"
        " || document.getElementById('error').textContent !== ''"))


def shown(driver):
    """Everything the page shows about its position."""
    return driver.execute_script("""
        const text = (id) => document.getElementById(id).textContent;
        const moves = (selector) => Array.from(document.querySelectorAll(selector))
            .map((e) => [e.dataset.move, e.dataset.value]);
        return {
            position: text('position'), to_move: text('to-move'), value: text('value'),
            outcome: text('outcome'), remoteness: text('remoteness'), line: text('line'),
            status: text('status'), error: text('error'),
            buttons: moves('#moves [data-move]'), shapes: moves('#board [data-move]'),
        };
    """)


def query_json(db, position):
    """What `query --json` prints for `position`, parsed."""
    return json.loads(run(BIN / "query", "--db", db, "--json", position).stdout)


def query_line(db, position):
    """The line of perfect play `query --pv` prints."""
    out = run(BIN / "query", "--db", db, "--pv", position).stdout
    found = re.search(r"^Perfect play: ?(.*)$", out, re.MULTILINE)
    assert found, out
    return found.group(1).strip()


def check_against_query(db, page):
    """The page's position shows exactly what query prints for it, the line
    of perfect play too."""
    assert page["error"] == ""
    expected = query_json(db, page["position"])
    assert page["to_move"] == expected["to_move"]
    assert page["value"] == str(expected["value"])
    assert page["outcome"] == expected["positionValue"]
    assert page["remoteness"] == str(expected["remoteness"])
    assert page["buttons"] == [[m["move"], str(m["value"])] for m in expected["moves"]]
    # The board's shapes carry the same moves and values as the buttons
    # (written signed, as in `query --svg`): every game draws a board.
    as_numbers = lambda moves: sorted((m, int(v)) for m, v in moves)  # noqa: E731
    assert as_numbers(page["shapes"]) == as_numbers(page["buttons"])
    line = query_line(db, page["position"])
    assert page["line"] == (line or "(the game is over)")
    assert page["status"] == ("" if expected["moves"] else "Game over.")
    return expected
