"""The lite model file (.ms): a FlatBuffer (``schema.fbs``) behind a 64-byte header, with
64-byte aligned weights that the reader maps instead of copying."""

from ms_lite.format.reader import LiteFormatError, from_buffer, load
from ms_lite.format.writer import save, to_bytes

__all__ = ["save", "load", "to_bytes", "from_buffer", "LiteFormatError"]
