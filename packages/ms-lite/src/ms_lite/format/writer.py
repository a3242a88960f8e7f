"""Writing a lite ``Graph`` as a .ms file (layout: ``schema.fbs`` beside this file)."""

from __future__ import annotations

import json
import os
import secrets
import struct
import zlib

import flatbuffers
import numpy as np

from ms_lite.format import attrs as attr_codec
from ms_lite.ir import Graph, Value

__all__ = ["to_bytes", "save", "MAGIC", "FORMAT_VERSION", "HEADER", "IDENTIFIER"]

MAGIC = b"MSLITE\x00\x01"
FORMAT_VERSION = 1
IDENTIFIER = b"MSL1"
HEADER = 64
_ALIGN = 64


def _strings(b: flatbuffers.Builder, items) -> int:
    offs = [b.CreateString(s) for s in items]
    b.StartVector(4, len(offs), 4)
    for o in reversed(offs):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def _offsets(b: flatbuffers.Builder, offs: list[int]) -> int:
    b.StartVector(4, len(offs), 4)
    for o in reversed(offs):
        b.PrependUOffsetTRelative(o)
    return b.EndVector()


def _numbers(b: flatbuffers.Builder, values, dtype) -> int:
    return b.CreateNumpyVector(np.ascontiguousarray(values, dtype=dtype))


def _data(b: flatbuffers.Builder, array: np.ndarray) -> int:
    raw = np.ascontiguousarray(array).astype(array.dtype.newbyteorder("<"), copy=False)
    data = raw.view(np.uint8).reshape(-1).tobytes()
    n = len(data)
    b.StartVector(1, n, _ALIGN)
    b.head -= n
    b.Bytes[b.head:b.head + n] = data
    return b.EndVector()


def _quant(b: flatbuffers.Builder, q) -> int:
    scale = _numbers(b, q.scale, np.float64)
    zp = _numbers(b, q.zero_point, np.int64)
    b.StartObject(3)
    b.PrependUOffsetTRelativeSlot(0, scale, 0)
    b.PrependUOffsetTRelativeSlot(1, zp, 0)
    b.PrependInt32Slot(2, q.axis, -1)
    return b.EndObject()


def _tensor(b: flatbuffers.Builder, v: Value, array: np.ndarray | None = None) -> int:
    name = b.CreateString(v.name)
    dtype = b.CreateString(v.dtype)
    shape = _numbers(b, v.shape, np.int64)
    data = None if array is None else _data(b, array)
    quant = None if v.quant is None else _quant(b, v.quant)
    b.StartObject(5)
    b.PrependUOffsetTRelativeSlot(0, name, 0)
    b.PrependUOffsetTRelativeSlot(1, dtype, 0)
    b.PrependUOffsetTRelativeSlot(2, shape, 0)
    if data is not None:
        b.PrependUOffsetTRelativeSlot(3, data, 0)
    if quant is not None:
        b.PrependUOffsetTRelativeSlot(4, quant, 0)
    return b.EndObject()


def _node(b: flatbuffers.Builder, node) -> int:
    try:
        attrs = attr_codec.encode(node.attrs)
    except TypeError as e:
        raise TypeError(f"node {node.name!r} ({node.op}): {e}") from None
    fields = [b.CreateString(node.name), b.CreateString(node.op), _strings(b, node.inputs),
              _strings(b, node.outputs), b.CreateString(attrs)]
    b.StartObject(5)
    for i, f in enumerate(fields):
        b.PrependUOffsetTRelativeSlot(i, f, 0)
    return b.EndObject()


def _flatbuffer(graph: Graph, meta: dict) -> bytes:
    size = sum(c.nbytes for c in graph.constants.values())
    b = flatbuffers.Builder(size + 4096)
    # Constants first: the builder writes back to front, so they end up last in the file.
    quant = {n: v.quant for n, v in graph.values.items() if v.quant is not None}
    consts = [_tensor(b, Value(n, c.shape, c.dtype.name, quant.get(n)), c)
              for n, c in graph.constants.items()]
    consts_vec = _offsets(b, consts)
    ins = _offsets(b, [_tensor(b, v) for v in graph.inputs])
    outs = _offsets(b, [_tensor(b, v) for v in graph.outputs])
    vals = _offsets(b, [_tensor(b, v) for n, v in graph.values.items()
                        if n not in graph.constants])
    nodes = _offsets(b, [_node(b, n) for n in graph.nodes])
    name = b.CreateString(graph.name)
    meta_s = b.CreateString(json.dumps(meta, sort_keys=True))
    b.StartObject(8)
    b.PrependUint32Slot(0, FORMAT_VERSION, 0)
    for slot, off in ((1, name), (2, ins), (3, outs), (4, consts_vec), (5, nodes), (6, vals),
                      (7, meta_s)):
        b.PrependUOffsetTRelativeSlot(slot, off, 0)
    b.Finish(b.EndObject(), file_identifier=IDENTIFIER)
    return b.Output()


def to_bytes(graph: Graph, meta: dict | None = None) -> bytes:
    """The whole .ms file for ``graph`` (``meta``: JSON-able facts about its making)."""
    graph.validate()
    fb = _flatbuffer(graph, dict(meta or {}))
    header = struct.pack("<8sIIQ", MAGIC, FORMAT_VERSION, zlib.crc32(fb), len(fb))
    return header.ljust(HEADER, b"\x00") + fb


def save(graph: Graph, path, meta: dict | None = None) -> int:
    """Write ``graph`` to ``path`` atomically (a crash leaves the old file or none);
    returns the file's size in bytes."""
    data = to_bytes(graph, meta)
    path = os.fspath(path)
    tmp = os.path.join(os.path.dirname(os.path.abspath(path)),
                       f".{os.path.basename(path)}.{secrets.token_hex(6)}.part")
    # os.open with 0o666 lets the umask decide the mode, as open() would (mkstemp: 0o600).
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    return len(data)
