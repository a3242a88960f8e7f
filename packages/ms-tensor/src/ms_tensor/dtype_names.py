"""MindSpore's other spellings of the data types (``ms.long``, ``ms.cfloat``...) and its
conversions between dtypes, numpy types and Python types.

They are MindSpore's choices, not numpy's or PyTorch's: ``ms.byte`` is Int8 (PyTorch's
``torch.byte`` is unsigned), ``ms.float`` is Float32 and ``ms.intp`` Int64.

>>> from ms_tensor import dtype_names as d
>>> d.long, d.byte, d.get_py_obj_dtype(1.5)
(Int64, Int8, Float64)
"""

from __future__ import annotations

import builtins

import numpy as np

from ms_tensor.dtype import (
    DType,
    bool_,
    complex64,
    complex128,
    float32,
    float64,
    from_numpy,
    int8,
    int16,
    int32,
    int64,
    uint8,
    uint16,
    uint32,
    uint64,
)

__all__ = ["bool", "byte", "short", "int", "long", "float", "ubyte", "ushort", "intc",
           "uintc", "intp", "uintp", "cfloat", "cdouble", "dtype_to_nptype",
           "dtype_to_pytype", "pytype_to_dtype", "get_py_obj_dtype"]

bool = bool_
byte, short, int, long = int8, int16, int32, int64
float = float32
ubyte, ushort = uint8, uint16
intc, uintc, intp, uintp = int32, uint32, int64, uint64
cfloat, cdouble = complex64, complex128

_PY = {"b": builtins.bool, "i": builtins.int, "u": builtins.int, "f": builtins.float,
       "c": builtins.complex}
_FROM_PY = {builtins.bool: bool_, builtins.int: int64, builtins.float: float64,
            builtins.complex: complex128}


def dtype_to_nptype(type_: DType):
    """The numpy scalar type of a dtype (``np.float32`` for Float32)."""
    if not isinstance(type_, DType):
        raise TypeError(f"dtype_to_nptype: expected a microspore dtype, got {type_!r}")
    return type_.np.type


def dtype_to_pytype(type_: DType) -> type:
    """The Python type a dtype's values become (``float`` for every float dtype)."""
    if not isinstance(type_, DType):
        raise TypeError(f"dtype_to_pytype: expected a microspore dtype, got {type_!r}")
    return _PY[type_.kind]


def pytype_to_dtype(obj) -> DType:
    """The dtype of a Python or numpy type (``float`` is Float64, ``int`` Int64); a dtype
    is returned as it is."""
    if isinstance(obj, DType):
        return obj
    if obj in _FROM_PY:
        return _FROM_PY[obj]
    try:
        return from_numpy(np.dtype(obj))
    except TypeError:
        raise TypeError(f"pytype_to_dtype: no microspore dtype for {obj!r}") from None


def get_py_obj_dtype(obj) -> DType:
    """The dtype of a Python value, a type or a tensor."""
    dtype = getattr(obj, "dtype", None)
    if isinstance(dtype, DType):
        return dtype
    if isinstance(obj, type):
        return pytype_to_dtype(obj)
    return pytype_to_dtype(type(obj))
