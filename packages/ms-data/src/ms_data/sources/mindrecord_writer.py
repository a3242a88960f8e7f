"""Writing MindRecord 3.0 files that MindSpore's ``MindDataset`` reads (the layout is in
``ms_data.sources.mindrecord``): ``FileWriter(..., file_format="mindrecord")``.

Each shard gets its JSON header, its blob pages, then its raw pages (MessagePack maps of
the scalar fields), and the SQLite index ``<shard>.db`` MindSpore's reader looks rows up
in (every scalar field is an index field, as MindSpore's writer makes them by default).
Integer arrays are stored compressed, as MindSpore stores them.
"""

from __future__ import annotations

import json
import os
import sqlite3
import struct

import numpy as np

__all__ = ["write_mindrecord_shard", "packb"]

HEADER_SIZE = 1 << 14  # MindSpore's smallest header region and page (its limits)
MIN_PAGE = 1 << 15
_SQL_TYPE = {"string": "TEXT", "int32": "INTEGER", "int64": "INTEGER", "float32": "REAL",
             "float64": "REAL"}


def packb(obj) -> bytes:
    """MessagePack of a dict of str/int/float/bool/None (what a raw page row holds)."""
    if obj is None or isinstance(obj, bool):
        return {None: b"\xc0", False: b"\xc2", True: b"\xc3"}[obj]
    if isinstance(obj, (int, np.integer)):
        v = int(obj)
        if 0 <= v <= 0x7F or -32 <= v < 0:
            return struct.pack("b" if v < 0 else "B", v)
        return b"\xd3" + struct.pack(">q", v)
    if isinstance(obj, (float, np.floating)):
        return b"\xcb" + struct.pack(">d", float(obj))
    if isinstance(obj, str):
        raw = obj.encode("utf-8")
        head = bytes([0xA0 | len(raw)]) if len(raw) < 32 else b"\xdb" + struct.pack(">I",
                                                                                  len(raw))
        return head + raw
    if isinstance(obj, dict):
        head = bytes([0x80 | len(obj)]) if len(obj) < 16 else b"\xdf" + struct.pack(">I",
                                                                                  len(obj))
        return head + b"".join(packb(k) + packb(v) for k, v in obj.items())
    raise TypeError(f"MindRecord raw field value {obj!r} is not a scalar")


def _compress_ints(values: np.ndarray) -> bytes:
    flat = [int(v) for v in values.ravel()]
    codes, body = bytearray((2 * len(flat) + 7) // 8), b""
    for i, v in enumerate(flat):
        code = next(c for c, w in enumerate((1, 2, 4, 8))
                    if -(1 << (8 * w - 1)) <= v < 1 << (8 * w - 1))
        codes[i // 4] |= code << (6 - 2 * (i % 4))
        body += v.to_bytes(1 << code, "little", signed=True)
    return struct.pack(">I", len(flat)) + bytes(codes) + body


def _blob(value, spec: dict) -> bytes:
    if spec["type"] == "bytes":
        return bytes(value)
    arr = np.asarray(value, dtype=spec["type"])
    if spec["type"] in ("int32", "int64"):
        return _compress_ints(arr)
    return arr.astype(arr.dtype.newbyteorder("<")).tobytes()


def _pages(entries: list[bytes], page_size: int) -> list[list[bytes]]:
    pages: list[list[bytes]] = []
    used = page_size
    for e in entries:
        if used + len(e) > page_size:
            pages.append([])
            used = 0
        pages[-1].append(e)
        used += len(e)
    return pages


def write_mindrecord_shard(path: str, shard_id: int, shard_names: list[str], schema: dict,
                           desc: str, rows: list[dict]) -> None:
    """Write one shard (``path`` and ``path + ".db"``) holding ``rows``."""
    blob_fields = [n for n, s in schema.items() if s["type"] == "bytes" or "shape" in s]
    scalars = [n for n in schema if n not in blob_fields]
    blobs = [b"".join(struct.pack(">Q", len(b)) + b for b in
                      (_blob(row[n], schema[n]) for n in blob_fields)) for row in rows]
    blobs = [struct.pack("<Q", len(b)) + b for b in blobs] if blob_fields else []
    raws = [packb({n: row[n] for n in scalars}) for row in rows]
    raws = [struct.pack("<Q", len(r)) + r for r in raws]
    page_size = MIN_PAGE
    while page_size < max([len(e) for e in blobs + raws] + [0]):
        page_size *= 2
    blob_pages, raw_pages = _pages(blobs, page_size), _pages(raws, page_size)
    pages, index = [], [[i, 0, 0, 0, 0, 0, 0, 0] for i in range(len(rows))]
    row = 0
    for k, page in enumerate(blob_pages):
        offset = 0
        for e in page:
            index[row][4:8] = [k, len(pages), offset, offset + len(e)]
            offset, row = offset + len(e), row + 1
        pages.append({"end_row_id": row, "page_id": len(pages), "page_size": offset,
                      "page_type": "BLOB_DATA", "page_type_id": k,
                      "row_group_ids": [{"id": k, "offset": 0}], "shard_id": shard_id,
                      "start_row_id": row - len(page)})
    row = 0
    for k, page in enumerate(raw_pages):
        offset = 0
        for e in page:
            index[row][1:4] = [len(pages), offset, offset + len(e)]
            offset, row = offset + len(e), row + 1
        pages.append({"end_row_id": 0, "page_id": len(pages), "page_size": offset,
                      "page_type": "RAW_DATA", "page_type_id": k,
                      "row_group_ids": [{"id": k, "offset": 0}], "shard_id": shard_id,
                      "start_row_id": 0})
    header = {"header_size": HEADER_SIZE,
              "index_fields": [{"index_field": n, "schema_id": 0} for n in scalars],
              "page": pages, "page_size": page_size, "compression_size": 0,
              "schema": [{"blob_fields": blob_fields, "desc": desc, "schema": schema}],
              "shard_addresses": shard_names, "shard_id": shard_id, "statistics": None,
              "version": "3.0"}
    text = json.dumps(header, separators=(",", ":")).encode()  # MindSpore's key order
    if len(text) + 8 > HEADER_SIZE:
        raise ValueError(f"FileWriter: the MindRecord header of {path} needs {len(text) + 8} "
                         f"bytes, more than {HEADER_SIZE}; write fewer rows per shard")
    contents = blob_pages + raw_pages
    with open(path, "wb") as f:
        f.write((struct.pack("<Q", len(text)) + text).ljust(HEADER_SIZE, b"\0"))
        for i, page in enumerate(contents):
            data = b"".join(page)
            f.write(data if i == len(contents) - 1 else data.ljust(page_size, b"\0"))
    _write_index(path + ".db", os.path.basename(path), schema, scalars, rows, index)


def _write_index(db_path: str, name: str, schema, scalars, rows, index) -> None:
    if os.path.exists(db_path):
        os.remove(db_path)
    cols = "".join(f",INC_{i} INT, {n}_0 {_SQL_TYPE[schema[n]['type']]}"
                   for i, n in enumerate(scalars))
    key = "".join(f",INC_{i}" for i in range(len(scalars)))
    con = sqlite3.connect(db_path)
    try:
        con.execute("CREATE TABLE INDEXES(  ROW_ID INT NOT NULL, PAGE_ID_RAW INT NOT NULL, "
                    "PAGE_OFFSET_RAW INT NOT NULL, PAGE_OFFSET_RAW_END INT NOT NULL, "
                    "ROW_GROUP_ID INT NOT NULL, PAGE_ID_BLOB INT NOT NULL, "
                    "PAGE_OFFSET_BLOB INT NOT NULL, PAGE_OFFSET_BLOB_END INT NOT NULL"
                    f"{cols}, PRIMARY KEY(ROW_ID{key}))")
        con.execute("CREATE TABLE SHARD_NAME(NAME TEXT NOT NULL)")
        con.execute("INSERT INTO SHARD_NAME VALUES (?)", (name,))
        marks = ",".join("?" * (8 + 2 * len(scalars)))
        con.executemany(f"INSERT INTO INDEXES VALUES ({marks})", [
            (*ix, *[x for n in scalars for x in (0, _sql_value(row[n]))])
            for ix, row in zip(index, rows)])
        con.commit()
    finally:
        con.close()


def _sql_value(v):
    if isinstance(v, (np.integer, np.floating)):
        return v.item()
    return v
