"""The error a compiled function's unsupported Python raises."""

from __future__ import annotations

__all__ = ["GraphSyntaxError", "SourceUnavailable", "where"]


class GraphSyntaxError(RuntimeError):
    """Python that graph capture cannot express, with where it is and what to do instead.

    The message reads ``file.py:12: <construct> is not supported in a compiled function
    (<why>); <what to do instead>``, so the user can go to the line and fix it without
    knowing how capture works.
    """

    def __init__(self, message: str, filename: str | None = None, lineno: int | None = None):
        self.filename = filename
        self.lineno = lineno
        super().__init__(f"{where(filename, lineno)}: {message}" if filename else message)


class SourceUnavailable(GraphSyntaxError):
    """The function's source cannot be read (defined in a REPL or by ``exec``), or its
    definition cannot be told apart in it: there is nothing to convert."""


def where(filename: str | None, lineno: int | None) -> str:
    return f"{filename}:{lineno}" if lineno is not None else str(filename)
