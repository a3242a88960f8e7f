"""Samples for the pooling operators and their gradient operators.

Inputs of max pooling hold distinct values spaced well apart (a permutation plus small
noise), so no window has a tie that finite differences could flip. The gradient
operators get the forward results (``out_origin``, ``argmax``) computed by the forward
operator itself.
"""

import numpy as np


def distinct(rng, shape):
    """Values 0.2 or more apart in a random order: maxima stay put under small probes."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.25 + rng.uniform(0, 0.05, n) - n / 8).reshape(shape)


def _run(op, *args, **attrs):
    from ms_tensor.tensor import Tensor

    out = op(*(Tensor(a) if isinstance(a, np.ndarray) else a for a in args), **attrs)
    return tuple(o.asnumpy() for o in out) if isinstance(out, tuple) else out.asnumpy()


_MODE_ATTRS = (
    ((1, 2, 4, 3), {"kernel_size": 2, "strides": 1}),
    ((1, 1, 5, 4), {"kernel_size": (3, 2), "strides": 2, "pad_mode": "SAME"}),
    ((2, 1, 4, 4), {"kernel_size": 2, "strides": (2, 1), "pad_mode": "VALID"}),
)


def _max_pool(rng):
    for shape, attrs in _MODE_ATTRS:
        yield (distinct(rng, shape),), attrs


def _avg_pool(rng):
    for shape, attrs in _MODE_ATTRS:
        yield (rng.standard_normal(shape),), attrs


def _max_pool_grad(rng):
    from ms_ops.defs.nn_pool import MaxPool

    for shape, attrs in _MODE_ATTRS:
        x = distinct(rng, shape)
        out = _run(MaxPool, x, **attrs)
        yield (x, out, rng.standard_normal(out.shape)), attrs


def _max_pool_grad_grad(rng):
    from ms_ops.defs.nn_pool import MaxPool

    for shape, attrs in _MODE_ATTRS:
        x = distinct(rng, shape)
        yield (x, _run(MaxPool, x, **attrs), rng.standard_normal(shape)), attrs


def _avg_pool_grad(rng):
    from ms_ops.defs.nn_pool import AvgPool

    for shape, attrs in _MODE_ATTRS:
        x = rng.standard_normal(shape)
        out = _run(AvgPool, x, **attrs)
        yield (x, out, rng.standard_normal(out.shape)), attrs


_V2_ATTRS = (
    ((1, 2, 4, 3), {"kernel_size": 2, "strides": 2}),
    ((1, 1, 5, 5), {"kernel_size": 3, "strides": 2, "pads": 1, "ceil_mode": True}),
)


def _max_pool_v2(rng):
    for shape, attrs in _V2_ATTRS:
        yield (distinct(rng, shape),), attrs


def _max_pool_with_argmax_grad(rng):
    from ms_ops.defs.nn_pool import MaxPoolWithArgmax

    for shape, attrs in _MODE_ATTRS:
        x = distinct(rng, shape)
        out, argmax = _run(MaxPoolWithArgmax, x, **attrs)
        yield (x, rng.standard_normal(out.shape), argmax), attrs


def _max_pool_v2_grad(rng):
    from ms_ops.defs.nn_pool import MaxPoolWithArgmaxV2

    for shape, attrs in _V2_ATTRS:
        x = distinct(rng, shape)
        out, argmax = _run(MaxPoolWithArgmaxV2, x, **attrs)
        yield (x, rng.standard_normal(out.shape), argmax), attrs


# (input shape, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
_AVG2D = (
    ((1, 2, 4, 3), 2, 1, 0, False, True, None),
    ((1, 1, 5, 5), 3, 2, 1, True, False, None),
    ((1, 1, 5, 4), (2, 3), (2, 1), (1, 1), False, True, 4),
)


def _avg_pool2d(rng):
    for shape, *window in _AVG2D:
        yield (rng.standard_normal(shape), *window), {}


def _avg_pool2d_grad(rng):
    from ms_ops.defs.nn_pool import AvgPool2D

    for shape, *window in _AVG2D:
        x = rng.standard_normal(shape)
        out = _run(AvgPool2D, x, *window)
        yield (rng.standard_normal(out.shape), x, *window), {}


_ADAPTIVE = (((1, 2, 5, 4), (2, 3)), ((2, 4, 3), 2), ((1, 1, 4, 5), (None, 2)))


def _adaptive_avg(rng):
    for shape, size in _ADAPTIVE:
        yield (rng.standard_normal(shape),), {"output_size": size}


def _adaptive_avg_grad(rng):
    from ms_ops.defs.nn_pool import AdaptiveAvgPool2D

    for shape, size in _ADAPTIVE:
        out = _run(AdaptiveAvgPool2D, rng.standard_normal(shape), output_size=size)
        yield (rng.standard_normal(out.shape), shape), {}


def _adaptive_max(rng):
    for shape, size in _ADAPTIVE:
        yield (distinct(rng, shape),), {"output_size": size}


def _adaptive_max_grad(rng):
    from ms_ops.defs.nn_pool import AdaptiveMaxPool2D

    for shape, size in _ADAPTIVE:
        x = distinct(rng, shape)
        out, argmax = _run(AdaptiveMaxPool2D, x, output_size=size)
        yield (rng.standard_normal(out.shape), x, argmax), {}


SAMPLES = {
    "MaxPool": _max_pool, "MaxPoolGrad": _max_pool_grad, "MaxPoolGradGrad": _max_pool_grad_grad,
    "MaxPoolWithArgmax": _max_pool, "MaxPoolGradWithArgmax": _max_pool_with_argmax_grad,
    "MaxPoolWithArgmaxV2": _max_pool_v2,
    "MaxPoolGradWithArgmaxV2": _max_pool_v2_grad, "AvgPool": _avg_pool,
    "AvgPoolGrad": _avg_pool_grad, "AvgPool2D": _avg_pool2d, "AvgPool2DGrad": _avg_pool2d_grad,
    "AdaptiveAvgPool2D": _adaptive_avg, "AdaptiveAvgPool2DGrad": _adaptive_avg_grad,
    "AdaptiveMaxPool2D": _adaptive_max, "AdaptiveMaxPool2DGrad": _adaptive_max_grad,
}
