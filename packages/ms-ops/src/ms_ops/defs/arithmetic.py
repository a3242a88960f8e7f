"""Elementwise arithmetic: Add, Sub, Mul, Div, Pow, Maximum, Abs, ... with broadcasting.

Binary operators promote their inputs to MindSpore's common type (``int32 + 2.5`` is
float32, ``uint8 + int8`` is int16). Clamping, AddN, Addcmul/Addcdiv and Lerp live here too,
since they are built from the same few operations.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.defs._grad_util import grad_for, shape_of, sum_to
from ms_ops.dispatch import binary_method, unary_method
from ms_ops.infer import elementwise
from ms_ops.opdef import ALL, FLOATS, NUMBERS, Arg, OpDef
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

_XY = (Arg("x"), Arg("y"))

Add = OpDef("Add", _XY, infer=elementwise(), promote="common",
            doc="x + y, elementwise, with broadcasting.")
Sub = OpDef("Sub", _XY, infer=elementwise(NUMBERS), promote="common",
            doc="x - y, elementwise, with broadcasting.")
Mul = OpDef("Mul", _XY, infer=elementwise(), promote="common",
            doc="x * y, elementwise, with broadcasting.")
Div = OpDef("Div", _XY, infer=elementwise(), promote="float",
            doc="x / y, elementwise; integer inputs give float32 (true division).")
Neg = OpDef("Neg", (Arg("x"),), infer=elementwise(NUMBERS), promote="common",
            doc="-x, elementwise.")


def add_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(dout, shape_of(x))), grad_for(y, sum_to(dout, shape_of(y))))


def sub_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(dout, shape_of(x))),
            grad_for(y, sum_to(Neg(dout), shape_of(y))))


def mul_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(Mul(dout, y), shape_of(x))),
            grad_for(y, sum_to(Mul(dout, x), shape_of(y))))


def div_bprop(x, y, out, dout):
    dx = Div(dout, y)
    return (grad_for(x, sum_to(dx, shape_of(x))),
            grad_for(y, sum_to(Neg(Mul(dx, out)), shape_of(y))))


def neg_bprop(x, out, dout):
    return (Neg(dout),)


def _true_divide(x, y, out=None):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(x, y, out=out)


_UNARY = (Arg("x"),)
_REAL = NUMBERS | {mstype.bool_}

FloorDiv = OpDef("FloorDiv", _XY, infer=elementwise(NUMBERS), promote="common",
                 differentiable=False,
                 doc="floor(x / y), elementwise; integers stay integers (``x // y``).")
FloorMod = OpDef("FloorMod", _XY, infer=elementwise(NUMBERS), promote="common",
                 doc="x - floor(x / y) * y: the remainder takes the sign of y (``x % y``).")
Mod = OpDef("Mod", _XY, infer=elementwise(NUMBERS), promote="common",
            doc="x - trunc(x / y) * y: the remainder takes the sign of x (C's fmod).")
Pow = OpDef("Pow", _XY, infer=elementwise(NUMBERS), promote="common",
            doc="x ** y, elementwise; for integers a negative power truncates toward zero.")
Maximum = OpDef("Maximum", _XY, infer=elementwise(NUMBERS), promote="common",
                doc="The larger of x and y, elementwise; NaN wins any comparison.")
Minimum = OpDef("Minimum", _XY, infer=elementwise(NUMBERS), promote="common",
                doc="The smaller of x and y, elementwise; NaN wins any comparison.")
SquaredDifference = OpDef("SquaredDifference", _XY, infer=elementwise(NUMBERS),
                          promote="common", doc="(x - y) ** 2, elementwise.")
Square = OpDef("Square", _UNARY, infer=elementwise(NUMBERS), doc="x * x, elementwise.")
Reciprocal = OpDef("Reciprocal", _UNARY, infer=elementwise(FLOATS), promote="float",
                   doc="1 / x; integer inputs give float32.")
Abs = OpDef("Abs", _UNARY, infer=elementwise(_REAL), doc="|x|, elementwise.")
Sign = OpDef("Sign", _UNARY, infer=elementwise(NUMBERS), differentiable=False,
             doc="-1, 0 or 1 by the sign of x; NaN gives 0, as in MindSpore.")
Addcmul = OpDef("Addcmul", (Arg("input_data"), Arg("x1"), Arg("x2"), Arg("value", default=1)),
                infer=elementwise(NUMBERS, names=("input_data", "x1", "x2", "value")),
                promote="common", doc="input_data + value * x1 * x2, elementwise.")
Addcdiv = OpDef("Addcdiv", (Arg("input_data"), Arg("x1"), Arg("x2"), Arg("value", default=1)),
                infer=elementwise(FLOATS, names=("input_data", "x1", "x2", "value")),
                promote="common", doc="input_data + value * x1 / x2, elementwise.")
Lerp = OpDef("Lerp", (Arg("start"), Arg("end"), Arg("weight")),
             infer=elementwise(FLOATS, names=("start", "end", "weight")), promote="common",
             doc="start + weight * (end - start): linear interpolation.")
ClampTensor = OpDef("ClampTensor", (Arg("input"), Arg("min"), Arg("max")),
                    infer=elementwise(NUMBERS, names=("input", "min", "max")), promote="common",
                    doc="min(max(input, min), max); where min > max the result is max.")


# Integer division and powers, logs and roots meet zero and negative inputs by design;
# they give what MindSpore gives (inf, NaN, 0) without numpy's RuntimeWarnings.
_quiet = np.errstate(all="ignore")
floor_div_cpu = _quiet(np.floor_divide)
floor_mod_cpu = _quiet(np.remainder)
mod_cpu = _quiet(np.fmod)
reciprocal_cpu = _quiet(np.reciprocal)


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


def squared_difference_cpu(x, y):
    return np.square(np.subtract(x, y))


def sign_cpu(x):
    out = np.asarray(np.sign(x))  # an array even for 0-d input, so it can be written
    if x.dtype.kind not in "biu":
        out[np.isnan(out)] = 0
    return out


def addcmul_cpu(input_data, x1, x2, value):
    return input_data + value * (x1 * x2)  # MindSpore's order: bit-identical float32 results


@_quiet
def addcdiv_cpu(input_data, x1, x2, value):
    return input_data + value * x1 / x2


def lerp_cpu(start, end, weight):
    return start + weight * (end - start)


def clamp_cpu(x, lo, hi):
    return np.minimum(np.maximum(x, lo), hi)


# -- gradients -------------------------------------------------------------------
def _cmp():
    from ms_ops.defs import comparison

    return comparison


def _as_float(mask, like):
    """A Bool mask as 0/1 in ``like``'s dtype, to multiply gradients with."""
    from ms_ops.defs import array

    return array.Cast(mask, like.dtype)


def _both(x, y, dx, dy):
    return (grad_for(x, sum_to(dx, shape_of(x))), grad_for(y, sum_to(dy, shape_of(y))))


def floor_mod_bprop(x, y, out, dout):
    return _both(x, y, dout, Neg(Mul(dout, FloorDiv(x, y))))


def mod_bprop(x, y, out, dout):
    from ms_ops.defs import math_unary

    return _both(x, y, dout, Neg(Mul(dout, math_unary.Trunc(Div(x, y)))))


def _log_for_pow(x):
    """log(x) with log(0) read as 0: d(x**y)/dy = x**y * log(x) is 0 at x = 0 (MindSpore)."""
    if not isinstance(x, Tensor):
        return math.log(x) if x > 0 else (0.0 if x == 0 else math.nan)
    from ms_ops.defs import math_unary

    return math_unary.Log(Add(x, _as_float(_cmp().Equal(x, 0), x)))


def pow_bprop(x, y, out, dout):
    y_tensor = isinstance(y, Tensor)
    dx = Mul(Mul(dout, y), Pow(x, Sub(y, 1) if y_tensor else y - 1))
    dy = Mul(Mul(dout, out), _log_for_pow(x)) if y_tensor else None
    return (grad_for(x, sum_to(dx, shape_of(x))), dy if dy is None else sum_to(dy, shape_of(y)))


def _tie_split(x, y, wins, dout):
    """Gradients of a pick between x and y: the winner takes dout, a tie splits it evenly."""
    share = Add(_as_float(wins, dout), Mul(_as_float(_cmp().Equal(x, y), dout), 0.5))
    dx = Mul(dout, share)
    return _both(x, y, dx, Sub(dout, dx))


def maximum_bprop(x, y, out, dout):
    return _tie_split(x, y, _cmp().Greater(x, y), dout)


def minimum_bprop(x, y, out, dout):
    return _tie_split(x, y, _cmp().Less(x, y), dout)


def squared_difference_bprop(x, y, out, dout):
    d = Mul(Mul(dout, Sub(x, y)), 2)
    return _both(x, y, d, Neg(d))


def square_bprop(x, out, dout):
    return (Mul(dout, Mul(x, 2)),)


def reciprocal_bprop(x, out, dout):
    return (Neg(Mul(dout, Mul(out, out))),)


def abs_bprop(x, out, dout):
    return (Mul(dout, Sign(x)),)


def addcmul_bprop(input_data, x1, x2, value, out, dout):
    scaled = Mul(dout, value)
    return (grad_for(input_data, sum_to(dout, shape_of(input_data))),
            grad_for(x1, sum_to(Mul(scaled, x2), shape_of(x1))),
            grad_for(x2, sum_to(Mul(scaled, x1), shape_of(x2))),
            grad_for(value, sum_to(Mul(dout, Mul(x1, x2)), shape_of(value))))


def addcdiv_bprop(input_data, x1, x2, value, out, dout):
    scaled = Div(Mul(dout, value), x2)
    quotient = Div(x1, x2)
    return (grad_for(input_data, sum_to(dout, shape_of(input_data))),
            grad_for(x1, sum_to(scaled, shape_of(x1))),
            grad_for(x2, sum_to(Neg(Mul(scaled, quotient)), shape_of(x2))),
            grad_for(value, sum_to(Mul(dout, quotient), shape_of(value))))


def lerp_bprop(start, end, weight, out, dout):
    rest = Sub(1, weight) if isinstance(weight, Tensor) else 1 - weight
    return (grad_for(start, sum_to(Mul(dout, rest), shape_of(start))),
            grad_for(end, sum_to(Mul(dout, weight), shape_of(end))),
            grad_for(weight, sum_to(Mul(dout, Sub(end, start)), shape_of(weight))))


def clamp_bprop(x, lo, hi, out, dout):
    C = _cmp()
    # Each output element is exactly one of x, lo or hi, and that one takes dout. Inside
    # [lo, hi], boundaries included, it is x (MindSpore's ClampTensor gradient).
    to_hi = C.Greater(Maximum(x, lo), hi)
    to_lo = C.LogicalAnd(C.Less(x, lo), C.LogicalNot(to_hi))
    keep = C.LogicalNot(C.LogicalOr(to_hi, to_lo))
    return (grad_for(x, sum_to(Mul(dout, _as_float(keep, dout)), shape_of(x))),
            grad_for(lo, sum_to(Mul(dout, _as_float(to_lo, dout)), shape_of(lo))),
            grad_for(hi, sum_to(Mul(dout, _as_float(to_hi, dout)), shape_of(hi))))


# -- composites: functional forms built from the operators above --------------------
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


def remainder(input, other):
    """``ops.remainder``: input - floor_div(input, other) * other (the sign of ``other``).

    MindSpore evaluates the formula as written rather than with FloorMod, so float results
    can differ from ``x % y`` in the last bits (and an integer remainder by 0 is ``input``);
    the same three operators here give its numbers.
    """
    return Sub(input, Mul(FloorDiv(input, other), other))


def _integral(v) -> bool:
    return v.dtype.kind in "biu" if isinstance(v, Tensor) else not isinstance(v, float)


def fmod(input, other):
    """``ops.fmod``: input - trunc(input / other) * other (the sign of ``input``).

    Floats are evaluated as MindSpore writes the formula (float32 results carry the
    rounding of the division); integers use the exact Mod kernel, which agrees with it.
    """
    if _integral(input) and _integral(other):
        return Mod(input, other)
    from ms_ops.defs import math_unary

    return Sub(input, Mul(math_unary.Trunc(Div(input, other)), other))


class AddN:
    """``ops.AddN()(x)``: the Primitive form of :func:`addn` (a chain of Add)."""

    def __call__(self, x):
        return addn(x)

    def __repr__(self) -> str:
        return "Prim[AddN]"


def _unbounded(x: Tensor, upper: bool):
    """A bound that never clips ``x`` and keeps its dtype (a Python scalar)."""
    np_dtype = x.dtype.np
    if np_dtype.kind in "iu":
        info = np.iinfo(np_dtype)
        return int(info.max if upper else info.min)
    return math.inf if upper else -math.inf


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
        from ms_ops.defs import array

        out = array.Cast(out, x.dtype)
    return out


PRIMITIVES = (Add, Sub, Mul, Div, Neg, FloorDiv, FloorMod, Mod, Pow, Maximum, Minimum,
              SquaredDifference, Square, Reciprocal, Abs, Sign, Addcmul, Addcdiv, Lerp,
              ClampTensor)
CPU_KERNELS = {
    Add: (np.add, ALL),
    Sub: (np.subtract, NUMBERS),
    Mul: (np.multiply, ALL),
    Div: (_true_divide, NUMBERS),
    Neg: (np.negative, NUMBERS),
    FloorDiv: (floor_div_cpu, NUMBERS),
    FloorMod: (floor_mod_cpu, NUMBERS),
    Mod: (mod_cpu, NUMBERS),
    Pow: (pow_cpu, NUMBERS),
    Maximum: (np.maximum, NUMBERS),
    Minimum: (np.minimum, NUMBERS),
    SquaredDifference: (squared_difference_cpu, NUMBERS),
    Square: (np.square, NUMBERS),
    Reciprocal: (reciprocal_cpu, FLOATS),
    Abs: (np.abs, _REAL),
    Sign: (sign_cpu, NUMBERS),
    Addcmul: (addcmul_cpu, NUMBERS),
    Addcdiv: (addcdiv_cpu, FLOATS),
    Lerp: (lerp_cpu, FLOATS),
    ClampTensor: (clamp_cpu, NUMBERS),
}
CPU_KERNELS_WITH_OUT = frozenset({Add, Sub, Mul, Div, Neg, FloorDiv, FloorMod, Mod, Maximum,
                                  Minimum, Square, Reciprocal, Abs})
BPROPS = {
    Add: add_bprop, Sub: sub_bprop, Mul: mul_bprop, Div: div_bprop, Neg: neg_bprop,
    FloorMod: floor_mod_bprop, Mod: mod_bprop, Pow: pow_bprop, Maximum: maximum_bprop,
    Minimum: minimum_bprop, SquaredDifference: squared_difference_bprop, Square: square_bprop,
    Reciprocal: reciprocal_bprop, Abs: abs_bprop, Addcmul: addcmul_bprop,
    Addcdiv: addcdiv_bprop, Lerp: lerp_bprop, ClampTensor: clamp_bprop,
}


_add, _radd = binary_method(Add), binary_method(Add, reflected=True)
_sub, _rsub = binary_method(Sub), binary_method(Sub, reflected=True)
_mul, _rmul = binary_method(Mul), binary_method(Mul, reflected=True)
_div, _rdiv = binary_method(Div), binary_method(Div, reflected=True)
_neg = unary_method(Neg)
_pow, _rpow = binary_method(Pow), binary_method(Pow, reflected=True)
_floordiv, _rfloordiv = binary_method(FloorDiv), binary_method(FloorDiv, reflected=True)
_mod, _rmod = binary_method(FloorMod), binary_method(FloorMod, reflected=True)
_maximum, _minimum = binary_method(Maximum), binary_method(Minimum)
_abs = unary_method(Abs)


def _pos(self):
    return self


def _clamp(self, min=None, max=None):
    return clamp(self, min, max)


def _lerp(self, end, weight):
    return Lerp(self, end, weight)


def _addcmul(self, tensor1, tensor2, value=1):
    return Addcmul(self, tensor1, tensor2, value)


def _addcdiv(self, tensor1, tensor2, value=1):
    return Addcdiv(self, tensor1, tensor2, value)


FUNCTIONS = {
    "add": Add, "sub": Sub, "subtract": Sub, "mul": Mul, "multiply": Mul,
    "div": Div, "divide": Div, "true_divide": Div, "neg": Neg, "negative": Neg,
    "floor_div": FloorDiv, "floor_divide": FloorDiv, "floor_mod": FloorMod,
    "remainder": remainder, "fmod": fmod, "pow": Pow, "tensor_pow": Pow,
    "maximum": Maximum, "minimum": Minimum, "square": Square, "reciprocal": Reciprocal,
    "abs": Abs, "absolute": Abs, "sign": Sign, "addcmul": Addcmul, "addcdiv": Addcdiv,
    "lerp": Lerp, "addn": addn, "AddN": AddN, "clamp": clamp, "clip": clamp,
    "clip_by_value": clip_by_value,
}
TENSOR_METHODS = {
    "__add__": _add, "__radd__": _radd, "__sub__": _sub, "__rsub__": _rsub,
    "__mul__": _mul, "__rmul__": _rmul, "__truediv__": _div, "__rtruediv__": _rdiv,
    "__neg__": _neg, "add": _add, "sub": _sub, "mul": _mul, "div": _div, "neg": _neg,
    "__pow__": _pow, "__rpow__": _rpow, "__floordiv__": _floordiv,
    "__rfloordiv__": _rfloordiv, "__mod__": _mod, "__rmod__": _rmod, "__abs__": _abs,
    "__pos__": _pos, "pow": _pow, "floor_divide": _floordiv, "remainder": remainder,
    "fmod": fmod, "maximum": _maximum, "minimum": _minimum,
    "square": unary_method(Square), "reciprocal": unary_method(Reciprocal), "abs": _abs,
    "absolute": _abs, "sign": unary_method(Sign), "lerp": _lerp, "addcmul": _addcmul,
    "addcdiv": _addcdiv, "clamp": _clamp, "clip": _clamp,
}
