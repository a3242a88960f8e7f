"""Comparisons, predicates, logical and bitwise operators: elementwise, no gradient.

Comparisons and predicates return Bool tensors. Comparisons promote both inputs to their
common type first (``int32 < 1.5`` compares as float32); the logical operators read any
dtype as truth values (non-zero is True) without promoting; the bitwise operators take
integers and bools and keep the promoted integer type.
"""

from __future__ import annotations

import numpy as np

from ms_ops.dispatch import binary_method, unary_method
from ms_ops.infer import BOOL, broadcast_shapes, check_dtype, elementwise
from ms_ops.opdef import ALL, INTS, NUMBERS, Arg, Attr, OpDef, TensorSpec
from ms_tensor import dtype as mstype

_XY = (Arg("x"), Arg("y"))
_X = (Arg("x"),)
_ORDERED = NUMBERS | {mstype.bool_}
_INTEGRAL = INTS | {mstype.bool_}


def _comparison(name: str, dtypes, doc: str) -> OpDef:
    return OpDef(name, _XY, infer=elementwise(dtypes, out=BOOL), promote="common",
                 differentiable=False, doc=doc)


def _logical(name: str, inputs, doc: str) -> OpDef:
    return OpDef(name, inputs, infer=elementwise(out=BOOL), differentiable=False, doc=doc)


def _bitwise(name: str, doc: str) -> OpDef:
    return OpDef(name, _XY, infer=elementwise(_INTEGRAL), promote="common",
                 differentiable=False, doc=doc)


Equal = _comparison("Equal", ALL, "x == y, elementwise, as a Bool tensor.")
NotEqual = _comparison("NotEqual", ALL, "x != y, elementwise, as a Bool tensor.")
Less = _comparison("Less", _ORDERED, "x < y, elementwise, as a Bool tensor.")
LessEqual = _comparison("LessEqual", _ORDERED, "x <= y, elementwise, as a Bool tensor.")
Greater = _comparison("Greater", _ORDERED, "x > y, elementwise, as a Bool tensor.")
GreaterEqual = _comparison("GreaterEqual", _ORDERED, "x >= y, elementwise, as a Bool tensor.")

IsNan = _logical("IsNan", _X, "True where x is NaN (never for integers).")
IsInf = _logical("IsInf", _X, "True where x is +inf or -inf (never for integers).")
IsFinite = _logical("IsFinite", _X, "True where x is neither NaN nor infinite.")
LogicalNot = _logical("LogicalNot", _X, "not x, elementwise; non-zero values count as True.")
LogicalAnd = _logical("LogicalAnd", _XY, "x and y, elementwise; non-zero values count as True.")
LogicalOr = _logical("LogicalOr", _XY, "x or y, elementwise; non-zero values count as True.")
LogicalXor = _logical("LogicalXor", _XY, "x xor y, elementwise; non-zero values count as True.")

BitwiseAnd = _bitwise("BitwiseAnd", "x & y on integers and bools, elementwise.")
BitwiseOr = _bitwise("BitwiseOr", "x | y on integers and bools, elementwise.")
BitwiseXor = _bitwise("BitwiseXor", "x ^ y on integers and bools, elementwise.")


def _isclose_infer(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    check_dtype("x", x, _ORDERED)
    check_dtype("y", y, _ORDERED)
    for name, v in (("rtol", rtol), ("atol", atol)):
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"{name!r} must be a float, got {type(v).__name__} {v!r}")
    if not isinstance(equal_nan, bool):
        raise TypeError(f"'equal_nan' must be a bool, got {type(equal_nan).__name__} "
                        f"{equal_nan!r}")
    return TensorSpec(broadcast_shapes(x, y), BOOL)


IsClose = OpDef(
    "IsClose", _XY, (Attr("rtol", 1e-05), Attr("atol", 1e-08), Attr("equal_nan", False)),
    infer=_isclose_infer, promote="common", differentiable=False,
    doc="True where |x - y| <= atol + rtol * |y|; NaNs are equal only with ``equal_nan``.")


def isclose_cpu(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


PRIMITIVES = (Equal, NotEqual, Less, LessEqual, Greater, GreaterEqual, IsNan, IsInf, IsFinite,
              LogicalNot, LogicalAnd, LogicalOr, LogicalXor, BitwiseAnd, BitwiseOr, BitwiseXor,
              IsClose)
CPU_KERNELS = {
    Equal: (np.equal, ALL),
    NotEqual: (np.not_equal, ALL),
    Less: (np.less, _ORDERED),
    LessEqual: (np.less_equal, _ORDERED),
    Greater: (np.greater, _ORDERED),
    GreaterEqual: (np.greater_equal, _ORDERED),
    IsNan: (np.isnan, ALL),
    IsInf: (np.isinf, ALL),
    IsFinite: (np.isfinite, ALL),
    LogicalNot: (np.logical_not, ALL),
    LogicalAnd: (np.logical_and, ALL),
    LogicalOr: (np.logical_or, ALL),
    LogicalXor: (np.logical_xor, ALL),
    BitwiseAnd: (np.bitwise_and, _INTEGRAL),
    BitwiseOr: (np.bitwise_or, _INTEGRAL),
    BitwiseXor: (np.bitwise_xor, _INTEGRAL),
    IsClose: (isclose_cpu, _ORDERED),
}
BPROPS = {}

_eq, _ne = binary_method(Equal), binary_method(NotEqual)
_lt, _le = binary_method(Less), binary_method(LessEqual)
_gt, _ge = binary_method(Greater), binary_method(GreaterEqual)
_and, _rand = binary_method(BitwiseAnd), binary_method(BitwiseAnd, reflected=True)
_or, _ror = binary_method(BitwiseOr), binary_method(BitwiseOr, reflected=True)
_xor, _rxor = binary_method(BitwiseXor), binary_method(BitwiseXor, reflected=True)
_logical_not = unary_method(LogicalNot)
_logical_and, _logical_or = binary_method(LogicalAnd), binary_method(LogicalOr)
_logical_xor = binary_method(LogicalXor)


def _isclose(self, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    return IsClose(self, x2, rtol, atol, equal_nan)


FUNCTIONS = {
    "equal": Equal, "eq": Equal, "not_equal": NotEqual, "ne": NotEqual,
    "less": Less, "lt": Less, "less_equal": LessEqual, "le": LessEqual,
    "greater": Greater, "gt": Greater, "greater_equal": GreaterEqual, "ge": GreaterEqual,
    "isnan": IsNan, "isinf": IsInf, "isfinite": IsFinite,
    "logical_not": LogicalNot, "logical_and": LogicalAnd, "logical_or": LogicalOr,
    "logical_xor": LogicalXor, "bitwise_and": BitwiseAnd, "bitwise_or": BitwiseOr,
    "bitwise_xor": BitwiseXor, "isclose": IsClose,
}
TENSOR_METHODS = {
    # Tensor keeps ``__hash__`` by identity (ms_tensor.tensor), so defining ``__eq__`` here
    # does not make tensors unhashable.
    "__eq__": _eq, "__ne__": _ne, "__lt__": _lt, "__le__": _le, "__gt__": _gt, "__ge__": _ge,
    "__and__": _and, "__rand__": _rand, "__or__": _or, "__ror__": _ror,
    "__xor__": _xor, "__rxor__": _rxor,
    # MindSpore's ``~tensor`` is a logical not for every dtype (``~int32`` gives Bool).
    "__invert__": _logical_not,
    "equal": _eq, "eq": _eq, "not_equal": _ne, "ne": _ne, "less": _lt, "lt": _lt,
    "less_equal": _le, "le": _le, "greater": _gt, "gt": _gt, "greater_equal": _ge, "ge": _ge,
    "isnan": unary_method(IsNan), "isinf": unary_method(IsInf),
    "isfinite": unary_method(IsFinite), "logical_not": _logical_not,
    "logical_and": _logical_and, "logical_or": _logical_or, "logical_xor": _logical_xor,
    "bitwise_and": _and, "bitwise_or": _or, "bitwise_xor": _xor, "isclose": _isclose,
}
