"""Softmax and LogSoftmax: normalizing over an axis (MindSpore lists them with the
activations), with ``ops.softmax`` and ``Tensor.softmax``.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array, reduction
from ms_ops.defs.activation import _IN, _compute
from ms_ops.defs.arithmetic import Mul, Sub
from ms_ops.infer import check_dtype, normalize_axes, normalize_axis
from ms_ops.opdef import FLOATS, Arg, Attr, OpDef, TensorSpec, functional


def _axes(axis, ndim):
    """Softmax's axes; a 0-d input has none (its softmax is 1)."""
    return normalize_axes(axis, ndim) if ndim else ()


def _softmax_infer(x, axis=-1):
    check_dtype("input", x, FLOATS)
    normalize_axes(axis, x.ndim)
    return TensorSpec(x.shape, x.dtype)


Softmax = OpDef("Softmax", _IN, (Attr("axis", -1),), infer=_softmax_infer,
                doc="exp(x) / sum(exp(x)) over ``axis`` (an int or a tuple of ints).")


@Softmax.kernel("CPU", dtypes=FLOATS)
def softmax_cpu(x, axis=-1):
    x = _compute(x)
    axes = _axes(axis, x.ndim)
    e = np.exp(x - np.max(x, axis=axes, keepdims=True))
    return e / np.sum(e, axis=axes, keepdims=True)


@Softmax.bprop
def softmax_bprop(x, out, dout, axis=-1):
    s = reduction.ReduceSum(Mul(dout, out), _axes(axis, x.ndim), keep_dims=True)
    return (Mul(out, Sub(dout, s)),)


@Softmax.samples
def _softmax(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((2, 3)),), {"axis": 0}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": 1}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": (0, 2)}


def _log_softmax_infer(x, axis=-1):
    check_dtype("logits", x, FLOATS)
    normalize_axis(axis, x.ndim)
    return TensorSpec(x.shape, x.dtype)


LogSoftmax = OpDef("LogSoftmax", (Arg("logits"),), (Attr("axis", -1),),
                   infer=_log_softmax_infer, doc="x - log(sum(exp(x))) over ``axis``.",
                   functional="log_softmax")


@LogSoftmax.kernel("CPU", dtypes=FLOATS)
def log_softmax_cpu(logits, axis=-1):
    x = _compute(logits)
    axes = _axes(axis, x.ndim)
    shifted = x - np.max(x, axis=axes, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=axes, keepdims=True))


@LogSoftmax.bprop
def log_softmax_bprop(x, out, dout, axis=-1):
    s = reduction.ReduceSum(dout, _axes(axis, x.ndim), keep_dims=True)
    return (Sub(dout, Mul(Softmax(x, axis=axis), s)),)


@LogSoftmax.samples
def _log_softmax(rng):
    yield (rng.standard_normal((2, 3)),), {}
    yield (rng.standard_normal((2, 3)),), {"axis": 0}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": 1}


@functional("softmax")
def softmax(input, axis=-1, *, dtype=None):
    """Softmax over ``axis``; ``dtype`` casts the input first.

    >>> ops.softmax(Tensor([0.0, 0.0])).asnumpy()
    array([0.5, 0.5], dtype=float32)
    """
    if dtype is not None:
        input = array.Cast(input, dtype)
    return Softmax(input, axis=axis)


@functional(methods="softmax")
def _softmax_method(self, axis=-1, dtype=None):
    return softmax(self, axis, dtype=dtype)
