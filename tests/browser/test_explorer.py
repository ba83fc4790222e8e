"""The web explorer of `query serve` in a real browser.

Headless Chromium, driven through WebDriver (selenium and Debian's
chromedriver), loads the page for each game, plays moves by clicking the
move buttons and the shapes of the board, and checks that everything the
page shows (value, outcome, remoteness, side to move, every move's value,
the line of perfect play) equals what `query` prints for the same position
and database. Connect Four is served from a two-ply book, so most of its
positions are answered by search. Against the computer (from links), the
chart of the value, undo and redo, hints off, and the layout at 375 px
wide are checked on British Square.

The binaries come from BOARDSOLVE_BIN (default: target/debug of the
repository); the browser and its driver from BOARDSOLVE_CHROMIUM and
BOARDSOLVE_CHROMEDRIVER (default: Debian's paths).
"""

import json
import random
import re
import subprocess
import urllib.request

import pytest
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

from explorer_page import (BIN, PLAYERS, WAIT, check_against_query, check_computer_chart_undo_and_hints,
                           check_entry_box_and_bad_link, check_last_move_marked, check_layout,
                           check_link_with_moves, new_browser, open_page, page_url, run, settle,
                           shown)

# (game, variant, book depth or None for a complete database)
GAMES = [
    ("british-square", "4x4", None),
    ("dots-and-boxes", "2x2", None),
    ("connect-four", "5x4", 2),
    ("dandelions", "3x3", None),
]

# Moves played per game by clicking (fewer when the game ends first).
MOVES = 8


@pytest.fixture(scope="session")
def dbs(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("dbs")
    paths = {}
    for game, variant, depth in GAMES:
        path = tmp / f"{game}-{variant}.db"
        args = [BIN / "generator", "--game", game, "--variant", variant, "-q", "-o", path]
        if depth is not None:
            args += ["--depth", depth]
        run(*args)
        paths[game] = path
    return paths


@pytest.fixture(scope="session")
def server(dbs):
    args = [BIN / "query", "serve", "--addr", "127.0.0.1:0", "--time-limit", "120"]
    for path in dbs.values():
        args += ["--db", path]
    proc = subprocess.Popen([str(a) for a in args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.fullmatch(r"listening on (http://\S+)\n", line)
    if match is None:
        proc.kill()
        pytest.fail(f"query serve did not start: {line!r} {proc.stderr.read()}")
    yield match.group(1)
    proc.terminate()
    proc.wait(timeout=30)


@pytest.fixture(scope="session")
def browser():
    driver = new_browser()
    yield driver
    driver.quit()


def click_move(driver, move, on_board):
    if on_board:
        # A click at the middle of the move's cell, edge label or column
        # label, wherever the topmost shape there belongs.
        shape = driver.find_element(By.CSS_SELECTOR, f'#board [data-move="{move}"] rect')
        ActionChains(driver).move_to_element(shape).click().perform()
    else:
        driver.find_element(By.CSS_SELECTOR, f'#moves [data-move="{move}"]').click()
    settle(driver)


@pytest.mark.parametrize("game,variant,depth", GAMES)
def test_play_by_clicking_agrees_with_query(dbs, server, browser, game, variant, depth):
    db = dbs[game]
    open_page(browser, page_url(server, game, variant))
    start = shown(browser)
    assert browser.find_element(By.ID, "db").get_attribute("value") is not None
    check_against_query(db, start)

    rng = random.Random(f"{game} {variant}")
    history = [start["position"]]
    searched = 0
    for ply in range(MOVES):
        page = shown(browser)
        if not page["buttons"]:
            break
        move, _ = rng.choice(page["buttons"])
        # Alternate between the buttons and the board's own shapes.
        click_move(browser, move, on_board=ply % 2 == 1)
        page = shown(browser)
        assert page["position"] != history[-1], f"clicking {move} changed nothing"
        check_against_query(db, page)
        history.append(page["position"])
        searched += depth is not None and ply + 1 > depth
    if depth is not None:
        assert searched > 0, "no position past the book was reached"

    # Undo walks back one move at a time; restart goes to the start.
    for previous in reversed(history[:-1][-2:]):
        browser.find_element(By.ID, "undo").click()
        settle(browser)
        page = shown(browser)
        assert page["position"] == previous
        check_against_query(db, page)
    browser.find_element(By.ID, "restart").click()
    settle(browser)
    assert shown(browser)["position"] == start["position"]

    # The link of a position opens that position in a fresh page.
    open_page(browser, page_url(server, game, variant, history[-1]))
    link = browser.find_element(By.ID, "link").get_attribute("href")
    open_page(browser, link)
    page = shown(browser)
    assert page["position"] == history[-1]
    check_against_query(db, page)

    # A link pasted into the open page's address bar is followed too.
    browser.get(page_url(server, game, variant, history[1]))
    WebDriverWait(browser, WAIT).until(lambda d: shown(d)["position"] == history[1])
    settle(browser)
    check_against_query(db, shown(browser))


def test_game_chooser_switches_databases(dbs, server, browser):
    open_page(browser, server + "/")
    options = browser.find_elements(By.CSS_SELECTOR, "#db option")
    assert sorted(o.text for o in options) == sorted(f"{g} {v}" for g, v, _ in GAMES)
    for option in options:
        option.click()
        settle(browser)
        game, variant = option.text.split()
        page = shown(browser)
        check_against_query(dbs[game], page)
        assert f"game={game}" in browser.current_url


def test_slow_answers_show_searching_and_then_clear(dbs, server, browser):
    # Every answer takes longer than the page waits before it says a search
    # runs; the page records each status it shows.
    browser.set_network_conditions(offline=False, latency=400, throughput=1 << 20)
    try:
        open_page(browser, page_url(server, "connect-four", "5x4", "12"))
        browser.execute_script("""
            window.statuses = [];
            new MutationObserver(() => window.statuses.push(
                document.getElementById('status').textContent))
              .observe(document.getElementById('status'), { childList: true, subtree: true, characterData: true });
        """)
        click_move(browser, "3", on_board=False)
        statuses = browser.execute_script("return window.statuses")
        assert "Searching…" in statuses
        page = shown(browser)
        assert page["status"] == ""
        check_against_query(dbs["connect-four"], page)
    finally:
        browser.delete_network_conditions()


@pytest.fixture(scope="module")
def slow_server(c4_7x5_book):
    """A Connect Four 7x5 book of one move (conftest.py), served with a time
    limit of 0.5 s: the start is answered from the book at once, while its
    line of perfect play, and the answer of any position past the first
    move, take seconds of search."""
    proc = subprocess.Popen([str(BIN / "query"), "--db", str(c4_7x5_book), "serve", "--addr",
                             "127.0.0.1:0", "--time-limit", "0.5"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.fullmatch(r"listening on (http://\S+)\n", line)
    if match is None:
        proc.kill()
        pytest.fail(f"query serve did not start: {line!r} {proc.stderr.read()}")
    yield match.group(1)
    proc.terminate()
    # SIGTERM stops it at once, or after the answers under way (5 s of
    # grace at most): 30 s is room for a busy machine.
    assert proc.wait(timeout=30) == 0


def test_timed_out_line_and_answer_say_so(slow_server, browser):
    open_page(browser, page_url(slow_server, "connect-four", "7x5"))
    page = shown(browser)
    # The start's answer comes from the book; its line timed out, and the
    # page says so (not "the game is over").
    assert page["error"] == ""
    assert page["value"] == "0" and len(page["buttons"]) == 7
    assert page["line"] == "(timed out: no answer within the time limit of 0.5 s)"
    # A move whose answer times out: the page says so, and shows nothing
    # of the position before as if it were the new one's.
    start = page["position"]
    click_move(browser, "4", on_board=False)
    page = shown(browser)
    assert page["error"] == "the search timed out: no answer within the time limit of 0.5 s"
    assert page["position"] not in ("", start)
    assert (page["value"], page["to_move"], page["line"], page["buttons"], page["shapes"]) == \
        ("", "", "", [], [])
    assert not browser.execute_script("return document.body.dataset.busy")


def test_the_page_says_who_plays_which_pieces(server, browser):
    # The page names no game: the description comes from /api/info.
    open_page(browser, page_url(server, "connect-four", "5x4"))
    about = browser.find_element(By.ID, "about").text
    assert "Connect Four" in about
    assert "X: red stones" in about and "O: yellow stones" in about
    open_page(browser, page_url(server, "british-square", "4x4"))
    assert "X: crosses" in browser.find_element(By.ID, "about").text


def test_bad_link_falls_back_to_the_start_and_a_typed_position_shows(dbs, server, browser):
    check_entry_box_and_bad_link(browser, server, dbs["british-square"], "british-square", "4x4",
                                 "b2 c3")


def test_a_link_with_moves_opens_their_line(dbs, server, browser):
    check_link_with_moves(browser, server, dbs["connect-four"], "connect-four", "5x4",
                          list("3324"), "")
    check_link_with_moves(browser, server, dbs["british-square"], "british-square", "4x4",
                          ["b2", "c3", "a1"], " ")


@pytest.mark.parametrize("game,variant,depth", GAMES)
def test_the_move_just_played_is_marked_on_the_board(dbs, server, browser, game, variant, depth):
    check_last_move_marked(browser, server, dbs[game], game, variant)


def test_computer_chart_undo_and_hints(dbs, server, browser):
    check_computer_chart_undo_and_hints(browser, server, dbs["british-square"],
                                        "british-square", "4x4")


def test_layout_at_1200_and_375_pixels(server, browser):
    # A few moves into British Square against the computer, the chart
    # drawn: the screenshots (target/screenshots/explorer-*.png) are for a
    # person to look at.
    check_layout(browser, page_url(server, "british-square", "4x4", ai="second"), plies=3,
                 shots="explorer")


def test_info_names_the_players_and_the_even_result(server):
    # What the page says from one side, and what check_against_query
    # expects (explorer_page.PLAYERS), come from /api/info.
    with urllib.request.urlopen(f"{server}/api/info") as r:
        for d in json.load(r)["databases"]:
            first, second, even = PLAYERS[d["game"]]
            assert [p["name"] for p in d["players"]] == [first, second], d
            assert d["even"] == even, d
