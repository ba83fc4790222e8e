#!/usr/bin/env python3
"""Test helper: converts a version-1 database into a packed one and back.

Written from format-spec.md (section 3c), apart from the reader it tests:
``pack`` turns a sorted or dense file (format version 1) into a packed file
(format version 2, layout kind 3) with blocks compressed by zlib's raw
DEFLATE; ``unpack`` turns a packed file back into the file that was packed,
byte for byte. Only the XXH3-64 checksum is taken from ``bsq_reader``. The
canonical keys of a dense Dots and Boxes file are found here on their own:
the symmetries act on the edges' midpoints, and each key not yet seen as
an image of a smaller one is canonical.

Usage: python3 pack_for_tests.py [--block-entries N] IN OUT
       python3 pack_for_tests.py --unpack IN OUT
"""

import argparse
import os
import struct
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bsq_reader import xxh3_64  # noqa: E402  (the checksum only)

HEADER_SIZE = 4096
LAYOUT_SORTED, LAYOUT_DENSE, LAYOUT_PACKED = 1, 2, 3
CODEC_DEFLATE = 1
CHECKSUM_SIZE = 8
MIN_BLOCK_SIZE = 9


def _header_fields(header):
    """The header fields the packer needs (the header is trusted: this is a
    test helper, not a reader)."""
    if header[0:8] != b"BSOLVEDB":
        raise ValueError("not a boardsolve database")
    return {
        "version": struct.unpack_from("<I", header, 8)[0],
        "layout": struct.unpack_from("<I", header, 20)[0],
        "variant": header[64:128].rstrip(b"\0").decode("ascii"),
        "fields": tuple(header[128:134]),
        "record_count": struct.unpack_from("<Q", header, 136)[0],
    }


# ---------------------------------------------------------------------------
# Dots and Boxes symmetries, from the edges' midpoints
# ---------------------------------------------------------------------------

def _edge_midpoints(rows, cols):
    """The midpoint of every edge as (row, column) in half-box units (dots
    at even coordinates), in edge-number order: horizontal edges row by row,
    then vertical ones (spec section 5)."""
    mids = [(2 * r, 2 * c + 1) for r in range(rows + 1) for c in range(cols)]
    mids += [(2 * r + 1, 2 * c) for r in range(rows) for c in range(cols + 1)]
    return mids


def edge_permutations(rows, cols):
    """Edge images under the 8 (square) or 4 symmetries of the board."""
    mids = _edge_midpoints(rows, cols)
    number = {m: e for e, m in enumerate(mids)}
    maps = []
    for swap in (False, True) if rows == cols else (False,):
        for flip_rows in (False, True):
            for flip_cols in (False, True):
                perm = []
                for y, x in mids:
                    if flip_rows:
                        y = 2 * rows - y
                    if flip_cols:
                        x = 2 * cols - x
                    if swap:
                        y, x = x, y
                    perm.append(number[(y, x)])
                maps.append(perm)
    return maps


def _image_functions(perms, edges):
    """For each symmetry, tables of 12-bit chunks whose OR is the image."""
    result = []
    for perm in perms:
        tables = []
        for low in range(0, edges, 12):
            table = []
            for value in range(1 << min(12, edges - low)):
                image = 0
                for i in range(min(12, edges - low)):
                    if value >> i & 1:
                        image |= 1 << perm[low + i]
                table.append(image)
            tables.append(table)
        result.append(tables)
    return result


def dense_orbits(rows, cols):
    """Each orbit of the keys of an ``RxC`` board as (its canonical key, the
    set of its keys), in ascending order of canonical keys: going up from 0,
    a key not yet seen as the image of a smaller one is canonical."""
    edges = (rows + 1) * cols + rows * (cols + 1)
    functions = _image_functions(edge_permutations(rows, cols), edges)
    seen = bytearray(1 << edges)
    key = 0
    while True:
        key = seen.find(0, key)
        if key < 0:
            return
        images = set()
        for tables in functions:
            image = 0
            for i, table in enumerate(tables):
                image |= table[key >> (12 * i) & 0xFFF]
            images.add(image)
            seen[image] = 1
        yield key, images
        key += 1


def dense_canonical_keys(rows, cols, entries):
    """The canonical keys of an ``RxC`` board in ascending order, checking
    that the dense ``entries`` of each orbit are equal."""
    canonical = []
    for key, images in dense_orbits(rows, cols):
        for image in images:
            if entries[image] != entries[key]:
                raise ValueError(f"keys {key} and {image} are symmetric but "
                                 "have different entries")
        canonical.append(key)
    return canonical


def _board(variant):
    """(rows, cols) of a Dots and Boxes ``RxC`` spec."""
    rows, cols = variant.split("x")
    return int(rows), int(cols)


# ---------------------------------------------------------------------------
# Packing
# ---------------------------------------------------------------------------

def _leb128(value):
    """Unsigned LEB128 encoding of ``value``."""
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def _planes(values, planes):
    """``values`` as ``planes`` byte planes, the lowest byte first."""
    return b"".join(bytes((v >> (8 * p)) & 0xFF for v in values)
                    for p in range(planes))


def _sorted_contents(records, fields, block_entries):
    """(first key, content) of each block of sorted records."""
    key_shift, _, value_shift, value_bits, _, rem_bits = fields
    for start in range(0, len(records), block_entries):
        chunk = records[start:start + block_entries]
        keys = [r >> key_shift for r in chunk]
        nets = [(r >> value_shift) & ((1 << value_bits) - 1) for r in chunk]
        rems = [r & ((1 << rem_bits) - 1) for r in chunk]
        steps = b"".join(_leb128(b - a) for a, b in zip(keys, keys[1:]))
        content = (steps + _planes(nets, (value_bits + 7) // 8)
                   + _planes(rems, (rem_bits + 7) // 8))
        yield keys[0], content


def _dense_contents(entries, canonical, block_entries):
    """(first key, content) of each block of dense entries."""
    for start in range(0, len(canonical), block_entries):
        keys = canonical[start:start + block_entries]
        yield keys[0], bytes(entries[k] for k in keys)


def compress(content):
    """The block for ``content``: raw DEFLATE payload and its XXH3-64."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    payload = compressor.compress(content) + compressor.flush()
    return payload + struct.pack("<Q", xxh3_64(payload))


def join(header, blocks):
    """The bytes of a packed file: ``header`` (its packed_kind, codec,
    block_entries and entry_count already set) followed by ``blocks``, a list
    of (first key, block bytes), and their index; block_count,
    max_block_size, index_offset, the index checksum and the header checksum
    are computed here."""
    header = bytearray(header)
    index = bytearray()
    offset = HEADER_SIZE
    for first_key, block in blocks:
        index += struct.pack("<QQ", first_key, offset)
        offset += len(block)
    largest = max((len(block) for _, block in blocks),
                  default=MIN_BLOCK_SIZE)  # no blocks: the smallest allowed
    struct.pack_into("<I", header, 220, largest)
    struct.pack_into("<QQQ", header, 232, len(blocks), offset,
                     xxh3_64(bytes(index)))
    return bytes(reseal(header)) + b"".join(b for _, b in blocks) + index


def split(data):
    """(header, blocks) of the packed file ``data``, as ``join`` takes them:
    blocks as a list of (first key, block bytes)."""
    block_count, index_offset = struct.unpack_from("<QQ", data, 232)
    index = [struct.unpack_from("<QQ", data, index_offset + 16 * b)
             for b in range(block_count)]
    ends = [offset for _, offset in index[1:]] + [index_offset]
    blocks = [(first_key, data[offset:end])
              for (first_key, offset), end in zip(index, ends)]
    return bytearray(data[:HEADER_SIZE]), blocks


def reseal(header):
    """``header`` (a bytearray, or a whole file) with its header checksum
    recomputed."""
    header[4088:4096] = struct.pack("<Q", xxh3_64(bytes(header[:4088])))
    return header


def pack(in_path, out_path, block_entries=4096):
    """Write the packed form of the version-1 file ``in_path`` to
    ``out_path``; returns a summary (entries, blocks, sizes)."""
    with open(in_path, "rb") as f:
        data = f.read()
    header = bytearray(data[:HEADER_SIZE])
    info = _header_fields(header)
    if info["version"] != 1 or info["layout"] not in (LAYOUT_SORTED,
                                                       LAYOUT_DENSE):
        raise ValueError("only version-1 sorted and dense files are packed")
    body = data[HEADER_SIZE:]
    if info["layout"] == LAYOUT_SORTED:
        records = list(struct.unpack(f"<{len(body) // 8}Q", body))
        contents = _sorted_contents(records, info["fields"], block_entries)
        entry_count = len(records)
    else:
        canonical = dense_canonical_keys(*_board(info["variant"]), body)
        contents = _dense_contents(body, canonical, block_entries)
        entry_count = len(canonical)
    blocks = [(first_key, compress(content))
              for first_key, content in contents]
    header[8:12] = struct.pack("<I", 2)
    header[20:24] = struct.pack("<I", LAYOUT_PACKED)
    struct.pack_into("<III", header, 208, info["layout"], CODEC_DEFLATE,
                     block_entries)
    struct.pack_into("<Q", header, 224, entry_count)
    packed = join(header, blocks)
    with open(out_path, "wb") as f:
        f.write(packed)
    return {"entries": entry_count, "blocks": len(blocks),
            "unpacked": len(data), "packed": len(packed)}


def unpack(in_path, out_path):
    """Write the version-1 file that the packed file ``in_path`` holds."""
    with open(in_path, "rb") as f:
        data = f.read()
    header, blocks = split(data)
    info = _header_fields(header)
    kind, _, block_entries = struct.unpack_from("<III", header, 208)
    entry_count = struct.unpack_from("<Q", header, 224)[0]
    key_shift, _, value_shift, value_bits, _, rem_bits = info["fields"]
    contents = []
    for b, (first_key, block) in enumerate(blocks):
        content = zlib.decompressobj(-15).decompress(block[:-CHECKSUM_SIZE])
        n = min(block_entries, entry_count - b * block_entries)
        contents.append((first_key, n, content))
    if kind == LAYOUT_SORTED:
        body = bytearray()
        for first_key, n, content in contents:
            keys, pos, key = [first_key], 0, first_key
            for _ in range(n - 1):
                step = shift = 0
                while True:
                    byte = content[pos]
                    pos += 1
                    step |= (byte & 0x7F) << shift
                    shift += 7
                    if byte < 0x80:
                        break
                key += step
                keys.append(key)
            net_planes = (value_bits + 7) // 8
            for j, key in enumerate(keys):
                net = sum(content[pos + p * n + j] << (8 * p)
                          for p in range(net_planes))
                rem = sum(content[pos + (net_planes + p) * n + j] << (8 * p)
                          for p in range((rem_bits + 7) // 8))
                body += struct.pack("<Q", key << key_shift
                                    | net << value_shift | rem)
    else:
        canonical_entries = b"".join(content for _, _, content in contents)
        body = bytearray(info["record_count"])
        orbits = dense_orbits(*_board(info["variant"]))
        for entry, (_, images) in zip(canonical_entries, orbits):
            for image in images:
                body[image] = entry
    header[8:12] = struct.pack("<I", 1)
    header[20:24] = struct.pack("<I", kind)
    header[208:4088] = bytes(4088 - 208)
    with open(out_path, "wb") as f:
        f.write(reseal(header))
        f.write(body)


def main(argv=None):
    """Command-line entry point."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--block-entries", type=int, default=4096)
    parser.add_argument("--unpack", action="store_true")
    parser.add_argument("input")
    parser.add_argument("output")
    args = parser.parse_args(argv)
    if args.unpack:
        unpack(args.input, args.output)
    else:
        print(pack(args.input, args.output, args.block_entries))
    return 0


if __name__ == "__main__":
    sys.exit(main())
