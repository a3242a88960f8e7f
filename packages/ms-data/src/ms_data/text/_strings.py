"""Input checks and output helpers shared by the text operations."""

from __future__ import annotations

import numpy as np

__all__ = ["scalar_string", "string_array", "tokens_out", "to_str", "to_bytes"]


def _decode(x):
    return x.decode("utf-8") if isinstance(x, bytes) else x


def scalar_string(op: str, x) -> str:
    """A tokenizer's input: one string (a str, bytes, or a 0-d string array)."""
    if isinstance(x, (str, bytes)):
        return _decode(x)
    a = np.asarray(x)
    if a.ndim != 0 or a.dtype.kind not in "US":
        raise RuntimeError(f"{op}: the input shape should be scalar and the input datatype "
                           f"should be string, got shape {a.shape} dtype {a.dtype}")
    return _decode(a.item())


def string_array(op: str, x) -> np.ndarray:
    """A string tensor (any shape) as a numpy str array."""
    a = np.asarray(x)
    if a.dtype.kind == "S":
        return np.char.decode(a, "utf-8")
    if a.dtype.kind != "U":
        raise RuntimeError(f"{op}: the input datatype should be string, got {a.dtype}")
    return a


def _str_array(tokens: list[str]) -> np.ndarray:
    return np.array(tokens if tokens else [""], dtype=str)


def tokens_out(tokens: list[str], spans: list[tuple[int, int]] | None):
    """Tokens, with ``(tokens, starts, ends)`` uint32 byte offsets when ``spans`` is given.

    An empty result is one empty token, as MindSpore's (offsets 0, 0).
    """
    out = _str_array(tokens)
    if spans is None:
        return out
    spans = spans or [(0, 0)]
    return (out, np.array([s for s, _ in spans], np.uint32),
            np.array([e for _, e in spans], np.uint32))


def to_str(array, encoding="utf8") -> np.ndarray:
    """A bytes array as a str array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"to_str: input should be a NumPy array, got {type(array).__name__}")
    return np.char.decode(array, encoding)


def to_bytes(array, encoding="utf8") -> np.ndarray:
    """A str array as a bytes array."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"to_bytes: input should be a NumPy array, got {type(array).__name__}")
    return np.char.encode(array, encoding)
