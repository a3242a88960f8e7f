"""MindSpore's data types and its type-promotion rules.

A ``DType`` is a singleton that knows its numpy dtype; ``Tensor.dtype`` returns one
and ``str(ms_tensor.float32)`` prints ``Float32`` as MindSpore does.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np

__all__ = [
    "DType", "bool_", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
    "uint64", "float16", "float32", "float64", "bfloat16", "complex64", "complex128",
    "float_", "int_", "uint", "half", "single", "double",
    "all_types", "float_types", "int_types", "number_types",
    "from_numpy", "to_numpy", "promote_types", "result_type",
    "is_float", "is_int", "is_complex", "WEAK_BOOL", "WEAK_INT", "WEAK_FLOAT",
]


class DType:
    """One MindSpore data type; compares by identity and hashes cheaply."""

    __slots__ = ("name", "np", "kind", "bits")

    def __init__(self, name: str, np_dtype, kind: str, bits: int):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.kind = kind  # "b" bool, "u"/"i" integers, "f" floats, "c" complex
        self.bits = bits

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __reduce__(self):
        return (_by_name, (self.name,))

    @property
    def itemsize(self) -> int:
        return self.np.itemsize


bool_ = DType("Bool", np.bool_, "b", 8)
int8 = DType("Int8", np.int8, "i", 8)
int16 = DType("Int16", np.int16, "i", 16)
int32 = DType("Int32", np.int32, "i", 32)
int64 = DType("Int64", np.int64, "i", 64)
uint8 = DType("UInt8", np.uint8, "u", 8)
uint16 = DType("UInt16", np.uint16, "u", 16)
uint32 = DType("UInt32", np.uint32, "u", 32)
uint64 = DType("UInt64", np.uint64, "u", 64)
float16 = DType("Float16", np.float16, "f", 16)
bfloat16 = DType("BFloat16", ml_dtypes.bfloat16, "f", 16)
float32 = DType("Float32", np.float32, "f", 32)
float64 = DType("Float64", np.float64, "f", 64)
complex64 = DType("Complex64", np.complex64, "c", 64)
complex128 = DType("Complex128", np.complex128, "c", 128)

# MindSpore's aliases.
float_, int_, uint = float32, int32, uint32
half, single, double = float16, float32, float64

all_types = (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
             float16, bfloat16, float32, float64, complex64, complex128)
float_types = frozenset((float16, bfloat16, float32, float64))
int_types = frozenset((int8, int16, int32, int64, uint8, uint16, uint32, uint64))
number_types = float_types | int_types

_FROM_NP = {t.np: t for t in all_types}
_BY_NAME = {t.name: t for t in all_types}


def _by_name(name: str) -> DType:
    return _BY_NAME[name]


def from_numpy(np_dtype) -> DType:
    """The DType for a numpy dtype; raises TypeError for types MindSpore lacks."""
    try:
        return _FROM_NP[np_dtype]
    except (KeyError, TypeError):
        pass
    try:
        return _FROM_NP[np.dtype(np_dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"numpy dtype {np_dtype!r} has no MindSpore equivalent; "
                        f"supported: {', '.join(t.name for t in all_types)}") from None


def to_numpy(dtype) -> np.dtype:
    """The numpy dtype for a DType (or anything numpy accepts)."""
    if isinstance(dtype, DType):
        return dtype.np
    return from_numpy(dtype).np


def is_float(t: DType) -> bool:
    return t.kind == "f"


def is_int(t: DType) -> bool:
    return t.kind in "iu"


def is_complex(t: DType) -> bool:
    return t.kind == "c"


class _Weak:
    """The type of a bare Python scalar: it adapts to the tensor it meets."""

    __slots__ = ("name", "default")

    def __init__(self, name: str, default: DType):
        self.name = name
        self.default = default

    def __repr__(self) -> str:
        return f"python {self.name}"


WEAK_BOOL = _Weak("bool", bool_)
WEAK_INT = _Weak("int", int64)
WEAK_FLOAT = _Weak("float", float32)
_WEAK_RANK = {WEAK_BOOL: 0, WEAK_INT: 1, WEAK_FLOAT: 2}
_KIND_RANK = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


def _promote_strong(a: DType, b: DType) -> DType:
    if a is b:
        return a
    ka, kb = _KIND_RANK[a.kind], _KIND_RANK[b.kind]
    if ka != kb:  # the higher category wins whatever its width: int32 + float16 -> float16
        hi, lo = (a, b) if ka > kb else (b, a)
        if hi is complex64 and lo is float64:  # except that complex keeps float64's precision
            return complex128
        return hi
    if a.kind == "f":
        if a.bits == b.bits:  # float16 with bfloat16
            return float32
        return a if a.bits > b.bits else b
    if a.kind == "b":
        return a
    if (a.kind == "u") != (b.kind == "u") and uint64 in (a, b):
        return int64  # numpy would answer float64; an integer op stays integer
    return from_numpy(np.promote_types(a.np, b.np))


def _promote_weak(t: DType, w: _Weak) -> DType:
    # A Python scalar only changes the tensor's category when it is a higher one.
    if _KIND_RANK[t.kind] >= _WEAK_RANK[w]:
        return t
    return w.default


_CACHE: dict = {}


def promote_types(a, b):
    """MindSpore's result type of an operation on ``a`` and ``b``.

    Either may be a weak Python-scalar type (``WEAK_INT``...); two weak types give a
    weak type. Bool < integers < floats < complex; within a category the wider wins;
    float16 with bfloat16 gives float32; a scalar never widens a tensor in its category.
    """
    key = (a, b)
    r = _CACHE.get(key)
    if r is None:
        wa, wb = isinstance(a, _Weak), isinstance(b, _Weak)
        if wa and wb:
            r = a if _WEAK_RANK[a] >= _WEAK_RANK[b] else b
        elif wa:
            r = _promote_weak(b, a)
        elif wb:
            r = _promote_weak(a, b)
        else:
            r = _promote_strong(a, b)
        _CACHE[key] = r
    return r


def result_type(*types):
    """Fold ``promote_types`` over several types; weak results become concrete."""
    r = types[0]
    for t in types[1:]:
        r = promote_types(r, t)
    return r.default if isinstance(r, _Weak) else r
