"""numpy arrays as C initializers that round-trip exactly (float32 with 9 digits,
float64 with 17)."""

from __future__ import annotations

import numpy as np

from ms_lite.codegen.context import c_type

__all__ = ["c_array", "c_literals"]


def _float(v: float, digits: int = 9, suffix: str = "f") -> str:
    """A literal that rounds back to ``v``: 9 digits for float32, 17 for a double."""
    if np.isnan(v):
        return "NAN"
    if np.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    s = f"{v:.{digits}g}"
    if not any(ch in s for ch in ".e"):
        s += ".0"
    return s + suffix


def _int(v: int, dtype: str) -> str:
    if dtype == "int32" and v == -(1 << 31):
        return "(-2147483647 - 1)"
    return str(int(v))


def c_literals(array: np.ndarray) -> list[str]:
    flat = np.asarray(array).reshape(-1)
    if flat.dtype == np.float32:
        return [_float(float(v)) for v in flat]
    if flat.dtype == np.float64:
        return [_float(float(v), 17, "") for v in flat]
    if flat.dtype.kind in "iub":
        return [_int(v, flat.dtype.name) for v in flat.astype(np.int64)]
    raise ValueError(f"cannot write a {flat.dtype} array as C")


def c_array(name: str, array: np.ndarray, *, static: bool = False, per_line: int = 8) -> str:
    """``const T name[n] = {...};`` (at least one element: C has no empty arrays)."""
    array = np.asarray(array)
    lits = c_literals(array) or ["0"]
    rows = [", ".join(lits[i:i + per_line]) for i in range(0, len(lits), per_line)]
    body = ",\n    ".join(rows)
    storage = "static " if static else ""
    return (f"{storage}const {c_type(array.dtype.name, name)} {name}[{len(lits)}] = {{\n"
            f"    {body}\n}};\n")
