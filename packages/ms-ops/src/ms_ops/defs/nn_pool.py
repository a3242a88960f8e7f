"""Max pooling over NCHW images: MaxPool, MaxPoolWithArgmax (and V2), their gradient
operators (MaxPoolGrad, MaxPoolGradGrad, MaxPoolGradWithArgmax) and ``max_pool2d``.

``pad_mode`` is MindSpore's: VALID drops incomplete windows; SAME gives ``ceil(H / stride)``
outputs, padding ``pad // 2`` before and the rest after, where the padding never wins a
max. Average pooling is in ``nn_pool_avg``, adaptive pooling in ``nn_pool_adaptive``, what
they share in ``_pooling``. Kernels are Cython (``kernels/_pool.pyx``); the ``*_ref``
functions are numpy references.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs._pooling import (
    _ATTRS,
    _GRAD_IN,
    _MODE_ATTRS,
    _NONDIFF,
    _check_grad,
    _check_x,
    _explicit_window,
    _gather_at,
    _patches,
    _planes,
    _pool_grad_infer,
    _pool_infer,
    _pooled,
    _run,
    _scatter,
    _scatter_infer,
    _scatter_ref,
    _Window,
    _window,
    distinct,
)
from ms_ops.defs.nn_conv import _pair
from ms_ops.kernels import _pool
from ms_ops.opdef import FLOATS, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype


def _v2_window(x, attrs) -> _Window:
    if _pair("dilation", attrs["dilation"], allow_four=True) != (1, 1):
        raise ValueError(f"dilation {attrs['dilation']!r} is not supported on CPU, only 1")
    return _explicit_window(x.shape, attrs["kernel_size"], attrs["strides"], attrs["pads"],
                            attrs["ceil_mode"])


def _v2_infer(x, **attrs):
    _check_x(x)
    if attrs["argmax_type"] not in (mstype.int32, mstype.int64):
        raise TypeError(f"argmax_type must be int32 or int64, got {attrs['argmax_type']!r}")
    out = _pooled(x, _v2_window(x, attrs))
    return out, TensorSpec(out.shape, attrs["argmax_type"])
_V2_ATTRS = (Attr("kernel_size"), Attr("strides", None), Attr("pads", 0),
             Attr("dilation", (1, 1)), Attr("ceil_mode", False),
             Attr("argmax_type", mstype.int64))


def _max_index_ref(x, w):
    win, idx, _ = _patches(x, w, -np.inf)
    k = np.argmax(win, axis=-1)
    return np.take_along_axis(np.broadcast_to(idx, win.shape), k[..., None], -1)[..., 0]


def max_pool_ref(x, **attrs):
    win, _, _ = _patches(x, _window(x, attrs), -np.inf)
    return win.max(axis=-1)


def max_pool_grad_ref(x, out, grad, **attrs):
    return _scatter_ref(grad, _max_index_ref(x, _window(x, attrs)), x.shape)


def max_pool_grad_grad_ref(x, out, grad, **attrs):
    idx = _max_index_ref(x, _window(x, attrs))
    flat = grad.reshape(grad.shape[:2] + (-1,))
    return np.take_along_axis(flat, idx.reshape(idx.shape[:2] + (-1,)), -1).reshape(idx.shape)


def max_pool_with_argmax_ref(x, **attrs):
    return max_pool_ref(x, **attrs), _max_index_ref(x, _window(x, attrs)).astype(np.int32)


def max_pool_v2_ref(x, **attrs):
    w = _v2_window(x, attrs)
    win, _, _ = _patches(x, w, -np.inf)
    return win.max(axis=-1), _max_index_ref(x, w).astype(attrs["argmax_type"].np)


def max_pool_v2_grad_ref(x, grad, argmax, **attrs):
    return _scatter_ref(grad, argmax, x.shape)


def _max(x, w, with_index):
    dt, (xp,) = _planes(x)
    out = np.empty((xp.shape[0], w.oh, w.ow), dt)
    idx = np.empty(out.shape, np.int64) if with_index else None
    _pool.max_pool(xp, out, idx, *w.max_args)
    shape = x.shape[:-2] + out.shape[1:]
    return out.reshape(shape), (idx.reshape(shape) if with_index else None)


def argmax_scatter_cpu(x, grad, argmax, **attrs):
    """MaxPoolGradWithArgmax and its V2: ``grad`` added at the argmax positions."""
    return _scatter(grad, x.shape, argmax)


def argmax_scatter_bprop(x, grad, argmax, out, dout, **attrs):
    return None, _gather_at(dout, argmax), None


def _max_pool(rng):
    for shape, attrs in _MODE_ATTRS:
        yield (distinct(rng, shape),), attrs


_V2_ATTRS_samples = (
    ((1, 2, 4, 3), {"kernel_size": 2, "strides": 2}),
    ((1, 1, 5, 5), {"kernel_size": 3, "strides": 2, "pads": 1, "ceil_mode": True}),
)


MaxPool = OpDef("MaxPool", (Arg("x"),), _ATTRS, infer=_pool_infer,
                doc="Maximum over each kernel_size window, moved by strides.")


@MaxPool.kernel("CPU", dtypes=FLOATS)
def max_pool_cpu(x, **attrs):
    return _max(x, _window(x, attrs), False)[0]


@MaxPool.bprop
def max_pool_bprop(x, out, dout, **attrs):
    return (MaxPoolGrad(x, out, dout, **attrs),)


MaxPool.samples(_max_pool)


MaxPoolGrad = OpDef("MaxPoolGrad", _GRAD_IN, _ATTRS, infer=_pool_grad_infer,
                    nondiff_inputs=_NONDIFF,
                    doc="MaxPool's input gradient: each window's grad goes to its maximum.")


@MaxPoolGrad.kernel("CPU", dtypes=FLOATS)
def max_pool_grad_cpu(x, out, grad, **attrs):
    w = _window(x, attrs)
    dt, (xp, gp) = _planes(x, grad)
    dx = np.empty(xp.shape, dt)
    _pool.max_pool_grad(xp, gp, dx, *w.max_args)
    return dx.reshape(x.shape)


@MaxPoolGrad.bprop
def max_pool_grad_bprop(x, y, grad, out, dout, **attrs):
    return None, None, MaxPoolGradGrad(x, y, dout, **attrs)


@MaxPoolGrad.samples
def _max_pool_grad(rng):
    for shape, attrs in _MODE_ATTRS:
        x = distinct(rng, shape)
        out = _run(MaxPool, x, **attrs)
        yield (x, out, rng.standard_normal(out.shape)), attrs


def _pool_grad_grad_infer(x, out, grad, **attrs):
    _check_x(x)
    pooled = _pooled(x, _window(x, attrs)).shape
    if out.shape != pooled or grad.shape != x.shape:
        raise ValueError(f"out_origin shape {out.shape} and grad shape {grad.shape} should "
                         f"be {pooled} and {x.shape} for x_origin shape {x.shape}")
    return TensorSpec(pooled, grad.dtype)


MaxPoolGradGrad = OpDef("MaxPoolGradGrad", _GRAD_IN, _ATTRS, infer=_pool_grad_grad_infer,
                        nondiff_inputs=_NONDIFF,
                        doc="The gradient of MaxPoolGrad: ``grad`` read at each maximum.")


@MaxPoolGradGrad.kernel("CPU", dtypes=FLOATS)
def max_pool_grad_grad_cpu(x, out, grad, **attrs):
    w = _window(x, attrs)
    dt, (xp, gp) = _planes(x, grad)
    res = np.empty((xp.shape[0], w.oh, w.ow), dt)
    _pool.max_pool_grad_grad(xp, gp, res, *w.max_args)
    return res.reshape(x.shape[:2] + res.shape[1:])


@MaxPoolGradGrad.bprop
def max_pool_grad_grad_bprop(x, y, grad, out, dout, **attrs):
    return None, None, MaxPoolGrad(x, y, dout, **attrs)


@MaxPoolGradGrad.samples
def _max_pool_grad_grad(rng):
    for shape, attrs in _MODE_ATTRS:
        x = distinct(rng, shape)
        yield (x, _run(MaxPool, x, **attrs), rng.standard_normal(shape)), attrs


def _with_argmax_infer(x, **attrs):
    out = _pool_infer(x, **attrs)
    return out, TensorSpec(out.shape, mstype.int32)


MaxPoolWithArgmax = OpDef(
    "MaxPoolWithArgmax", (Arg("x"),), _ATTRS, infer=_with_argmax_infer,
    doc="MaxPool and the flat (h * W + w) index of each maximum in its plane (int32).")


@MaxPoolWithArgmax.kernel("CPU", dtypes=FLOATS)
def max_pool_with_argmax_cpu(x, **attrs):
    out, idx = _max(x, _window(x, attrs), True)
    return out, idx.astype(np.int32)


@MaxPoolWithArgmax.bprop
def max_pool_with_argmax_bprop(x, out, dout, **attrs):
    return (MaxPoolGradWithArgmax(x, dout[0], out[1], **attrs),)


MaxPoolWithArgmax.samples(_max_pool)


def _with_argmax_grad_infer(x, grad, argmax, **attrs):
    _check_x(x)
    pooled = _pooled(x, _window(x, attrs)).shape
    _check_grad(x, pooled, grad=grad)
    return _scatter_infer(grad, x, argmax, "MaxPoolWithArgmax")


MaxPoolGradWithArgmax = OpDef(
    "MaxPoolGradWithArgmax", (Arg("x"), Arg("grad"), Arg("argmax", promote=False)), _ATTRS,
    infer=_with_argmax_grad_infer, nondiff_inputs=("x", "argmax"),
    doc="MaxPoolWithArgmax's input gradient: grad added at the argmax positions (no window "
        "is scanned again).")
MaxPoolGradWithArgmax.kernel("CPU", dtypes=FLOATS)(argmax_scatter_cpu)
MaxPoolGradWithArgmax.bprop(argmax_scatter_bprop)


@MaxPoolGradWithArgmax.samples
def _max_pool_with_argmax_grad(rng):
    for shape, attrs in _MODE_ATTRS:
        x = distinct(rng, shape)
        out, argmax = _run(MaxPoolWithArgmax, x, **attrs)
        yield (x, rng.standard_normal(out.shape), argmax), attrs


MaxPoolWithArgmaxV2 = OpDef(
    "MaxPoolWithArgmaxV2", (Arg("x"),), _V2_ATTRS, infer=_v2_infer,
    doc="Max pooling with symmetric ``pads`` and ``ceil_mode``, and the flat indices.")


@MaxPoolWithArgmaxV2.kernel("CPU", dtypes=FLOATS)
def max_pool_v2_cpu(x, **attrs):
    return _max(x, _v2_window(x, attrs), True)


@MaxPoolWithArgmaxV2.bprop
def max_pool_v2_bprop(x, out, dout, **attrs):
    return (MaxPoolGradWithArgmaxV2(x, dout[0], out[1], **attrs),)


@MaxPoolWithArgmaxV2.samples
def _max_pool_v2(rng):
    for shape, attrs in _V2_ATTRS_samples:
        yield (distinct(rng, shape),), attrs


def _v2_grad_infer(x, grad, argmax, **attrs):
    out, _ = _v2_infer(x, **attrs)
    if grad.shape != out.shape:
        raise ValueError(f"grad shape {grad.shape} should be {out.shape} for x shape {x.shape}")
    return _scatter_infer(grad, x, argmax, "MaxPoolWithArgmaxV2")


MaxPoolGradWithArgmaxV2 = OpDef(
    "MaxPoolGradWithArgmaxV2", (Arg("x"), Arg("grad"), Arg("argmax", promote=False)),
    _V2_ATTRS, infer=_v2_grad_infer, nondiff_inputs=("x", "argmax"),
    doc="MaxPoolWithArgmaxV2's input gradient: grad added at the argmax positions.")
MaxPoolGradWithArgmaxV2.kernel("CPU", dtypes=FLOATS)(argmax_scatter_cpu)
MaxPoolGradWithArgmaxV2.bprop(argmax_scatter_bprop)


@MaxPoolGradWithArgmaxV2.samples
def _max_pool_v2_grad(rng):
    for shape, attrs in _V2_ATTRS_samples:
        x = distinct(rng, shape)
        out, argmax = _run(MaxPoolWithArgmaxV2, x, **attrs)
        yield (x, rng.standard_normal(out.shape), argmax), attrs


@functional("max_pool2d")
def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """2-d max pooling of NCHW ``x``; ``stride`` defaults to ``kernel_size``.

    With ``return_indices`` the flat (h * W + w) int64 indices of the maxima come too.

    >>> max_pool2d(ops.ones((1, 1, 5, 6)), 3, 2, padding=1).shape
    (1, 1, 3, 3)
    """
    out, idx = MaxPoolWithArgmaxV2(x, kernel_size=kernel_size, strides=stride, pads=padding,
                                   dilation=dilation, ceil_mode=ceil_mode)
    return (out, idx) if return_indices else out
