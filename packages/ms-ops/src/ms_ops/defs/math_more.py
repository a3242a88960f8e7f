"""Elementwise operators MindSpore spells in its own way: truncating division and
remainder, the NaN-safe ``DivNoNan``/``MulNoNan``/``Xlogy``/``Xdivy``, ``RealDiv`` (which
keeps integers integral), round-half-even ``Rint``, bit shifts, ``NextAfter``,
``PopulationCount``, ``Sinc``; and
the old ``tensor_*`` names and class forms (``Hypot``, ``CeLU``...) of existing functions.

Integer division by zero gives the dtype's lowest value, as MindSpore's CPU kernels do
(``truncate_div(7, 0)`` is -2147483648 for int32), instead of numpy's 0 and a warning.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import activation_extra, array, comparison, math_extra, math_unary
from ms_ops.defs._grad_util import grad_for, shape_of, sum_to
from ms_ops.defs.arithmetic import (
    Add,
    Div,
    FloorDiv,
    FloorMod,
    Lerp,
    Mul,
    Neg,
    Pow,
    Sub,
    _integral,
)
from ms_ops.defs.array_create import OnesLike, Range
from ms_ops.defs.array_reorder import Select
from ms_ops.infer import elementwise
from ms_ops.opdef import FLOATS, INTS, NUMBERS, Arg, OpDef, functional, primitive_class
from ms_tensor import dtype as mstype

_XY = (Arg("x"), Arg("y"))


def _pairs(rng):
    yield (rng.standard_normal((2, 3)) * 4, rng.standard_normal((2, 3)) + 3), {}
    yield (rng.standard_normal((2, 1, 3)) * 4, rng.standard_normal((4, 1)) - 3), {}


def _int_quotient(x, y, rounding):
    """x / y for integer arrays, ``rounding`` "trunc" or "floor"; y == 0 gives the lowest
    value of the dtype."""
    safe = np.where(y == 0, 1, y).astype(y.dtype)
    q = np.floor_divide(x, safe)
    if rounding == "trunc" and x.dtype.kind == "i":
        q = q + ((np.remainder(x, safe) != 0) & ((x < 0) != (safe < 0)))
    q = q.astype(np.result_type(x, y), copy=False)
    return np.where(y == 0, np.iinfo(q.dtype).min, q)


def _quotient_bprop(x, y, out, dout):
    dx = Div(dout, y)
    return (grad_for(x, sum_to(dx, shape_of(x))),
            grad_for(y, sum_to(Neg(Div(Mul(dout, x), Mul(y, y))), shape_of(y))))

TruncateDiv = OpDef("TruncateDiv", _XY, infer=elementwise(NUMBERS), promote="common",
                    functional="truncate_div",
                    doc="x / y rounded toward zero; integers stay integers.")


@TruncateDiv.kernel("CPU", dtypes=NUMBERS)
def truncate_div_cpu(x, y):
    if x.dtype.kind in "iu":
        return _int_quotient(x, y, "trunc")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.trunc(x / y)


@TruncateDiv.bprop
def truncate_div_bprop(x, y, out, dout):
    # piecewise constant in x and y, as FloorDiv: no gradient flows (MindSpore's rule too)
    return (grad_for(x, Mul(x, 0.0)), grad_for(y, Mul(y, 0.0)))


TruncateDiv.samples(_pairs)


TruncateMod = OpDef("TruncateMod", _XY, infer=elementwise(NUMBERS), promote="common",
                    functional="truncate_mod",
                    doc="The remainder of truncating division: the sign of x (C's fmod).")


@TruncateMod.kernel("CPU", dtypes=NUMBERS)
def truncate_mod_cpu(x, y):
    if x.dtype.kind in "iu":
        return np.fmod(x, np.where(y == 0, 1, y).astype(y.dtype)) * (y != 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.fmod(x, y)


@TruncateMod.bprop
def truncate_mod_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(dout, shape_of(x))),
            grad_for(y, sum_to(Neg(Mul(dout, TruncateDiv(x, y))), shape_of(y))))


TruncateMod.samples(_pairs)


RealDiv = OpDef("RealDiv", _XY, infer=elementwise(NUMBERS), promote="common",
                doc="x / y; unlike Div, integer inputs give a truncated integer quotient.")


@RealDiv.kernel("CPU", dtypes=NUMBERS)
def real_div_cpu(x, y):
    if x.dtype.kind in "iu":
        return _int_quotient(x, y, "trunc")
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.true_divide(x, y)


RealDiv.bprop(_quotient_bprop)
RealDiv.samples(_pairs)


DivNoNan = OpDef("DivNoNan", _XY, infer=elementwise(FLOATS), promote="common",
                 functional="div_no_nan",
                 doc="x / y, and 0 wherever y is 0 (whatever x is).")


@DivNoNan.kernel("CPU", dtypes=FLOATS)
def div_no_nan_cpu(x, y):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(y == 0, np.zeros((), x.dtype), x / y)


@DivNoNan.bprop
def div_no_nan_bprop(x, y, out, dout):
    dx = DivNoNan(dout, y)
    return (grad_for(x, sum_to(dx, shape_of(x))),
            grad_for(y, sum_to(Neg(Mul(dx, out)), shape_of(y))))


@DivNoNan.samples
def _div_no_nan(rng):
    y = rng.standard_normal((2, 3)) + 3
    yield (rng.standard_normal((2, 3)), y), {}
    yield (rng.standard_normal((2, 1, 3)), rng.standard_normal((4, 1)) - 3), {}


MulNoNan = OpDef("MulNoNan", _XY, infer=elementwise(NUMBERS), promote="common",
                 doc="x * y, and 0 wherever y is 0 (even where x is inf or NaN).")


@MulNoNan.kernel("CPU", dtypes=NUMBERS)
def mul_no_nan_cpu(x, y):
    with np.errstate(invalid="ignore", over="ignore"):
        return np.where(y == 0, np.zeros((), x.dtype), x * y)


@MulNoNan.bprop
def mul_no_nan_bprop(x, y, out, dout):
    return (grad_for(x, sum_to(MulNoNan(dout, y), shape_of(x))),
            grad_for(y, sum_to(MulNoNan(x, dout), shape_of(y))))


MulNoNan.samples(_pairs)


Rint = OpDef("Rint", (Arg("input_x"),), infer=elementwise(FLOATS, names=("input_x",)),
             functional="rint", methods="rint",
             doc="The nearest integer value, halves to even (-0.5 -> -0.0, 2.5 -> 2.0).")
Rint.kernel("CPU", dtypes=FLOATS)(np.rint)


@Rint.bprop
def rint_bprop(x, out, dout):
    return (Mul(dout, 0.0),)


@Rint.samples
def _rint(rng):
    # away from the halves, where a finite difference would see the jump
    yield (np.array([-2.2, -1.7, -0.3, 0.2, 1.6, 2.7]),), {}


def _shift(name: str, np_fn, doc: str, functional_name: str) -> OpDef:
    op = OpDef(name, _XY, infer=elementwise(INTS), promote="common", differentiable=False,
               functional=functional_name, methods=functional_name, doc=doc)

    @op.kernel("CPU", dtypes=INTS)
    def shift_cpu(x, y):
        return np_fn(x, y.astype(x.dtype, copy=False))

    @op.samples
    def _shifts(rng):
        yield (rng.integers(-40, 40, (2, 3)), rng.integers(0, 5, (2, 3))), {}
        yield (rng.integers(0, 200, (3,)).astype(np.uint8), rng.integers(0, 3, (2, 1))), {}

    return op


LeftShift = _shift("LeftShift", np.left_shift, "x << y, elementwise (bits shifted out are lost).",
                   "bitwise_left_shift")
RightShift = _shift("RightShift", np.right_shift,
                    "x >> y, elementwise; arithmetic for signed integers.",
                    "bitwise_right_shift")


NextAfter = OpDef("NextAfter", _XY, infer=elementwise(FLOATS), promote="common",
                  functional="nextafter", methods="nextafter",
                  doc="The next representable value after x in the direction of y.")
NextAfter.kernel("CPU", dtypes=FLOATS)(np.nextafter)


@NextAfter.bprop
def next_after_bprop(x, y, out, dout):
    # one ulp from x: the identity in x, constant in y
    return (grad_for(x, sum_to(dout, shape_of(x))), grad_for(y, Mul(y, 0.0)))

NextAfter.samples(_pairs)


PopulationCount = OpDef("PopulationCount", (Arg("input_x"),),
                        infer=elementwise(INTS, out=mstype.uint8, names=("input_x",)),
                        differentiable=False, functional="population_count",
                        doc="The number of 1 bits of each element (two's complement), as uint8.")


@PopulationCount.kernel("CPU", dtypes=INTS)
def population_count_cpu(x):
    octets = np.ascontiguousarray(x).view(np.uint8).reshape(x.shape + (x.dtype.itemsize,))
    return np.unpackbits(octets, axis=-1).sum(-1, dtype=np.uint8)


@PopulationCount.samples
def _popcount(rng):
    yield (rng.integers(-1000, 1000, (2, 3)).astype(np.int16),), {}
    yield (np.array([0, 1, 255, 7], np.uint8),), {}


@functional("cov", methods="cov")
def cov(input, *, correction=1, fweights=None, aweights=None):
    """``ops.cov``: the covariance matrix of the rows of ``input`` (variables) over its
    columns (observations), with frequency and importance weights as numpy's ``cov``."""
    from ms_ops.defs.linalg import MatMul
    from ms_ops.defs.reduction import ReduceSum

    x = input if input.ndim == 2 else array.Reshape(input, (1, -1))
    if input.ndim > 2:
        raise ValueError(f"cov: input must have 1 or 2 dimensions, got shape {input.shape}")
    x = x if x.dtype in mstype.float_types else array.Cast(x, mstype.float32)
    n = x.shape[1]
    w = None
    for name, weights in (("fweights", fweights), ("aweights", aweights)):
        if weights is not None:
            if weights.ndim != 1 or weights.shape[0] != n:
                raise ValueError(f"cov: {name} must be 1-D with {n} entries (the columns of "
                                 f"input), got shape {weights.shape}")
            weights = array.Cast(weights, x.dtype)
            w = weights if w is None else Mul(w, weights)
    if w is None:
        mean = Div(ReduceSum(x, (1,), keep_dims=True), float(n))
        norm = float(n - correction)
    else:
        total = ReduceSum(w, ())
        mean = Div(ReduceSum(Mul(x, w), (1,), keep_dims=True), total)
        if aweights is None:
            norm = Sub(total, float(correction))
        else:
            aw = array.Cast(aweights, x.dtype)
            norm = Sub(total, Div(Mul(ReduceSum(Mul(w, aw), ()), float(correction)), total))
    centred = Sub(x, mean)
    weighted = centred if w is None else Mul(centred, w)
    out = Div(MatMul(weighted, array.Transpose(centred, (1, 0))),
              norm if not isinstance(norm, float) else max(norm, 0.0))
    return array.Reshape(out, ()) if input.ndim < 2 else out


@functional("sequence_mask")
def sequence_mask(lengths, maxlen=None):
    """``ops.sequence_mask``: ``mask[..., j] = j < lengths[...]`` (Bool), ``maxlen`` columns
    (the largest length when None)."""
    if lengths.dtype not in mstype.int_types:
        raise TypeError(f"sequence_mask: lengths must be an integer tensor, got {lengths.dtype}")
    if maxlen is None:
        maxlen = int(np.max(lengths.asnumpy())) if lengths.size else 0
    if not isinstance(maxlen, int) or maxlen < 0:
        raise ValueError(f"sequence_mask: maxlen must be a non-negative int, got {maxlen!r}")
    columns = array.Cast(Range(0, maxlen, 1), lengths.dtype)
    return comparison.Less(columns, array.ExpandDims(lengths, -1))


@functional("deepcopy")
def deepcopy(input_x):
    """``ops.deepcopy``: a copy of the tensor (gradients flow through it)."""
    return array.Identity(input_x)


@functional("tail")
def tail(sequence):
    """``ops.tail``: a tuple or list without its first element."""
    if not isinstance(sequence, (tuple, list)) or not sequence:
        raise TypeError(f"tail: expected a non-empty tuple or list, got {sequence!r}")
    return sequence[1:]


@functional("diff_ext")
def diff_ext(input, n=1, dim=-1, prepend=None, append=None):
    """``ops.diff_ext``: :func:`ops.diff` with PyTorch's ``dim`` name."""
    return math_extra.diff(input, n, dim, prepend, append)


@functional("float_power_ext")
def float_power_ext(input, exponent):
    """``ops.float_power_ext``: :func:`ops.float_power`."""
    return math_extra.float_power(input, exponent)


@functional("isnan_ext")
def isnan_ext(tensor):
    """``ops.isnan_ext``: :func:`ops.isnan`."""
    return comparison.IsNan(tensor)


def _alias(name: str, fn, doc: str):
    def call(*args):
        return fn(*args)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = doc
    call.__module__ = __name__
    return functional(name)(call)


# MindSpore 1.x's names: Primitive instances (``tensor_add = Add()``) kept in ops
tensor_add = _alias("tensor_add", Add, "``ops.tensor_add``: x + y (``Add()``).")
tensor_sub = _alias("tensor_sub", Sub, "``ops.tensor_sub``: x - y (``Sub()``).")
tensor_mul = _alias("tensor_mul", Mul, "``ops.tensor_mul``: x * y (``Mul()``).")
tensor_muls = _alias("tensor_muls", Mul, "``ops.tensor_muls``: x * a scalar.")
tensor_div = _alias("tensor_div", RealDiv, "``ops.tensor_div``: x / y (``RealDiv()``).")
tensor_exp = _alias("tensor_exp", math_unary.Exp, "``ops.tensor_exp``: e ** x.")
tensor_expm1 = _alias("tensor_expm1", math_unary.Expm1, "``ops.tensor_expm1``: e ** x - 1.")
tensor_floordiv = _alias("tensor_floordiv", FloorDiv, "``ops.tensor_floordiv``: x // y.")
floordiv = _alias("floordiv", FloorDiv, "``ops.floordiv``: x // y (``FloorDiv()``).")
tensor_mod = _alias("tensor_mod", FloorMod, "``ops.tensor_mod``: x mod y, y's sign.")
floormod = _alias("floormod", FloorMod, "``ops.floormod``: x mod y (``FloorMod()``).")
pows = _alias("pows", Pow, "``ops.pows``: x ** y (``Pow()``).")
tensor_ge = _alias("tensor_ge", comparison.GreaterEqual, "``ops.tensor_ge``: x >= y.")
tensor_gt = _alias("tensor_gt", comparison.Greater, "``ops.tensor_gt``: x > y.")
tensor_le = _alias("tensor_le", comparison.LessEqual, "``ops.tensor_le``: x <= y.")
tensor_lt = _alias("tensor_lt", comparison.Less, "``ops.tensor_lt``: x < y.")


def _inv(x):
    if _integral(x):
        return TruncateDiv(OnesLike(x), x)
    return math_extra.inv(x)


Hypot = primitive_class("Hypot", math_extra.hypot)
Inv = primitive_class("Inv", _inv)
Invert = primitive_class("Invert", math_extra.invert)
CeLU = primitive_class("CeLU", activation_extra.celu, ("alpha",))
SeLU = primitive_class("SeLU", activation_extra.selu)
LerpScalar = primitive_class("LerpScalar", lambda start, end, weight: Lerp(start, end, weight))


Sinc = OpDef("Sinc", (Arg("input"),), infer=elementwise(NUMBERS, names=("input",)),
             promote="float", functional="sinc", methods="sinc",
             doc="sin(pi x) / (pi x), and 1 at x = 0 (integers give float32).")


@Sinc.kernel("CPU", dtypes=FLOATS)
def sinc_cpu(x):
    return np.sinc(x).astype(x.dtype, copy=False)


@Sinc.bprop
def sinc_bprop(x, out, dout):
    # (cos(pi x) - sinc(x)) / x, whose limit at 0 is 0
    at_zero = comparison.Equal(x, 0.0)
    safe = Select(at_zero, 1.0, x)
    slope = Div(Sub(math_unary.Cos(Mul(safe, np.pi)), out), safe)
    return (Mul(dout, Select(at_zero, 0.0, slope)),)


@Sinc.samples
def _sinc(rng):
    yield (rng.standard_normal((2, 3)) * 2,), {}


def _x_weighted(name: str, np_fn, doc: str, fn_name: str) -> OpDef:
    op = OpDef(name, _XY, infer=elementwise(FLOATS), promote="float", functional=fn_name,
               methods=fn_name, doc=doc)

    @op.kernel("CPU", dtypes=FLOATS)
    def cpu(x, y):
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(x == 0, np.zeros((), np.result_type(x, y)), np_fn(x, y))

    op.samples(_positive_pairs)
    return op


def _positive_pairs(rng):
    yield (rng.standard_normal((2, 3)), rng.random((2, 3)) + 0.5), {}
    yield (rng.standard_normal((2, 1, 3)), rng.random((4, 1)) + 0.5), {}


Xlogy = _x_weighted("Xlogy", lambda x, y: x * np.log(y), "x * log(y), and 0 where x is 0.",
                    "xlogy")
Xdivy = _x_weighted("Xdivy", lambda x, y: x / y, "x / y, and 0 where x is 0.", "xdivy")


@Xlogy.bprop
def xlogy_bprop(x, y, out, dout):
    nonzero = comparison.NotEqual(x, 0.0)
    dx = Select(nonzero, math_unary.Log(y), 0.0)
    dy = Select(nonzero, Div(x, y), 0.0)
    return (grad_for(x, sum_to(Mul(dout, dx), shape_of(x))),
            grad_for(y, sum_to(Mul(dout, dy), shape_of(y))))


@Xdivy.bprop
def xdivy_bprop(x, y, out, dout):
    nonzero = comparison.NotEqual(x, 0.0)
    dx = Select(nonzero, Div(1.0, y), 0.0)
    dy = Select(nonzero, Neg(Div(x, Mul(y, y))), 0.0)
    return (grad_for(x, sum_to(Mul(dout, dx), shape_of(x))),
            grad_for(y, sum_to(Mul(dout, dy), shape_of(y))))
