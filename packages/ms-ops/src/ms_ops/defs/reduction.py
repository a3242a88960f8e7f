"""Reductions over axes: ReduceSum, ReduceMean, ReduceMax, ... (``keep_dims`` as attribute)."""

from __future__ import annotations

import numpy as np

from ms_ops.infer import normalize_axes
from ms_ops.opdef import ALL, STATIC, Arg, Attr, OpDef, TensorSpec


def _reduce_infer(x, axis=(), keep_dims=False, **_):
    axes = normalize_axes(axis, x.ndim)
    if keep_dims:
        shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    else:
        shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    return TensorSpec(shape, x.dtype)


ReduceSum = OpDef("ReduceSum", (Arg("x"), Arg("axis", STATIC, ())), (Attr("keep_dims", False),),
                  infer=_reduce_infer, doc="Sum over ``axis`` (all axes when empty).")


def _axes(axis, ndim):
    return tuple(range(ndim)) if axis is None or axis == () or axis == [] else axis


def reduce_sum_cpu(x, axis=(), keep_dims=False):
    return np.sum(x, axis=_axes(axis, x.ndim), keepdims=keep_dims, dtype=x.dtype)


def reduce_sum_bprop(x, axis, out, dout, keep_dims=False):
    from ms_ops.defs import array

    shape = x.shape
    if not keep_dims:
        axes = normalize_axes(axis, x.ndim)
        dout = array.Reshape(dout, tuple(1 if i in axes else d for i, d in enumerate(shape)))
    return (array.BroadcastTo(dout, shape), None)


PRIMITIVES = (ReduceSum,)
CPU_KERNELS = {ReduceSum: (reduce_sum_cpu, ALL)}
BPROPS = {ReduceSum: reduce_sum_bprop}
FUNCTIONS = {}
TENSOR_METHODS = {}
