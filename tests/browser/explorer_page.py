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
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
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


def page_url(base, game=None, variant=None, position=None, **choices):
    """The page at `base`, opened on a game and a position (the link format
    `#game=NAME&variant=SPEC&p=POSITION`), with the choices of the link
    (`ai`, `level`, `hints`)."""
    q = {}
    if game is not None:
        q = {"game": game, "variant": variant}
    if position is not None:
        q["p"] = position
    q.update(choices)
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
            value_side: text('value-side') + text('value-scope'),
            outcome: text('outcome'), remoteness: text('remoteness'), line: text('line'),
            status: text('status'), error: text('error'),
            buttons: moves('#moves [data-move]'), shapes: moves('#board [data-move]'),
            texts: Array.from(document.querySelectorAll('#moves [data-move]'), (e) => e.textContent),
        };
    """)


# Each game's players, first player first, and its word for an even
# result, None for a game that always has a winner (the `players` and
# `even` of /api/info).
PLAYERS = {
    "british-square": ("X", "O", "tie"),
    "connect-four": ("X", "O", "draw"),
    "dots-and-boxes": ("A", "B", "tie"),
    "dandelions": ("dandelions", "wind", None),
    "k-in-a-row": ("X", "O", "draw"),
}

_games = {}


def game_of(db):
    """The game a database holds (`query info --json`)."""
    key = str(db)
    if key not in _games:
        _games[key] = json.loads(run(BIN / "query", "info", "--json", "--db", db).stdout)["game"]
    return _games[key]


def signed(v):
    """A value as the page writes it: +2, 0, -2."""
    return f"{v:+d}" if v else "0"


def header(db, expected):
    """What the page's header says of a position's value, from what
    `query --json` printed for it: (side named, value, outcome). The value
    is the side to move's, as `query` gives it (a Dots and Boxes value
    counts the boxes from here on, and says so); the outcome names the
    winner, with the score so far when the answer has it (the first
    player's final score, `final_for_first`, which the chart draws)."""
    first, second, even = PLAYERS[game_of(db)]
    mover = expected["to_move"]
    assert mover in (first, second), expected
    whole = "final_for_first" in expected
    chart = expected["final_for_first"] if whole else (
        expected["net"] if mover == first else -expected["net"])
    winner = {"win": mover, "lose": second if mover == first else first, "tie": None}[
        expected["positionValue"]]
    # The first player's value and the side to move's result agree.
    assert (chart > 0, chart < 0) == (winner == first, winner == second), expected
    if winner is None:
        outcome = f"a {even}" if whole else f"the rest is a {even}"
    else:
        outcome = f"{winner} wins" + ("" if whole else " the rest")
    from_here = game_of(db) == "dots-and-boxes"
    return mover + (" from here on" if from_here else ""), signed(expected["value"]), outcome


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
    # The value is the side to move's, that side named, as on the board
    # and the buttons.
    assert (page["value_side"], page["value"], page["outcome"]) == header(db, expected)
    assert page["remoteness"] == str(expected["remoteness"])
    assert page["buttons"] == [[m["move"], str(m["value"])] for m in expected["moves"]]
    # With hints, each button says its value and its distance to the end
    # (the plies from here, the move's own included).
    if any(":" in t for t in page["texts"]):
        even = PLAYERS[game_of(db)][2] or "draw"
        word = {"win": "win", "lose": "loss", "tie": even}
        assert page["texts"] == [
            f'{m["move"]}: {signed(m["value"])}, {word[m["moveValue"]]} in {m["remoteness"] + 1}'
            for m in expected["moves"]
        ], page["texts"]
    # The board's shapes carry the same moves and values as the buttons
    # (written signed, as in `query --svg`): every game draws a board.
    as_numbers = lambda moves: sorted((m, int(v)) for m, v in moves)  # noqa: E731
    assert as_numbers(page["shapes"]) == as_numbers(page["buttons"])
    line = query_line(db, page["position"])
    assert page["line"] == (line or "(the game is over)")
    assert page["status"] == ("" if expected["moves"] else "Game over.")
    return expected


SCREENSHOTS = ROOT / "target" / "screenshots"


def chart(driver):
    """The points of the chart of the value along the game: for each, the
    position, the move that led to it and the value."""
    return driver.execute_script("""
        return Array.from(document.querySelectorAll('svg[data-chart="value"] [data-point]'))
            .map((e) => ({point: Number(e.dataset.point), position: e.dataset.position,
                          played: e.dataset.played, value: e.dataset.value}));
    """)


def chart_overlaps(driver):
    """How many times a label of the chart meets one of its points."""
    return driver.execute_script("""
        const svg = document.querySelector('svg[data-chart="value"]');
        const labels = Array.from(svg.querySelectorAll(':scope > text'), (t) => t.getBBox());
        const dots = Array.from(svg.querySelectorAll('[data-point] circle:last-of-type'),
                                (c) => c.getBBox());
        const meet = (a, b) => a.x < b.x + b.width && b.x < a.x + a.width
            && a.y < b.y + b.height && b.y < a.y + a.height;
        return labels.flatMap((l) => dots.filter((d) => meet(l, d))).length;
    """)


def click(driver, selector):
    driver.find_element(By.CSS_SELECTOR, selector).click()
    settle(driver)


def press(driver, key):
    """A key pressed with nothing focused (as after a click on the board)."""
    driver.execute_script("document.activeElement && document.activeElement.blur()")
    ActionChains(driver).send_keys(key).perform()
    settle(driver)


def check_computer_chart_undo_and_hints(driver, base, db, game, variant):
    """Playing against the perfect player from links, the chart of the
    value, undo and redo by keys and buttons, and hints off."""
    # The computer plays the first side: at the start it moves at once, one
    # of the best moves, and then waits for the other side.
    open_page(driver, page_url(base, game, variant, ai="first"))
    points = chart(driver)
    assert len(points) == 2, points
    assert points[1]["played"] in query_json(db, "start")["best"], points
    page = shown(driver)
    assert page["position"] == points[1]["position"]
    check_against_query(db, page)
    assert len(chart(driver)) == 2

    # The computer plays the second side: a move clicked is answered with
    # one of the best moves of the position it led to.
    open_page(driver, page_url(base, game, variant, ai="second"))
    assert [p["point"] for p in chart(driver)] == [0]
    # The chart's labels stay clear of its points, the first one too.
    assert chart_overlaps(driver) == 0
    start = shown(driver)["position"]
    for ply in range(2):
        move = shown(driver)["buttons"][-1][0]
        click(driver, f'#moves [data-move="{move}"]')
        points = chart(driver)
        assert [p["point"] for p in points] == list(range(2 * ply + 3)), points
        assert points[-2]["played"] == move
        assert points[-1]["played"] in query_json(db, points[-2]["position"])["best"], points
        page = shown(driver)
        assert page["position"] == points[-1]["position"]
        check_against_query(db, page)
    # (The page shows the start's text; the chart keeps "start".)
    line = [start] + [p["position"] for p in points[1:]]
    assert ("ai=second" in driver.find_element(By.ID, "link").get_attribute("href"))

    # Undo and redo step over the computer's moves: by the arrow keys and
    # by the buttons.
    press(driver, Keys.ARROW_LEFT)
    assert shown(driver)["position"] == line[2]
    assert len(chart(driver)) == 3
    click(driver, "#undo")
    assert shown(driver)["position"] == line[0]
    press(driver, Keys.ARROW_RIGHT)
    assert shown(driver)["position"] == line[2]
    click(driver, "#redo")
    page = shown(driver)
    assert page["position"] == line[4]
    check_against_query(db, page)

    # A point of the chart goes back to its position; redo returns.
    driver.find_element(By.CSS_SELECTOR, 'svg[data-chart="value"] [data-point="1"]').click()
    settle(driver)
    assert shown(driver)["position"] == line[1]
    assert [p["position"] for p in chart(driver)][1:] == line[1:2]
    press(driver, Keys.ARROW_RIGHT)
    assert shown(driver)["position"] == line[2]
    assert [p["position"] for p in chart(driver)][1:] == line[1:3]
    assert chart_overlaps(driver) == 0

    # Hints off: the buttons say the moves alone, uncoloured, the board's
    # values and the line of perfect play are hidden; the moves still play.
    driver.find_element(By.ID, "hints").click()
    hidden = driver.execute_script("""
        const seen = (el) => getComputedStyle(el).opacity !== '0' && el.offsetParent !== null;
        return {
            texts: Array.from(document.querySelectorAll('#moves [data-move]'), (b) => b.textContent),
            backgrounds: new Set(Array.from(document.querySelectorAll('#moves [data-move]'),
                (b) => getComputedStyle(b).backgroundColor)).size,
            values: Array.from(document.querySelectorAll('#board [data-move] text'))
                .filter((t) => t.textContent === t.closest('[data-move]').dataset.value && seen(t)).length,
            line: document.getElementById('line').offsetParent !== null,
        };
    """)
    page = shown(driver)
    assert hidden == {"texts": [m for m, _ in page["buttons"]], "backgrounds": 1, "values": 0,
                      "line": False}, hidden
    assert "hints=off" in driver.find_element(By.ID, "link").get_attribute("href")
    move = page["buttons"][0][0]
    click(driver, f'#board [data-move="{move}"]')
    points = chart(driver)
    assert points[3]["played"] == move and len(points) == 5, points
    check_against_query(db, shown(driver))
    # The link keeps the hints off.
    open_page(driver, driver.find_element(By.ID, "link").get_attribute("href"))
    assert not driver.find_element(By.ID, "hints").is_selected()
    assert shown(driver)["buttons"][0][0] == driver.find_element(
        By.CSS_SELECTOR, "#moves [data-move]").text


def check_layout(driver, url, plies=0, shots=None):
    """At 1200 px and at 375 px wide, the page opened at `url` and `plies`
    moves played by clicking the last button (each answered by the computer
    when the link says so): no horizontal scroll, the board scales, no
    blank band between the header and the board; the favicon is inline (no
    request for /favicon.ico). Screenshots of the page go to
    target/screenshots/SHOTS-1200.png and SHOTS-375.png."""
    try:
        for width in (1200, 375):
            driver.set_window_size(width, 1200)
            open_page(driver, url)
            icon = driver.execute_script(
                "const l = document.querySelector('link[rel=icon]'); return l && l.href")
            assert icon and icon.startswith("data:image/svg+xml,"), icon
            for _ in range(plies):
                move = shown(driver)["buttons"][-1][0]
                click(driver, f'#moves [data-move="{move}"]')
            fit = driver.execute_script("""
                // The blocks from the header to the board, and the room
                // between each and the next.
                const blocks = Array.from(document.body.children).filter((e) =>
                    e.tagName !== 'SCRIPT' && e.offsetHeight > 0);
                const upTo = blocks.indexOf(document.querySelector('main'));
                const gaps = blocks.slice(1, upTo + 1).map((e, i) =>
                    e.getBoundingClientRect().top - blocks[i].getBoundingClientRect().bottom);
                const board = document.querySelector('#board svg').getBoundingClientRect();
                return {inner: innerWidth, scroll: document.documentElement.scrollWidth,
                        gap: Math.max(...gaps),
                        // The window's height for the page's: its own bars added.
                        height: Math.ceil(document.body.getBoundingClientRect().bottom) + 40
                            + outerHeight - innerHeight,
                        board: board.right <= innerWidth && board.width > 100};
            """)
            assert fit["inner"] == width, fit
            assert fit["scroll"] <= width, fit
            assert fit["board"], fit
            assert fit["gap"] < 24, fit
            if shots:
                # The whole page, no more.
                driver.set_window_size(width, fit["height"])
                SCREENSHOTS.mkdir(parents=True, exist_ok=True)
                driver.save_screenshot(str(SCREENSHOTS / f"{shots}-{width}.png"))
    finally:
        driver.set_window_size(1200, 1600)


def _idle_with(driver, test):
    """Wait until the page is idle and `test(shown(driver))` holds."""
    WebDriverWait(driver, WAIT, poll_frequency=0.02).until(lambda d: not d.execute_script(
        "return document.body.dataset.busy") and test(shown(d)))
    return shown(driver)


def check_entry_box_and_bad_link(driver, base, db, game, variant, typed):
    """A link to a position that does not read shows its error on a whole
    page, the start's; a position typed into `form#enter input` shows on
    Enter, as `query --json` answers it; one that does not read leaves its
    error on the position shown before."""
    start = query_json(db, "start")
    open_page(driver, page_url(base, game, variant, "not a position"))
    page = _idle_with(driver, lambda p: p["buttons"])
    assert "the link's position: malformed position" in page["error"], page
    assert page["position"] == start["position"], page
    assert [m for m, _ in page["buttons"]] == [m["move"] for m in start["moves"]], page
    assert page["to_move"] == start["to_move"] and page["value"] != "", page
    answer = query_json(db, typed)
    box = driver.find_element(By.CSS_SELECTOR, "form#enter input")
    box.clear()
    box.send_keys(typed + Keys.ENTER)
    page = _idle_with(driver, lambda p: p["position"] == answer["position"] and p["buttons"])
    assert page["error"] == "", page
    assert [m for m, _ in page["buttons"]] == [m["move"] for m in answer["moves"]], page
    assert page["remoteness"] == str(answer["remoteness"]), page
    assert f"p={urllib.parse.quote(typed)}" in driver.current_url.replace("+", "%20"), driver.current_url
    box = driver.find_element(By.CSS_SELECTOR, "form#enter input")
    box.clear()
    box.send_keys("zz zz" + Keys.ENTER)
    page = _idle_with(driver, lambda p: p["error"] != "")
    assert "not shown: malformed position" in page["error"], page
    assert page["position"] == answer["position"] and page["buttons"], page


def last_marks(driver):
    """How many marks of the move just played the board's picture has
    (`data-mark="last"`), and whether each is drawn."""
    return driver.execute_script("""
        return Array.from(document.querySelectorAll('#board svg [data-mark="last"]'),
            (g) => g.getBBox().width > 0 && getComputedStyle(g).display !== 'none'
                && getComputedStyle(g).visibility !== 'hidden');
    """)


def check_last_move_marked(driver, base, db, game, variant):
    """The board marks the move just played, once; nothing at the start or
    at a position opened from a link without the moves that led to it.
    Going back to the start unmarks it, redo marks it again, and the mark
    stays with hints off."""
    open_page(driver, page_url(base, game, variant))
    assert last_marks(driver) == [], game
    for ply in range(2):
        page = shown(driver)
        if not page["buttons"]:
            break
        move = page["buttons"][0][0]
        click(driver, f'#moves [data-move="{move}"]')
        page = shown(driver)
        assert page["error"] == "", page
        assert last_marks(driver) == [True], f"{game}: after {move}"
        # The picture is the position's own, its moves and values as the
        # buttons say.
        check_against_query(db, page)
    position = shown(driver)["position"]
    driver.find_element(By.ID, "hints").click()
    assert last_marks(driver) == [True], f"{game}: hints off"
    driver.find_element(By.ID, "hints").click()
    click(driver, 'svg[data-chart="value"] [data-point="0"]')
    assert last_marks(driver) == [], f"{game}: back at the start"
    click(driver, "#redo")
    assert last_marks(driver) == [True], f"{game}: redone"
    # The position as the page writes it (a board, not moves): a link to
    # it has no move before it.
    open_page(driver, page_url(base, game, variant, position))
    page = shown(driver)
    assert page["error"] == "" and page["position"] == position, page
    assert last_marks(driver) == [], f"{game}: {position} from a link"


def _link_position(driver):
    """The position of the page's "Link to this position"."""
    href = driver.find_element(By.ID, "link").get_attribute("href")
    return urllib.parse.parse_qs(urllib.parse.urlsplit(href).fragment)["p"][0]


def check_link_with_moves(driver, base, db, game, variant, moves, sep):
    """A link whose position is the moves from the start (`4453`) opens
    that line: the board after them, a chart point for each, undo back
    along them; the page's own link carries the moves played, a move
    clicked added."""
    text = sep.join(moves)
    open_page(driver, page_url(base, game, variant, text))
    answer = query_json(db, text)
    page = _idle_with(driver, lambda p: p["buttons"])
    assert page["error"] == "", page
    assert page["position"] == answer["position"], page
    assert [p["played"] for p in chart(driver)] == [""] + moves
    assert _link_position(driver) == text
    # The last of the link's moves is marked on the board.
    assert last_marks(driver) == [True]
    press(driver, Keys.ARROW_LEFT)
    before = sep.join(moves[:-1])
    page = _idle_with(driver, lambda p: p["position"] == query_json(db, before)["position"])
    assert _link_position(driver) == before
    move = page["buttons"][0][0]
    click(driver, f'#moves [data-move="{move}"]')
    settle(driver)
    assert _link_position(driver) == sep.join(moves[:-1] + [move])
    assert shown(driver)["position"] == query_json(db, sep.join(moves[:-1] + [move]))["position"]
