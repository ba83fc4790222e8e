"""Probe the databases of perfectly solved board games.

A database is the file ``generator`` writes, for any of its games
(``generator --list-games`` lists them; ``bsq.db`` is British Square's).
Open it and ask about any position, in the game's own notation::

    import boardsolve
    db = boardsolve.open("bsq.db")
    answer = db.probe("6 18")        # the dict of one line of `query --json`
    answer["value"], answer["remoteness"], answer["best"]

Every answer has the shape of a line of ``query --json``; errors are
exceptions (``PositionError`` for a bad position, ``MissingDatabase`` for a
missing file, ``CorruptDatabase`` for a damaged one, ``DatabaseError`` for
any file that cannot be read), never a crash.  Long calls release the
interpreter lock while they work, and Ctrl-C stops them with
``KeyboardInterrupt``.
"""

import gc as _gc
import json as _json
import os as _os

import numpy as _np

from . import _boardsolve
from ._boardsolve import (
    CorruptDatabase,
    DatabaseError,
    Error,
    MissingDatabase,
    NotInBook,
    PositionError,
    Unreachable,
)

__all__ = [
    "open",
    "for_game",
    "Database",
    "Error",
    "DatabaseError",
    "MissingDatabase",
    "CorruptDatabase",
    "PositionError",
    "Unreachable",
    "NotInBook",
]


class Database:
    """An open database: the file is validated and mapped, not read (a
    packed file's blocks are decoded as lookups need them).  Every call
    answers from the file as it was when opened: replacing the file at its
    path (as ``generator`` does) changes nothing for this object."""

    def __init__(self, path, search_bits=None, cache_mib=None):
        self._db = _boardsolve.Database(_path(path), search_bits, cache_mib)

    @property
    def game(self):
        """The game's name, as ``generator --list-games`` lists it
        (``british-square``, ``connect-four``, ...)."""
        return self._db.game

    @property
    def variant(self):
        """The variant, in canonical form (``5x5``, ``3x3``, ``7x6``...)."""
        return self._db.variant

    @property
    def complete(self):
        """True when the file holds every reachable position (else it is an
        opening book)."""
        return self._db.complete

    def __len__(self):
        return self._db.records

    def __repr__(self):
        return (f"<boardsolve.Database {self.game} {self.variant}, "
                f"{len(self)} records>")

    def probe(self, position):
        """One position's answer, as a dict of the same shape as a line of
        ``query --json``: ``value``, ``remoteness``, ``positionValue``,
        ``best`` and ``moves`` (each with ``move``, ``value``,
        ``remoteness``, ``deltaRemoteness``, ``best``, ``moveValue``)."""
        return self._db.probe(position)

    def probe_many(self, positions):
        """A list of answers, one per position, in order.  A position that
        cannot be answered gets ``{"input": ..., "error": ...}``, as in
        ``query --json -``, and the others are answered."""
        # Answers hold no reference cycles, and a batch makes millions of
        # objects: the cycle collector would walk them again and again.
        positions = _positions(positions)
        collecting = _gc.isenabled()
        _gc.disable()
        try:
            return self._db.probe_many(positions)
        finally:
            if collecting:
                _gc.enable()

    def probe_lines(self, positions):
        """The answers as JSON text, one string per position: exactly the
        lines ``query --json -`` prints (for writing JSON-lines files)."""
        return self._db.probe_json_many(_positions(positions))

    def values(self, positions):
        """``(values, remoteness)``: two NumPy ``int32`` arrays, one entry
        per position, without the moves.  Raises on the first position that
        cannot be answered."""
        values, remoteness = self._db.values(_positions(positions))
        return (_np.frombuffer(values, dtype=_np.dtype("=i4")),
                _np.frombuffer(remoteness, dtype=_np.dtype("=i4")))

    def play(self, position, move):
        """The position after ``move`` is played from ``position``, as text
        (with the side to move and the score so far where the game keeps
        them out of the board): the way to walk a game."""
        return self._db.play(position, move)

    def line(self, position):
        """The moves of perfect play from ``position`` to the end."""
        return self._db.line(position)

    def info(self):
        """What ``query --json info`` prints: the game, variant, record
        count, layout and the start position's value, of the file this
        object answers from."""
        return _json.loads(self._db.info())

    def verify(self):
        """Reads the whole file this object answers from and re-derives
        every value from its children (``query verify``).  Returns the
        report as a dict, the object ``query verify --json`` prints
        (``ok``, ``game``, ``variant``, ``records``, ``children_checked``,
        ``derived``, ``db``), or raises ``CorruptDatabase``."""
        return _json.loads(self._db.verify())


def _path(path):
    """The path as ``str``: a ``str`` or an ``os.PathLike``, nothing else."""
    if isinstance(path, _os.PathLike):
        path = _os.fspath(path)
        if isinstance(path, bytes):
            path = _os.fsdecode(path)
    if not isinstance(path, str):
        raise TypeError("a database path is a str or an os.PathLike, not "
                        + type(path).__name__)
    return path


def _positions(positions):
    """The positions as a list of their own (what another thread does to
    the caller's list meanwhile changes nothing); one ``str`` alone is
    refused (its characters would be taken for positions)."""
    if isinstance(positions, (str, bytes)):
        raise TypeError("positions are a list (or any iterable) of str, not "
                        "one " + type(positions).__name__)
    return list(positions)


def open(path, search_bits=None, cache_mib=None):
    """Opens the database at ``path`` (a ``str`` or an ``os.PathLike``),
    of any layout (sorted, dense or packed).  With ``search_bits`` (for
    example 22: a table of 2^22 entries, 32 MiB), positions past an
    opening book are answered by search; a
    size the machine cannot hold is an ``Error`` here, not later.
    ``cache_mib`` bounds the memory a packed file's decoded blocks take
    (default 64)."""
    return Database(path, search_bits, cache_mib)


def for_game(name, variant="", search_bits=None):
    """What ``query --game NAME --variant SPEC`` answers from when no file
    is given, for a game answered by search: the opening book that comes
    with the tools for the variant (Connect Four's 7x6 book), with the
    search past it, or search alone.  ``search_bits`` sizes the search's
    table (by default as ``query`` sizes it).  An unknown game or variant,
    or a game answered from its database only, is an ``Error``."""
    db = Database.__new__(Database)
    db._db = _boardsolve.Database.for_game(name, variant, search_bits)
    return db
