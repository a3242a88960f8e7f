"""Reading a .ms file: the FlatBuffer is read in place from a memory map and every
constant becomes a read-only ``np.frombuffer`` view of the map (no copy of the weights).

Every length and offset is checked against the file before it is followed, and any
inconsistency raises ``LiteFormatError`` naming the file: a corrupt or truncated model
never crashes deep inside a kernel or loops over a garbage length.
"""

from __future__ import annotations

import json
import mmap
import os
import struct
import zlib

import numpy as np
from flatbuffers import encode, number_types
from flatbuffers.table import Table

from ms_lite.format import attrs as attr_codec
from ms_lite.format.writer import FORMAT_VERSION, HEADER, IDENTIFIER, MAGIC
from ms_lite.ir import Graph, IRError, Node, Value
from ms_lite.quant.params import QuantParam

__all__ = ["load", "from_buffer", "LiteFormatError"]

_MAX_RANK = 32


class LiteFormatError(ValueError):
    """The file is not a lite model, or is corrupt or truncated."""


class _Reader:
    def __init__(self, buf, base: int, end: int):
        self.buf = buf
        self.end = end
        self.view = memoryview(buf)

    def _check(self, pos: int, size: int, what: str) -> None:
        if pos < 0 or size < 0 or pos + size > self.end:
            raise LiteFormatError(f"{what} at byte {pos} (+{size}) lies outside the file")

    def table(self, pos: int) -> Table:
        self._check(pos, 4, "a table")
        vt = pos - encode.Get(number_types.SOffsetTFlags.packer_type, self.buf, pos)
        self._check(vt, 4, "a vtable")
        vt_size = encode.Get(number_types.VOffsetTFlags.packer_type, self.buf, vt)
        self._check(vt, vt_size, "a vtable")
        return Table(self.buf, pos)

    def _field(self, t: Table, slot: int) -> int:
        o = t.Offset(4 + 2 * slot)
        if o:
            self._check(t.Pos + o, 4, "a field")
        return o

    def child(self, t: Table, slot: int) -> Table | None:
        o = self._field(t, slot)
        return None if not o else self.table(t.Indirect(t.Pos + o))

    def string(self, t: Table, slot: int, what: str) -> str:
        o = self._field(t, slot)
        if not o:
            return ""
        return self._string_at(t.Indirect(t.Pos + o), what)

    def _string_at(self, pos: int, what: str) -> str:
        self._check(pos, 4, what)
        n = encode.Get(number_types.UOffsetTFlags.packer_type, self.buf, pos)
        self._check(pos + 4, n, what)
        try:
            return bytes(self.view[pos + 4:pos + 4 + n]).decode("utf-8")
        except UnicodeDecodeError:
            raise LiteFormatError(f"{what} at byte {pos} is not UTF-8") from None

    def vector(self, t: Table, slot: int, elem: int, what: str) -> tuple[int, int]:
        """(start, length) of a vector field, checked to lie inside the file."""
        o = self._field(t, slot)
        if not o:
            return 0, 0
        pos = t.Indirect(t.Pos + o)
        self._check(pos, 4, what)
        n = encode.Get(number_types.UOffsetTFlags.packer_type, self.buf, pos)
        self._check(pos + 4, n * elem, what)
        return pos + 4, n

    def numbers(self, t: Table, slot: int, dtype, what: str) -> np.ndarray:
        dt = np.dtype(dtype).newbyteorder("<")
        start, n = self.vector(t, slot, dt.itemsize, what)
        return np.frombuffer(self.buf, dt, n, start) if n else np.zeros(0, dt)

    def tables(self, t: Table, slot: int, what: str) -> list[Table]:
        start, n = self.vector(t, slot, 4, what)
        return [self.table(start + 4 * i + encode.Get(number_types.UOffsetTFlags.packer_type,
                                                        self.buf, start + 4 * i))
                for i in range(n)]

    def strings(self, t: Table, slot: int, what: str) -> list[str]:
        start, n = self.vector(t, slot, 4, what)
        out = []
        for i in range(n):
            p = start + 4 * i
            out.append(self._string_at(
                p + encode.Get(number_types.UOffsetTFlags.packer_type, self.buf, p), what))
        return out


def _dtype(name: str, what: str) -> np.dtype:
    try:
        dt = np.dtype(name)
    except TypeError:
        raise LiteFormatError(f"{what} has unknown dtype {name!r}") from None
    if dt.kind not in "biufc" or dt.name != name:
        raise LiteFormatError(f"{what} has unsupported dtype {name!r}")
    return dt


def _tensor(r: _Reader, t: Table, with_data: bool):
    name = r.string(t, 0, "a tensor name")
    what = f"tensor {name!r}"
    dt = _dtype(r.string(t, 1, f"{what}'s dtype"), what)
    shape = tuple(int(d) for d in r.numbers(t, 2, np.int64, f"{what}'s shape"))
    if len(shape) > _MAX_RANK or any(d < 0 for d in shape):
        raise LiteFormatError(f"{what} has an invalid shape {shape}")
    q = r.child(t, 4)
    quant = None
    if q is not None:
        scale = r.numbers(q, 0, np.float64, f"{what}'s scales")
        zp = r.numbers(q, 1, np.int64, f"{what}'s zero points")
        axis = q.GetSlot(8, -1, number_types.Int32Flags)
        if scale.size != zp.size or scale.size == 0 or axis < -1 or axis >= max(len(shape), 1):
            raise LiteFormatError(f"{what} has inconsistent quantization parameters")
        quant = QuantParam(scale.copy(), zp.copy(), int(axis))
    value = Value(name, shape, dt.name, quant)
    if not with_data:
        return value, None
    start, n = r.vector(t, 3, 1, f"{what}'s data")
    count = int(np.prod(shape, dtype=np.int64))
    if n != count * dt.itemsize:
        raise LiteFormatError(f"{what} holds {n} bytes, but shape {shape} {dt.name} needs "
                              f"{count * dt.itemsize}")
    arr = np.frombuffer(r.buf, dt.newbyteorder("<"), count, start).reshape(shape)
    return value, arr


def _node(r: _Reader, t: Table) -> Node:
    name = r.string(t, 0, "a node name")
    what = f"node {name!r}"
    try:
        attrs = attr_codec.decode(r.string(t, 4, f"{what}'s attributes") or "{}")
    except (ValueError, TypeError, KeyError) as e:
        raise LiteFormatError(f"{what} has unreadable attributes: {e}") from None
    return Node(r.string(t, 1, f"{what}'s operator"), r.strings(t, 2, f"{what}'s inputs"),
                r.strings(t, 3, f"{what}'s outputs"), attrs, name)


def _parse(buf, verify: bool) -> tuple[Graph, dict]:
    size = len(buf)
    if size < HEADER + 8:
        raise LiteFormatError(f"{size} bytes: too short for a lite model (truncated?)")
    magic, version, crc, length = struct.unpack_from("<8sIIQ", buf, 0)
    if magic != MAGIC:
        raise LiteFormatError("not a microspore lite model (the file does not start with "
                              f"{MAGIC!r})")
    if version != FORMAT_VERSION:
        raise LiteFormatError(f"format version {version}; this ms-lite reads version "
                              f"{FORMAT_VERSION}")
    if HEADER + length != size:
        raise LiteFormatError(f"the header promises {HEADER + length} bytes but the file has "
                              f"{size} (truncated or extended)")
    if verify and zlib.crc32(memoryview(buf)[HEADER:]) != crc:
        raise LiteFormatError("checksum mismatch: the file is corrupt")
    if bytes(buf[HEADER + 4:HEADER + 8]) != IDENTIFIER:
        raise LiteFormatError(f"missing FlatBuffer identifier {IDENTIFIER!r}")
    r = _Reader(buf, HEADER, size)
    root = r.table(HEADER + encode.Get(number_types.UOffsetTFlags.packer_type, buf, HEADER))
    inputs = [_tensor(r, t, False)[0] for t in r.tables(root, 2, "the inputs")]
    outputs = [_tensor(r, t, False)[0] for t in r.tables(root, 3, "the outputs")]
    constants, values = {}, {}
    for t in r.tables(root, 4, "the constants"):
        v, arr = _tensor(r, t, True)
        constants[v.name] = arr
        if v.quant is not None:
            values[v.name] = v
    for t in r.tables(root, 6, "the value types"):
        v = _tensor(r, t, False)[0]
        values[v.name] = v
    nodes = [_node(r, t) for t in r.tables(root, 5, "the nodes")]
    try:
        meta = json.loads(r.string(root, 7, "the metadata") or "{}")
    except ValueError as e:
        raise LiteFormatError(f"unreadable metadata: {e}") from None
    graph = Graph(inputs, outputs, nodes, constants, r.string(root, 1, "the model name"), values)
    try:
        graph.validate()
    except IRError as e:
        raise LiteFormatError(str(e)) from None
    return graph, meta


def from_buffer(buf, name: str = "<buffer>", verify: bool = True) -> tuple[Graph, dict]:
    """Parse a model held in ``buf`` (bytes, mmap); constants are views of ``buf``."""
    try:
        return _parse(buf, verify)
    except LiteFormatError as e:
        raise LiteFormatError(f"{name}: {e}") from None
    except (struct.error, IndexError, OverflowError, ValueError, TypeError) as e:
        raise LiteFormatError(f"{name}: corrupt lite model ({type(e).__name__}: {e})") from None


def load(path, verify: bool = True) -> tuple[Graph, dict]:
    """Map ``path`` and parse it; returns ``(graph, meta)``. The map stays open while any
    constant array is alive (numpy holds it), so nothing is copied and nothing dangles.

    Args:
        verify: check the CRC-32 of the whole file first (reads every byte once).
    Raises:
        LiteFormatError: naming ``path`` and what is wrong.
        FileNotFoundError: as ``open`` does.
    """
    path = os.fspath(path)
    with open(path, "rb") as f:
        try:
            buf = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        except ValueError:  # an empty file cannot be mapped
            raise LiteFormatError(f"{path}: empty file, not a lite model") from None
    return from_buffer(buf, path, verify)
