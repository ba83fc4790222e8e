#!/usr/bin/env python3
"""Independent reader for boardsolve databases: British Square, Dots and Boxes.

Written from format-spec.md alone, to show that the spec is enough to read a
database: it validates the header (including the XXH3-64 header checksum),
looks positions up (binary search over the memory-mapped records of a sorted
file, direct indexing into a dense file; in a packed file, the block the
index names, checked and inflated, then searched) and prints, for each
position given on the command line, one JSON object per line. Sorted and
dense files (format version 1) and packed files holding either (format
version 2) are read alike. For British Square:

    {"position": ..., "to_move": ..., "value": ..., "remoteness": ...,
     "moves": [{"move": ..., "value": ..., "remoteness": ...}, ...]}

where a position's ``value`` is the side to move's final score under perfect
play (its pieces minus its opponent's) and a move's ``value`` the final score
of the side making it. For Dots and Boxes, the same fields plus ``net``,
``best`` (the best moves) and, when the position gives the score so far,
``final_for_first`` (A's boxes minus B's at the end):

    {"position": ..., "to_move": ..., "value": ..., "net": ...,
     "remoteness": ..., "final_for_first": ..., "best": [...],
     "moves": [{"move": ..., "edge": ..., "value": ..., "remoteness": ...,
                "best": ...}, ...]}

where a position's ``value`` is its ``net`` for the side to move and a move's
``value`` is the mover's net through that move. Moves come in increasing cell
or edge order, named as ``query`` names them (a British Square cell by its
coordinate, ``c3``; an edge by its number). The game is picked from the header's game name.

A bad position prints ``{"input": ..., "error": ...}`` and makes the exit
status 1 at the end; a bad database file exits 3 at once, and so does a
packed block found damaged by a lookup (the error says the database is
corrupted). The records checksum (XXH3-128) is not checked, but a Dots and
Boxes answer is checked against the values of the moves (a damaged entry
gives an error for that position).

Usage: python3 bsq_reader.py DBFILE POSITION...
"""

import argparse
import array
import bisect
import json
import mmap
import re
import struct
import sys
import zlib

# ---------------------------------------------------------------------------
# XXH3-64, seed 0, default secret, for inputs of any length: the header
# checksum hashes 4088 bytes, a packed file's index and block payloads may be
# of any size.
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
SECRET_SIZE_MIN = 136
MIDSIZE_START_OFFSET = 3
MIDSIZE_LAST_OFFSET = 17


def _u32(data, offset):
    """The little-endian u32 at ``offset``."""
    return struct.unpack_from("<I", data, offset)[0]


def _u64(data, offset):
    """The little-endian u64 at ``offset``."""
    return struct.unpack_from("<Q", data, offset)[0]


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


def _xxh64_avalanche(h):
    """XXH64's final avalanche, used by XXH3 for inputs of 0 to 3 bytes."""
    h ^= h >> 33
    h = (h * PRIME64_2) & MASK64
    h ^= h >> 29
    h = (h * PRIME64_3) & MASK64
    return h ^ (h >> 32)


def _rrmxmx(h, length):
    """XXH3's stronger avalanche, used for inputs of 4 to 8 bytes."""
    rotl49 = ((h << 49) | (h >> 15)) & MASK64
    rotl24 = ((h << 24) | (h >> 40)) & MASK64
    h ^= rotl49 ^ rotl24
    h = (h * 0x9FB21C651E98DF25) & MASK64
    h ^= (h >> 35) + length
    h = (h * 0x9FB21C651E98DF25) & MASK64
    return h ^ (h >> 28)


def _mix16(data, offset, secret_offset):
    """Mix 16 input bytes with 16 bytes of the secret."""
    return _mul128_fold64(
        _u64(data, offset) ^ _u64(DEFAULT_SECRET, secret_offset),
        _u64(data, offset + 8) ^ _u64(DEFAULT_SECRET, secret_offset + 8))


def _xxh3_0to16(data):
    """XXH3-64 of at most 16 bytes."""
    length = len(data)
    secret = DEFAULT_SECRET
    if length == 0:
        return _xxh64_avalanche(_u64(secret, 56) ^ _u64(secret, 64))
    if length <= 3:
        combined = (data[0] << 16 | data[length >> 1] << 24
                    | data[length - 1] | length << 8)
        return _xxh64_avalanche(combined ^ (_u32(secret, 0) ^ _u32(secret, 4)))
    if length <= 8:
        bitflip = _u64(secret, 8) ^ _u64(secret, 16)
        value = _u32(data, length - 4) + (_u32(data, 0) << 32)
        return _rrmxmx(value ^ bitflip, length)
    low = _u64(data, 0) ^ _u64(secret, 24) ^ _u64(secret, 32)
    high = _u64(data, length - 8) ^ _u64(secret, 40) ^ _u64(secret, 48)
    swapped = int.from_bytes(low.to_bytes(8, "little"), "big")
    acc = length + swapped + high + _mul128_fold64(low, high)
    return _avalanche(acc & MASK64)


def _xxh3_17to128(data):
    """XXH3-64 of 17 to 128 bytes."""
    length = len(data)
    acc = length * PRIME64_1
    rounds = (length - 1) // 32  # pairs of 16-byte reads from both ends
    for i in range(rounds, -1, -1):
        acc += _mix16(data, 16 * i, 32 * i)
        acc += _mix16(data, length - 16 * (i + 1), 32 * i + 16)
    return _avalanche(acc & MASK64)


def _xxh3_129to240(data):
    """XXH3-64 of 129 to 240 bytes."""
    length = len(data)
    acc = length * PRIME64_1
    for i in range(8):
        acc += _mix16(data, 16 * i, 16 * i)
    acc = _avalanche(acc & MASK64)
    for i in range(8, length // 16):
        acc += _mix16(data, 16 * i, 16 * (i - 8) + MIDSIZE_START_OFFSET)
    acc += _mix16(data, length - 16, SECRET_SIZE_MIN - MIDSIZE_LAST_OFFSET)
    return _avalanche(acc & MASK64)


def _xxh3_long(data):
    """XXH3-64 of more than 240 bytes: stripes, blocks and scrambles."""
    length = len(data)
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


def xxh3_64(data):
    """XXH3-64 (seed 0, default secret) of the bytes ``data``."""
    length = len(data)
    if length <= 16:
        return _xxh3_0to16(data)
    if length <= 128:
        return _xxh3_17to128(data)
    if length <= 240:
        return _xxh3_129to240(data)
    return _xxh3_long(data)


# ---------------------------------------------------------------------------
# Database file
# ---------------------------------------------------------------------------

HEADER_SIZE = 4096
MAGIC = b"BSOLVEDB"
BYTE_ORDER_MARK = 0x0A0B0C0D
LAYOUT_SORTED = 1
LAYOUT_DENSE = 2
LAYOUT_PACKED = 3
LAYOUT_NAMES = {LAYOUT_SORTED: "sorted", LAYOUT_DENSE: "dense",
                LAYOUT_PACKED: "packed"}
# The layout kinds of each format version (validation step 3).
FORMAT_LAYOUTS = {1: (LAYOUT_SORTED, LAYOUT_DENSE), 2: (LAYOUT_PACKED,)}
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


def _u64_array(data):
    """The little-endian u64s of ``data`` as an ``array('Q')``."""
    values = array.array("Q")
    values.frombytes(data)
    if sys.byteorder == "big":
        values.byteswap()
    return values


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
    """A validated, memory-mapped database of a game this reader knows.

    ``layout`` is the layout of the records (sorted or dense); ``packed`` is
    the :class:`PackedRecords` of a packed file (format version 2), which
    holds those records in compressed blocks, or None.
    """

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
        self.packed = None
        self._validate(self.map[:HEADER_SIZE], size)
        if self.packed is not None:
            return  # blocks are read and inflated by each lookup
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
            return _u32(header, offset)

        def u64(offset):
            return _u64(header, offset)

        if header[0:8] != MAGIC:
            raise BadFile("bad magic: not a boardsolve database")
        version = u32(8)
        if version not in FORMAT_LAYOUTS:
            raise BadFile(f"unknown format version {version}")
        if u32(20) not in FORMAT_LAYOUTS[version]:
            raise BadFile(f"layout_kind {u32(20)} is not one of format "
                          f"version {version}")
        if u32(12) != BYTE_ORDER_MARK:
            raise BadFile(f"bad byte-order mark {u32(12):#010x}")
        if xxh3_64(header[:4088]) != u64(4088):
            raise BadFile("header checksum mismatch")
        if u32(16) != HEADER_SIZE:
            raise BadFile(f"bad header_size {u32(16)}")
        layout = u32(20)
        if layout == LAYOUT_PACKED:
            layout = u32(208)  # packed_kind: the layout of the records
            if layout not in RECORD_SIZE:
                raise BadFile(f"unknown packed_kind {layout}")
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
        reserved_from = 208 if version == 1 else PACKED_HEADER_END
        if any(header[134:136]) or any(header[reserved_from:4088]):
            raise BadFile("reserved header bytes are not zero")
        self.record_count = u64(136)
        if version == 2:
            self.packed = PackedRecords(header, layout, self.record_count)
        if layout == LAYOUT_DENSE and self.record_count != 1 << key_bits:
            raise BadFile(f"dense record_count {self.record_count} is not "
                          f"2^key_bits = {1 << key_bits}")
        if self.packed is not None:
            self.packed.check_index(self.map, size)
        elif HEADER_SIZE + RECORD_SIZE[layout] * self.record_count != size:
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
        if self.packed is not None and layout == LAYOUT_DENSE:
            self.packed.check_dense_keys(self.game)
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
        below ``2^key_bits``, canonical or not (a packed one the canonical
        keys only, so its lookups canonicalise the key first).
        """
        if self.layout == LAYOUT_DENSE:
            if not 0 <= key < self.record_count:
                return None
            if self.packed is not None:
                byte = self.packed.dense_entry(self.game.canonical_key(key))
            else:
                byte = self.entries[key]
            net = byte - 256 if byte >= 128 else byte
            return self._in_range(key, net,
                                  self.key_bits - bin(key).count("1"))
        if self.packed is not None:
            record = self.packed.sorted_record(key)
            if record is None:
                return None
        else:
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
# Packed records (format version 2, section 3c)
# ---------------------------------------------------------------------------

PACKED_HEADER_END = 256  # the version-2 fields take header bytes 208..256
CODEC_DEFLATE = 1
MIN_BLOCK_ENTRIES = 64
MAX_BLOCK_ENTRIES = 1 << 20
MIN_BLOCK_SIZE = 9
MAX_BLOCK_SIZE = 1 << 26
INDEX_ENTRY_SIZE = 16
BLOCK_CHECKSUM_SIZE = 8
MAX_LEB128_SIZE = 10
# Decoded blocks kept for later lookups: at most this many, and fewer when
# they take more than about this many bytes together.
BLOCK_CACHE_BLOCKS = 64
BLOCK_CACHE_BYTES = 128 << 20


def _planes(content, offset, count, planes):
    """Fields of ``count`` entries stored as ``planes`` byte planes at
    ``offset`` (plane 0 the lowest byte of every field), as an array('Q')."""
    interleaved = bytearray(8 * count)
    for plane in range(planes):
        start = offset + plane * count
        interleaved[plane::8] = content[start:start + count]
    return _u64_array(interleaved)


class PackedRecords:
    """The blocks and the index of a packed file (spec section 3c).

    The header fields are checked on construction (validation step 6), the
    file size and the index by :meth:`check_index` (step 7) and, for dense
    records, the keys of the index against the game by
    :meth:`check_dense_keys` (step 8). A block is checked and inflated when a
    lookup first needs it; anything wrong with it raises :class:`BadFile`
    saying the database is corrupted.
    """

    def __init__(self, header, kind, record_count):
        """Read and check the version-2 header fields of a file whose
        records have the layout ``kind`` (sorted or dense)."""
        self.kind = kind
        (self.key_shift, self.key_bits, self.value_shift, self.value_bits,
         _, self.rem_bits) = tuple(header[128:134])
        codec = _u32(header, 212)
        self.block_entries = _u32(header, 216)
        self.max_block_size = _u32(header, 220)
        self.entry_count = _u64(header, 224)
        self.block_count = _u64(header, 232)
        self.index_offset = _u64(header, 240)
        self.index_checksum = _u64(header, 248)
        if codec != CODEC_DEFLATE:
            raise BadFile(f"unknown codec {codec}")
        entries = self.block_entries
        if not (MIN_BLOCK_ENTRIES <= entries <= MAX_BLOCK_ENTRIES
                and entries & (entries - 1) == 0):
            raise BadFile(f"block_entries {entries} is not a power of two "
                          f"from {MIN_BLOCK_ENTRIES} to {MAX_BLOCK_ENTRIES}")
        if not MIN_BLOCK_SIZE <= self.max_block_size <= MAX_BLOCK_SIZE:
            raise BadFile(f"max_block_size {self.max_block_size} is not "
                          f"from {MIN_BLOCK_SIZE} to {MAX_BLOCK_SIZE}")
        if self.entry_count > record_count:
            raise BadFile(f"entry_count {self.entry_count} is more than "
                          f"record_count {record_count}")
        if kind == LAYOUT_SORTED and self.entry_count != record_count:
            raise BadFile(f"entry_count {self.entry_count} of sorted records "
                          f"is not record_count {record_count}")
        if self.block_count != -(-self.entry_count // entries):
            raise BadFile(f"block_count {self.block_count} is not "
                          f"ceil(entry_count / block_entries)")
        if self.index_offset < HEADER_SIZE + MIN_BLOCK_SIZE * self.block_count:
            raise BadFile(f"index_offset {self.index_offset} leaves less than "
                          f"{MIN_BLOCK_SIZE} bytes per block")
        self.buf = self.game = None
        self.first_keys = self.offsets = None
        self.cache = {}  # block number -> (decoded block, size in bytes)
        self.cached_bytes = 0

    # -- validation -----------------------------------------------------------

    def check_index(self, buf, size):
        """Check the file size and the index against the header (step 7)."""
        if self.index_offset + INDEX_ENTRY_SIZE * self.block_count != size:
            raise BadFile(f"file size {size} does not match index_offset "
                          f"{self.index_offset} and block_count "
                          f"{self.block_count} (truncated or padded)")
        index = buf[self.index_offset:size]
        if xxh3_64(index) != self.index_checksum:
            raise BadFile("index checksum mismatch")
        table = _u64_array(index)
        first_keys, offsets = table[0::2], table[1::2]
        if not self.block_count:
            if self.index_offset != HEADER_SIZE:
                raise BadFile(f"index_offset {self.index_offset} of a file "
                              "without blocks is not 4096")
        else:
            self._check_offsets(offsets)
            self._check_first_keys(first_keys)
        self.buf, self.first_keys, self.offsets = buf, first_keys, offsets

    def _check_offsets(self, offsets):
        """The blocks follow one another from 4096 to ``index_offset``, each
        of 9 to ``max_block_size`` bytes, the largest of exactly that size."""
        if offsets[0] != HEADER_SIZE:
            raise BadFile(f"index: the first block starts at {offsets[0]}, "
                          f"not {HEADER_SIZE}")
        ends = offsets[1:]
        ends.append(self.index_offset)
        sizes = [end - start for start, end in zip(offsets, ends)]
        smallest, largest = min(sizes), max(sizes)
        if smallest < MIN_BLOCK_SIZE:
            block = sizes.index(smallest)
            raise BadFile(f"index: block {block} at {offsets[block]} has "
                          f"{smallest} bytes (offsets must ascend by at least "
                          f"{MIN_BLOCK_SIZE} up to index_offset)")
        if largest > self.max_block_size:
            block = sizes.index(largest)
            raise BadFile(f"index: block {block} has {largest} bytes, more "
                          f"than max_block_size {self.max_block_size}")
        if largest != self.max_block_size:
            raise BadFile(f"max_block_size {self.max_block_size} is not the "
                          f"size of the largest block ({largest})")

    def _check_first_keys(self, first_keys):
        """The first keys ascend strictly and fit in ``key_bits`` bits."""
        for block in range(1, len(first_keys)):
            if first_keys[block] <= first_keys[block - 1]:
                raise BadFile(f"index: the first key of block {block} is not "
                              "above the previous block's")
        if first_keys[-1] >> self.key_bits:
            raise BadFile("index: a first key does not fit in key_bits")

    def check_dense_keys(self, game):
        """Dense records: ``entry_count`` is the number of canonical keys of
        ``game`` and every first key is canonical, the first one key 0."""
        canonical = game.canonical_count()
        if self.entry_count != canonical:
            raise BadFile(f"entry_count {self.entry_count} is not the "
                          f"{canonical} canonical keys of the board")
        if self.block_count and self.first_keys[0] != 0:
            raise BadFile("index: the first block does not start at key 0")
        for block, key in enumerate(self.first_keys):
            if game.canonical_key(key) != key:
                raise BadFile(f"index: the first key of block {block} is not "
                              "canonical")
        self.game = game

    # -- lookups -------------------------------------------------------------

    def sorted_record(self, key):
        """The record of ``key`` (sorted records), or None if absent."""
        block = bisect.bisect_right(self.first_keys, key) - 1
        if block < 0:
            return None
        keys, nets, remotenesses = self._block(block)
        i = bisect.bisect_left(keys, key)
        if i == len(keys) or keys[i] != key:
            return None
        return (key << self.key_shift | nets[i] << self.value_shift
                | remotenesses[i])

    def dense_entry(self, key):
        """The entry byte of the canonical ``key`` (dense records)."""
        block = bisect.bisect_right(self.first_keys, key) - 1
        flags, entries = self._block(block)
        offset = key - self.first_keys[block]
        if not flags[offset]:
            raise ValueError(f"key {key:#x} is not canonical")
        return entries[flags.count(1, 0, offset)]

    # -- blocks --------------------------------------------------------------

    def _block(self, block):
        """Block ``block`` decoded, from the cache or checked and inflated."""
        cached = self.cache.pop(block, None)
        if cached is None:
            cached = self._decode(block)
            self.cached_bytes += cached[1]
            while self.cache and (len(self.cache) >= BLOCK_CACHE_BLOCKS or
                                  self.cached_bytes > BLOCK_CACHE_BYTES):
                oldest = next(iter(self.cache))
                self.cached_bytes -= self.cache.pop(oldest)[1]
        self.cache[block] = cached  # the most recently used last
        return cached[0]

    def check_all(self):
        """Check and decode every block, in order (the cache untouched)."""
        for block in range(self.block_count):
            self._decode(block)

    def _corrupted(self, block, why):
        """The error for a block that breaks the rules."""
        return BadFile(f"database is corrupted: block {block} (at byte "
                       f"{self.offsets[block]}): {why}")

    def _entries_in(self, block):
        """Number of entries of ``block``: all but the last are full."""
        if block < self.block_count - 1:
            return self.block_entries
        return self.entry_count - block * self.block_entries

    def _key_end(self, block):
        """Keys of ``block`` are below this: the next block's first key, or
        ``2^key_bits`` for the last block."""
        if block < self.block_count - 1:
            return self.first_keys[block + 1]
        return 1 << self.key_bits

    def _decode(self, block):
        """(decoded block, its size in bytes) of ``block``, checked."""
        start = self.offsets[block]
        end = (self.offsets[block + 1] if block < self.block_count - 1
               else self.index_offset)
        payload = self.buf[start:end - BLOCK_CHECKSUM_SIZE]
        if xxh3_64(payload) != _u64(self.buf, end - BLOCK_CHECKSUM_SIZE):
            raise self._corrupted(block, "checksum mismatch")
        if self.kind == LAYOUT_SORTED:
            decoded = self._decode_sorted(block, payload)
            return decoded, 24 * len(decoded[0])
        decoded = self._decode_dense(block, payload)
        return decoded, len(decoded[0]) + len(decoded[1])

    def _inflate(self, block, payload, limit):
        """The content of ``payload``, a raw DEFLATE stream that must end
        exactly where the payload does and inflate to at most ``limit``
        bytes."""
        inflater = zlib.decompressobj(-15)
        try:
            content = inflater.decompress(payload, limit + 1)
        except zlib.error as e:
            raise self._corrupted(block, f"payload does not inflate ({e})")
        if len(content) > limit:
            raise self._corrupted(block, "content is longer than its "
                                  f"{limit}-byte limit")
        if not inflater.eof:
            raise self._corrupted(block, "the DEFLATE stream does not end "
                                  "within the payload")
        if inflater.unused_data:
            raise self._corrupted(block, "data follows the end of the DEFLATE "
                                  f"stream ({len(inflater.unused_data)} "
                                  "bytes)")
        return content

    def _decode_sorted(self, block, payload):
        """(keys, net fields, remoteness fields) of a sorted block."""
        count = self._entries_in(block)
        net_planes = (self.value_bits + 7) // 8
        rem_planes = (self.rem_bits + 7) // 8
        field_bytes = count * (net_planes + rem_planes)
        content = self._inflate(block, payload,
                                (count - 1) * MAX_LEB128_SIZE + field_bytes)
        keys, offset = self._read_keys(block, content, count)
        if len(content) != offset + field_bytes:
            raise self._corrupted(block, f"content is {len(content)} bytes, "
                                  f"its {count} entries take "
                                  f"{offset + field_bytes}")
        nets = _planes(content, offset, count, net_planes)
        remotenesses = _planes(content, offset + count * net_planes, count,
                               rem_planes)
        if max(nets) >> self.value_bits or max(remotenesses) >> self.rem_bits:
            raise self._corrupted(block, "a field is wider than its width")
        return keys, nets, remotenesses

    def _read_keys(self, block, content, count):
        """The ``count`` keys of a sorted block from its first key and the
        LEB128 key steps at the start of ``content``, and where the steps
        end."""
        key = self.first_keys[block]
        keys = [key]
        offset = 0
        try:
            for _ in range(count - 1):
                step = shift = 0
                while True:
                    byte = content[offset]
                    offset += 1
                    step |= (byte & 0x7F) << shift
                    if byte < 0x80:
                        if byte == 0 and shift:
                            raise self._corrupted(block, "a key step is not "
                                                  "in its shortest form")
                        break
                    shift += 7
                    if shift == 7 * MAX_LEB128_SIZE:
                        raise self._corrupted(block, "a key step has more "
                                              f"than {MAX_LEB128_SIZE} bytes")
                if step == 0 or step >> 64:
                    raise self._corrupted(block, f"key step {step} is not "
                                          "from 1 to 2^64 - 1")
                key += step
                keys.append(key)
        except IndexError:
            raise self._corrupted(block, "the key steps run past the content")
        if key >= self._key_end(block):
            raise self._corrupted(block, "the last key is not below the next "
                                  "block's first key (or 2^key_bits)")
        return array.array("Q", keys), offset

    def _decode_dense(self, block, payload):
        """(canonical flags of the keys from the block's first key on, the
        entries) of a dense block."""
        count = self._entries_in(block)
        entries = self._inflate(block, payload, count)
        if len(entries) != count:
            raise self._corrupted(block, f"content is {len(entries)} bytes, "
                                  f"not its {count} entries")
        return self._canonical_range(block, count), entries

    def _canonical_range(self, block, count):
        """One byte per key from the block's first key to the next block's:
        1 where the key is canonical. There must be ``count`` of them."""
        first, end = self.first_keys[block], self._key_end(block)
        parts = []
        found = 0
        for part in self.game.canonical_ranges(first, end):
            found += part.count(1)
            if found > count:
                break
            parts.append(part)
        if found != count:
            keys = f"more than {count}" if found > count else str(found)
            raise self._corrupted(block, f"it holds {count} entries, but "
                                  f"{keys} canonical keys lie from its first "
                                  "key to the next block's")
        return b"".join(parts)


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
        """The side to move's final score from the stored ``net`` of
        ``pos``: its pieces minus its opponent's at the end."""
        xmask, omask, side = pos
        material = bin(xmask).count("1") - bin(omask).count("1")
        return (material if side == X else -material) + net

    def move_name(self, move):
        """A move as ``query`` names it: the cell's coordinate (column
        letter from ``a``, row number from 1 at the top), or ``pass``."""
        if move == "pass":
            return move
        row, col = divmod(move, self.n)
        return f"{chr(ord('a') + col)}{row + 1}"

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
# DotsAndBoxes.canonical_ranges works on runs of 2^CANONICAL_RUN_BITS keys,
# and maps the top byte of a field to 1 when it holds only the guard bit.
CANONICAL_RUN_BITS = 12
GUARD_TO_FLAG = bytes(int(b == 0x80) for b in range(256))
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
        self.key_bytes = (self.edges + 7) // 8
        self._images = None  # per-byte image tables, built when first needed
        self._runs = None  # the tables of canonical_ranges, likewise

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

    # -- symmetries (a packed file stores canonical keys only) ----------------

    def symmetries(self):
        """The board's symmetries as edge permutations, the identity first:
        mirroring (``c' = C-c``), flipping (``r' = R-r``) and, on a square
        board, transposing, in every combination, acting on the dots; an
        edge maps to the edge between the images of its dots."""
        rows, cols = self.rows, self.cols
        dots = [((r, c), (r, c + 1))
                for r in range(rows + 1) for c in range(cols)]
        dots += [((r, c), (r + 1, c))
                 for r in range(rows) for c in range(cols + 1)]
        edge_of = {frozenset(pair): edge for edge, pair in enumerate(dots)}
        perms = []
        for transpose in (False, True) if rows == cols else (False,):
            for flip in (False, True):
                for mirror in (False, True):
                    def image(dot, transpose=transpose, flip=flip,
                              mirror=mirror):
                        r, c = dot
                        if mirror:
                            c = cols - c
                        if flip:
                            r = rows - r
                        return (c, r) if transpose else (r, c)
                    perms.append([edge_of[frozenset(map(image, pair))]
                                  for pair in dots])
        return perms

    def _image_tables(self):
        """Per symmetry and key byte, the images of the 256 byte values
        (``tables[s][i][v]``): the image of a key under symmetry ``s`` is the
        OR, or equally the sum, of ``tables[s][i]`` of its bytes."""
        if self._images is None:
            self._images = []
            for perm in self.symmetries():
                per_byte = []
                for i in range(self.key_bytes):
                    table = [0] * 256
                    for value in range(1, 256):
                        low = value & -value
                        edge = 8 * i + low.bit_length() - 1
                        bit = 1 << perm[edge] if edge < self.edges else 0
                        table[value] = table[value ^ low] | bit
                    per_byte.append(table)
                self._images.append(per_byte)
        return self._images

    @staticmethod
    def _image(tables, key):
        """The image of ``key`` under the symmetry of ``tables``."""
        return sum(table[key >> 8 * i & 0xFF]
                   for i, table in enumerate(tables))

    def canonical_key(self, key):
        """The smallest image of ``key`` under the board's symmetries."""
        key_bytes = [key >> 8 * i & 0xFF for i in range(self.key_bytes)]
        return min(sum(table[byte] for table, byte in zip(tables, key_bytes))
                   for tables in self._image_tables())

    def _range_tables(self):
        """What :meth:`canonical_ranges` needs: the bits of a run, the width
        of a field, for each symmetry but the identity the fields
        ``guard + image(low) - low`` of every ``low`` below ``2^run_bits``
        as one int, and the int whose fields are all 1."""
        if self._runs is None:
            run_bits = min(CANONICAL_RUN_BITS, self.edges)
            width = self.key_bytes + 1
            guard = 1 << (8 * width - 1)
            differences = []
            for tables in self._image_tables()[1:]:
                fields = b"".join(
                    (guard + self._image(tables, low) - low).to_bytes(
                        width, "little")
                    for low in range(1 << run_bits))
                differences.append(int.from_bytes(fields, "little"))
            one = b"\x01" + bytes(width - 1)
            ones = int.from_bytes(one * (1 << run_bits), "little")
            self._runs = run_bits, width, differences, ones
        return self._runs

    def canonical_ranges(self, start, stop):
        """For the keys from ``start`` to ``stop`` (excluded), one byte per
        key, 1 where the key is canonical (no image is smaller), else 0; in
        pieces, one per run of ``2^run_bits`` keys with the same high bits.

        The keys of a run are the fields of one big integer, ``key_bytes + 1``
        bytes each, whose top bit is a guard. A symmetry maps a key's high
        bits and its low ``run_bits`` bits to disjoint bits, so
        ``guard + image(key) - key`` is ``guard + image(low) - low`` (made
        once for every low part) plus ``image(high) - high`` (the same for
        the whole run). Every field stays between 0 and ``2^(8 width)``, so no
        field borrows from the next, and a field keeps its guard bit exactly
        when the image is at least the key: a key is canonical when it keeps
        it for every symmetry.
        """
        run_bits, width, differences, ones = self._range_tables()
        run = 1 << run_bits
        guards = ones << (8 * width - 1)
        symmetries = self._image_tables()[1:]
        for high in range(start >> run_bits << run_bits, stop, run):
            canonical = guards
            for tables, difference in zip(symmetries, differences):
                shift = self._image(tables, high) - high
                canonical &= difference + shift * ones
            canonical &= guards
            fields = canonical.to_bytes(width * run, "little")
            flags = fields[width - 1::width].translate(GUARD_TO_FLAG)
            yield flags[max(start - high, 0):stop - high]

    def canonical_count(self):
        """Number of canonical keys, one per orbit of the symmetries: by
        Burnside's lemma, the average over the symmetries of the keys each
        one fixes (2 to the number of its cycles on the edges)."""
        perms = self.symmetries()
        total = 0
        for perm in perms:
            seen, cycles = set(), 0
            for edge in range(self.edges):
                if edge not in seen:
                    cycles += 1
                    while edge not in seen:
                        seen.add(edge)
                        edge = perm[edge]
            total += 1 << cycles
        return total // len(perms)

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
            answer["final_for_first"] = lead + (net if side == A else -net)
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
        # The child's value is its side to move's, the mover's opponent.
        moves.append({"move": game.move_name(move), "value": -child_value,
                      "remoteness": child_remoteness})
    return {"position": game.notation(pos), "to_move": SIDES[pos[2]],
            "value": value, "remoteness": remoteness, "moves": moves}


def main(argv=None):
    """Command-line entry point; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dbfile")
    parser.add_argument("positions", metavar="POSITION", nargs="*")
    parser.add_argument("--verify", action="store_true",
                        help="check every block of a packed file first")
    args = parser.parse_args(argv)
    if not args.positions and not args.verify:
        parser.error("give positions, or --verify")
    try:
        db = Database(args.dbfile)
        if args.verify and db.packed is not None:
            db.packed.check_all()
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
