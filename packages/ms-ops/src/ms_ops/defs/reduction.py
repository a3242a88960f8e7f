"""Reductions over axes: ReduceSum, ReduceMean, ReduceMax, ... (``keep_dims`` as attribute).

Each ``Reduce*`` primitive takes ``axis`` as a static input (an int, a tuple/list of
ints, or ``()``/``None`` for every axis) and ``keep_dims`` as its attribute, as
MindSpore's do. The primitives keep the input dtype (``ReduceSum`` of int8 is int8);
the functional forms follow MindSpore 2.x (``ops.sum`` of integers is int64).
Arg-reductions (and ``ops.max``/``ops.min``), cumulative operators and statistics
(LogSumExp, ReduceStd, ``ops.var``) live in ``reduction_arg``, ``reduction_cum`` and
``reduction_stats``.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.infer import check_bool, check_dtype, normalize_axes
from ms_ops.opdef import ALL, NUMBERS, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype
from ms_tensor import registry
from ms_tensor.tensor import Tensor

_COMPLEX = frozenset({mstype.complex64, mstype.complex128})  # ReduceMean averages them too


def reduced_shape(shape: tuple, axes: tuple, keep_dims: bool) -> tuple:
    """``shape`` with ``axes`` removed, or set to 1 with ``keep_dims``."""
    if keep_dims:
        return tuple(1 if i in axes else d for i, d in enumerate(shape))
    return tuple(d for i, d in enumerate(shape) if i not in axes)


def reduce_infer(dtypes=ALL, out=None, nonempty: str = ""):
    """Inference of a reduction: check the dtype, the axes and ``keep_dims``.

    ``out`` fixes the result dtype (Bool for ReduceAll); ``nonempty`` names what the
    reduction takes (``"the maximum"``) when it has no value over a zero-size axis.
    """

    def infer(x, axis=(), keep_dims=False, **_):
        check_dtype("x", x, dtypes)
        check_bool("keep_dims", keep_dims)
        axes = normalize_axes(axis, x.ndim)
        if nonempty:
            for a in axes:
                if x.shape[a] == 0:
                    raise ValueError(f"cannot take {nonempty} over zero-size axis {a} of "
                                     f"input shape {x.shape}")
        return TensorSpec(reduced_shape(x.shape, axes, keep_dims),
                          out if out is not None else x.dtype)

    return infer


def axes_of(axis, ndim: int) -> tuple:
    """The axes as a tuple numpy accepts (``()``/``None``/``[]`` mean every axis)."""
    if axis is None or axis == () or axis == []:
        return tuple(range(ndim))
    return tuple(axis) if isinstance(axis, (list, tuple)) else axis


_INPUTS = (Arg("x"), Arg("axis", STATIC, ()))
_KEEP = (Attr("keep_dims", False),)
_ORDERED = NUMBERS


def _reduce_op(name, dtypes, doc, out=None, nonempty="", **names):
    return OpDef(name, _INPUTS, _KEEP, infer=reduce_infer(dtypes, out, nonempty), doc=doc, **names)


def other_op(name: str):
    """An operator of another family, looked up by name when a gradient rule needs it.

    The registry keeps families independent of each other's module layout.
    """
    op = registry.load().primitive(name)
    if op is None:
        raise registry.RegistrationError(
            f"a reduction gradient needs the {name} operator, which no installed plugin "
            "registers")
    return op


def expand_reduced(dout, x_shape: tuple, axis, keep_dims: bool):
    """``dout`` of a reduction, reshaped to keep the reduced axes and broadcast to ``x``."""
    from ms_ops.defs import array

    axes = normalize_axes(axis, len(x_shape))
    if not keep_dims:
        dout = array.Reshape(dout, reduced_shape(x_shape, axes, True))
    return array.BroadcastTo(dout, tuple(x_shape))


def _extremum_bprop(x, axis, out, dout, keep_dims=False):
    # MindSpore splits the gradient evenly between tied extrema.
    from ms_ops.defs import array
    from ms_ops.defs.arithmetic import Div, Mul

    out_b = expand_reduced(out, x.shape, axis, keep_dims)
    mask = array.Cast(other_op("Equal")(x, out_b), dout.dtype)
    count = ReduceSum(mask, axis, keep_dims=True)
    return (Div(Mul(mask, expand_reduced(dout, x.shape, axis, keep_dims)), count), None)


def _axis_arg(axis):
    return () if axis is None else axis


def _widen_int(x, dtype):
    """MindSpore 2.x sums and multiplies integers and bools in int64 unless told a dtype."""
    from ms_ops.defs import array

    if not isinstance(x, Tensor):
        return x
    if dtype is not None:
        return array.Cast(x, dtype) if x.dtype is not dtype else x
    if x.dtype.kind in "biu" and x.dtype is not mstype.int64:
        return array.Cast(x, mstype.int64)
    return x


# Samples for ReduceSum/Mean/Prod/Max/Min/All/Any over several axes, with and without
# ``keep_dims``. ReduceMax/Min get distinct values (no ties), ReduceProd values away
# from zero, ReduceAll/Any bool masks.
AXES = [((), False), (0, False), (1, True), ((0, 2), False), ((-1,), True)]


def _distinct(rng, shape):
    """A shuffled grid 0.3 apart plus small noise: no two values tie."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.3 + rng.uniform(-0.05, 0.05, n) - 0.15 * n).reshape(shape)


def _reduce(values):
    def sample(rng):
        for axis, keep in AXES:
            yield (values(rng, (2, 3, 2)), axis), {"keep_dims": keep}
        yield (values(rng, (4,)), ()), {}
    return sample


def _normal(rng, shape):
    return rng.standard_normal(shape)


def _nonzero(rng, shape):
    return rng.uniform(0.5, 1.5, shape) * rng.choice([-1.0, 1.0], shape)


def _mask(rng, shape):
    return rng.random(shape) < 0.7


ReduceSum = _reduce_op("ReduceSum", ALL, "Sum over ``axis`` (all axes when empty).")


@ReduceSum.kernel("CPU", dtypes=ALL, out=True)
def reduce_sum_cpu(x, axis=(), keep_dims=False, out=None):
    # np.add.reduce is what np.sum calls, without its Python wrapper (a bias's gradient
    # in every training step comes through here)
    return np.add.reduce(x, axis=axes_of(axis, x.ndim), keepdims=keep_dims, dtype=x.dtype,
                         out=out)


@ReduceSum.bprop
def reduce_sum_bprop(x, axis, out, dout, keep_dims=False):
    return (expand_reduced(dout, x.shape, axis, keep_dims), None)


ReduceSum.samples(_reduce(_normal))


ReduceMean = _reduce_op("ReduceMean", NUMBERS | _COMPLEX,
                        "Mean over ``axis``; integer inputs give the mean truncated to "
                        "their dtype, as MindSpore's does.")


@ReduceMean.kernel("CPU", dtypes=NUMBERS | _COMPLEX)
def reduce_mean_cpu(x, axis=(), keep_dims=False):
    axes = axes_of(axis, x.ndim)
    count = math.prod(x.shape[a] for a in ((axes,) if isinstance(axes, int) else axes))
    # Integers average in float64 and dispatch casts back (truncating, as MindSpore does);
    # 16-bit floats accumulate in float32.
    acc = np.float64 if x.dtype.kind in "biu" else np.promote_types(x.dtype, np.float32)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.sum(x, axis=axes, keepdims=keep_dims, dtype=acc) / count


@ReduceMean.bprop
def reduce_mean_bprop(x, axis, out, dout, keep_dims=False):
    from ms_ops.defs.arithmetic import Mul

    count = math.prod(x.shape[a] for a in normalize_axes(axis, x.ndim))
    return (Mul(expand_reduced(dout, x.shape, axis, keep_dims), 1.0 / max(count, 1)), None)


ReduceMean.samples(_reduce(_normal))


ReduceProd = _reduce_op("ReduceProd", NUMBERS, "Product over ``axis`` (all axes when empty).")


@ReduceProd.kernel("CPU", dtypes=NUMBERS)
def reduce_prod_cpu(x, axis=(), keep_dims=False):
    return np.prod(x, axis=axes_of(axis, x.ndim), keepdims=keep_dims, dtype=x.dtype)


@ReduceProd.bprop
def reduce_prod_bprop(x, axis, out, dout, keep_dims=False):
    # d prod / d x_i is the product of every other element: exclusive cumulative products
    # from both ends, so zeros in x give exact gradients (dividing out by x would not).
    from ms_ops.defs import array
    from ms_ops.defs.arithmetic import Mul
    from ms_ops.defs.reduction_cum import CumProd

    axes = normalize_axes(axis, x.ndim)
    if not axes:
        return (dout, None)
    kept = tuple(i for i in range(x.ndim) if i not in axes)
    perm = kept + axes
    moved = array.Transpose(x, perm)
    count = math.prod(x.shape[a] for a in axes)
    flat = array.Reshape(moved, tuple(x.shape[i] for i in kept) + (count,))
    others = Mul(CumProd(flat, -1, exclusive=True),
                 CumProd(flat, -1, exclusive=True, reverse=True))
    d = array.Reshape(dout, tuple(x.shape[i] for i in kept) + (1,))
    g = array.Reshape(Mul(others, d), moved.shape)
    return (array.Transpose(g, tuple(int(i) for i in np.argsort(perm))), None)


ReduceProd.samples(_reduce(_nonzero))


ReduceMax = _reduce_op("ReduceMax", _ORDERED, "Maximum over ``axis``.",
                       nonempty="the maximum")


@ReduceMax.kernel("CPU", dtypes=_ORDERED)
def reduce_max_cpu(x, axis=(), keep_dims=False):
    return np.max(x, axis=axes_of(axis, x.ndim), keepdims=keep_dims)


ReduceMax.bprop(_extremum_bprop)
ReduceMax.samples(_reduce(_distinct))


ReduceMin = _reduce_op("ReduceMin", _ORDERED, "Minimum over ``axis``.",
                       nonempty="the minimum")


@ReduceMin.kernel("CPU", dtypes=_ORDERED)
def reduce_min_cpu(x, axis=(), keep_dims=False):
    return np.min(x, axis=axes_of(axis, x.ndim), keepdims=keep_dims)


ReduceMin.bprop(_extremum_bprop)
ReduceMin.samples(_reduce(_distinct))


ReduceAll = OpDef("ReduceAll", (Arg("x"), Arg("axis", STATIC, ())), _KEEP,
                  infer=reduce_infer(ALL, out=mstype.bool_), differentiable=False,
                  doc="True where every element over ``axis`` is non-zero (a Bool tensor).")


@ReduceAll.kernel("CPU", dtypes=ALL)
def reduce_all_cpu(x, axis=(), keep_dims=False):
    return np.all(x, axis=axes_of(axis, x.ndim), keepdims=keep_dims)


ReduceAll.samples(_reduce(_mask))


ReduceAny = OpDef("ReduceAny", (Arg("x"), Arg("axis", STATIC, ())), _KEEP,
                  infer=reduce_infer(ALL, out=mstype.bool_), differentiable=False,
                  doc="True where any element over ``axis`` is non-zero (a Bool tensor).")


@ReduceAny.kernel("CPU", dtypes=ALL)
def reduce_any_cpu(x, axis=(), keep_dims=False):
    return np.any(x, axis=axes_of(axis, x.ndim), keepdims=keep_dims)


ReduceAny.samples(_reduce(_mask))


@functional("sum")
def _sum(input, dim=None, keepdim=False, *, dtype=None):
    """``ops.sum``: sum over ``dim`` (all dims when None); integers and bools give int64.

    >>> ops.sum(Tensor([[1, 2], [3, 4]], mstype.int32), 1).asnumpy()
    array([3, 7])
    """
    return ReduceSum(_widen_int(input, dtype), _axis_arg(dim), keep_dims=keepdim)


@functional("mean", methods="mean")
def _mean(x, axis=None, keep_dims=False):
    """``ops.mean``: the mean over ``axis``; integer inputs keep their dtype (truncated)."""
    return ReduceMean(x, _axis_arg(axis), keep_dims=keep_dims)


@functional("prod", methods="prod")
def _prod(input, axis=None, keep_dims=False, dtype=None):
    """``ops.prod``: product over ``axis``; integers and bools give int64 unless ``dtype``."""
    return ReduceProd(_widen_int(input, dtype), _axis_arg(axis), keep_dims=keep_dims)


@functional("amax", methods="amax")
def _amax(input, axis=None, keepdims=False):
    """``ops.amax``: the maximum over ``axis`` (all axes when None); ties share the gradient."""
    return ReduceMax(input, _axis_arg(axis), keep_dims=keepdims)


@functional("amin", methods="amin")
def _amin(input, axis=None, keepdims=False):
    """``ops.amin``: the minimum over ``axis`` (all axes when None); ties share the gradient."""
    return ReduceMin(input, _axis_arg(axis), keep_dims=keepdims)


@functional("all", methods="all")
def _all(input, axis=None, keep_dims=False):
    """``ops.all``: whether every element over ``axis`` is non-zero (a Bool tensor)."""
    return ReduceAll(input, _axis_arg(axis), keep_dims=keep_dims)


@functional("any", methods="any")
def _any(input, axis=None, keep_dims=False):
    """``ops.any``: whether some element over ``axis`` is non-zero (a Bool tensor)."""
    return ReduceAny(input, _axis_arg(axis), keep_dims=keep_dims)


@functional(methods="sum")
def _t_sum(self, axis=None, dtype=None, keepdims=False, initial=None):
    out = _sum(self, axis, keepdims, dtype=dtype)
    if initial is None:
        return out
    from ms_ops.defs.arithmetic import Add

    return Add(out, initial)


