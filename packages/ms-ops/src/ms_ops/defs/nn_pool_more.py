"""1-d and 3-d pooling, adaptive 1-d/3-d pooling, power-average (LP) pooling and
fractional max pooling (Graham's pseudo-random windows, gathered per sample and channel).

The 1-d forms are the 2-d operators over a height of 1. The 3-d forms take the maximum or
the sum of the strided window slices (one slice per kernel tap), so they are exact and
differentiate through Slice/Maximum/Add; adaptive 3-d pooling reduces each depth bin and
hands the planes to the adaptive 2-d operators (the bins of a box are separable).
"""

from __future__ import annotations

import itertools

import numpy as np

import ms_ops as ops
from ms_ops.defs.nn_conv_more import _tuple
from ms_ops.opdef import functional
from ms_tensor.tensor import Tensor


def _check(name, x, ranks):
    if not isinstance(x, Tensor) or x.ndim not in ranks:
        raise ValueError(f"{name}: input must be a Tensor of rank {' or '.join(map(str, ranks))}"
                         f", got {getattr(x, 'shape', type(x).__name__)}")


def _out_len(n, k, s, p, d, ceil_mode) -> int:
    """PyTorch/MindSpore's pooled length; with ceil_mode a window may not start in the
    right padding."""
    span = d * (k - 1) + 1
    if ceil_mode:
        out = -(-(n + 2 * p - span) // s) + 1
        if (out - 1) * s >= n + p:
            out -= 1
        return out
    return (n + 2 * p - span) // s + 1


def _windows(name, x, kernel, stride, padding, dilation, ceil_mode, fill):
    """The padded input's slices, one per kernel tap, each the shape of the output."""
    nd = len(kernel)
    sizes = x.shape[-nd:]
    outs = [_out_len(n, k, s, p, d, ceil_mode)
            for n, k, s, p, d in zip(sizes, kernel, stride, padding, dilation)]
    if min(outs) <= 0 or any(2 * p > k for p, k in zip(padding, kernel)):
        raise ValueError(f"{name}: input shape {x.shape} is too small for kernel_size {kernel} "
                         f"(padding {padding} must be at most half the kernel)")
    pads = []
    for n, k, s, p, d, o in zip(sizes, kernel, stride, padding, dilation, outs):
        pads += [(p, max((o - 1) * s + d * (k - 1) + 1 - n - p, 0))]
    flat = tuple(v for p in reversed(pads) for v in p)
    xp = ops.pad(x, flat, value=fill) if any(flat) else x
    lead = (slice(None),) * (x.ndim - nd)
    taps = []
    for offs in itertools.product(*(range(k) for k in kernel)):
        index = tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                      for o, d, s, m in zip(offs, dilation, stride, outs))
        taps.append((offs, xp[lead + index]))
    return taps, outs, pads


def _args(name, nd, kernel_size, stride, padding, dilation=1):
    kernel = _tuple(f"{name}: kernel_size", kernel_size, nd)
    stride = kernel if stride is None or stride == () else _tuple(f"{name}: stride", stride, nd)
    return (kernel, stride, _tuple(f"{name}: padding", padding, nd),
            _tuple(f"{name}: dilation", dilation, nd))


def _flat_indices(taps_arg, taps, outs, stride, padding, dilation, sizes):
    """Flat (d*H*W + h*W + w) input index of each maximum, from the winning tap."""
    offs = np.array([o for o, _ in taps])  # (K, nd)
    grids = np.meshgrid(*(np.arange(m) for m in outs), indexing="ij")
    flat = np.zeros(taps_arg.shape, np.int64)
    for axis, (g, s, p, d, n) in enumerate(zip(grids, stride, padding, dilation, sizes)):
        pos = g * s - p + offs[taps_arg, axis] * d
        flat = flat * n + pos
    return Tensor(flat)


@functional("max_pool3d")
def max_pool3d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-d max pooling of (N, C, D, H, W) ``x``; ``stride`` defaults to ``kernel_size``.

    >>> max_pool3d(ops.ones((1, 1, 4, 4, 4)), 2).shape
    (1, 1, 2, 2, 2)
    """
    _check("max_pool3d", x, (4, 5))
    kernel, stride, padding, dilation = _args("max_pool3d", 3, kernel_size, stride, padding,
                                              dilation)
    taps, outs, _ = _windows("max_pool3d", x, kernel, stride, padding, dilation, ceil_mode,
                             float("-inf"))
    out = taps[0][1]
    for _, t in taps[1:]:
        out = ops.maximum(out, t)
    if not return_indices:
        return out
    stacked = np.stack([t.asnumpy() for _, t in taps])
    arg = np.argmax(stacked, axis=0)
    return out, _flat_indices(arg, taps, outs, stride, padding, dilation, x.shape[-3:])


@functional("avg_pool3d")
def avg_pool3d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """3-d average pooling of (N, C, D, H, W) ``input_x`` with symmetric zero ``padding``.

    >>> avg_pool3d(ops.ones((1, 1, 4, 4, 4)), 2, 2).shape
    (1, 1, 2, 2, 2)
    """
    _check("avg_pool3d", input_x, (4, 5))
    return _avg_nd("avg_pool3d", input_x, 3, kernel_size, stride, padding, ceil_mode,
                   count_include_pad, divisor_override)


def _avg_nd(name, x, nd, kernel_size, stride, padding, ceil_mode, count_include_pad,
            divisor_override):
    kernel, stride, padding, dilation = _args(name, nd, kernel_size, stride, padding)
    taps, outs, pads = _windows(name, x, kernel, stride, padding, dilation, ceil_mode, 0.0)
    total = taps[0][1]
    for _, t in taps[1:]:
        total = total + t
    if divisor_override:
        return total / divisor_override
    # Each window's divisor: the taps inside the input (or inside input + padding).
    sizes = x.shape[-nd:]
    mask = np.zeros([p0 + n + p1 for n, (p0, p1) in zip(sizes, pads)], np.float32)
    inner = tuple(slice(p0, p0 + n) for n, (p0, _) in zip(sizes, pads))
    if count_include_pad:
        inner = tuple(slice(0, p0 + n + p) for n, (p0, _), p in zip(sizes, pads, padding))
    mask[inner] = 1.0
    count = sum(mask[tuple(slice(o * d, o * d + s * (m - 1) + 1, s)
                           for o, d, s, m in zip(offs, dilation, stride, outs))]
                for offs, _ in taps)
    return total / Tensor(count.astype(np.float32)).astype(x.dtype)


@functional("avg_pool1d")
def avg_pool1d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-d average pooling of (N, C, L) ``input_x``.

    >>> avg_pool1d(ops.ones((1, 2, 6)), 2, 2).shape
    (1, 2, 3)
    """
    _check("avg_pool1d", input_x, (2, 3))
    return _avg_nd("avg_pool1d", input_x, 1, kernel_size, stride, padding, ceil_mode,
                   count_include_pad, 0)


@functional("max_pool1d")
def max_pool1d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-d max pooling of (N, C, L) ``x`` (MaxPool2D over a height of 1).

    >>> max_pool1d(ops.ones((1, 2, 6)), 2).shape
    (1, 2, 3)
    """
    _check("max_pool1d", x, (3,))
    kernel, stride, padding, dilation = _args("max_pool1d", 1, kernel_size, stride, padding,
                                              dilation)
    res = ops.max_pool2d(ops.expand_dims(x, 2), (1, kernel[0]), (1, stride[0]),
                         (0, padding[0]), (1, dilation[0]), return_indices, ceil_mode)
    if return_indices:
        return ops.squeeze(res[0], 2), ops.squeeze(res[1], 2)
    return ops.squeeze(res, 2)


def _size1(name, output_size) -> int:
    if isinstance(output_size, (tuple, list)) and len(output_size) == 1:
        output_size = output_size[0]
    if not isinstance(output_size, int) or isinstance(output_size, bool) or output_size <= 0:
        raise ValueError(f"{name}: output_size must be a positive int, got {output_size!r}")
    return output_size


@functional("adaptive_avg_pool1d")
def adaptive_avg_pool1d(input, output_size):
    """Adaptive average pooling of (N, C, L) ``input`` to length ``output_size``.

    >>> adaptive_avg_pool1d(ops.ones((1, 2, 7)), 3).shape
    (1, 2, 3)
    """
    _check("adaptive_avg_pool1d", input, (2, 3))
    out = ops.adaptive_avg_pool2d(ops.expand_dims(input, -2),
                                  (1, _size1("adaptive_avg_pool1d", output_size)))
    return ops.squeeze(out, -2)


@functional("adaptive_max_pool1d")
def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, L) ``input`` to length ``output_size``.

    >>> adaptive_max_pool1d(ops.ones((1, 2, 7)), 3).shape
    (1, 2, 3)
    """
    _check("adaptive_max_pool1d", input, (2, 3))
    res = ops.adaptive_max_pool2d(ops.expand_dims(input, -2),
                                  (1, _size1("adaptive_max_pool1d", output_size)),
                                  return_indices)
    if return_indices:
        return ops.squeeze(res[0], -2), ops.squeeze(res[1], -2)
    return ops.squeeze(res, -2)


def _adaptive3d(name, x, output_size, reduce, pool2d):
    _check(name, x, (4, 5))
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size,) * 3
    if not (isinstance(output_size, (tuple, list)) and len(output_size) == 3):
        raise ValueError(f"{name}: output_size must be an int or a tuple of 3 (ints or None), "
                         f"got {output_size!r}")
    depth = x.shape[-3]
    od = depth if output_size[0] is None else output_size[0]
    planes = [reduce(x[..., i * depth // od:-(-(i + 1) * depth // od), :, :])
              for i in range(od)]
    y = ops.stack(planes, -3)
    lead = y.shape[:-2]
    y = ops.reshape(y, (-1,) + y.shape[-2:])
    y = pool2d(ops.expand_dims(y, 0), tuple(output_size[1:]))
    return ops.reshape(y, lead + y.shape[-2:])


@functional("adaptive_avg_pool3d")
def adaptive_avg_pool3d(input, output_size):
    """Adaptive average pooling of (N, C, D, H, W) ``input`` to ``output_size``.

    >>> adaptive_avg_pool3d(ops.ones((1, 2, 5, 6, 7)), (2, 3, 4)).shape
    (1, 2, 2, 3, 4)
    """
    return _adaptive3d("adaptive_avg_pool3d", input, output_size,
                       lambda t: ops.mean(t, -3), ops.adaptive_avg_pool2d)


@functional("adaptive_max_pool3d")
def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Adaptive max pooling of (N, C, D, H, W) ``input`` to ``output_size``.

    >>> adaptive_max_pool3d(ops.ones((1, 2, 5, 6, 7)), 2).shape
    (1, 2, 2, 2, 2)
    """
    if return_indices:
        raise ValueError("adaptive_max_pool3d: return_indices=True is not supported; "
                         "use max_pool3d(..., return_indices=True) with a fixed window")
    return _adaptive3d("adaptive_max_pool3d", input, output_size,
                       lambda t: ops.amax(t, -3), ops.adaptive_max_pool2d)


def _lp(name, x, norm_type, kernel_size, stride, ceil_mode, nd):
    if isinstance(norm_type, bool) or not isinstance(norm_type, (int, float)) or norm_type == 0:
        raise ValueError(f"{name}: norm_type must be a non-zero number, got {norm_type!r}")
    kernel = _tuple(f"{name}: kernel_size", kernel_size, nd)
    out = _avg_nd(name, ops.pow(x, norm_type), nd, kernel, stride, 0, ceil_mode, True, 0)
    return ops.pow(ops.sign(out) * ops.relu(ops.abs(out)) * float(np.prod(kernel)),
                   1.0 / norm_type)


@functional("lp_pool1d")
def lp_pool1d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over (N, C, L): (sum of x^p over each window)^(1/p).

    >>> lp_pool1d(ops.ones((1, 2, 6)), 2, 3).shape
    (1, 2, 2)
    """
    _check("lp_pool1d", x, (2, 3))
    return _lp("lp_pool1d", x, norm_type, kernel_size, stride, ceil_mode, 1)


@functional("lp_pool2d")
def lp_pool2d(x, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over (N, C, H, W): (sum of x^p over each window)^(1/p).

    >>> lp_pool2d(ops.ones((1, 2, 6, 6)), 2, 3).shape
    (1, 2, 2, 2)
    """
    _check("lp_pool2d", x, (3, 4))
    return _lp("lp_pool2d", x, norm_type, kernel_size, stride, ceil_mode, 2)


def _fractional_starts(u, n_in, n_out, k):
    """Graham's pseudo-random window starts for one axis, from samples ``u`` in [0, 1)."""
    if n_out == 1:
        return np.zeros(u.shape + (1,), np.int64)
    alpha = (n_in - k) / (n_out - 1)
    i = np.arange(n_out - 1)
    starts = np.floor((i + u[..., None]) * alpha) - np.floor(u[..., None] * alpha)
    return np.concatenate([starts, np.full(u.shape + (1,), n_in - k)], -1).astype(np.int64)


def _fractional(name, x, nd, kernel_size, output_size, output_ratio, return_indices, samples):
    _check(name, x, (nd + 1, nd + 2))
    squeeze = x.ndim == nd + 1
    x = ops.expand_dims(x, 0) if squeeze else x
    kernel = _tuple(f"{name}: kernel_size", kernel_size, nd)
    sizes = x.shape[2:]
    if output_size is not None:
        out = _tuple(f"{name}: output_size", output_size, nd)
    elif output_ratio is not None:
        ratio = (output_ratio,) * nd if isinstance(output_ratio, (int, float)) else output_ratio
        out = tuple(int(n * r) for n, r in zip(sizes, ratio))
    else:
        raise ValueError(f"{name}: give output_size or output_ratio")
    if any(o + k - 1 > n or o < 1 for o, k, n in zip(out, kernel, sizes)):
        raise ValueError(f"{name}: output size {out} with kernel {kernel} does not fit input "
                         f"{tuple(sizes)}")
    n, c = x.shape[:2]
    u = samples.asnumpy() if isinstance(samples, Tensor) else (
        np.random.default_rng().random((n, c, nd)))
    # 2-d samples list (width, height); 3-d ones (depth, height, width), as PyTorch's
    order = [1, 0] if nd == 2 else [0, 1, 2]
    starts = [_fractional_starts(u[..., order[a]].astype(np.float64), sizes[a], out[a],
                                 kernel[a]) for a in range(nd)]
    flat = np.zeros((n, c) + tuple(out) + tuple(kernel), np.int64)
    for a in range(nd):
        pos = starts[a].reshape((n, c) + (1,) * a + (out[a],) + (1,) * (nd - 1 - a) + (1,) * nd)
        pos = pos + np.arange(kernel[a]).reshape((1,) * (2 + nd + a) + (kernel[a],)
                                                 + (1,) * (nd - 1 - a))
        flat = flat * sizes[a] + pos
    flat = flat.reshape(n, c, -1)
    values = ops.gather_elements(ops.reshape(x, (n, c, -1)), 2, Tensor(flat))
    values = ops.reshape(values, (n, c) + tuple(out) + (int(np.prod(kernel)),))
    result = ops.amax(values, -1)
    if squeeze:
        result = ops.squeeze(result, 0)
    if not return_indices:
        return result
    arg = np.argmax(values.asnumpy(), -1)
    index = np.take_along_axis(flat.reshape(values.shape), arg[..., None], -1)[..., 0]
    return result, Tensor(index[0] if squeeze else index)


@functional("fractional_max_pool2d")
def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Max pooling over pseudo-random (Graham 2014) windows of (N, C, H, W) to
    ``output_size`` (or ``output_ratio`` of the input); ``_random_samples`` (N, C, 2) in
    [0, 1) fixes the windows.

    >>> fractional_max_pool2d(ops.ones((1, 1, 7, 7)), 2, output_size=(4, 3)).shape
    (1, 1, 4, 3)
    """
    return _fractional("fractional_max_pool2d", input, 2, kernel_size, output_size,
                       output_ratio, return_indices, _random_samples)


@functional("fractional_max_pool3d")
def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """``fractional_max_pool2d`` over (N, C, D, H, W); ``_random_samples`` is (N, C, 3).

    >>> fractional_max_pool3d(ops.ones((1, 1, 5, 6, 7)), 2, output_size=(2, 3, 4)).shape
    (1, 1, 2, 3, 4)
    """
    return _fractional("fractional_max_pool3d", input, 3, kernel_size, output_size,
                       output_ratio, return_indices, _random_samples)
