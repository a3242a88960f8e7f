"""``repr`` and ``str`` of a Tensor, laid out as MindSpore 2.x prints them.

``repr``: ``Tensor(shape=[2], dtype=Float32, value= [ 1.00000000e+00,  2.00000000e+00])``;
``str``: numpy's own text of the data, ``[1. 2.]``.
"""

from __future__ import annotations

import numpy as np

_SCI_DIGITS = {np.dtype(np.float16): 4, np.dtype(np.float32): 8, np.dtype(np.float64): 8}


def _sci(digits: int):
    width = digits + 7  # sign, "d.", digits, "e+00"

    def fmt(v) -> str:
        v = float(v)
        if np.isfinite(v):
            return f"{v: .{digits}e}"
        return f"{v!s:>{width}}" if not np.isnan(v) else f"{'nan':>{width}}"

    return fmt


def _array_text(a: np.ndarray, separator: str) -> str:
    formatter = None
    digits = _SCI_DIGITS.get(a.dtype)
    if digits is not None:
        formatter = {"float_kind": _sci(digits)}
    text = np.array2string(a, separator=separator, threshold=1000, edgeitems=3,
                           formatter=formatter, max_line_width=2**31)
    return text.replace(", ...,", " ...").replace(",...,", " ...")


def tensor_repr(t) -> str:
    a = t._data
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    shape = "[" + ", ".join(str(d) for d in a.shape) + "]"
    head = f"Tensor(shape={shape}, dtype={t.dtype}, value="
    if a.ndim == 0:
        return f"{head} {a.item()!s})"
    if a.size == 0:
        return f"{head}\n)"
    body = _array_text(a, ", ")
    if a.ndim == 1:
        return f"{head} {body})"
    return f"{head}\n{body})"


def tensor_str(t) -> str:
    a = t._data
    if not isinstance(a, np.ndarray):
        a = np.asarray(a)
    if a.ndim == 0:
        return str(a.item())
    return str(a)
