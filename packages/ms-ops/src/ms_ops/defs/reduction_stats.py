"""Statistics over axes: LogSumExp, ReduceStd, and ``ops.logsumexp``/``ops.std``/``ops.var``.

``LogSumExp`` is one operator (MindSpore composes it) so that its kernel can subtract
the maximum first and never overflow. ``ops.var`` is composed of operators whose
gradients exist already, so it needs no rule of its own.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.defs.reduction import (
    ReduceMean,
    ReduceSum,
    axes_of,
    expand_reduced,
    other_op,
    reduce_infer,
    reduced_shape,
)
from ms_ops.infer import check_bool, check_dtype, normalize_axes
from ms_ops.opdef import FLOATS, STATIC, Arg, Attr, OpDef, TensorSpec, functional


def _count(x, axis) -> int:
    return math.prod(x.shape[a] for a in normalize_axes(axis, x.ndim))


def _check_float(name, x):
    if x.dtype not in FLOATS:
        raise TypeError(f"{name}: input has dtype {x.dtype}, expected a float type "
                        f"(shape {x.shape})")


LogSumExp = OpDef("LogSumExp", (Arg("input"), Arg("axis", STATIC, ())),
                  (Attr("keep_dims", False),), infer=reduce_infer(FLOATS), promote="float",
                  doc="log(sum(exp(x))) over ``axis``, computed without overflow.")


@LogSumExp.kernel("CPU", dtypes=FLOATS)
def log_sum_exp_cpu(x, axis=(), keep_dims=False):
    axes = axes_of(axis, x.ndim)
    top = np.max(x, axis=axes, keepdims=True, initial=-np.inf)
    top = np.where(np.isfinite(top), top, 0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - top), axis=axes, keepdims=True)) + top
    return out if keep_dims else np.squeeze(out, axis=axes)


@LogSumExp.bprop
def log_sum_exp_bprop(x, axis, out, dout, keep_dims=False):
    from ms_ops.defs.arithmetic import Mul, Sub

    softmax = other_op("Exp")(Sub(x, expand_reduced(out, x.shape, axis, keep_dims)))
    return (Mul(expand_reduced(dout, x.shape, axis, keep_dims), softmax), None)


@LogSumExp.samples
def _logsumexp(rng):
    yield (rng.standard_normal((2, 3, 2)), ()), {}
    yield (rng.standard_normal((2, 3, 2)), 1), {"keep_dims": True}
    yield (rng.standard_normal((2, 3, 2)), (0, 2)), {}
    yield (rng.standard_normal((4,)), ()), {}


def _std_infer(x, axis=(), unbiased=True, keep_dims=False):
    check_dtype("input_x", x, FLOATS)
    check_bool("unbiased", unbiased)
    check_bool("keep_dims", keep_dims)
    spec = TensorSpec(reduced_shape(x.shape, normalize_axes(axis, x.ndim), keep_dims),
                      x.dtype)
    return spec, spec


ReduceStd = OpDef("ReduceStd", (Arg("input_x"),),
                  (Attr("axis", ()), Attr("unbiased", True), Attr("keep_dims", False)),
                  infer=_std_infer,
                  doc="(standard deviation, mean) over ``axis``; ``unbiased`` divides by "
                      "N - 1.")


@ReduceStd.kernel("CPU", dtypes=FLOATS)
def reduce_std_cpu(x, axis=(), unbiased=True, keep_dims=False):
    axes = axes_of(axis, x.ndim)
    acc = np.promote_types(x.dtype, np.float32)
    mean = np.mean(x, axis=axes, keepdims=True, dtype=acc)
    count = x.size // max(mean.size, 1)
    with np.errstate(invalid="ignore", divide="ignore"):
        var = np.sum(np.square(x - mean), axis=axes, keepdims=True) / (count - unbiased)
    std = np.sqrt(var)
    if keep_dims:
        return std, mean
    return np.squeeze(std, axis=axes), np.squeeze(mean, axis=axes)


@ReduceStd.bprop
def reduce_std_bprop(x, out, dout, axis=(), unbiased=True, keep_dims=False):
    # d std / dx = (x - mean) / ((N - unbiased) * std); d mean / dx = 1 / N.
    from ms_ops.defs.arithmetic import Add, Div, Mul, Sub

    count = math.prod(x.shape[a] for a in normalize_axes(axis, x.ndim))
    dstd, dmean = dout
    dx = None
    if dstd is not None:
        centred = Sub(x, expand_reduced(out[1], x.shape, axis, keep_dims))
        scale = Mul(expand_reduced(out[0], x.shape, axis, keep_dims), float(count - unbiased))
        dx = Div(Mul(expand_reduced(dstd, x.shape, axis, keep_dims), centred), scale)
    if dmean is not None:
        g = Mul(expand_reduced(dmean, x.shape, axis, keep_dims), 1.0 / max(count, 1))
        dx = g if dx is None else Add(dx, g)
    return (dx,)


@ReduceStd.samples
def _std(rng):
    yield (rng.standard_normal((2, 3, 2)),), {}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": 1, "unbiased": False, "keep_dims": True}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": (0, 2)}
    yield (rng.standard_normal((4, 3)),), {"axis": -1, "unbiased": False}


@functional("logsumexp")
def logsumexp(input, dim, keepdim=False):
    """``ops.logsumexp``: log(sum(exp(input))) over ``dim``, stable for large inputs.

    >>> ops.logsumexp(Tensor([[0.0, 0.0]]), 1).asnumpy()
    array([0.6931472], dtype=float32)
    """
    return LogSumExp(input, dim, keep_dims=keepdim)


@functional("std", methods="std")
def std(input, axis=None, ddof=0, keepdims=False):
    """``ops.std``: standard deviation over ``axis``, dividing by N - ``ddof``."""
    _check_float("std", input)
    axis = () if axis is None else axis
    if ddof in (0, 1):
        return ReduceStd(input, axis=axis, unbiased=bool(ddof), keep_dims=keepdims)[0]
    from ms_ops.defs.arithmetic import Mul

    n = _count(input, axis)
    biased = ReduceStd(input, axis=axis, unbiased=False, keep_dims=keepdims)[0]
    return Mul(biased, math.sqrt(n / (n - ddof)) if n > ddof else math.nan)


@functional("var", methods="var")
def var(input, axis=None, ddof=0, keepdims=False):
    """``ops.var``: variance over ``axis``, dividing by N - ``ddof``."""
    from ms_ops.defs.arithmetic import Div, Mul, Sub

    _check_float("var", input)
    axis = () if axis is None else axis
    centred = Sub(input, ReduceMean(input, axis, keep_dims=True))
    squares = ReduceSum(Mul(centred, centred), axis, keep_dims=keepdims)
    return Div(squares, float(_count(input, axis) - ddof))


@functional(methods="logsumexp")
def _t_logsumexp(self, axis, keepdims=False):
    return logsumexp(self, axis, keepdims)


