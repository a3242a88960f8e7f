"""``repr`` and ``str`` of a Tensor, laid out as MindSpore 2.x prints them.

``repr``: ``Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])``;
``str``: numpy's own text of the data, ``[1. 2.]``.
"""

from __future__ import annotations

import re

import ml_dtypes
import numpy as np

_SCI_DIGITS = {np.dtype(np.float16): 4, np.dtype(np.float32): 8, np.dtype(np.float64): 8}
_BF16 = np.dtype(ml_dtypes.bfloat16)
_THRESHOLD, _EDGE = 1000, 3


def _sci(digits: int):
    width = digits + 7  # sign, "d.", digits, "e+00"

    def fmt(v) -> str:
        v = float(v)
        if np.isfinite(v):
            return f"{v: .{digits}e}"
        return f"{v!s:>{width}}" if not np.isnan(v) else f"{'nan':>{width}}"

    return fmt


def _threshold(a: np.ndarray) -> int:
    # MindSpore elides a long vector only past 1000 elements, but elides every axis longer
    # than 6 of a matrix or higher, however small.
    return _THRESHOLD if a.ndim == 1 else 0


def _shown(a: np.ndarray) -> np.ndarray:
    """The elements a summarized print shows (the first and last few along each long axis)."""
    if a.size <= _threshold(a):
        return a
    for axis, n in enumerate(a.shape):
        if n > 2 * _EDGE:
            a = np.take(a, np.r_[:_EDGE, n - _EDGE:n], axis=axis)
    return a


def _padded_general(a: np.ndarray):
    # MindSpore prints bfloat16 as C++ streams do (6 significant digits), right-aligned.
    width = max((len(f"{float(v):g}") for v in _shown(a).flat), default=0)
    return lambda v: f"{float(v):g}".rjust(width)


def _array_text(a: np.ndarray, separator: str) -> str:
    formatter = None
    digits = _SCI_DIGITS.get(a.dtype)
    if digits is not None:
        formatter = {"float_kind": _sci(digits)}
    elif a.dtype == _BF16:
        formatter = {"all": _padded_general(a)}
    elif a.dtype.kind == "c":
        formatter = {"complex_kind": lambda v: f"{complex(v):g}"}
    text = np.array2string(a, separator=separator, threshold=_threshold(a), edgeitems=_EDGE,
                           formatter=formatter, max_line_width=2**31)
    # MindSpore keeps no blank lines between blocks and no comma after an elision.
    text = re.sub(r"\n+", "\n", text).replace("...,\n", "...\n")
    return text.replace(", ...,", " ...").replace(",...,", " ...")


def _wrapped_vector(text: str, a: np.ndarray) -> str:
    # MindSpore breaks a vector's line after a fixed count of elements (12 floats or bools,
    # 24 others), ending each line with ", " and indenting the next by one space; a vector
    # that fills its last line exactly still gets the break, before the bracket.
    per_line = 12 if a.dtype in _SCI_DIGITS or a.dtype.kind == "b" else 24
    if a.size < per_line or a.size > _THRESHOLD:
        return text
    items = text[1:-1].split(", ")
    lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
    tail = "\n " if a.size % per_line == 0 else ""
    return "[" + ", \n ".join(lines) + tail + "]"


def _scalar_text(a: np.ndarray) -> str:
    if a.dtype.kind == "f" or a.dtype == _BF16:
        return f"{float(a):g}"
    if a.dtype.kind == "c":
        return f"{complex(a):g}"
    return str(a.item())


def tensor_repr(t) -> str:
    a = t._data
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    shape = "[" + ", ".join(str(d) for d in a.shape) + "]"
    head = f"Tensor(shape={shape}, dtype={t.dtype}, value="
    if a.ndim == 0:
        return f"{head} {_scalar_text(a)})"
    body = "" if a.size == 0 else _array_text(a, ", ")
    if a.ndim == 1:
        return f"{head} {_wrapped_vector(body, a)})"
    return f"{head}\n{body})"


def tensor_str(t) -> str:
    a = t._data
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    if a.dtype == _BF16:  # MindSpore's bfloat16 prints with six decimals, unpadded
        if a.ndim == 0:
            return f"{float(a):f}"
        return np.array2string(a, separator=" ", threshold=_THRESHOLD, edgeitems=_EDGE,
                               formatter={"all": lambda v: f"{float(v):f}"})
    return str(a)
