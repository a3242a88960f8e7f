"""Comparisons, predicates, logical and bitwise operators: elementwise, no gradient.

Comparisons and predicates return Bool tensors. Comparisons promote both inputs to their
common type first (``int32 < 1.5`` compares as float32); the logical operators read any
dtype as truth values (non-zero is True) without promoting; the bitwise operators take
integers and bools and keep the promoted integer type.
"""

from __future__ import annotations

import numpy as np

from ms_ops.infer import BOOL, broadcast_shapes, check_dtype, elementwise
from ms_ops.opdef import ALL, INTS, NUMBERS, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype

_XY = (Arg("x"), Arg("y"))
_X = (Arg("x"),)
_ORDERED = NUMBERS | {mstype.bool_}
_INTEGRAL = INTS | {mstype.bool_}


def _comparison(name: str, dtypes, doc: str, **names) -> OpDef:
    return OpDef(name, _XY, infer=elementwise(dtypes, out=BOOL), promote="common",
                 differentiable=False, doc=doc, **names)


def _logical(name: str, inputs, doc: str, **names) -> OpDef:
    return OpDef(name, inputs, infer=elementwise(out=BOOL), differentiable=False, doc=doc, **names)


def _bitwise(name: str, doc: str, **names) -> OpDef:
    return OpDef(name, _XY, infer=elementwise(_INTEGRAL), promote="common",
                 differentiable=False, doc=doc, **names)


# Samples for comparisons, predicates, logical and bitwise operators. None is
# differentiable: the suite checks that their outputs are bool (or int for the bitwise
# ones). The float samples include equal pairs so Equal/LessEqual see both answers.
def _compare(rng):
    x = rng.standard_normal((2, 3))
    y = x.copy()
    y[0, 1] += 0.5
    y[1, 2] -= 0.5
    yield (x, y), {}
    yield (x, x[1]), {}
    yield (rng.standard_normal((3,)), rng.standard_normal((2, 1))), {}


def _special(rng):
    yield (np.array([[0.0, np.nan, np.inf], [-np.inf, 1.5, -2.0]]),), {}
    yield (rng.standard_normal((4,)),), {}


def _logical_samples(rng):
    yield (rng.random((2, 3)) < 0.5, rng.random((2, 3)) < 0.5), {}
    yield (rng.random((3,)) < 0.5, rng.random((2, 1)) < 0.5), {}


def _bitwise_samples(rng):
    yield (rng.integers(-8, 8, (2, 3)), rng.integers(-8, 8, (2, 3))), {}
    yield (rng.integers(0, 16, (3,)), rng.integers(0, 16, (2, 1))), {}


Equal = _comparison("Equal", ALL, "x == y, elementwise, as a Bool tensor.",
                    functional=("equal", "eq"), methods=("__eq__", "equal", "eq"))
Equal.kernel("CPU", dtypes=ALL)(np.equal)
Equal.samples(_compare)


NotEqual = _comparison("NotEqual", ALL, "x != y, elementwise, as a Bool tensor.",
                       functional=("not_equal", "ne"), methods=("__ne__", "not_equal", "ne"))
NotEqual.kernel("CPU", dtypes=ALL)(np.not_equal)
NotEqual.samples(_compare)


Less = _comparison("Less", _ORDERED, "x < y, elementwise, as a Bool tensor.",
                   functional=("less", "lt"), methods=("__lt__", "less", "lt"))
Less.kernel("CPU", dtypes=_ORDERED)(np.less)
Less.samples(_compare)


LessEqual = _comparison("LessEqual", _ORDERED, "x <= y, elementwise, as a Bool tensor.",
                        functional=("less_equal", "le"), methods=("__le__", "less_equal", "le"))
LessEqual.kernel("CPU", dtypes=_ORDERED)(np.less_equal)
LessEqual.samples(_compare)


Greater = _comparison("Greater", _ORDERED, "x > y, elementwise, as a Bool tensor.",
                      functional=("greater", "gt"), methods=("__gt__", "greater", "gt"))
Greater.kernel("CPU", dtypes=_ORDERED)(np.greater)
Greater.samples(_compare)


GreaterEqual = _comparison("GreaterEqual", _ORDERED, "x >= y, elementwise, as a Bool tensor.",
                           functional=("greater_equal", "ge"),
                           methods=("__ge__", "greater_equal", "ge"))
GreaterEqual.kernel("CPU", dtypes=_ORDERED)(np.greater_equal)
GreaterEqual.samples(_compare)


IsNan = _logical("IsNan", _X, "True where x is NaN (never for integers).",
                 functional="isnan", methods="isnan")
IsNan.kernel("CPU", dtypes=ALL)(np.isnan)
IsNan.samples(_special)


IsInf = _logical("IsInf", _X, "True where x is +inf or -inf (never for integers).",
                 functional="isinf", methods="isinf")
IsInf.kernel("CPU", dtypes=ALL)(np.isinf)
IsInf.samples(_special)


IsFinite = _logical("IsFinite", _X, "True where x is neither NaN nor infinite.",
                    functional="isfinite", methods="isfinite")
IsFinite.kernel("CPU", dtypes=ALL)(np.isfinite)
IsFinite.samples(_special)


LogicalNot = _logical("LogicalNot", _X, "not x, elementwise; non-zero values count as True.",
                      functional="logical_not", methods=("__invert__", "logical_not"))
LogicalNot.kernel("CPU", dtypes=ALL)(np.logical_not)


@LogicalNot.samples
def _not(rng):
    yield (rng.random((2, 3)) < 0.5,), {}


LogicalAnd = _logical("LogicalAnd", _XY, "x and y, elementwise; non-zero values count as True.",
                      functional="logical_and", methods="logical_and")
LogicalAnd.kernel("CPU", dtypes=ALL)(np.logical_and)
LogicalAnd.samples(_logical_samples)


LogicalOr = _logical("LogicalOr", _XY, "x or y, elementwise; non-zero values count as True.",
                     functional="logical_or", methods="logical_or")
LogicalOr.kernel("CPU", dtypes=ALL)(np.logical_or)
LogicalOr.samples(_logical_samples)


LogicalXor = _logical("LogicalXor", _XY, "x xor y, elementwise; non-zero values count as True.",
                      functional="logical_xor", methods="logical_xor")
LogicalXor.kernel("CPU", dtypes=ALL)(np.logical_xor)
LogicalXor.samples(_logical_samples)


BitwiseAnd = _bitwise("BitwiseAnd", "x & y on integers and bools, elementwise.",
                      functional="bitwise_and", methods=("__and__", "bitwise_and"))
BitwiseAnd.kernel("CPU", dtypes=_INTEGRAL)(np.bitwise_and)
BitwiseAnd.samples(_bitwise_samples)


BitwiseOr = _bitwise("BitwiseOr", "x | y on integers and bools, elementwise.",
                     functional="bitwise_or", methods=("__or__", "bitwise_or"))
BitwiseOr.kernel("CPU", dtypes=_INTEGRAL)(np.bitwise_or)
BitwiseOr.samples(_bitwise_samples)


BitwiseXor = _bitwise("BitwiseXor", "x ^ y on integers and bools, elementwise.",
                      functional="bitwise_xor", methods=("__xor__", "bitwise_xor"))
BitwiseXor.kernel("CPU", dtypes=_INTEGRAL)(np.bitwise_xor)
BitwiseXor.samples(_bitwise_samples)


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
    doc="True where |x - y| <= atol + rtol * |y|; NaNs are equal only with ``equal_nan``.",
    functional="isclose")


@IsClose.kernel("CPU", dtypes=_ORDERED)
def isclose_cpu(x, y, rtol=1e-05, atol=1e-08, equal_nan=False):
    return np.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


@IsClose.samples
def _isclose_samples(rng):
    x = rng.standard_normal((2, 3))
    y = x + np.array([0.0, 1e-9, 1e-3])
    y[1, 0] = x[1, 0] = np.nan
    yield (x, y), {}
    yield (x, y), {"rtol": 1e-2, "atol": 1e-4, "equal_nan": True}
    yield (x[0], y), {"equal_nan": False}


@functional(methods="isclose")
def _isclose(self, x2, rtol=1e-05, atol=1e-08, equal_nan=False):
    return IsClose(self, x2, rtol, atol, equal_nan)
