"""Elementwise arithmetic: Add, Sub, Mul, Div, Pow, Maximum, Abs, ... with broadcasting.

Binary operators promote their inputs to MindSpore's common type (``int32 + 2.5`` is
float32, ``uint8 + int8`` is int16). Clamping, AddN, Addcmul/Addcdiv and Lerp live here too,
since they are built from the same few operations.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.defs import array, comparison, math_unary
from ms_ops.defs._grad_util import conj as _conj
from ms_ops.defs._grad_util import grad_for, shape_of, sum_to
from ms_ops.infer import elementwise
from ms_ops.opdef import ALL, FLOATS, NUMBERS, Arg, OpDef, functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

_XY = (Arg("x"), Arg("y"))
_UNARY = (Arg("x"),)
_REAL = NUMBERS | {mstype.bool_}
_SIGNED = NUMBERS | {mstype.complex64, mstype.complex128}  # Sub, Neg, Div take complex too


# Integer division and powers, logs and roots meet zero and negative inputs by design;
# they give what MindSpore gives (inf, NaN, 0) without numpy's RuntimeWarnings.
_quiet = np.errstate(all="ignore")
floor_div_cpu = _quiet(np.floor_divide)
floor_mod_cpu = _quiet(np.remainder)
mod_cpu = _quiet(np.fmod)
reciprocal_cpu = _quiet(np.reciprocal)


def _as_float(mask, like):
    """A Bool mask as 0/1 in ``like``'s dtype, to multiply gradients with."""
    return array.Cast(mask, like.dtype)


def _both(x, y, dx, dy):
    return (grad_for(x, sum_to(dx, shape_of(x))), grad_for(y, sum_to(dy, shape_of(y))))


def _log_for_pow(x):
    """log(x) with log(0) read as 0: d(x**y)/dy = x**y * log(x) is 0 at x = 0 (MindSpore)."""
    if not isinstance(x, Tensor):
        return math.log(x) if x > 0 else (0.0 if x == 0 else math.nan)
    return math_unary.Log(Add(x, _as_float(comparison.Equal(x, 0), x)))


def _tie_split(x, y, wins, dout):
    """Gradients of a pick between x and y: the winner takes dout, a tie splits it evenly."""
    share = Add(_as_float(wins, dout), Mul(_as_float(comparison.Equal(x, y), dout), 0.5))
    dx = Mul(dout, share)
    return _both(x, y, dx, Sub(dout, dx))


def _integral(v) -> bool:
    return v.dtype.kind in "biu" if isinstance(v, Tensor) else not isinstance(v, float)


def _unbounded(x: Tensor, upper: bool):
    """A bound that never clips ``x`` and keeps its dtype (a Python scalar)."""
    np_dtype = x.dtype.np
    if np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        return int(info.max if upper else info.min)
    return math.inf if upper else -math.inf


# Samples for the arithmetic family: broadcasting shapes for every binary operator,
# divisors and magnitudes kept away from zero, and quotients kept away from integers
# (where FloorDiv, FloorMod and Mod jump).
BROADCAST = [((2, 3), (2, 3)), ((2, 1, 3), (4, 1)), ((3,), (2, 3))]


def _signed(rng, shape, lo=0.3, hi=2.0):
    """Values with magnitude in [lo, hi] and a random sign: away from zero."""
    return rng.uniform(lo, hi, shape) * rng.choice([-1.0, 1.0], shape)


def _binary(rng):
    for xs, ys in BROADCAST:
        yield (rng.standard_normal(xs), rng.standard_normal(ys)), {}


def _unary(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((4,)),), {}


def _unary_nonzero(rng):
    yield (_signed(rng, (2, 3)),), {}
    yield (_signed(rng, (4,)),), {}


def _between_multiples(rng):
    """x / y = k + f with f in [0.2, 0.8]: the quotient is never close to an integer.

    The broadcast side is derived from the other one (x = y * q or y = x / q)."""
    for xs, ys in [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3))]:
        shape = np.broadcast_shapes(xs, ys)
        q = rng.integers(-3, 3, shape) + rng.uniform(0.2, 0.8, shape)
        if shape == xs:
            y = _signed(rng, ys, 0.5, 2.0)
            yield (y * q, y), {}
        else:
            x = _signed(rng, xs, 0.5, 2.0)
            yield (x, x / q), {}


def _apart(rng):
    """x and y at least 0.2 apart everywhere, so Maximum/Minimum pick one side (the
    broadcast side is derived from the other one)."""
    for xs, ys in [((2, 3), (2, 3)), ((2, 3), (3,)), ((3,), (2, 3))]:
        d = _signed(rng, np.broadcast_shapes(xs, ys), 0.2, 1.0)
        if d.shape == xs:
            y = rng.standard_normal(ys)
            yield (y + d, y), {}
        else:
            x = rng.standard_normal(xs)
            yield (x, x + d), {}


def _addc(rng, divide):
    x2 = (lambda s: _signed(rng, s, 0.5, 2.0)) if divide else rng.standard_normal
    yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), x2((2, 3)),
           rng.standard_normal((2, 3))), {}
    yield (rng.standard_normal((3,)), rng.standard_normal((2, 1)), x2((2, 3)),
           rng.standard_normal((1,))), {}


Add = OpDef("Add", _XY, infer=elementwise(), promote="common",
            doc="x + y, elementwise, with broadcasting.",
            functional="add", methods=("__add__", "add"))
Add.kernel("CPU", dtypes=ALL, out=True)(np.add)


@Add.bprop
def add_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(dout, shape_of(x))), grad_for(y, sum_to(dout, shape_of(y))))


Add.samples(_binary)


Sub = OpDef("Sub", _XY, infer=elementwise(_SIGNED), promote="common",
            doc="x - y, elementwise, with broadcasting.",
            functional=("sub", "subtract"), methods=("__sub__", "sub"))
Sub.kernel("CPU", dtypes=_SIGNED, out=True)(np.subtract)


@Sub.bprop
def sub_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(dout, shape_of(x))),
            grad_for(y, sum_to(Neg(dout), shape_of(y))))


Sub.samples(_binary)


Mul = OpDef("Mul", _XY, infer=elementwise(), promote="common",
            doc="x * y, elementwise, with broadcasting.",
            functional=("mul", "multiply"), methods=("__mul__", "mul"))
Mul.kernel("CPU", dtypes=ALL, out=True)(np.multiply)


@Mul.bprop
def mul_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(Mul(dout, _conj(y)), shape_of(x))),
            grad_for(y, sum_to(Mul(dout, _conj(x)), shape_of(y))))


Mul.samples(_binary)


Div = OpDef("Div", _XY, infer=elementwise(), promote="float",
            doc="x / y, elementwise; integer inputs give float32 (true division).",
            functional="true_divide", methods=("__truediv__", "true_divide"))


@Div.kernel("CPU", dtypes=_SIGNED, out=True)
def _true_divide(x, y, out=None):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(x, y, out=out)


@Div.bprop
def div_bprop(x, y, out, dout):
    dx = Div(dout, _conj(y))
    return (grad_for(x, sum_to(dx, shape_of(x))),
            grad_for(y, sum_to(Neg(Mul(dx, _conj(out))), shape_of(y))))


@Div.samples
def _nonzero_divisor(rng):
    for xs, ys in BROADCAST:
        yield (rng.standard_normal(xs), _signed(rng, ys)), {}


Neg = OpDef("Neg", (Arg("x"),), infer=elementwise(_SIGNED), promote="common",
            doc="-x, elementwise.", functional=("neg", "negative"), methods=("__neg__", "neg"))
Neg.kernel("CPU", dtypes=_SIGNED, out=True)(np.negative)


@Neg.bprop
def neg_bprop(x, out, dout):
    return (Neg(dout),)


Neg.samples(_unary)


FloorDiv = OpDef("FloorDiv", _XY, infer=elementwise(NUMBERS), promote="common",
                 differentiable=False,
                 doc="floor(x / y), elementwise; integers stay integers (``x // y``).",
                 functional=("floor_div", "floor_divide"), methods=("__floordiv__", "floor_divide"))
FloorDiv.kernel("CPU", dtypes=NUMBERS, out=True)(floor_div_cpu)
FloorDiv.samples(_between_multiples)


FloorMod = OpDef("FloorMod", _XY, infer=elementwise(NUMBERS), promote="common",
                 doc="x - floor(x / y) * y: the remainder takes the sign of y (``x % y``).",
                 functional="floor_mod", methods="__mod__")
FloorMod.kernel("CPU", dtypes=NUMBERS, out=True)(floor_mod_cpu)


@FloorMod.bprop
def floor_mod_bprop(x, y, out, dout):
    return _both(x, y, dout, Neg(Mul(dout, FloorDiv(x, y))))


FloorMod.samples(_between_multiples)


Mod = OpDef("Mod", _XY, infer=elementwise(NUMBERS), promote="common",
            doc="x - trunc(x / y) * y: the remainder takes the sign of x (C's fmod).")
Mod.kernel("CPU", dtypes=NUMBERS, out=True)(mod_cpu)


@Mod.bprop
def mod_bprop(x, y, out, dout):
    return _both(x, y, dout, Neg(Mul(dout, math_unary.Trunc(Div(x, y)))))


Mod.samples(_between_multiples)


Pow = OpDef("Pow", _XY, infer=elementwise(NUMBERS), promote="common",
            doc="x ** y, elementwise; for integers a negative power truncates toward zero.",
            functional=("pow", "tensor_pow"), methods=("__pow__", "pow"))


@Pow.kernel("CPU", dtypes=NUMBERS)
@_quiet
def pow_cpu(x, y):
    if x.dtype.kind != "i":
        return np.power(x, y)
    negative = y < 0
    if not negative.any():
        return np.power(x, y)
    # numpy refuses negative integer powers; MindSpore truncates 1 / x**n toward zero, so
    # only 1 and -1 survive, and 0 gives the integer type's minimum (its inf -> int cast).
    mag = np.power(x, np.where(negative, 0, y).astype(y.dtype))
    odd = (y & 1).astype(bool)
    inv = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1),
                                       np.where(x == 0, np.iinfo(x.dtype).min, 0)))
    return np.where(negative, inv, mag).astype(x.dtype)


@Pow.bprop
def pow_bprop(x, y, out, dout):
    y_tensor = isinstance(y, Tensor)
    dx = Mul(Mul(dout, y), Pow(x, Sub(y, 1) if y_tensor else y - 1))
    dy = Mul(Mul(dout, out), _log_for_pow(x)) if y_tensor else None
    return (grad_for(x, sum_to(dx, shape_of(x))), dy if dy is None else sum_to(dy, shape_of(y)))


@Pow.samples
def _pow_samples(rng):
    for xs, ys in BROADCAST:
        yield (rng.uniform(0.5, 2.0, xs), rng.uniform(-2.0, 2.0, ys)), {}


Maximum = OpDef("Maximum", _XY, infer=elementwise(NUMBERS), promote="common",
                doc="The larger of x and y, elementwise; NaN wins any comparison.",
                functional="maximum", methods="maximum")
Maximum.kernel("CPU", dtypes=NUMBERS, out=True)(np.maximum)


@Maximum.bprop
def maximum_bprop(x, y, out, dout):
    return _tie_split(x, y, comparison.Greater(x, y), dout)


Maximum.samples(_apart)


Minimum = OpDef("Minimum", _XY, infer=elementwise(NUMBERS), promote="common",
                doc="The smaller of x and y, elementwise; NaN wins any comparison.",
                functional="minimum", methods="minimum")
Minimum.kernel("CPU", dtypes=NUMBERS, out=True)(np.minimum)


@Minimum.bprop
def minimum_bprop(x, y, out, dout):
    return _tie_split(x, y, comparison.Less(x, y), dout)


Minimum.samples(_apart)


SquaredDifference = OpDef("SquaredDifference", _XY, infer=elementwise(NUMBERS),
                          promote="common", doc="(x - y) ** 2, elementwise.")


@SquaredDifference.kernel("CPU", dtypes=NUMBERS)
def squared_difference_cpu(x, y):
    return np.square(np.subtract(x, y))


@SquaredDifference.bprop
def squared_difference_bprop(x, y, out, dout):
    d = Mul(Mul(dout, Sub(x, y)), 2)
    return _both(x, y, d, Neg(d))


SquaredDifference.samples(_binary)


Square = OpDef("Square", _UNARY, infer=elementwise(_SIGNED), doc="x * x, elementwise.",
               functional="square", methods="square")
Square.kernel("CPU", dtypes=_SIGNED, out=True)(np.square)


@Square.bprop
def square_bprop(x, out, dout):
    return (Mul(dout, Mul(_conj(x), 2)),)


Square.samples(_unary)


Reciprocal = OpDef("Reciprocal", _UNARY, infer=elementwise(FLOATS), promote="float",
                   doc="1 / x; integer inputs give float32.",
                   functional="reciprocal", methods="reciprocal")
Reciprocal.kernel("CPU", dtypes=FLOATS, out=True)(reciprocal_cpu)


@Reciprocal.bprop
def reciprocal_bprop(x, out, dout):
    return (Neg(Mul(dout, Mul(out, out))),)


Reciprocal.samples(_unary_nonzero)


Abs = OpDef("Abs", _UNARY, infer=elementwise(_REAL), doc="|x|, elementwise.",
            functional=("abs", "absolute"), methods=("__abs__", "abs", "absolute"))
Abs.kernel("CPU", dtypes=_REAL, out=True)(np.abs)


@Abs.bprop
def abs_bprop(x, out, dout):
    return (Mul(dout, Sign(x)),)


Abs.samples(_unary_nonzero)


Sign = OpDef("Sign", _UNARY, infer=elementwise(NUMBERS), differentiable=False,
             doc="-1, 0 or 1 by the sign of x; NaN gives 0, as in MindSpore.",
             functional="sign", methods="sign")


@Sign.kernel("CPU", dtypes=NUMBERS)
def sign_cpu(x):
    out = np.asarray(np.sign(x))  # an array even for 0-d input, so it can be written
    if x.dtype.kind not in "biu":
        out[np.isnan(out)] = 0
    return out


Sign.samples(_unary_nonzero)


Addcmul = OpDef("Addcmul", (Arg("input_data"), Arg("x1"), Arg("x2"), Arg("value", default=1)),
                infer=elementwise(NUMBERS, names=("input_data", "x1", "x2", "value")),
                promote="common", doc="input_data + value * x1 * x2, elementwise.",
                functional="addcmul", methods="addcmul")


@Addcmul.kernel("CPU", dtypes=NUMBERS)
def addcmul_cpu(input_data, x1, x2, value):
    return input_data + value * (x1 * x2)  # MindSpore's order: bit-identical float32 results


@Addcmul.bprop
def addcmul_bprop(input_data, x1, x2, value, out, dout):
    scaled = Mul(dout, value)
    return (grad_for(input_data, sum_to(dout, shape_of(input_data))),
            grad_for(x1, sum_to(Mul(scaled, x2), shape_of(x1))),
            grad_for(x2, sum_to(Mul(scaled, x1), shape_of(x2))),
            grad_for(value, sum_to(Mul(dout, Mul(x1, x2)), shape_of(value))))


Addcmul.samples(lambda rng: _addc(rng, False))


Addcdiv = OpDef("Addcdiv", (Arg("input_data"), Arg("x1"), Arg("x2"), Arg("value", default=1)),
                infer=elementwise(FLOATS, names=("input_data", "x1", "x2", "value")),
                promote="common", doc="input_data + value * x1 / x2, elementwise.",
                functional="addcdiv", methods="addcdiv")


@Addcdiv.kernel("CPU", dtypes=FLOATS)
@_quiet
def addcdiv_cpu(input_data, x1, x2, value):
    return input_data + value * x1 / x2


@Addcdiv.bprop
def addcdiv_bprop(input_data, x1, x2, value, out, dout):
    scaled = Div(Mul(dout, value), x2)
    quotient = Div(x1, x2)
    return (grad_for(input_data, sum_to(dout, shape_of(input_data))),
            grad_for(x1, sum_to(scaled, shape_of(x1))),
            grad_for(x2, sum_to(Neg(Mul(scaled, quotient)), shape_of(x2))),
            grad_for(value, sum_to(Mul(dout, quotient), shape_of(value))))


Addcdiv.samples(lambda rng: _addc(rng, True))


Lerp = OpDef("Lerp", (Arg("start"), Arg("end"), Arg("weight")),
             infer=elementwise(FLOATS, names=("start", "end", "weight")), promote="common",
             doc="start + weight * (end - start): linear interpolation.",
             functional="lerp", methods="lerp")


@Lerp.kernel("CPU", dtypes=FLOATS)
def lerp_cpu(start, end, weight):
    return start + weight * (end - start)


@Lerp.bprop
def lerp_bprop(start, end, weight, out, dout):
    rest = Sub(1, weight) if isinstance(weight, Tensor) else 1 - weight
    return (grad_for(start, sum_to(Mul(dout, rest), shape_of(start))),
            grad_for(end, sum_to(Mul(dout, weight), shape_of(end))),
            grad_for(weight, sum_to(Mul(dout, Sub(end, start)), shape_of(weight))))


@Lerp.samples
def _lerp(rng):
    yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3)),
           rng.uniform(0.0, 1.0, (2, 3))), {}
    yield (rng.standard_normal((3,)), rng.standard_normal((2, 3)),
           rng.uniform(0.0, 1.0, (2, 1))), {}


ClampTensor = OpDef("ClampTensor", (Arg("input"), Arg("min"), Arg("max")),
                    infer=elementwise(NUMBERS, names=("input", "min", "max")), promote="common",
                    doc="min(max(input, min), max); where min > max the result is max.")


@ClampTensor.kernel("CPU", dtypes=NUMBERS)
def clamp_cpu(x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi)


@ClampTensor.bprop
def clamp_bprop(x, lo, hi, out, dout):
    # Each output element is exactly one of x, lo or hi, and that one takes dout. Inside
    # [lo, hi], boundaries included, it is x (MindSpore's ClampTensor gradient).
    to_hi = comparison.Greater(Maximum(x, lo), hi)
    to_lo = comparison.LogicalAnd(comparison.Less(x, lo), comparison.LogicalNot(to_hi))
    keep = comparison.LogicalNot(comparison.LogicalOr(to_hi, to_lo))
    return (grad_for(x, sum_to(Mul(dout, _as_float(keep, dout)), shape_of(x))),
            grad_for(lo, sum_to(Mul(dout, _as_float(to_lo, dout)), shape_of(lo))),
            grad_for(hi, sum_to(Mul(dout, _as_float(to_hi, dout)), shape_of(hi))))


@ClampTensor.samples
def _clamp(rng):
    """Values below, inside and above [min, max], none within 0.2 of a bound."""
    lo = np.array([-1.0, -0.5, 0.0])
    hi = lo + 1.5
    x = lo + np.array([[-0.6, 0.4, 1.9], [0.9, 2.1, -0.3]])
    yield (x, lo, hi), {}
    yield (x, np.array(-0.5), np.array([[1.0], [0.5]])), {}


@functional("addn")
def addn(x):
    """``ops.addn(x)``: the sum of a list or tuple of tensors of one shape and dtype.

    >>> ops.addn([Tensor([1.0]), Tensor([2.0]), Tensor([3.0])])
    Tensor(shape=[1], dtype=Float32, value= [ 6.00000000e+00])
    """
    if not isinstance(x, (list, tuple)) or not x:
        raise TypeError(f"AddN: x must be a non-empty list or tuple of Tensors, got "
                        f"{type(x).__name__}" + ("" if x else " (empty)"))
    first = x[0]
    for i, t in enumerate(x):
        if not isinstance(t, Tensor):
            raise TypeError(f"AddN: x[{i}] must be a Tensor, got {type(t).__name__}")
        if t.shape != first.shape:
            raise ValueError(f"AddN: every input must have one shape: x[0] shape "
                             f"{first.shape}, x[{i}] shape {t.shape}")
        if t.dtype is not first.dtype:
            raise TypeError(f"AddN: every input must have one dtype: x[0] is {first.dtype}, "
                            f"x[{i}] is {t.dtype}")
    out = first
    for t in x[1:]:
        out = Add(out, t)
    return out


@functional("remainder", methods="remainder")
def remainder(input, other):
    """``ops.remainder``: input - floor_div(input, other) * other (the sign of ``other``).

    MindSpore evaluates the formula as written rather than with FloorMod, so float results
    can differ from ``x % y`` in the last bits (and an integer remainder by 0 is ``input``);
    the same three operators here give its numbers.
    """
    return Sub(input, Mul(FloorDiv(input, other), other))


@functional("fmod", methods="fmod")
def fmod(input, other):
    """``ops.fmod``: input - trunc(input / other) * other (the sign of ``input``).

    Floats are evaluated as MindSpore writes the formula (float32 results carry the
    rounding of the division); integers use the exact Mod kernel, which agrees with it.
    """
    if _integral(input) and _integral(other):
        return Mod(input, other)
    return Sub(input, Mul(math_unary.Trunc(Div(input, other)), other))


@functional("AddN")
class AddN:
    """``ops.AddN()(x)``: the Primitive form of :func:`addn` (a chain of Add)."""

    def __call__(self, x):
        return addn(x)

    def __repr__(self) -> str:
        return "Prim[AddN]"


@functional("clamp", "clip", methods=("clamp", "clip"))
def clamp(input, min=None, max=None):
    """``ops.clamp``/``ops.clip``: limit ``input`` to ``[min, max]`` (either may be None).

    The result has the promoted dtype of the three (an int32 tensor clamped by 2.5 is
    float32); where min > max every element becomes max. The gradient flows to the input
    inside the closed interval and to the bound that was taken elsewhere.

    >>> ops.clamp(Tensor([1.0, 5.0, 9.0]), 2, 6)
    Tensor(shape=[3], dtype=Float32, value= [ 2.00000000e+00,  5.00000000e+00,  6.00000000e+00])
    """
    if min is None and max is None:
        raise ValueError("ClampTensor: at least one of 'min' and 'max' must not be None")
    if not isinstance(input, Tensor):
        raise TypeError(f"ClampTensor: input must be a Tensor, got {type(input).__name__}")
    return ClampTensor(input, _unbounded(input, False) if min is None else min,
                       _unbounded(input, True) if max is None else max)


@functional("clip_by_value")
def clip_by_value(x, clip_value_min=None, clip_value_max=None):
    """``ops.clip_by_value``: Maximum with the lower bound, then Minimum with the upper.

    Unlike :func:`clamp` the result keeps ``x``'s dtype, a list or tuple of tensors is
    clipped element by element, and a tie with a bound splits the gradient in half (it is
    built from Maximum and Minimum, as in MindSpore).
    """
    if clip_value_min is None and clip_value_max is None:
        raise ValueError("clip_by_value: at least one of 'clip_value_min' and "
                         "'clip_value_max' must not be None")
    if isinstance(x, (list, tuple)):
        return type(x)(clip_by_value(t, clip_value_min, clip_value_max) for t in x)
    out = x
    if clip_value_min is not None:
        out = Maximum(out, clip_value_min)
    if clip_value_max is not None:
        out = Minimum(out, clip_value_max)
    if isinstance(x, Tensor) and out.dtype is not x.dtype:
        out = array.Cast(out, x.dtype)
    return out


@functional(methods="__pos__")
def _pos(self):
    return self
