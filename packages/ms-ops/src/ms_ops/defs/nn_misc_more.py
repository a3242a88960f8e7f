"""Channel dropout (``dropout1d/2d/3d``) and max-unpooling (``max_unpool1d/2d/3d``).

Channel dropout draws one Dropout mask per (sample, channel) and broadcasts it over the
spatial axes; unpooling scatters each value to the flat index MaxPool returned
(TensorScatterElements), so both differentiate through the operators they use.
"""

from __future__ import annotations

import ms_ops as ops
from ms_ops.defs.nn_conv_more import _tuple
from ms_ops.opdef import functional
from ms_tensor.tensor import Tensor


def _channel_dropout(name, input, p, training, spatial):
    if not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p <= 1:
        raise ValueError(f"{name}: p must be a number in [0, 1], got {p!r}")
    if not isinstance(input, Tensor) or input.ndim not in (spatial + 1, spatial + 2):
        raise ValueError(f"{name}: input must be a Tensor of rank {spatial + 1} or "
                         f"{spatial + 2}, got {getattr(input, 'shape', type(input).__name__)}")
    if not training or p == 0:
        return input
    if p == 1:
        return input * 0
    shape = input.shape[:input.ndim - spatial] + (1,) * spatial
    return input * ops.dropout(ops.ones(shape, input.dtype), p)


@functional("dropout1d")
def dropout1d(input, p=0.5, training=True):
    """Zero whole channels of (N, C, L) ``input`` with probability ``p``, scale the rest.

    >>> dropout1d(ops.ones((2, 3, 4)), 0.0).shape
    (2, 3, 4)
    """
    return _channel_dropout("dropout1d", input, p, training, 1)


@functional("dropout2d")
def dropout2d(input, p=0.5, training=True):
    """Zero whole channels of (N, C, H, W) ``input`` with probability ``p``, scale the rest.

    >>> dropout2d(ops.ones((2, 3, 4, 4)), 0.0).shape
    (2, 3, 4, 4)
    """
    return _channel_dropout("dropout2d", input, p, training, 2)


@functional("dropout3d")
def dropout3d(input, p=0.5, training=True):
    """Zero whole channels of (N, C, D, H, W) ``input`` with probability ``p``.

    >>> dropout3d(ops.ones((2, 3, 2, 2, 2)), 0.0).shape
    (2, 3, 2, 2, 2)
    """
    return _channel_dropout("dropout3d", input, p, training, 3)


def _unpool(name, x, indices, nd, kernel_size, stride, padding, output_size):
    if not isinstance(x, Tensor) or x.ndim not in (nd + 1, nd + 2):
        raise ValueError(f"{name}: input must be a Tensor of rank {nd + 1} or {nd + 2}, got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    if not isinstance(indices, Tensor) or indices.shape != x.shape:
        raise ValueError(f"{name}: indices shape {getattr(indices, 'shape', None)} must equal "
                         f"the input shape {x.shape}")
    kernel = _tuple(f"{name}: kernel_size", kernel_size, nd)
    stride = kernel if stride is None else _tuple(f"{name}: stride", stride, nd)
    padding = _tuple(f"{name}: padding", padding, nd)
    size = tuple((n - 1) * s - 2 * p + k
                 for n, s, p, k in zip(x.shape[-nd:], stride, padding, kernel))
    if output_size is not None:
        size = tuple(output_size)[-nd:]
    lead = x.shape[:-nd]
    plane = 1
    for s in size:
        plane *= s
    flat_x = ops.reshape(x, lead + (-1,))
    flat_i = ops.reshape(indices, lead + (-1,)).astype("int64")
    out = ops.tensor_scatter_elements(ops.zeros(lead + (plane,), x.dtype), flat_i, flat_x,
                                      axis=-1)
    return ops.reshape(out, lead + size)


@functional("max_unpool1d")
def max_unpool1d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool1d``: each value back at its index, zeros elsewhere.

    >>> max_unpool1d(ops.ones((1, 1, 2)), Tensor([[[0, 3]]]), 2).shape
    (1, 1, 4)
    """
    return _unpool("max_unpool1d", x, indices, 1, kernel_size, stride, padding, output_size)


@functional("max_unpool2d")
def max_unpool2d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool2d``: each value back at its flat (h * W + w) index.

    >>> max_unpool2d(ops.ones((1, 1, 1, 1)), Tensor([[[[3]]]]), 2).shape
    (1, 1, 2, 2)
    """
    return _unpool("max_unpool2d", x, indices, 2, kernel_size, stride, padding, output_size)


@functional("max_unpool3d")
def max_unpool3d(x, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The inverse of ``max_pool3d``: each value back at its flat (d * H * W + ...) index.

    >>> max_unpool3d(ops.ones((1, 1, 1, 1, 1)), Tensor([[[[[7]]]]]), 2).shape
    (1, 1, 2, 2, 2)
    """
    return _unpool("max_unpool3d", x, indices, 3, kernel_size, stride, padding, output_size)
