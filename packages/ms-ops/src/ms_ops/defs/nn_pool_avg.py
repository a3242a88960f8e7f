"""Average pooling: AvgPool (pad_mode windows) and AvgPool2D (explicit padding, ceil_mode,
count_include_pad, divisor_override), their gradient operators and ``avg_pool2d``.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs._pooling import (
    _ATTRS,
    _AVG2D_IN,
    _GRAD_IN,
    _MODE_ATTRS,
    _NONDIFF,
    _check_grad,
    _check_x,
    _explicit_window,
    _patches,
    _planes,
    _pool_grad_infer,
    _pool_infer,
    _pooled,
    _run,
    _Window,
    _window,
)
from ms_ops.kernels import _pool
from ms_ops.opdef import FLOATS, Arg, OpDef, TensorSpec, functional


def _avg2d_window(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                  divisor_override) -> _Window:
    return _explicit_window(x.shape, kernel_size, stride, padding, ceil_mode,
                            count_include_pad, divisor_override)


def _avg_ref(x, w):
    win, _, divisor = _patches(x, w, 0)
    return win.sum(axis=-1) / divisor


def _avg_grad_ref(x_shape, grad, w):
    _, idx, divisor = _patches(np.zeros(x_shape[2:]), w, 0)
    valid = idx >= 0
    share = np.broadcast_to((grad / divisor)[..., None], grad.shape + idx.shape[-1:])
    n = x_shape[0] * x_shape[1]
    rows = np.broadcast_to(np.arange(n).reshape(x_shape[:2] + (1, 1, 1)), share.shape)
    dx = np.zeros((n, x_shape[2] * x_shape[3]), grad.dtype)
    np.add.at(dx, (rows[..., valid].reshape(-1),
                   np.broadcast_to(idx, share.shape)[..., valid].reshape(-1)),
              share[..., valid].reshape(-1))
    return dx.reshape(x_shape)


def avg_pool_ref(x, **attrs):
    return _avg_ref(x, _window(x, attrs))


def avg_pool_grad_ref(x, out, grad, **attrs):
    return _avg_grad_ref(x.shape, grad, _window(x, attrs))


def avg_pool2d_ref(x, **window):
    return _avg_ref(x, _avg2d_window(x, **window))


def avg_pool2d_grad_ref(grad, image, **window):
    return _avg_grad_ref(image.shape, grad, _avg2d_window(image, **window))


def _avg(x, w):
    dt, (xp,) = _planes(x)
    out = np.empty((xp.shape[0], w.oh, w.ow), dt)
    _pool.avg_pool(xp, out, *w.avg_args)
    return out.reshape(x.shape[:-2] + out.shape[1:])


def _avg_grad(grad, x_shape, w):
    dt, (gp,) = _planes(grad)
    dx = np.empty((gp.shape[0],) + tuple(x_shape[-2:]), dt)
    _pool.avg_pool_grad(gp, dx, *w.avg_args)
    return dx.reshape(x_shape)


# (input shape, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
_AVG2D = (
    ((1, 2, 4, 3), 2, 1, 0, False, True, None),
    ((1, 1, 5, 5), 3, 2, 1, True, False, None),
    ((1, 1, 5, 4), (2, 3), (2, 1), (1, 1), False, True, 4),
)


AvgPool = OpDef("AvgPool", (Arg("x"),), _ATTRS, infer=_pool_infer,
                doc="Mean over each window; SAME padding is not counted.")


@AvgPool.kernel("CPU", dtypes=FLOATS)
def avg_pool_cpu(x, **attrs):
    return _avg(x, _window(x, attrs))


@AvgPool.bprop
def avg_pool_bprop(x, out, dout, **attrs):
    return (AvgPoolGrad(x, out, dout, **attrs),)


@AvgPool.samples
def _avg_pool(rng):
    for shape, attrs in _MODE_ATTRS:
        yield (rng.standard_normal(shape),), attrs


AvgPoolGrad = OpDef("AvgPoolGrad", _GRAD_IN, _ATTRS, infer=_pool_grad_infer,
                    nondiff_inputs=_NONDIFF, doc="AvgPool's input gradient.")


@AvgPoolGrad.kernel("CPU", dtypes=FLOATS)
def avg_pool_grad_cpu(x, out, grad, **attrs):
    return _avg_grad(grad, x.shape, _window(x, attrs))


@AvgPoolGrad.bprop
def avg_pool_grad_bprop(x, y, grad, out, dout, **attrs):
    return None, None, AvgPool(dout, **attrs)


@AvgPoolGrad.samples
def _avg_pool_grad(rng):
    for shape, attrs in _MODE_ATTRS:
        x = rng.standard_normal(shape)
        out = _run(AvgPool, x, **attrs)
        yield (x, out, rng.standard_normal(out.shape)), attrs


def _avg2d_infer(x, *window):
    _check_x(x)
    return _pooled(x, _avg2d_window(x, *window))


AvgPool2D = OpDef(
    "AvgPool2D", (Arg("input"),) + _AVG2D_IN, infer=_avg2d_infer,
    doc="Average pooling with symmetric padding, ceil_mode, count_include_pad and "
        "divisor_override (the functional avg_pool2d).")


@AvgPool2D.kernel("CPU", dtypes=FLOATS)
def avg_pool2d_cpu(x, **window):
    return _avg(x, _avg2d_window(x, **window))


@AvgPool2D.bprop
def avg_pool2d_bprop(x, *window, out, dout):
    return (AvgPool2DGrad(dout, x, *window),) + (None,) * len(window)


@AvgPool2D.samples
def _avg_pool2d(rng):
    for shape, *window in _AVG2D:
        yield (rng.standard_normal(shape), *window), {}


def _avg2d_grad_infer(grad, image, *window):
    _check_x(image)
    pooled = _pooled(image, _avg2d_window(image, *window)).shape
    _check_grad(image, pooled, grad=grad)
    return TensorSpec(image.shape, grad.dtype)


AvgPool2DGrad = OpDef(
    "AvgPool2DGrad", (Arg("grad"), Arg("image")) + _AVG2D_IN, infer=_avg2d_grad_infer,
    nondiff_inputs=("image",), doc="AvgPool2D's input gradient.")


@AvgPool2DGrad.kernel("CPU", dtypes=FLOATS)
def avg_pool2d_grad_cpu(grad, image, **window):
    return _avg_grad(grad, image.shape, _avg2d_window(image, **window))


@AvgPool2DGrad.bprop
def avg_pool2d_grad_bprop(grad, image, *window, out, dout):
    return (AvgPool2D(dout, *window), None) + (None,) * len(window)


@AvgPool2DGrad.samples
def _avg_pool2d_grad(rng):
    for shape, *window in _AVG2D:
        x = rng.standard_normal(shape)
        out = _run(AvgPool2D, x, *window)
        yield (rng.standard_normal(out.shape), x, *window), {}


@functional("avg_pool2d")
def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """2-d average pooling of NCHW ``input_x`` with symmetric zero ``padding``.

    >>> avg_pool2d(ops.ones((1, 1, 4, 4)), 2, 2).shape
    (1, 1, 2, 2)
    """
    return AvgPool2D(input_x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override or None)
