"""Adaptive 2-d pooling: AdaptiveAvgPool2D and AdaptiveMaxPool2D (a fixed output size; the
windows split the input as MindSpore's do), their gradient operators and functions.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs._pooling import (
    _check_x,
    _gather_at,
    _planes,
    _run,
    _scatter,
    _scatter_infer,
    _scatter_ref,
    distinct,
)
from ms_ops.infer import check_dtype
from ms_ops.kernels import _pool
from ms_ops.opdef import FLOATS, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype


def _adaptive_size(x_shape, output_size) -> tuple:
    """MindSpore's output_size: an int, or a pair whose None entries keep the input's size."""
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size, output_size)
    if not (isinstance(output_size, (tuple, list)) and len(output_size) == 2):
        raise ValueError(f"output_size must be an int or a tuple of 2 (ints or None), got "
                         f"{output_size!r}")
    size = tuple(d if o is None else o for o, d in zip(output_size, x_shape[-2:]))
    if not all(isinstance(s, int) and s > 0 for s in size):
        raise ValueError(f"output_size must hold positive ints or None, got {output_size!r}")
    return size


def _adaptive_infer(x, output_size):
    _check_x(x, (3, 4))
    return TensorSpec(x.shape[:-2] + _adaptive_size(x.shape, output_size), x.dtype)


def _adaptive_index(size, out):
    """``(out, kmax)`` indices of each adaptive window along one axis, and a validity mask."""
    start = np.arange(out) * size // out
    stop = -(-(np.arange(out) + 1) * size // out)
    idx = start[:, None] + np.arange((stop - start).max())
    return np.minimum(idx, size - 1), idx < stop[:, None]


def _adaptive_windows(x, size, fill):
    """``(..., oh, ow, kh*kw)`` adaptive windows (``fill`` past a window's end), the flat
    index of each entry in the plane, and the validity mask."""
    ih, mh = _adaptive_index(x.shape[-2], size[0])
    iw, mw = _adaptive_index(x.shape[-1], size[1])
    rows, cols = ih[:, None, :, None], iw[None, :, None, :]
    mask = mh[:, None, :, None] & mw[None, :, None, :]
    win = np.where(mask, x[..., rows, cols], fill)
    shape = win.shape[:-2] + (-1,)
    flat = np.broadcast_to(rows * x.shape[-1] + cols, mask.shape)
    return win.reshape(shape), flat.reshape(shape[-3:]), mask.reshape(shape[-3:])


def adaptive_avg_pool_ref(x, output_size):
    win, _, mask = _adaptive_windows(x, _adaptive_size(x.shape, output_size), 0)
    return win.sum(-1) / mask.sum(-1)


def adaptive_avg_pool_grad_ref(grad, orig_input_shape):
    shape = tuple(orig_input_shape)
    _, flat, mask = _adaptive_windows(np.zeros(shape[-2:]), grad.shape[-2:], 0)
    n = int(np.prod(shape[:-2]))
    share = (grad.reshape((n,) + grad.shape[-2:]) / mask.sum(-1))[..., None]
    share = np.broadcast_to(share, (n,) + mask.shape)
    rows = np.broadcast_to(np.arange(n).reshape(n, 1, 1, 1), share.shape)
    dx = np.zeros((n, shape[-2] * shape[-1]), grad.dtype)
    np.add.at(dx, (rows[:, mask], np.broadcast_to(flat, share.shape)[:, mask]),
              share[:, mask])
    return dx.reshape(shape)


def adaptive_max_pool_ref(x, output_size):
    win, flat, _ = _adaptive_windows(x, _adaptive_size(x.shape, output_size), -np.inf)
    k = np.argmax(win, axis=-1)
    idx = np.take_along_axis(np.broadcast_to(flat, win.shape), k[..., None], -1)[..., 0]
    return win.max(-1), idx.astype(np.int64)


def adaptive_max_pool_grad_ref(grad, x, argmax):
    return _scatter_ref(grad, argmax, x.shape)


_ADAPTIVE = (((1, 2, 5, 4), (2, 3)), ((2, 4, 3), 2), ((1, 1, 4, 5), (None, 2)))


AdaptiveAvgPool2D = OpDef(
    "AdaptiveAvgPool2D", (Arg("x"),), (Attr("output_size"),), infer=_adaptive_infer,
    doc="Mean over windows [floor(i*H/oh), ceil((i+1)*H/oh)) giving output_size.")


@AdaptiveAvgPool2D.kernel("CPU", dtypes=FLOATS)
def adaptive_avg_pool_cpu(x, output_size):
    size = _adaptive_size(x.shape, output_size)
    dt, (xp,) = _planes(x)
    out = np.empty((xp.shape[0],) + size, dt)
    _pool.adaptive_avg_pool(xp, out)
    return out.reshape(x.shape[:-2] + size)


@AdaptiveAvgPool2D.bprop
def adaptive_avg_pool_bprop(x, out, dout, output_size):
    return (AdaptiveAvgPool2DGrad(dout, x.shape),)


@AdaptiveAvgPool2D.samples
def _adaptive_avg(rng):
    for shape, size in _ADAPTIVE:
        yield (rng.standard_normal(shape),), {"output_size": size}


def _adaptive_avg_grad_infer(grad, orig_input_shape):
    check_dtype("input_grad", grad, FLOATS)
    shape = tuple(orig_input_shape)
    if grad.ndim not in (3, 4) or len(shape) != grad.ndim or shape[:-2] != grad.shape[:-2]:
        raise ValueError(f"input_grad shape {grad.shape} does not fit orig_input_shape "
                         f"{shape}")
    return TensorSpec(shape, grad.dtype)


AdaptiveAvgPool2DGrad = OpDef(
    "AdaptiveAvgPool2DGrad", (Arg("input_grad"), Arg("orig_input_shape", STATIC)),
    infer=_adaptive_avg_grad_infer, doc="AdaptiveAvgPool2D's input gradient.")


@AdaptiveAvgPool2DGrad.kernel("CPU", dtypes=FLOATS)
def adaptive_avg_pool_grad_cpu(grad, orig_input_shape):
    shape = tuple(orig_input_shape)
    dt, (gp,) = _planes(grad)
    dx = np.empty((gp.shape[0],) + shape[-2:], dt)
    _pool.adaptive_avg_pool_grad(gp, dx)
    return dx.reshape(shape)


@AdaptiveAvgPool2DGrad.bprop
def adaptive_avg_pool_grad_bprop(grad, shape, out, dout):
    return AdaptiveAvgPool2D(dout, output_size=tuple(grad.shape[-2:])), None


@AdaptiveAvgPool2DGrad.samples
def _adaptive_avg_grad(rng):
    for shape, size in _ADAPTIVE:
        out = _run(AdaptiveAvgPool2D, rng.standard_normal(shape), output_size=size)
        yield (rng.standard_normal(out.shape), shape), {}


def _adaptive_max_infer(x, output_size):
    out = _adaptive_infer(x, output_size)
    return out, TensorSpec(out.shape, mstype.int64)


AdaptiveMaxPool2D = OpDef(
    "AdaptiveMaxPool2D", (Arg("x"),), (Attr("output_size"),), infer=_adaptive_max_infer,
    doc="Maximum over adaptive windows, and its flat index in the plane (int64).")


@AdaptiveMaxPool2D.kernel("CPU", dtypes=FLOATS)
def adaptive_max_pool_cpu(x, output_size):
    size = _adaptive_size(x.shape, output_size)
    dt, (xp,) = _planes(x)
    out = np.empty((xp.shape[0],) + size, dt)
    idx = np.empty(out.shape, np.int64)
    _pool.adaptive_max_pool(xp, out, idx)
    shape = x.shape[:-2] + size
    return out.reshape(shape), idx.reshape(shape)


@AdaptiveMaxPool2D.bprop
def adaptive_max_pool_bprop(x, out, dout, output_size):
    return (AdaptiveMaxPool2DGrad(dout[0], x, out[1]),)


@AdaptiveMaxPool2D.samples
def _adaptive_max(rng):
    for shape, size in _ADAPTIVE:
        yield (distinct(rng, shape),), {"output_size": size}


def _adaptive_max_grad_infer(grad, x, argmax):
    return _scatter_infer(grad, x, argmax, "AdaptiveMaxPool2D")


AdaptiveMaxPool2DGrad = OpDef(
    "AdaptiveMaxPool2DGrad", (Arg("y_grad"), Arg("x"), Arg("argmax", promote=False)),
    infer=_adaptive_max_grad_infer, nondiff_inputs=("x", "argmax"),
    doc="AdaptiveMaxPool2D's input gradient: y_grad added at the argmax positions.")


@AdaptiveMaxPool2DGrad.kernel("CPU", dtypes=FLOATS)
def adaptive_max_pool_grad_cpu(grad, x, argmax):
    return _scatter(grad, x.shape, argmax)


@AdaptiveMaxPool2DGrad.bprop
def adaptive_max_pool_grad_bprop(grad, x, argmax, out, dout):
    return _gather_at(dout, argmax), None, None


@AdaptiveMaxPool2DGrad.samples
def _adaptive_max_grad(rng):
    for shape, size in _ADAPTIVE:
        x = distinct(rng, shape)
        out, argmax = _run(AdaptiveMaxPool2D, x, output_size=size)
        yield (rng.standard_normal(out.shape), x, argmax), {}


@functional("adaptive_avg_pool2d")
def adaptive_avg_pool2d(input, output_size):
    """Average pooling to ``output_size`` (an int, or a pair where None keeps a dimension).

    >>> adaptive_avg_pool2d(ops.ones((1, 3, 7, 5)), (2, None)).shape
    (1, 3, 2, 5)
    """
    return AdaptiveAvgPool2D(input, output_size=output_size)


@functional("adaptive_max_pool2d")
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to ``output_size``; with ``return_indices`` the flat indices too.

    >>> adaptive_max_pool2d(ops.ones((1, 3, 7, 5)), 2).shape
    (1, 3, 2, 2)
    """
    out, idx = AdaptiveMaxPool2D(input, output_size=output_size)
    return (out, idx) if return_indices else out
