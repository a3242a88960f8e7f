"""TFRecord framing: ``uint64 length``, ``uint32 masked CRC-32C of the length``, the data,
``uint32 masked CRC-32C of the data`` (little-endian), record after record.

Both CRCs are checked when a file is indexed (once per dataset), so a corrupt or
truncated file is named with the record's offset instead of yielding garbage. CRC-32C
(Castagnoli) is not in Python's standard library; this table-driven version runs at about
1-3 MB/s, paid once per file.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "a.tfrecord")
>>> write_tfrecords(path, [b"one", b"three"])
>>> [bytes(r) for r in read_tfrecords(path)]
[b'one', b'three']
"""

from __future__ import annotations

import struct

__all__ = ["crc32c", "masked_crc", "index_tfrecords", "read_tfrecords", "write_tfrecords",
           "TFRecordError"]

_TABLE = []
for _i in range(256):
    _c = _i
    for _ in range(8):
        _c = (_c >> 1) ^ 0x82F63B78 if _c & 1 else _c >> 1
    _TABLE.append(_c)


class TFRecordError(ValueError):
    """A TFRecord file is truncated or fails its CRC; the message names file and offset."""


def crc32c(data) -> int:
    """CRC-32C of ``data`` (``crc32c(b"123456789") == 0xE3069283``)."""
    c, table = 0xFFFFFFFF, _TABLE
    for b in bytes(data):
        c = table[(c ^ b) & 0xFF] ^ (c >> 8)
    return c ^ 0xFFFFFFFF


def masked_crc(data) -> int:
    c = crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF


def index_tfrecords(path: str, buf) -> list[tuple[int, int]]:
    """``(offset, length)`` of each record's data in ``buf`` (the file's bytes)."""
    out, pos, end = [], 0, len(buf)
    while pos < end:
        if pos + 12 > end:
            raise TFRecordError(f"{path}: truncated record header at byte {pos}")
        head = bytes(buf[pos:pos + 8])
        (length,), (crc,) = struct.unpack("<Q", head), struct.unpack("<I", buf[pos + 8:pos + 12])
        if masked_crc(head) != crc:
            raise TFRecordError(f"{path}: the length CRC of the record at byte {pos} does not "
                                "match (not a TFRecord file, or corrupt)")
        start = pos + 12
        if start + length + 4 > end:
            raise TFRecordError(f"{path}: the record at byte {pos} says {length} bytes, but the "
                                f"file ends {end - start} bytes later (truncated)")
        (dcrc,) = struct.unpack("<I", buf[start + length:start + length + 4])
        if masked_crc(buf[start:start + length]) != dcrc:
            raise TFRecordError(f"{path}: the data CRC of the record at byte {pos} does not "
                                "match (corrupt)")
        out.append((start, length))
        pos = start + length + 4
    return out


def read_tfrecords(path: str) -> list:
    """The records of one file (memoryviews of its bytes), CRCs checked."""
    with open(path, "rb") as f:
        buf = memoryview(f.read())
    return [buf[a:a + n] for a, n in index_tfrecords(path, buf)]


def write_tfrecords(path: str, records) -> None:
    """Write ``records`` (bytes each) as one TFRecord file."""
    with open(path, "wb") as f:
        for data in records:
            head = struct.pack("<Q", len(data))
            f.write(head + struct.pack("<I", masked_crc(head)) + bytes(data)
                    + struct.pack("<I", masked_crc(data)))
