"""Order statistics and NaN-aware reductions as compositions: ``median`` (the lower of
the two middle values, with its index, as MindSpore and PyTorch), ``nanmedian``,
``quantile``/``nanquantile`` (linear interpolation), ``nansum``/``nanmean``,
``logcumsumexp``, ``std_mean``/``var_mean``, ``SquareSumAll`` and the 1.x names
``reduce_sum``/``reduce_mean``/``reduce_max``/``reduce_min``.

They are built from Sort, GatherD, CumSum and the reductions, so their gradients are
those operators' and a compiled graph runs them without reading values.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array, comparison, math_unary
from ms_ops.defs.arithmetic import Add, Div, Mul, Sub
from ms_ops.defs.array_reorder import Select
from ms_ops.defs.indexing import GatherD
from ms_ops.defs.reduction import ReduceMax, ReduceMean, ReduceMin, ReduceSum
from ms_ops.defs.reduction_cum import CumSum
from ms_ops.defs.reduction_stats import std, var
from ms_ops.defs.sort import Sort
from ms_ops.opdef import functional, primitive_class
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _axis(input, axis) -> int:
    if not isinstance(axis, int) or not -max(input.ndim, 1) <= axis < max(input.ndim, 1):
        raise ValueError(f"axis {axis!r} is out of range for shape {input.shape}")
    return axis % max(input.ndim, 1)


def _pick(values, indices, k, axis, keepdims):
    """values/indices at position ``k`` (an int or an int64 tensor, keepdims) of ``axis``."""
    if isinstance(k, int):
        shape = list(values.shape)
        shape[axis] = 1
        k = Tensor(np.full(shape, k, np.int64))
    v, i = GatherD(values, axis, k), GatherD(indices, axis, k)
    if not keepdims:
        v, i = array.Squeeze(v, (axis,)), array.Squeeze(i, (axis,))
    return v, i


def _sorted(input, axis):
    values, indices = Sort(input, axis=axis)
    return values, array.Cast(indices, mstype.int64)


@functional("median", methods="median")
def median(input, axis=-1, keepdims=False):
    """``ops.median``: (the lower median along ``axis``, its int64 index); among equal
    values the first one's index."""
    if input.ndim == 0:
        return input, Tensor(np.int64(0))
    axis = _axis(input, axis)
    values, indices = _sorted(input, axis)
    return _pick(values, indices, (input.shape[axis] - 1) // 2, axis, keepdims)


def _median_class(input, global_median=False, axis=0, keep_dims=False, ignore_nan=False):
    if global_median:
        flat = array.Reshape(input, (-1,))
        value, _ = (nanmedian if ignore_nan else median)(flat, 0)
        return value, Tensor(np.int64(0))  # MindSpore gives no index for the global median
    return (nanmedian if ignore_nan else median)(input, axis, keep_dims)


Median = primitive_class("Median", _median_class,
                         ("global_median", "axis", "keep_dims", "ignore_nan"))


@functional("nanmedian", methods="nanmedian")
def nanmedian(input, axis=-1, keepdims=False):
    """``ops.nanmedian``: :func:`median` of the values that are not NaN (NaN where all are)."""
    if input.ndim == 0:
        return input, Tensor(np.int64(0))
    axis = _axis(input, axis)
    values, indices = _sorted(input, axis)  # NaN sorts last
    count = ReduceSum(array.Cast(comparison.LogicalNot(comparison.IsNan(input)), mstype.int64),
                      (axis,), keep_dims=True)
    k = Select(comparison.Greater(count, 0), Div(Sub(count, 1), 2), 0)
    return _pick(values, indices, array.Cast(k, mstype.int64), axis, keepdims)


def _quantile(name, input, q, axis, keepdims, ignore_nan):
    if input.dtype not in (mstype.float32, mstype.float64):
        raise TypeError(f"{name}: input must be float32 or float64, got {input.dtype}")
    qs = q.asnumpy() if isinstance(q, Tensor) else np.asarray(q, np.float64)
    if qs.ndim > 1 or np.any((qs < 0) | (qs > 1)):
        raise ValueError(f"{name}: q must be a scalar or 1-D with values in [0, 1], got {qs}")
    x = array.Reshape(input, (-1,)) if axis is None else input
    ax = 0 if axis is None else _axis(input, axis)
    values, _ = Sort(x, axis=ax)
    n = x.shape[ax]
    if ignore_nan:
        valid = ReduceSum(array.Cast(comparison.LogicalNot(comparison.IsNan(x)), x.dtype),
                          (ax,), keep_dims=True)
    else:
        valid = None
    outs = []
    for qv in np.atleast_1d(qs):
        # position qv * (n - 1) between the neighbours lo and hi, linearly
        pos = Mul(Sub(valid, 1.0), float(qv)) if ignore_nan else \
            Tensor(np.full((1,) * x.ndim, qv * (n - 1), x.dtype.np))
        pos = Select(comparison.Less(pos, 0), Mul(pos, 0.0), pos)
        lo = math_unary.Floor(pos)
        hi = Select(comparison.Less(lo, pos), Add(lo, 1.0), lo)
        shape = list(values.shape)
        shape[ax] = 1
        lo_i = array.BroadcastTo(array.Cast(lo, mstype.int64), tuple(shape))
        hi_i = array.BroadcastTo(array.Cast(hi, mstype.int64), tuple(shape))
        below, above = GatherD(values, ax, lo_i), GatherD(values, ax, hi_i)
        out = Add(below, Mul(Sub(above, below), Sub(pos, lo)))
        if ignore_nan:
            out = Select(comparison.Greater(valid, 0), out, Mul(valid, np.nan))
        if axis is None:
            out = array.Reshape(out, (1,) * input.ndim if keepdims else ())
        elif not keepdims:
            out = array.Squeeze(out, (ax,))
        outs.append(out)
    if qs.ndim == 0:
        return outs[0]
    from ms_ops.defs.array_join import stack

    return stack(tuple(outs), 0)


@functional("quantile", methods="quantile")
def quantile(input, q, axis=None, keepdims=False):
    """``ops.quantile``: the ``q``-th quantiles (linear interpolation between the nearest
    ranks) over ``axis`` (all elements when None); a 1-D ``q`` adds a leading axis."""
    return _quantile("quantile", input, q, axis, keepdims, ignore_nan=False)


@functional("nanquantile", methods="nanquantile")
def nanquantile(input, q, axis=None, keepdims=False):
    """``ops.nanquantile``: :func:`quantile` of the values that are not NaN."""
    return _quantile("nanquantile", input, q, axis, keepdims, ignore_nan=True)


def _without_nan(input):
    if input.dtype not in mstype.float_types:
        return input
    return Select(comparison.IsNan(input), 0.0, input)


@functional("nansum", methods="nansum")
def nansum(input, axis=None, keepdims=False, *, dtype=None):
    """``ops.nansum``: the sum over ``axis`` with NaN counted as 0."""
    out = ReduceSum(_without_nan(input), () if axis is None else axis, keep_dims=keepdims)
    return out if dtype is None else array.Cast(out, dtype)


@functional("nanmean", methods="nanmean")
def nanmean(input, axis=None, keepdims=False, *, dtype=None):
    """``ops.nanmean``: the mean over ``axis`` of the values that are not NaN."""
    if input.dtype not in mstype.float_types:
        raise TypeError(f"nanmean: input must be a float tensor, got {input.dtype}")
    axes = () if axis is None else axis
    count = ReduceSum(array.Cast(comparison.LogicalNot(comparison.IsNan(input)), input.dtype),
                      axes, keep_dims=keepdims)
    out = Div(nansum(input, axis, keepdims), count)
    return out if dtype is None else array.Cast(out, dtype)


def _cumulative_logsumexp(x, axis, exclusive=False, reverse=False):
    if isinstance(axis, Tensor):
        axis = int(axis.asnumpy())
    axis = _axis(x, axis)
    # the result does not depend on the shift, so its gradient through ``top`` cancels
    top = ReduceMax(x, (axis,), keep_dims=True)
    top = Select(comparison.IsFinite(top), top, 0.0)
    total = CumSum(math_unary.Exp(Sub(x, top)), axis, exclusive=exclusive, reverse=reverse)
    out = Add(math_unary.Log(total), top)
    if exclusive:  # log(0) of the empty prefix is MindSpore's lowest float, not -inf
        out = Select(comparison.IsInf(out), float(np.finfo(x.dtype.np).min), out)
    return out


@functional("logcumsumexp", methods="logcumsumexp")
def logcumsumexp(input, axis):
    """``ops.logcumsumexp``: log(cumsum(exp(input))) along ``axis``, without overflow."""
    if input.dtype not in mstype.float_types:
        raise TypeError(f"logcumsumexp: input must be a float tensor, got {input.dtype}")
    return _cumulative_logsumexp(input, axis)


CumulativeLogsumexp = primitive_class("CumulativeLogsumexp", _cumulative_logsumexp,
                                      ("exclusive", "reverse"))


@functional("std_mean")
def std_mean(input, axis=None, ddof=0, keepdims=False):
    """``ops.std_mean``: (standard deviation, mean) over ``axis``."""
    return (std(input, axis, ddof, keepdims),
            ReduceMean(input, () if axis is None else axis, keep_dims=keepdims))


@functional("var_mean")
def var_mean(input, axis=None, ddof=0, keepdims=False):
    """``ops.var_mean``: (variance, mean) over ``axis``."""
    return (var(input, axis, ddof, keepdims),
            ReduceMean(input, () if axis is None else axis, keep_dims=keepdims))


SquareSumAll = primitive_class(
    "SquareSumAll", lambda x, y: (ReduceSum(Mul(x, x), ()), ReduceSum(Mul(y, y), ())))


def _reduce_alias(name, op):
    def fn(x, axis=()):
        return op(x, axis)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``ops.{name}``: MindSpore 1.x's ``{op.name}()`` (keep_dims=False)."
    return functional(name)(fn)


reduce_sum = _reduce_alias("reduce_sum", ReduceSum)
reduce_mean = _reduce_alias("reduce_mean", ReduceMean)
reduce_max = _reduce_alias("reduce_max", ReduceMax)
reduce_min = _reduce_alias("reduce_min", ReduceMin)
