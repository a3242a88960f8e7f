"""More elementwise math, as MindSpore's functional API has it: ``div`` with its rounding
modes, Gcd, Lcm, CopySign, FMax, FMin, Heaviside, NanToNum, SignBit, and compositions of
existing operators (``hypot``,
``logaddexp``/``logaddexp2``, ``deg2rad``/``rad2deg``, ``frac``, ``float_power``,
``ldexp``, ``isposinf``/``isneginf``/``isreal``, ``positive``/``negative``, ``sgn``,
``inv``/``invert``, ``diff``, ``trapz``).

The compositions differentiate through their parts. Float-only functions refuse integer
inputs by name, as MindSpore does (``hypot``, ``logaddexp``, ``deg2rad``).
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.defs import array, comparison, math_unary
from ms_ops.defs._grad_util import grad_for, shape_of, sum_to
from ms_ops.defs.arithmetic import (
    Abs,
    Add,
    Div,
    FloorDiv,
    Maximum,
    Mod,
    Mul,
    Neg,
    Pow,
    Reciprocal,
    Sign,
    Sub,
    _integral,
)
from ms_ops.defs.array_create import full
from ms_ops.defs.array_join import concat
from ms_ops.defs.array_reorder import Select
from ms_ops.defs.array_slice import Slice
from ms_ops.defs.reduction import ReduceSum
from ms_ops.infer import check_dtype, elementwise
from ms_ops.opdef import FLOATS, INTS, NUMBERS, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

_XY = (Arg("x"), Arg("y"))


def _pairs(rng):
    yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3))), {}
    yield (rng.standard_normal((2, 1, 3)), rng.standard_normal((4, 1))), {}


def _ints(rng):
    yield (rng.integers(-30, 30, (2, 3)), rng.integers(-30, 30, (2, 3))), {}
    yield (rng.integers(0, 40, (3,)), rng.integers(1, 40, (2, 1))), {}


Gcd = OpDef("Gcd", _XY, infer=elementwise(INTS), promote="common", differentiable=False,
            functional="gcd", methods="gcd",
            doc="Greatest common divisor, elementwise (non-negative; gcd(0, 0) = 0).")
Gcd.kernel("CPU", dtypes=INTS)(np.gcd)
Gcd.samples(_ints)


Lcm = OpDef("Lcm", _XY, infer=elementwise(INTS), promote="common", differentiable=False,
            functional="lcm", methods="lcm",
            doc="Least common multiple, elementwise (non-negative; 0 if either is 0).")
Lcm.kernel("CPU", dtypes=INTS)(np.lcm)
Lcm.samples(_ints)


CopySign = OpDef("CopySign", _XY, infer=elementwise(FLOATS), promote="float",
                 functional="copysign", methods="copysign",
                 doc="|x| with the sign of y (including the sign of -0.0).")
CopySign.kernel("CPU", dtypes=FLOATS)(np.copysign)


@CopySign.bprop
def copy_sign_bprop(x, y, out, dout):
    flipped = comparison.NotEqual(SignBit(x), SignBit(y))
    dx = Select(flipped, Neg(dout), dout)
    return grad_for(x, sum_to(dx, shape_of(x))), None


CopySign.samples(_pairs)


def _nan_aware(name: str, np_fn, pick_x, doc: str, fn_name: str) -> OpDef:
    op = OpDef(name, _XY, infer=elementwise(NUMBERS), promote="common", functional=fn_name,
               methods=fn_name, doc=doc, aliases=(name[0] + name[1:].lower(),))
    op.kernel("CPU", dtypes=NUMBERS)(np_fn)

    @op.bprop
    def bprop(x, y, out, dout):
        chose_x = comparison.LogicalOr(pick_x(x, y), comparison.IsNan(y))
        return (grad_for(x, sum_to(Select(chose_x, dout, 0), shape_of(x))),
                grad_for(y, sum_to(Select(chose_x, 0, dout), shape_of(y))))

    op.samples(_pairs)
    return op


FMax = _nan_aware("FMax", np.fmax, comparison.GreaterEqual,
                  "The larger of x and y, elementwise; a NaN loses to a number.", "fmax")
FMin = _nan_aware("FMin", np.fmin, comparison.LessEqual,
                  "The smaller of x and y, elementwise; a NaN loses to a number.", "fmin")


Heaviside = OpDef("Heaviside", (Arg("input"), Arg("values")), infer=elementwise(NUMBERS),
                  promote="common", differentiable=False, functional="heaviside",
                  methods="heaviside",
                  doc="1 where input > 0, ``values`` where input == 0, else 0 (NaN too).")


@Heaviside.kernel("CPU", dtypes=NUMBERS)
def heaviside_cpu(x, values):
    # not np.heaviside: MindSpore gives 0 for a NaN input (it is not > 0), numpy NaN
    return np.where(x > 0, np.ones_like(x), np.where(x == 0, values, np.zeros_like(x)))


Heaviside.samples(_pairs)


def _nan_to_num_infer(x, nan=0.0, posinf=None, neginf=None):
    check_dtype("input", x, FLOATS)
    return TensorSpec(x.shape, x.dtype)


NanToNum = OpDef("NanToNum", (Arg("input"),),
                 (Attr("nan", 0.0), Attr("posinf", None), Attr("neginf", None)),
                 infer=_nan_to_num_infer,
                 doc="NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` "
                     "(the dtype's largest and lowest values when None).")


@NanToNum.kernel("CPU", dtypes=FLOATS)
def nan_to_num_cpu(x, nan=0.0, posinf=None, neginf=None):
    return np.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)


@NanToNum.bprop
def nan_to_num_bprop(x, out, dout, nan=0.0, posinf=None, neginf=None):
    return (Select(comparison.IsFinite(x), dout, 0),)


@NanToNum.samples
def _nan_to_num(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((4,)),), {"nan": 1.0, "posinf": 5.0, "neginf": -5.0}


@functional("nan_to_num", methods="nan_to_num")
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    """``ops.nan_to_num``: NaN and infinities replaced by finite numbers."""
    return NanToNum(input, nan=nan, posinf=posinf, neginf=neginf)


SignBit = OpDef("SignBit", (Arg("input"),), infer=elementwise(NUMBERS, out=mstype.bool_),
                differentiable=False, functional="signbit", methods="signbit",
                doc="True where the sign bit is set (negative numbers, -0.0, -inf).")
SignBit.kernel("CPU", dtypes=NUMBERS)(np.signbit)


@SignBit.samples
def _sign_bit(rng):
    yield (np.array([-1.5, -0.0, 0.0, 2.0, -np.inf]),), {}


def _floats_only(name: str, *tensors):
    for t in tensors:
        if isinstance(t, Tensor) and t.dtype not in mstype.float_types:
            raise TypeError(f"{name}: inputs must be float tensors, got {t.dtype}")


@functional("hypot", methods="hypot")
def hypot(input, other):
    """``ops.hypot``: sqrt(input ** 2 + other ** 2), elementwise."""
    _floats_only("hypot", input, other)
    return math_unary.Sqrt(Add(Mul(input, input), Mul(other, other)))


@functional("logaddexp", methods="logaddexp")
def logaddexp(input, other):
    """``ops.logaddexp``: log(exp(input) + exp(other)), computed without overflow."""
    _floats_only("logaddexp", input, other)
    return _log_add_exp(input, other, math_unary.Exp, math_unary.Log1p, 1.0)


@functional("logaddexp2", methods="logaddexp2")
def logaddexp2(input, other):
    """``ops.logaddexp2``: log2(2 ** input + 2 ** other), computed without overflow."""
    _floats_only("logaddexp2", input, other)
    return _log_add_exp(input, other, lambda v: Pow(2.0, v),
                        lambda v: math_unary.Log1p(v), 1.0 / math.log(2.0))


def _log_add_exp(a, b, exp, log1p, scale):
    top = Maximum(a, b)
    gap = Neg(Abs(Sub(a, b)))  # -|a - b| <= 0: exp never overflows
    tail = log1p(exp(gap))
    # equal infinities give a NaN gap; the maximum is then the answer
    tail = Select(comparison.IsNan(gap), 0, tail)
    return Add(top, Mul(tail, scale)) if scale != 1.0 else Add(top, tail)


@functional("deg2rad", methods="deg2rad")
def deg2rad(x):
    """``ops.deg2rad``: degrees to radians."""
    _floats_only("deg2rad", x)
    return Mul(x, math.pi / 180.0)


@functional("rad2deg", methods="rad2deg")
def rad2deg(x):
    """``ops.rad2deg``: radians to degrees."""
    _floats_only("rad2deg", x)
    return Div(Mul(x, 180.0), math.pi)  # in this order, as MindSpore rounds it


@functional("frac", methods="frac")
def frac(x):
    """``ops.frac``: the fractional part, x - trunc(x) (with x's sign)."""
    return Sub(x, math_unary.Trunc(x))


@functional("float_power", methods="float_power")
def float_power(input, exponent):
    """``ops.float_power``: input ** exponent computed in float64."""
    def as64(v):
        return array.Cast(v, mstype.float64) if isinstance(v, Tensor) else float(v)

    return Pow(as64(input), as64(exponent))


@functional("ldexp", methods="ldexp")
def ldexp(x, other):
    """``ops.ldexp``: x * 2 ** other."""
    return Mul(x, Pow(2.0, array.Cast(other, x.dtype) if isinstance(other, Tensor) else other))


@functional("isposinf", methods="isposinf")
def isposinf(input):
    """``ops.isposinf``: True where input is +inf."""
    return comparison.LogicalAnd(comparison.IsInf(input), comparison.Greater(input, 0))


@functional("isneginf", methods="isneginf")
def isneginf(input):
    """``ops.isneginf``: True where input is -inf."""
    return comparison.LogicalAnd(comparison.IsInf(input), comparison.Less(input, 0))


@functional("isreal", methods="isreal")
def isreal(input):
    """``ops.isreal``: True where the imaginary part is 0 (everywhere for real dtypes)."""
    return full(tuple(input.shape), True, dtype=mstype.bool_)


@functional("positive", methods="positive")
def positive(input):
    """``ops.positive``: input itself (the unary plus)."""
    return input


@functional("sgn", methods="sgn")
def sgn(input):
    """``ops.sgn``: the sign, -1, 0 or 1 (real tensors)."""
    return Sign(input)


@functional("inv", methods="inv")
def inv(x):
    """``ops.inv``: 1 / x, elementwise."""
    return Reciprocal(x)


@functional("invert", methods="invert")
def invert(x):
    """``ops.invert``: bitwise NOT of an integer tensor."""
    if x.dtype not in mstype.int_types and x.dtype is not mstype.bool_:
        raise TypeError(f"invert: input must be an integer or bool tensor, got {x.dtype}")
    return comparison.LogicalNot(x) if x.dtype is mstype.bool_ else Sub(Neg(x), 1)


@functional("diff", methods="diff")
def diff(x, n=1, axis=-1, prepend=None, append=None):
    """``ops.diff``: the n-th difference along ``axis`` (with optional ``prepend``/``append``)."""
    parts = [p for p in (prepend, x, append) if p is not None]
    out = concat(tuple(parts), axis) if len(parts) > 1 else x
    ax = axis % out.ndim
    for _ in range(n):
        size = list(out.shape)
        size[ax] -= 1
        begin = [0] * out.ndim
        later = list(begin)
        later[ax] = 1
        out = Sub(Slice(out, tuple(later), tuple(size)), Slice(out, tuple(begin), tuple(size)))
    return out


@functional("trapz")
def trapz(y, x=None, *, dx=None, dim=-1):
    """``ops.trapz``: the integral of ``y`` along ``dim`` by the trapezoid rule, with sample
    points ``x`` or spacing ``dx`` (1 when both are None)."""
    ax = dim % y.ndim
    n = y.shape[ax]
    size = list(y.shape)
    size[ax] = n - 1
    lo = Slice(y, (0,) * y.ndim, tuple(size))
    hi = Slice(y, tuple(1 if i == ax else 0 for i in range(y.ndim)), tuple(size))
    mean = Mul(Add(lo, hi), 0.5)
    if x is not None:
        step = diff(x, axis=-1 if x.ndim == 1 else dim)
        if x.ndim == 1 and y.ndim > 1:
            shape = [1] * y.ndim
            shape[ax] = n - 1
            step = array.Reshape(step, tuple(shape))
        return ReduceSum(Mul(mean, step), ax)
    return Mul(ReduceSum(mean, ax), 1.0 if dx is None else dx)


@functional("div", "divide", methods=("div", "divide"))
def div(input, other, *, rounding_mode=None):
    """``ops.div``: ``input / other``; ``rounding_mode`` None divides exactly (integers give
    float32), ``"floor"`` rounds the quotient down and ``"trunc"`` toward zero (integers
    stay integers, exactly).

    >>> ops.div(Tensor([7, -7]), Tensor([2, 2]), rounding_mode="trunc").asnumpy()
    array([ 3, -3])
    """
    if rounding_mode is None:
        return Div(input, other)
    if rounding_mode == "floor":
        return FloorDiv(input, other)
    if rounding_mode == "trunc":
        if _integral(input) and _integral(other):
            return FloorDiv(Sub(input, Mod(input, other)), other)
        return math_unary.Trunc(Div(input, other))
    raise ValueError(f"div: rounding_mode must be None, 'floor' or 'trunc', got {rounding_mode!r}")
