#!/usr/bin/env python3
"""Independent reader for boardsolve databases: British Square, Dots and Boxes.

Written from format-spec.md alone, to show that the spec is enough to read a
database: it validates the header (including the XXH3-64 header checksum),
looks positions up (binary search over the memory-mapped records of a sorted
file, direct indexing into a dense file) and prints, for each position given
on the command line, one JSON object per line. For British Square:

    {"position": ..., "to_move": ..., "value": ..., "remoteness": ...,
     "moves": [{"move": ..., "value": ..., "remoteness": ...}, ...]}

where ``value`` is always X's final score under perfect play. For Dots and
Boxes, the same fields plus ``net``, ``best`` (the best moves) and, when the
position gives the score so far, ``final`` (A's boxes minus B's at the end):

    {"position": ..., "to_move": ..., "value": ..., "net": ...,
     "remoteness": ..., "final": ..., "best": [...],
     "moves": [{"move": ..., "edge": ..., "value": ..., "remoteness": ...,
                "best": ...}, ...]}

where a position's ``value`` is its ``net`` for the side to move and a move's
``value`` is the mover's net through that move. Moves come in increasing cell
or edge order. The game is picked from the header's game name.

A bad position prints ``{"input": ..., "error": ...}`` and makes the exit
status 1 at the end; a bad database file exits 3 at once. The records checksum
(XXH3-128) is not checked, but a Dots and Boxes answer is checked against the
values of the moves (a damaged entry gives an error for that position).

Usage: python3 bsq_reader.py DBFILE POSITION...
"""

import argparse
import bisect
import json
import mmap
import re
import struct
import sys

# ---------------------------------------------------------------------------
# XXH3-64, seed 0, default secret: only the "long" path (inputs > 240 bytes),
# which is all the 4088-byte header checksum needs.
# ---------------------------------------------------------------------------

MASK64 = (1 << 64) - 1
PRIME32_1 = 0x9E3779B1
PRIME32_2 = 0x85EBCA77
PRIME32_3 = 0xC2B2AE3D
PRIME64_1 = 0x9E3779B185EBCA87
PRIME64_2 = 0xC2B2AE3D27D4EB4F
PRIME64_3 = 0x165667B19E3779F9
PRIME64_4 = 0x85EBCA77C2B2AE63
PRIME64_5 = 0x27D4EB2F165667C5

DEFAULT_SECRET = bytes.fromhex(
    "b8fe6c3923a44bbe7c01812cf721ad1cded46de9839097db7240a4a4b7b3671f"
    "cb79e64eccc0e578825ad07dccff7221b8084674f743248ee03590e6813a264c"
    "3c2852bb91c300cb88d0658b1b532ea371644897a20df94e3819ef46a9deacd8"
    "a8fa763fe39c343ff9dcbbc7c70b4f1d8a51e04bcdb45931c89f7ec9d9787364"
    "eac5ac8334d3ebc3c581a0fffa1363eb170ddd51b7f0da49d316552629d4689e"
    "2b16be587d47a1fc8ff8b8d17ad031ce45cb3a8f95160428afd7fbcabb4b407e")
STRIPE_LEN = 64
SECRET_CONSUME_RATE = 8
SECRET_LASTACC_START = 7
SECRET_MERGEACCS_START = 11


def _lanes(data, offset):
    """The eight little-endian u64 lanes of the 64 bytes at ``offset``."""
    return struct.unpack_from("<8Q", data, offset)


def _accumulate_512(acc, data, offset, secret_offset):
    """Mix one 64-byte stripe into the eight accumulators."""
    values = _lanes(data, offset)
    keys = _lanes(DEFAULT_SECRET, secret_offset)
    for i in range(8):
        data_key = values[i] ^ keys[i]
        acc[i ^ 1] = (acc[i ^ 1] + values[i]) & MASK64
        acc[i] = (acc[i] + (data_key & 0xFFFFFFFF) * (data_key >> 32)) & MASK64


def _scramble(acc):
    """Scramble the accumulators with the last 64 bytes of the secret."""
    keys = _lanes(DEFAULT_SECRET, len(DEFAULT_SECRET) - STRIPE_LEN)
    for i in range(8):
        value = acc[i] ^ (acc[i] >> 47) ^ keys[i]
        acc[i] = (value * PRIME32_1) & MASK64


def _mul128_fold64(a, b):
    """Multiply to 128 bits and xor the halves together."""
    product = a * b
    return (product ^ (product >> 64)) & MASK64


def _avalanche(h):
    """XXH3's final avalanche."""
    h ^= h >> 37
    h = (h * 0x165667919E3779F9) & MASK64
    return h ^ (h >> 32)


def xxh3_64(data):
    """XXH3-64 (seed 0, default secret) of ``data``; needs len(data) > 240."""
    length = len(data)
    if length <= 240:
        raise ValueError("only the long-input path of XXH3 is implemented")
    acc = [PRIME32_3, PRIME64_1, PRIME64_2, PRIME64_3,
           PRIME64_4, PRIME32_2, PRIME64_5, PRIME32_1]
    secret_size = len(DEFAULT_SECRET)
    stripes_per_block = (secret_size - STRIPE_LEN) // SECRET_CONSUME_RATE
    block_len = STRIPE_LEN * stripes_per_block
    blocks = (length - 1) // block_len
    for block in range(blocks):
        for stripe in range(stripes_per_block):
            _accumulate_512(acc, data, block * block_len + stripe * STRIPE_LEN,
                            stripe * SECRET_CONSUME_RATE)
        _scramble(acc)
    last_stripes = ((length - 1) - block_len * blocks) // STRIPE_LEN
    for stripe in range(last_stripes):
        _accumulate_512(acc, data, blocks * block_len + stripe * STRIPE_LEN,
                        stripe * SECRET_CONSUME_RATE)
    _accumulate_512(acc, data, length - STRIPE_LEN,
                    len(DEFAULT_SECRET) - STRIPE_LEN - SECRET_LASTACC_START)
    result = (length * PRIME64_1) & MASK64
    for i in range(4):
        keys = struct.unpack_from("<2Q", DEFAULT_SECRET,
                                  SECRET_MERGEACCS_START + 16 * i)
        result += _mul128_fold64(acc[2 * i] ^ keys[0],
                                 acc[2 * i + 1] ^ keys[1])
    return _avalanche(result & MASK64)


# ---------------------------------------------------------------------------
# Database file
# ---------------------------------------------------------------------------

HEADER_SIZE = 4096
MAGIC = b"BSOLVEDB"
FORMAT_VERSION = 1
BYTE_ORDER_MARK = 0x0A0B0C0D
LAYOUT_SORTED = 1
LAYOUT_DENSE = 2
LAYOUT_NAMES = {LAYOUT_SORTED: "sorted", LAYOUT_DENSE: "dense"}
RECORD_SIZE = {LAYOUT_SORTED: 8, LAYOUT_DENSE: 1}
MAX_DENSE_KEY_BITS = 36
FLAG_COMPLETE = 1
GAME_ID_BRITISH_SQUARE = 1
GAME_ID_DOTS_AND_BOXES = 2
BRITISH_SQUARE_VARIANTS = {
    "3x3": (3, False), "3x3,center-allowed": (3, True),
    "4x4": (4, False), "4x4,center-allowed": (4, True),
    "5x5": (5, False), "5x5,center-allowed": (5, True)}


class BadFile(Exception):
    """The database file is missing, damaged or of an unknown kind."""


def _header_string(header, offset, width, name):
    """Decode a NUL-padded printable-ASCII header field."""
    raw = header[offset:offset + width]
    text = raw.rstrip(b"\0")
    if b"\0" in text or any(b < 0x20 or b > 0x7E for b in text):
        raise BadFile(f"{name} is not NUL-padded printable ASCII")
    return text.decode("ascii")


class _StructRecords:
    """Sequence view of the records for big-endian machines (no copying)."""

    def __init__(self, buf, count):
        self.buf, self.count = buf, count

    def __len__(self):
        return self.count

    def __getitem__(self, i):
        if not 0 <= i < self.count:
            raise IndexError(i)
        return struct.unpack_from("<Q", self.buf, HEADER_SIZE + 8 * i)[0]


def _known_game(game_id, name, variant):
    """The rules of the header's game and variant (validation step 8)."""
    if game_id == GAME_ID_BRITISH_SQUARE and name == "british-square":
        if variant not in BRITISH_SQUARE_VARIANTS:
            raise BadFile(f"unknown british-square variant {variant!r}")
        return BritishSquare(*BRITISH_SQUARE_VARIANTS[variant])
    if game_id == GAME_ID_DOTS_AND_BOXES and name == "dots-and-boxes":
        game = DotsAndBoxes.from_variant(variant)
        if game is None:
            raise BadFile(f"unknown dots-and-boxes variant {variant!r}")
        return game
    raise BadFile(f"unknown game {name!r} (id {game_id})")


class Database:
    """A validated, memory-mapped database of a game this reader knows."""

    def __init__(self, path):
        try:
            with open(path, "rb") as f:
                size = f.seek(0, 2)
                if size < HEADER_SIZE:
                    raise BadFile(f"file is {size} bytes, "
                                  "shorter than the header")
                self.map = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except OSError as e:
            raise BadFile(f"cannot open: {e.strerror or e}") from e
        self._validate(self.map[:HEADER_SIZE], size)
        if self.layout == LAYOUT_DENSE:
            self.entries = memoryview(self.map)[HEADER_SIZE:]  # byte k: key k
        elif sys.byteorder == "little":
            view = memoryview(self.map)[HEADER_SIZE:]
            self.records = view.cast("Q")
        else:
            self.records = _StructRecords(self.map, self.record_count)

    def _validate(self, header, size):
        """Check the header in the order of the spec's validation list."""
        def u32(offset):
            return struct.unpack_from("<I", header, offset)[0]

        def u64(offset):
            return struct.unpack_from("<Q", header, offset)[0]

        if header[0:8] != MAGIC:
            raise BadFile("bad magic: not a boardsolve database")
        if u32(8) != FORMAT_VERSION:
            raise BadFile(f"unknown format version {u32(8)}")
        if u32(12) != BYTE_ORDER_MARK:
            raise BadFile(f"bad byte-order mark {u32(12):#010x}")
        if xxh3_64(header[:4088]) != u64(4088):
            raise BadFile("header checksum mismatch")
        if u32(16) != HEADER_SIZE:
            raise BadFile(f"bad header_size {u32(16)}")
        layout = u32(20)
        if layout not in RECORD_SIZE:
            raise BadFile(f"unknown layout_kind {layout}")
        if u64(144) != HEADER_SIZE:
            raise BadFile(f"bad records_offset {u64(144)}")
        fields = tuple(header[128:134])
        (key_shift, key_bits, value_shift, value_bits,
         rem_shift, rem_bits) = fields
        if layout == LAYOUT_SORTED:
            # The fields tile the low bits: remoteness, net, key.
            fields_ok = (rem_shift == 0 and value_shift == rem_bits
                         and key_shift == value_shift + value_bits
                         and key_shift + key_bits <= 64
                         and 1 <= key_bits <= 63
                         and 1 <= value_bits <= 32 and 1 <= rem_bits <= 32)
        else:
            # Dense: one signed byte per key, the remoteness not stored.
            fields_ok = (key_shift == 0
                         and 1 <= key_bits <= MAX_DENSE_KEY_BITS
                         and value_shift == 0 and value_bits == 8
                         and rem_shift == 0 and rem_bits == 0)
        if not fields_ok:
            raise BadFile("record fields are not valid for the "
                          f"{LAYOUT_NAMES[layout]} layout")
        if u32(28) & ~FLAG_COMPLETE:
            raise BadFile(f"unknown flags {u32(28):#x}")
        if layout == LAYOUT_DENSE and not u32(28) & FLAG_COMPLETE:
            raise BadFile("a dense file must be marked complete")
        if any(header[134:136]) or any(header[208:4088]):
            raise BadFile("reserved header bytes are not zero")
        self.record_count = u64(136)
        if layout == LAYOUT_DENSE and self.record_count != 1 << key_bits:
            raise BadFile(f"dense record_count {self.record_count} is not "
                          f"2^key_bits = {1 << key_bits}")
        if HEADER_SIZE + RECORD_SIZE[layout] * self.record_count != size:
            raise BadFile(f"file size {size} does not match record_count "
                          f"{self.record_count} (truncated or padded)")
        game = _header_string(header, 32, 32, "game_name")
        variant = _header_string(header, 64, 64, "variant")
        self.game = _known_game(u32(24), game, variant)
        if layout != self.game.layout_kind:
            raise BadFile(f"a {game} database has the "
                          f"{LAYOUT_NAMES[self.game.layout_kind]} layout, "
                          f"not the {LAYOUT_NAMES[layout]} one")
        if fields != self.game.record_fields():
            raise BadFile(f"record fields are not the ones of {game} "
                          f"{variant}")
        if u64(168) != self.game.start_key():
            raise BadFile("start_key is not the key of the start position")
        # Step 9: the checksums cannot tell a forged count from a true one.
        most, exact = self.game.positions()
        if self.record_count > most:
            raise BadFile(f"record_count {self.record_count}: {game} "
                          f"{variant} has at most {most} positions")
        if u32(28) & FLAG_COMPLETE and exact is not None \
                and self.record_count != exact:
            raise BadFile(f"record_count {self.record_count}: a complete "
                          f"{game} {variant} database has {exact}")
        self.layout = layout
        self.complete = bool(u32(28) & FLAG_COMPLETE)
        self.key_shift, self.key_bits = key_shift, key_bits
        self.value_shift, self.value_bits = value_shift, value_bits
        self.rem_bits = rem_bits

    def lookup(self, key):
        """(net, remoteness) stored for ``key``, or None if absent.

        Sorted files hold canonical keys only; a dense file holds every key
        below ``2^key_bits``, canonical or not.
        """
        if self.layout == LAYOUT_DENSE:
            if not 0 <= key < self.record_count:
                return None
            byte = self.entries[key]
            net = byte - 256 if byte >= 128 else byte
            return self._in_range(key, net,
                                  self.key_bits - bin(key).count("1"))
        target = key << self.key_shift
        i = bisect.bisect_left(self.records, target)
        if i == len(self.records):
            return None
        record = self.records[i]
        if record >> self.key_shift != key:
            return None
        net = (record >> self.value_shift) & ((1 << self.value_bits) - 1)
        if net >> (self.value_bits - 1):  # two's complement sign bit
            net -= 1 << self.value_bits
        return self._in_range(key, net, record & ((1 << self.rem_bits) - 1))

    def _in_range(self, key, net, remoteness):
        """The value, if the game allows it (section 4, Range)."""
        max_net, max_remoteness = self.game.value_bounds()
        if abs(net) > max_net or remoteness > max_remoteness:
            raise BadFile(f"key {key:#x}: value (net {net}, remoteness "
                          f"{remoteness}) is out of the game's range")
        return net, remoteness


# ---------------------------------------------------------------------------
# British Square
# ---------------------------------------------------------------------------

X, O = 0, 1
SIDES = "XO"


class BadPosition(Exception):
    """The position text cannot be parsed or is not a legal position."""


class BritishSquare:
    """Rules, symmetries and notation of one British Square variant.

    A position is a tuple ``(xmask, omask, side)``: bit ``i`` of a mask is a
    piece on cell ``i``; ``side`` is X (0) or O (1), the side to move.
    """

    layout_kind = LAYOUT_SORTED

    def __init__(self, n, center_allowed):
        self.n, self.cells = n, n * n
        self.center_allowed = center_allowed
        self.full = (1 << self.cells) - 1
        self.center = None  # the cell X may not open on, if any
        if n % 2 and not center_allowed:
            self.center = (self.cells - 1) // 2
        self.neighbours = []
        for r in range(n):
            for c in range(n):
                near = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
                self.neighbours.append(sum(1 << (rr * n + cc)
                                           for rr, cc in near
                                           if 0 <= rr < n and 0 <= cc < n))
        self.symmetries = []
        for transpose in (False, True):
            for flip in (False, True):
                for mirror in (False, True):
                    self.symmetries.append(
                        [self._image(i, transpose, flip, mirror)
                         for i in range(self.cells)])

    def _image(self, cell, transpose, flip, mirror):
        """Cell that ``cell`` maps to under one of the 8 symmetries."""
        r, c = divmod(cell, self.n)
        if mirror:
            c = self.n - 1 - c
        if flip:
            r = self.n - 1 - r
        if transpose:
            r, c = c, r
        return r * self.n + c

    @staticmethod
    def start():
        """The empty board, X to move."""
        return 0, 0, X

    def record_fields(self):
        """(key_shift, key_bits, value_shift, value_bits, remoteness_shift,
        remoteness_bits) of this variant's records."""
        return 12, 2 * self.cells + 1, 6, 6, 0, 6

    def start_key(self):
        """The header's ``start_key``."""
        return self.canonical_key(self.start())

    # Canonical positions of each board (section 5, Bounds).
    POSITIONS = {(3, False): 74, (3, True): 76, (4, False): 10206,
                 (4, True): 10206, (5, False): 8659987, (5, True): 8659992}

    def positions(self):
        """(most, exact) canonical positions of this variant."""
        n = self.POSITIONS[(self.n, self.center_allowed)]
        return n, n

    def value_bounds(self):
        """(largest |net|, longest game) of this variant."""
        return self.cells, 2 * self.cells

    def legal_cells(self, pos, player):
        """Sorted cells where ``player`` may place a piece (ignoring turn)."""
        xmask, omask, _ = pos
        own, other = (xmask, omask) if player == X else (omask, xmask)
        blocked = xmask | omask
        for cell in range(self.cells):
            if other >> cell & 1:
                blocked |= self.neighbours[cell]
        if player == X and xmask == 0 and self.center is not None:
            blocked |= 1 << self.center  # X's first move avoids the centre
        return [c for c in range(self.cells) if not blocked >> c & 1]

    def moves(self, pos):
        """Moves of ``pos``: cells, ["pass"] if forced, [] at the end."""
        cells = self.legal_cells(pos, pos[2])
        if cells:
            return cells
        return ["pass"] if self.legal_cells(pos, 1 - pos[2]) else []

    def play(self, pos, move):
        """The position after ``move`` (a cell or "pass")."""
        xmask, omask, side = pos
        if move != "pass":
            if side == X:
                xmask |= 1 << move
            else:
                omask |= 1 << move
        return xmask, omask, 1 - side

    def key(self, pos):
        """The (non-canonical) key of ``pos``."""
        xmask, omask, side = pos
        return xmask | omask << self.cells | side << 2 * self.cells

    def _map_mask(self, mask, perm):
        """The image of a bitboard under the cell permutation ``perm``."""
        return sum(1 << perm[i] for i in range(self.cells) if mask >> i & 1)

    def canonical_key(self, pos):
        """The smallest key among the 8 symmetric images of ``pos``."""
        xmask, omask, side = pos
        best = None
        for perm in self.symmetries:
            image = (self._map_mask(xmask, perm),
                     self._map_mask(omask, perm), side)
            k = self.key(image)
            best = k if best is None or k < best else best
        return best

    def score(self, pos, net):
        """X's final score from the stored ``net`` of ``pos``."""
        xmask, omask, side = pos
        material = bin(xmask).count("1") - bin(omask).count("1")
        return material + (net if side == X else -net)

    def notation(self, pos):
        """Board notation with rows separated by '/' and the side to move."""
        xmask, omask, side = pos
        chars = ["X" if xmask >> i & 1 else "O" if omask >> i & 1 else "."
                 for i in range(self.cells)]
        n = self.n
        rows = ["".join(chars[r * n:(r + 1) * n]) for r in range(n)]
        return "/".join(rows) + " " + SIDES[side]

    # -- parsing -------------------------------------------------------------

    def parse(self, text):
        """Parse board notation, a move list or ``start`` into a position."""
        words = text.split()
        if words and set(words[0].upper()) <= set("XO./"):
            return self._parse_board([w.upper() for w in words])
        return self._parse_moves(text)

    def _parse_board(self, words):
        """Parse ``ROWS [SIDE]``."""
        if len(words) > 2 or (len(words) == 2 and words[1] not in SIDES):
            raise BadPosition("expected a board optionally followed by X or O")
        board = words[0]
        if "/" in board:
            rows = board.split("/")
            if len(rows) != self.n or any(len(r) != self.n for r in rows):
                raise BadPosition(f"expected {self.n} rows of {self.n} cells")
            board = "".join(rows)
        if len(board) != self.cells:
            raise BadPosition(f"expected {self.cells} cells")
        xmask = sum(1 << i for i, ch in enumerate(board) if ch == "X")
        omask = sum(1 << i for i, ch in enumerate(board) if ch == "O")
        if len(words) == 2:
            return xmask, omask, SIDES.index(words[1])
        return xmask, omask, self._derive_side(xmask, omask)

    def _derive_side(self, xmask, omask):
        """Side to move of a board given without one (spec section 5)."""
        can = [bool(self.legal_cells((xmask, omask, p), p)) for p in (X, O)]
        if can[X] != can[O]:
            return X if can[X] else O
        diff = bin(xmask).count("1") - bin(omask).count("1")
        if not can[X]:
            # Finished: the side does not matter.
            return X if diff <= 0 else O
        if diff in (0, 1):
            return X if diff == 0 else O
        raise BadPosition("cannot tell the side to move; add ' X' or ' O'")

    def _parse_cell(self, token):
        """A cell number or coordinate (``a1`` is cell 0) as a cell index."""
        token = token.lower()
        if token.isdigit():
            cell = int(token)
        elif (len(token) >= 2 and "a" <= token[0] < chr(ord("a") + self.n)
              and token[1:].isdigit() and 1 <= int(token[1:]) <= self.n):
            cell = (int(token[1:]) - 1) * self.n + ord(token[0]) - ord("a")
        else:
            raise BadPosition(f"bad move {token!r}")
        if cell >= self.cells:
            raise BadPosition(f"cell {cell} is off the board")
        return cell

    def _parse_moves(self, text):
        """Replay a move list from the start, inserting forced passes."""
        tokens = text.replace(",", " ").split()
        if tokens == ["start"]:
            return self.start()
        if not tokens:
            raise BadPosition("empty position")
        pos = self.start()
        for token in tokens:
            move = "pass" if token == "pass" else self._parse_cell(token)
            legal = self.moves(pos)
            if legal == ["pass"] and move != "pass":
                pos = self.play(pos, "pass")  # a forced pass left out
                legal = self.moves(pos)
            if move not in legal:
                raise BadPosition(f"illegal move {token!r} in "
                                  f"{self.notation(pos)}")
            pos = self.play(pos, move)
        return pos


# ---------------------------------------------------------------------------
# Dots and Boxes
# ---------------------------------------------------------------------------

A, B = 0, 1
PLAYERS = "AB"
EDGE_NUMBER = re.compile(r"[0-9]+")
SCORE = re.compile(r"([0-9]+)-([0-9]+)")


class DotsAndBoxes:
    """Rules and notation of one Dots and Boxes board (layout: dense).

    A state is the key itself: bit ``e`` set when edge ``e`` is drawn. The
    side to move and the score so far are not in the key; they come from the
    position text.
    """

    layout_kind = LAYOUT_DENSE
    MAX_EDGES = 32

    def __init__(self, rows, cols):
        self.rows, self.cols = rows, cols
        first_vertical = (rows + 1) * cols
        self.edges = first_vertical + rows * (cols + 1)
        self.boxes = []  # one mask of four edges per box
        for r in range(rows):
            for c in range(cols):
                left = first_vertical + r * (cols + 1) + c
                self.boxes.append(1 << (r * cols + c)
                                  | 1 << ((r + 1) * cols + c)
                                  | 1 << left | 1 << (left + 1))
        self.boxes_of_edge = [[m for m in self.boxes if m >> e & 1]
                              for e in range(self.edges)]

    @classmethod
    def from_variant(cls, variant):
        """The board of a canonical ``RxC`` spec with a dense file (at most
        ``MAX_EDGES`` edges, such as 1x10), or None if unknown."""
        match = re.fullmatch(r"([1-9][0-9]?)x([1-9][0-9]?)", variant)
        if not match:
            return None
        game = cls(int(match.group(1)), int(match.group(2)))
        return game if game.edges <= cls.MAX_EDGES else None

    def record_fields(self):
        """(key_shift, key_bits, value_shift, value_bits, remoteness_shift,
        remoteness_bits) of the dense layout: one signed byte per edge set."""
        return 0, self.edges, 0, 8, 0, 0

    @staticmethod
    def start_key():
        """The empty board: no edge in any symmetric image either."""
        return 0

    def positions(self):
        """(most, exact) states: every edge set."""
        return 1 << self.edges, 1 << self.edges

    def value_bounds(self):
        """(largest |net|, longest game): the boxes, the edges."""
        return len(self.boxes), self.edges

    def closed(self, key):
        """Number of boxes whose four edges are all drawn."""
        return sum(1 for m in self.boxes if key & m == m)

    def reward(self, key, edge):
        """Boxes that drawing the undrawn ``edge`` completes (0, 1 or 2)."""
        after = key | 1 << edge
        return sum(1 for m in self.boxes_of_edge[edge] if after & m == m)

    @staticmethod
    def notation(key):
        """The drawn edges in increasing order, or ``none``."""
        if key == 0:
            return "none"
        return ",".join(str(e) for e in range(key.bit_length())
                        if key >> e & 1)

    def parse(self, text):
        """``EDGES [SIDE [SCORE]]`` as (key, side to move, A's lead or None).

        EDGES are edge numbers separated by commas and/or whitespace, or
        ``none``/``start``; SIDE is ``A`` or ``B`` (default ``A``); SCORE is
        ``a-b``, A's and B's boxes so far, adding up to the closed boxes.
        """
        tokens = text.replace(",", " ").split()
        score = None
        if tokens and "-" in tokens[-1]:
            match = SCORE.fullmatch(tokens[-1])
            if not match:
                raise BadPosition(f"{tokens[-1]!r} is not a score: write "
                                  "A's boxes, '-', B's boxes")
            score = int(match.group(1)), int(match.group(2))
            tokens.pop()
        side = None
        if tokens and tokens[-1] in PLAYERS:
            side = PLAYERS.index(tokens.pop())
        if score is not None and side is None:
            raise BadPosition("a score needs the side to move before it, "
                              "e.g. '0,5,12 B 1-0'")
        if not tokens:
            raise BadPosition("no edges: write 'none' for the empty board")
        key = 0
        if tokens not in (["none"], ["start"]):
            for token in tokens:
                if (not EDGE_NUMBER.fullmatch(token)
                        or int(token) >= self.edges):
                    raise BadPosition(f"{token!r} is not an edge: edges are "
                                      f"numbered 0 to {self.edges - 1}")
                edge = int(token)
                if key >> edge & 1:
                    raise BadPosition(f"edge {edge} is listed twice")
                key |= 1 << edge
        lead = None
        if score is not None:
            closed = self.closed(key)
            if score[0] + score[1] != closed:
                raise BadPosition(f"the score {score[0]}-{score[1]} does not "
                                  f"add up to the {closed} boxes these edges "
                                  "close")
            lead = score[0] - score[1]
        return key, A if side is None else side, lead

    def analyse(self, db, text):
        """JSON-ready analysis of the position ``text`` (spec section 4)."""
        key, side, lead = self.parse(text)

        def stored(k):
            value = db.lookup(k)
            if value is None:  # cannot happen in a valid dense file
                raise BadPosition(f"position {self.notation(k)} is not in "
                                  "this database")
            return value

        net, remoteness = stored(key)
        moves = []
        for edge in range(self.edges):
            if key >> edge & 1:
                continue
            reward = self.reward(key, edge)
            child_net, child_remoteness = stored(key | 1 << edge)
            # A rewarded move keeps the turn: the child's net is the mover's.
            value = reward + child_net if reward else -child_net
            moves.append({"move": str(edge), "edge": edge, "value": value,
                          "remoteness": child_remoteness})
        # Every line has the same length, so the best net alone decides.
        derived = max((m["value"] for m in moves), default=0)
        if net != derived or remoteness != self.edges - bin(key).count("1"):
            raise BadPosition(f"database is inconsistent at "
                              f"{self.notation(key)}: stored net {net}, but "
                              f"the moves give {derived}")
        for m in moves:
            m["best"] = m["value"] == net
        answer = {"position": self.notation(key), "to_move": PLAYERS[side],
                  "value": net, "remoteness": remoteness, "net": net}
        if lead is not None:
            answer["final"] = lead + (net if side == A else -net)
        answer["best"] = [m["move"] for m in moves if m["best"]]
        answer["moves"] = moves
        return answer


# ---------------------------------------------------------------------------
# Queries and command line
# ---------------------------------------------------------------------------

def analyse(db, text):
    """JSON-ready analysis of the position ``text`` in the database's game."""
    if isinstance(db.game, DotsAndBoxes):
        return db.game.analyse(db, text)
    game = db.game
    pos = game.parse(text)

    def value_of(p):
        stored = db.lookup(game.canonical_key(p))
        if stored is None:
            why = "unreachable" if db.complete else "not in this database"
            raise BadPosition(f"position {game.notation(p)} is {why}")
        return game.score(p, stored[0]), stored[1]

    if not game.moves(pos):
        # A finished position is answered by the rules, whatever its side.
        return {"position": game.notation(pos), "to_move": SIDES[pos[2]],
                "value": game.score(pos, 0), "remoteness": 0, "moves": []}
    value, remoteness = value_of(pos)
    moves = []
    for move in game.moves(pos):
        child_value, child_remoteness = value_of(game.play(pos, move))
        moves.append({"move": str(move), "value": child_value,
                      "remoteness": child_remoteness})
    return {"position": game.notation(pos), "to_move": SIDES[pos[2]],
            "value": value, "remoteness": remoteness, "moves": moves}


def main(argv=None):
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dbfile")
    parser.add_argument("positions", metavar="POSITION", nargs="+")
    args = parser.parse_args(argv)
    try:
        db = Database(args.dbfile)
    except BadFile as e:
        print(json.dumps({"input": args.dbfile, "error": str(e)}))
        print(f"bsq_reader: {args.dbfile}: {e}", file=sys.stderr)
        return 3
    status = 0
    for text in args.positions:
        try:
            print(json.dumps(analyse(db, text)))
        except BadPosition as e:
            print(json.dumps({"input": text, "error": str(e)}))
            status = 1
        except BadFile as e:
            print(json.dumps({"input": text, "error": str(e)}))
            print(f"bsq_reader: {args.dbfile}: {e}", file=sys.stderr)
            return 3
    return status


if __name__ == "__main__":
    sys.exit(main())
