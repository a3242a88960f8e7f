"""Reading MindSpore's own MindRecord files (written by ``mindspore.mindrecord.FileWriter``).

The layout (MindRecord 3.0, read from files MindSpore 2.10 writes): a ``uint64`` (LE)
length and the JSON header (schema, blob fields, the pages, the sibling shards'
names) in a region of ``header_size`` bytes, then pages of ``page_size`` bytes, page ``p``
at ``header_size + p * page_size``. A ``RAW_DATA`` page holds one entry per row: a
``uint64`` (LE) length and a MessagePack map of the row's scalar fields; a ``BLOB_DATA``
page one entry per row: a ``uint64`` (LE) length, then per blob field (the schema's
``blob_fields``, in order) a ``uint64`` (BE) length and its bytes (floats little-endian;
int32/int64 arrays compressed to 1, 2, 4 or 8 bytes a value, ``_compressed_ints``). The
SQLite ``.db`` beside it is an index this reader does not need.

Rows come out as MindSpore's ``MindDataset`` gives them: columns in name order, scalars as
numpy scalars of the schema type, strings as ``str``, ``bytes`` fields as a ``(1,)`` bytes
array, shaped fields as arrays of their shape.
"""

from __future__ import annotations

import json
import os
import struct

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import UnionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources._once import Once
from ms_data.sources.base import MappableSource

__all__ = ["is_mindrecord", "read_mindrecord_header", "read_mindrecord_rows",
           "MindRecordDataset"]

_NUMPY = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}


def is_mindrecord(path: str) -> bool:
    """Whether ``path`` starts like a MindRecord file (a length, then a JSON header with
    ``"header_size"`` and ``"shard_addresses"``)."""
    try:
        with open(path, "rb") as f:
            head = f.read(8)
            n = struct.unpack("<Q", head)[0] if len(head) == 8 else 0
            text = f.read(n) if 2 < n < 1 << 24 else b""
    except OSError:
        return False
    return text[:2] == b'{"' and b'"header_size"' in text and b'"shard_addresses"' in text


def read_mindrecord_header(path: str) -> dict:
    with open(path, "rb") as f:
        (n,) = struct.unpack("<Q", f.read(8))
        raw = f.read(n)
    try:
        return json.loads(raw.rstrip(b"\0"))
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise DatasetError(f"MindDataset: {path}: the MindRecord header is not JSON: "
                           f"{e}") from None


def _unpack(buf, pos: int):
    """One MessagePack value at ``pos``: ``(value, next position)`` (maps, arrays, str,
    bin, ints, floats, bool, nil: what MindRecord's raw pages hold)."""
    b = buf[pos]
    pos += 1
    if b <= 0x7F:
        return b, pos
    if b >= 0xE0:
        return b - 0x100, pos
    if 0x80 <= b <= 0x8F or b in (0xDE, 0xDF):
        if b <= 0x8F:
            n = b & 0x0F
        else:
            size = 2 if b == 0xDE else 4
            n, pos = int.from_bytes(buf[pos:pos + size], "big"), pos + size
        out = {}
        for _ in range(n):
            k, pos = _unpack(buf, pos)
            out[k], pos = _unpack(buf, pos)
        return out, pos
    if 0x90 <= b <= 0x9F or b in (0xDC, 0xDD):
        if b <= 0x9F:
            n = b & 0x0F
        else:
            size = 2 if b == 0xDC else 4
            n, pos = int.from_bytes(buf[pos:pos + size], "big"), pos + size
        items = []
        for _ in range(n):
            v, pos = _unpack(buf, pos)
            items.append(v)
        return items, pos
    if 0xA0 <= b <= 0xBF or b in (0xD9, 0xDA, 0xDB, 0xC4, 0xC5, 0xC6):
        if b <= 0xBF:
            n = b & 0x1F
        else:
            size = {0xD9: 1, 0xDA: 2, 0xDB: 4, 0xC4: 1, 0xC5: 2, 0xC6: 4}[b]
            n, pos = int.from_bytes(buf[pos:pos + size], "big"), pos + size
        raw = bytes(buf[pos:pos + n])
        return (raw if b in (0xC4, 0xC5, 0xC6) else raw.decode("utf-8")), pos + n
    fixed = {0xCA: ">f", 0xCB: ">d", 0xCC: ">B", 0xCD: ">H", 0xCE: ">I", 0xCF: ">Q",
             0xD0: ">b", 0xD1: ">h", 0xD2: ">i", 0xD3: ">q"}
    if b in fixed:
        size = struct.calcsize(fixed[b])
        return struct.unpack(fixed[b], bytes(buf[pos:pos + size]))[0], pos + size
    if b in (0xC0, 0xC2, 0xC3):
        return {0xC0: None, 0xC2: False, 0xC3: True}[b], pos
    raise DatasetError(f"MessagePack type 0x{b:02x} is not one MindRecord writes")


def _entries(buf, start: int, size: int):
    """The length-prefixed entries of one page."""
    pos, end = start, start + size
    while pos < end:
        (n,) = struct.unpack("<Q", buf[pos:pos + 8])
        yield buf[pos + 8:pos + 8 + n]
        pos += 8 + n


def _blob_fields(entry, fields: list[str]) -> dict:
    out, pos = {}, 0
    for name in fields:
        (n,) = struct.unpack(">Q", entry[pos:pos + 8])
        out[name], pos = bytes(entry[pos + 8:pos + 8 + n]), pos + 8 + n
    return out


def read_mindrecord_rows(path: str, header: dict | None = None) -> list[dict]:
    """Every row of one MindRecord shard, as ``{field: raw value}``."""
    header = read_mindrecord_header(path) if header is None else header
    blob_fields = header["schema"][0].get("blob_fields", [])
    with open(path, "rb") as f:
        buf = memoryview(f.read())
    raws, blobs = [], []
    for page in sorted(header["page"], key=lambda p: p["page_id"]):
        start = header["header_size"] + page["page_id"] * header["page_size"]
        if start + page["page_size"] > len(buf):
            raise DatasetError(f"MindDataset: {path}: page {page['page_id']} runs past the "
                               "end of the file (truncated)")
        entries = _entries(buf, start, page["page_size"])
        if page["page_type"] == "RAW_DATA":
            raws.extend(_unpack(e, 0)[0] for e in entries)
        else:
            blobs.extend(_blob_fields(e, blob_fields) for e in entries)
    if blob_fields and len(blobs) != len(raws) and raws:
        raise DatasetError(f"MindDataset: {path}: {len(raws)} raw rows but {len(blobs)} blob "
                           "rows")
    n = max(len(raws), len(blobs))
    return [{**(raws[i] if raws else {}), **(blobs[i] if blobs else {})} for i in range(n)]


def _compressed_ints(raw: bytes):
    """The values of an int32/int64 blob as MindRecord compresses it, or None when ``raw``
    is not one: a ``uint32`` (BE) count, 2 bits per value (first value in the high bits:
    0, 1, 2, 3 for 1, 2, 4, 8 bytes), then each value little-endian, signed, that wide."""
    if len(raw) < 4:
        return None
    n = int.from_bytes(raw[:4], "big")
    codes_end = 4 + (2 * n + 7) // 8
    if codes_end > len(raw):
        return None
    widths = [1 << ((raw[4 + i // 4] >> (6 - 2 * (i % 4))) & 3) for i in range(n)]
    if codes_end + sum(widths) != len(raw):
        return None
    out, pos = [], codes_end
    for w in widths:
        out.append(int.from_bytes(raw[pos:pos + w], "little", signed=True))
        pos += w
    return out


def _value(raw, spec: dict):
    kind = spec["type"]
    if kind == "string":
        return np.asarray(raw)
    if kind == "bytes":
        return np.array([raw])
    if isinstance(raw, bytes):  # a blob of the field's shape
        ints = _compressed_ints(raw) if kind in ("int32", "int64") else None
        values = np.asarray(ints, dtype=_NUMPY[kind]) if ints is not None else \
            np.frombuffer(raw, dtype=_NUMPY[kind])
        return values.reshape(spec.get("shape", [-1]))
    return np.asarray(raw, dtype=_NUMPY[kind])


class MindRecordDataset(MappableSource, UnionBaseDataset):
    """Rows of MindSpore-written MindRecord shards; ``MindDataset`` hands a MindRecord
    file here (see the module doc). One path finds its sibling shards from the header."""

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None,
                 shuffle=None, num_shards=None, shard_id=None, sampler=None,
                 num_samples=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        if isinstance(dataset_files, (str, os.PathLike)):
            first = os.fspath(dataset_files)
            folder = os.path.dirname(first)
            files = [os.path.join(folder, n)
                     for n in read_mindrecord_header(first)["shard_addresses"]]
        else:
            files = [os.fspath(f) for f in dataset_files]
        missing = [f for f in files if not os.path.isfile(f)]
        if missing:
            raise FileNotFoundError(f"MindDataset: {missing[0]} not found (a MindRecord shard)")
        self.files = files
        self.schema = read_mindrecord_header(files[0])["schema"][0]["schema"]
        names = sorted(self.schema)
        if columns_list is not None:
            unknown = [c for c in columns_list if c not in self.schema]
            if unknown:
                raise ValueError(f"MindDataset: columns_list names {unknown}, not in the "
                                 f"schema {names}")
            names = list(columns_list)
        self._columns = names
        self._counts = [sum(p["end_row_id"] - p["start_row_id"]
                            for p in read_mindrecord_header(f)["page"]
                            if p["page_type"] == "BLOB_DATA") for f in files]
        self._rows = Once()

    def _load(self) -> list[dict]:
        return [row for f in self.files for row in read_mindrecord_rows(f)]

    def records(self):
        """Each row as ``{column: value}`` in file order, ``bytes`` fields as the exact
        bytes (a numpy bytes array drops trailing NULs): ``FileReader``'s rows."""
        for row in self._rows.get(self._load):
            yield {n: row[n] if self.schema[n]["type"] == "bytes" else
                   _value(row[n], self.schema[n]) for n in self._columns}

    def _length(self) -> int:
        if any(self._counts):
            return sum(self._counts)
        return len(self._rows.get(self._load))

    def _column_names(self) -> list[str]:
        return list(self._columns)

    def _read(self, indices: np.ndarray):
        rows = self._rows.get(self._load)
        cols = {}
        for name in self._columns:
            col = np.empty(len(indices), dtype=object)
            spec = self.schema[name]
            if spec["type"] == "bytes":  # one bytes width per chunk: rows stay numpy bytes
                width = max([len(rows[i][name]) for i in indices] + [1])
                for k, i in enumerate(indices):
                    col[k] = np.array([rows[i][name]], dtype=f"S{width}")
            else:
                for k, i in enumerate(indices):
                    col[k] = _value(rows[i][name], spec)
            cols[name] = col
        return batch_from_numpy(cols)
