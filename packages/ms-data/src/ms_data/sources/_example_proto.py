"""``tf.train.Example`` on the protobuf wire, read (and written, for tests and tools)
without TensorFlow or generated protobuf classes: the message is five fields deep::

    Example  { Features features = 1; }
    Features { map<string, Feature> feature = 1; }     # entries: key = 1, value = 2
    Feature  { oneof { BytesList bytes_list = 1; FloatList float_list = 2;
                       Int64List int64_list = 3; } }
    *List    { repeated <bytes | float | int64> value = 1; }   # numbers packed or not

>>> ex = encode_example({"x": [1.5, 2.0], "n": [-3], "s": [b"ab"]})
>>> parse_example(ex)
{'x': ('float', [1.5, 2.0]), 'n': ('int64', [-3]), 's': ('bytes', [b'ab'])}
"""

from __future__ import annotations

import struct

__all__ = ["parse_example", "encode_example", "ProtoError"]

KINDS = {1: "bytes", 2: "float", 3: "int64"}


class ProtoError(ValueError):
    """The bytes are not a well-formed ``tf.train.Example``."""


def _varint(buf, pos: int) -> tuple[int, int]:
    result = shift = 0
    while True:
        if pos >= len(buf):
            raise ProtoError("truncated varint")
        b = buf[pos]
        pos += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, pos
        shift += 7
        if shift > 63:
            raise ProtoError("varint longer than 10 bytes")


def _fields(buf):
    """``(field number, wire type, value)`` of each field of one message; a
    length-delimited value is a memoryview, a varint an int, a fixed32 its 4 bytes."""
    pos, end = 0, len(buf)
    while pos < end:
        key, pos = _varint(buf, pos)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, pos = _varint(buf, pos)
        elif wire == 2:
            n, pos = _varint(buf, pos)
            if pos + n > end:
                raise ProtoError(f"field {number}: length {n} runs past the message end")
            value, pos = buf[pos:pos + n], pos + n
        elif wire == 5:
            value, pos = buf[pos:pos + 4], pos + 4
        elif wire == 1:
            value, pos = buf[pos:pos + 8], pos + 8
        else:
            raise ProtoError(f"field {number}: unsupported wire type {wire}")
        if pos > end:
            raise ProtoError(f"field {number}: truncated")
        yield number, wire, value


def _signed(v: int) -> int:
    return v - (1 << 64) if v >= 1 << 63 else v


def _values(kind: str, buf) -> list:
    out: list = []
    for number, wire, value in _fields(buf):
        if number != 1:
            continue
        if kind == "bytes":
            out.append(bytes(value))
        elif kind == "float":
            raw = bytes(value)  # packed (wire 2) or one fixed32 (wire 5)
            out.extend(struct.unpack(f"<{len(raw) // 4}f", raw))
        elif wire == 0:
            out.append(_signed(value))
        else:  # packed varints
            pos = 0
            while pos < len(value):
                v, pos = _varint(value, pos)
                out.append(_signed(v))
    return out


def parse_example(data) -> dict:
    """``{name: (kind, values)}`` of one serialized Example; kind is ``"bytes"``,
    ``"float"`` or ``"int64"``, in the order the features are stored."""
    buf = memoryview(data)
    features: dict = {}
    for number, _, fbuf in _fields(buf):
        if number != 1:
            continue
        for n, _, entry in _fields(fbuf):
            if n != 1:
                continue
            key, feature = None, b""
            for k, _, v in _fields(entry):
                if k == 1:
                    key = bytes(v).decode("utf-8")
                elif k == 2:
                    feature = v
            if key is None:
                raise ProtoError("a feature map entry has no key")
            kind, values = "bytes", []  # an empty Feature: no kind, no values
            for k, _, lst in _fields(feature):
                if k in KINDS:
                    kind, values = KINDS[k], _values(KINDS[k], lst)
            features[key] = (kind, values)
    return features


def _put_varint(n: int) -> bytes:
    n &= (1 << 64) - 1
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


def _len_field(number: int, payload: bytes) -> bytes:
    return _put_varint(number << 3 | 2) + _put_varint(len(payload)) + payload


def encode_example(features: dict) -> bytes:
    """Serialize ``{name: values}``: a list of bytes/str (BytesList), floats (FloatList,
    packed) or ints (Int64List, packed), as TensorFlow writes them."""
    entries = b""
    for name, values in features.items():
        values = list(values)
        if values and isinstance(values[0], (bytes, str)):
            body = b"".join(_len_field(1, v.encode() if isinstance(v, str) else v)
                            for v in values)
            feature = _len_field(1, body)
        elif values and isinstance(values[0], float):
            feature = _len_field(2, _len_field(1, struct.pack(f"<{len(values)}f", *values)))
        else:
            packed = b"".join(_put_varint(int(v)) for v in values)
            feature = _len_field(3, _len_field(1, packed))
        entries += _len_field(1, _len_field(1, name.encode()) + _len_field(2, feature))
    return _len_field(1, entries)
