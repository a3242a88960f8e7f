"""``LineReader``: random access to the lines of a text file, by 1-based line number.

The file is indexed once (the offset of every line) and lines are read on demand, so a
large file is not held in memory.

>>> import tempfile, os
>>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
>>> _ = open(path, "w").write("first\\nsecond\\n")
>>> r = LineReader(path)
>>> r.len(), r.readline(2)
(2, 'second')
>>> r.close()
"""

from __future__ import annotations

import os

__all__ = ["LineReader"]


class LineReader:
    """Lines of ``filename`` by number: ``len()``, ``readline(n)`` (1-based), ``close()``."""

    def __init__(self, filename):
        if not isinstance(filename, str):
            raise TypeError(f"LineReader: filename must be a str, got {type(filename).__name__}")
        if not os.path.isfile(filename):
            raise RuntimeError(f"The input file [{filename}] does not exist.")
        self.filename = filename
        self._file = open(filename, "rb")  # noqa: SIM115 -- kept open until close()
        self._offsets = []
        offset = 0
        for line in self._file:
            self._offsets.append(offset)
            offset += len(line)

    def len(self) -> int:
        """The number of lines."""
        return len(self._offsets)

    def readline(self, line) -> str:
        """Line ``line`` (1-based) without its line ending."""
        if not isinstance(line, int) or isinstance(line, bool):
            raise TypeError(f"Argument line with value {line} is not of type [<class 'int'>], "
                            f"but got {type(line)}.")
        if not 1 <= line <= len(self._offsets):
            raise ValueError(f"Input line is not within the required interval of "
                             f"[1, {len(self._offsets)}].")
        if self._file.closed:
            raise ValueError(f"LineReader: {self.filename} was closed")
        self._file.seek(self._offsets[line - 1])
        return self._file.readline().decode("utf-8").rstrip("\r\n")

    def close(self) -> None:
        self._file.close()

    def __del__(self):
        file = getattr(self, "_file", None)
        if file is not None:
            file.close()
