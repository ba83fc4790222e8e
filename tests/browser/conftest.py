"""Fixtures both browser suites use."""

import pytest

from explorer_page import BIN, run


@pytest.fixture(scope="session")
def c4_7x5_book(tmp_path_factory):
    """A Connect Four 7x5 book of the start and its seven children (depth
    1): the start is answered from it at once, while the line of perfect
    play, and the answer of any position past the start (whose moves lead
    out of the book), take seconds of search. Built once (its own search
    takes tens of seconds in a test build) for both suites."""
    db = tmp_path_factory.mktemp("c4-book") / "c4-7x5.db"
    run(BIN / "generator", "--game", "connect-four", "--variant", "7x5", "--depth", "1",
        "-q", "-o", db)
    return db
