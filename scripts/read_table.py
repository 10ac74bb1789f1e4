#!/usr/bin/env python3
"""Read an antipode table file with nothing but the Python standard library.

Usage: read_table.py [--verify] TABLE|FOLDER [INDEX...]
The file is mapped, not read: only the header and the entries asked for are touched,
so one index of a 10 GB table is answered in milliseconds. In a table of format 3
the 1 MiB block that holds an entry is checked against its CRC-32 before the entry is
printed; --verify also checks the payload's CRC-32, which reads all of it.
Prints the header as JSON, then for each INDEX the stored entry: the exact distance for
8-bit tables, the distance mod 3 for 2-bit tables ("-" if unreachable); for a pattern
database (kind 1), INDEX is a placement's rank and the entry is its distance ("-" for
a placement that no solvable position has).
A table in shards (the FOLDER an MPI run wrote, or its manifest.toml) prints its
manifest, and each INDEX is read from the shard whose range holds it.
The format is documented in tables/README.md.
"""
import argparse
import json
import mmap
import os
import pathlib
import struct
import sys
import zlib

HEADER_BYTES = 4096


def read_header(data):
    if data[:8] != b"ANTIPODE":
        raise ValueError("not an antipode table")
    version, header_size = struct.unpack_from("<II", data, 8)
    if version not in (1, 2, 3) or header_size != HEADER_BYTES:
        raise ValueError(f"unsupported version {version}")
    stored_crc = struct.unpack_from("<Q", data, 176)[0]
    block = bytearray(data[:HEADER_BYTES])
    block[176:184] = bytes(8)
    if zlib.crc32(block) != stored_crc:
        raise ValueError("header checksum mismatch")
    text = lambda at: data[at:at + 64].split(b"\0")[0].decode()
    indices, bits, complete = struct.unpack_from("<QBB", data, 144)
    levels, payload_bytes, payload_crc = struct.unpack_from("<IQQ", data, 156)
    histogram = list(struct.unpack_from(f"<{levels}Q", data, 2048))
    # Version 2: SHA-256 of the puzzle's canonical definition at 184..216.
    digest = data[184:216].hex() if version >= 2 else None
    kind, base = struct.unpack_from("<BB", data, 154)
    tiles = list(data[217:217 + data[216]])
    # The index range the payload covers; zeros (older files) mean the whole table.
    start, end = struct.unpack_from("<QQ", data, 264)
    if (start, end) == (0, 0):
        end = indices
    # Version 3, complete depth tables: blocks of 2^k payload bytes, whose CRC-32s
    # follow the payload (k = 0: none).
    block_log2 = data[280] if version >= 3 else 0
    block_list_crc = struct.unpack_from("<I", data, 284)[0]
    return {
        "block_log2": block_log2,
        "block_list_crc32": block_list_crc,
        "index_range": [start, end],
        "kind": kind,
        "entry_base": base,
        "tiles": tiles,
        "version": version,
        "definition_sha256": digest,
        "puzzle": text(16),
        "goal": text(80),
        "indices": indices,
        "bits": bits,
        "complete": bool(complete),
        "histogram": histogram,
        "payload_bytes": payload_bytes,
        "payload_crc32": payload_crc,
    }


def goal_cells(goal):
    """The board's width and each tile's goal cell, from the goal's one-line form."""
    rows = [row.replace(",", " ").split() for row in goal.split("/")]
    # Boards of at most 9 tiles may be written in bare digits: `123/456/780`.
    rows = [list(row[0]) if len(row) == 1 else row for row in rows]
    cells = {
        int(tile) if tile.isdigit() else 0: at
        for at, tile in enumerate(t for row in rows for t in row)
    }
    return len(rows[0]), cells


def unrank_placement(rank, n, k):
    """The cells of the k pattern tiles on n cells with placement rank `rank`."""
    places = []
    for i in range(k):
        weight = 1
        for m in range(n - k + 1, n - i):
            weight *= m
        digit, rank = divmod(rank, weight)
        free = [c for c in range(n) if c not in places]
        places.append(free[digit])
    return places


def database_entry(data, header, rank):
    """The distance of placement `rank` in a pattern database."""
    if header["bits"] == 4:
        value = (data[HEADER_BYTES + rank // 2] >> (4 * (rank % 2))) & 15
    else:
        value = data[HEADER_BYTES + rank]
    if value == 0:
        return None  # no solvable position has this placement
    distance = value - 1
    if header["entry_base"] == 1:
        cols, home = goal_cells(header["goal"])
        n = len(home)
        places = unrank_placement(rank, n, len(header["tiles"]))
        for tile, at in zip(header["tiles"], places):
            goal = home[tile]
            distance += abs(at // cols - goal // cols) + abs(at % cols - goal % cols)
    return distance


def block_list(data, header):
    """The CRC-32 of every payload block (format 3), checked against the header."""
    if not header["block_log2"]:
        return None
    at = HEADER_BYTES + header["payload_bytes"]
    count = -(-header["payload_bytes"] >> header["block_log2"])
    raw = data[at:at + 4 * count]
    if len(raw) != 4 * count or zlib.crc32(raw) != header["block_list_crc32"]:
        raise ValueError("the list of block checksums is corrupted")
    return list(struct.unpack(f"<{count}I", raw))


def check_block(data, header, blocks, byte):
    """Refuses to read from a payload block that does not match its CRC-32."""
    if blocks is None:
        return
    k = header["block_log2"]
    block = byte >> k
    start = HEADER_BYTES + (block << k)
    end = min(start + (1 << k), HEADER_BYTES + header["payload_bytes"])
    if zlib.crc32(data[start:end]) != blocks[block]:
        raise ValueError(f"block {block} of the payload is corrupted")


def entry(data, header, index):
    """The stored value of entry `index`: depth (8 bits) or depth mod 3 (2 bits), or a
    pattern database's distance."""
    start, end = header["index_range"]
    if not start <= index < end:
        raise ValueError(f"index {index} is outside this file's range {start}..{end}")
    if header["kind"] == 1:
        return database_entry(data, header, index)
    index -= start
    check_block(data, header, block_list(data, header), index * header["bits"] // 8)
    if header["bits"] == 8:
        value = data[HEADER_BYTES + index]
    else:
        value = (data[HEADER_BYTES + index // 4] >> (2 * (index % 4))) & 3
    return None if value == 0 else value - 1


def payload_crc32(data, size):
    """CRC-32 of the payload, read in 16 MiB slices of the mapping."""
    crc = 0
    view = memoryview(data)
    for at in range(HEADER_BYTES, size, 1 << 24):
        crc = zlib.crc32(view[at:min(at + (1 << 24), size)], crc)
    view.release()
    return crc


def open_table(path, verify):
    """A complete table file, mapped, and its header."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        if size < HEADER_BYTES:
            raise ValueError(f"{path}: not an antipode table: shorter than its header")
        data = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    header = read_header(data)
    if not header["complete"]:
        raise ValueError(f"{path}: table is incomplete")
    blocks = 4 * (-(-header["payload_bytes"] >> header["block_log2"])) if header["block_log2"] else 0
    if size != HEADER_BYTES + header["payload_bytes"] + blocks:
        raise ValueError(f"{path}: table is truncated")
    end = HEADER_BYTES + header["payload_bytes"]
    if verify and payload_crc32(data, end) != header["payload_crc32"]:
        raise ValueError(f"{path}: payload checksum mismatch")
    return data, header


def sharded(path, verify, indices):
    """A table in shards: the manifest, then each index from the shard holding it."""
    import tomllib  # Python 3.11

    manifest_path = path / "manifest.toml" if path.is_dir() else path
    manifest = tomllib.loads(manifest_path.read_text())
    if not manifest.get("complete"):
        raise ValueError(f"{manifest_path}: the table is incomplete")
    print(json.dumps(manifest))
    opened = {}
    for index in indices:
        shard = next((s for s in manifest["shards"] if s["start"] <= index < s["end"]), None)
        if shard is None:
            raise ValueError(f"index {index} is outside the table's 0..{manifest['indices']}")
        if shard["file"] not in opened:
            data, header = open_table(manifest_path.parent / shard["file"], verify)
            if header["index_range"] != [shard["start"], shard["end"]] or \
                    header["definition_sha256"] != manifest["definition_sha256"] or \
                    f"{header['payload_crc32']:08x}" != shard["payload_crc32"]:
                raise ValueError(f"{shard['file']}: not the shard the manifest lists")
            opened[shard["file"]] = (data, header)
        data, header = opened[shard["file"]]
        value = entry(data, header, index)
        print(index, "-" if value is None else value)


def main():
    parser = argparse.ArgumentParser(
        prog="read_table.py",
        description="\n".join(line for line in __doc__.splitlines()
                              if not line.startswith("Usage:")),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--verify", action="store_true",
                        help="also check the payload's CRC-32 (reads all of it)")
    parser.add_argument("table", metavar="TABLE|FOLDER",
                        help="a table file, or the folder (or manifest.toml) of a table in shards")
    parser.add_argument("indices", metavar="INDEX", type=int, nargs="*", default=[],
                        help="indices whose stored entries are printed")
    args = parser.parse_args()
    path = pathlib.Path(args.table)
    try:
        if path.is_dir() or path.name == "manifest.toml":
            return sharded(path, args.verify, args.indices)
        data, header = open_table(path, args.verify)
        print(json.dumps(header))
        for index in args.indices:
            value = entry(data, header, index)
            print(index, "-" if value is None else value)
    except (OSError, ValueError, IndexError) as e:
        parser.exit(1, f"read_table.py: error: {e}\n")


if __name__ == "__main__":
    main()
