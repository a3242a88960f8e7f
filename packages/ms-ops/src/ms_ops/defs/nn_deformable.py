"""Deformable convolution v2 (Zhu et al. 2019): ``ops.DeformableOffsets`` samples each
kernel tap at its learned offset (times its modulation mask), ``deformable_conv2d``
convolves those samples.

``offsets`` is (N, 3 * deformable_groups * kh * kw, H_out, W_out): the x offsets, then the
y offsets, then the masks, each group's taps in row-major kernel order (MindSpore's
layout). Sampling is bilinear over the zero-padded input, written with Gather and
elementwise operators so the gradient reaches the input, the offsets and the masks.
The samples land as (N, C, H_out * kh, W_out * kw), so a Conv2D with stride = kernel
finishes the convolution.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.opdef import functional, primitive_class
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _four(name, what, v):
    if isinstance(v, int) and not isinstance(v, bool):
        return (v,) * 4
    if not isinstance(v, (tuple, list)) or len(v) != 4:
        raise ValueError(f"{name}: {what} must be a tuple of 4 ints, got {v!r}")
    return tuple(int(a) for a in v)


def _pair(name, what, v):
    if isinstance(v, int) and not isinstance(v, bool):
        return (v, v)
    if not isinstance(v, (tuple, list)) or len(v) != 2:
        raise ValueError(f"{name}: {what} must be an int or 2 ints, got {v!r}")
    return tuple(int(a) for a in v)


def _deformable_offsets(x, offsets, strides, pads, ksize, dilations=(1, 1, 1, 1),
                        data_format="NCHW", deformable_groups=1, modulated=True):
    name = "DeformableOffsets"
    if data_format != "NCHW":
        raise ValueError(f"{name}: data_format must be 'NCHW', got {data_format!r}")
    if not isinstance(x, Tensor) or x.ndim != 4 or not x.is_floating_point():
        raise ValueError(f"{name}: x must be a float (N, C, H, W) Tensor, got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    (_, _, sh, sw), (_, _, dh, dw) = _four(name, "strides", strides), \
        _four(name, "dilations", dilations)
    top, bottom, left, right = _four(name, "pads", pads)
    kh, kw = _pair(name, "ksize", ksize)
    n, c, h, w = x.shape
    dg = deformable_groups
    oh = (h + top + bottom - dh * (kh - 1) - 1) // sh + 1
    ow = (w + left + right - dw * (kw - 1) - 1) // sw + 1
    parts = 3 if modulated else 2
    if c % dg or not isinstance(offsets, Tensor) or \
            offsets.shape != (n, parts * dg * kh * kw, oh, ow):
        raise ValueError(f"{name}: offsets must be (N, {parts} * deformable_groups * kh * kw, "
                         f"H_out, W_out) = {(n, parts * dg * kh * kw, oh, ow)} and C={c} "
                         f"divisible by deformable_groups={dg}, got "
                         f"{getattr(offsets, 'shape', type(offsets).__name__)}")
    k = kh * kw
    grid = (n, dg, kh, kw, oh, ow)
    off_x = ops.reshape(offsets[:, :dg * k], grid).astype(x.dtype)
    off_y = ops.reshape(offsets[:, dg * k:2 * dg * k], grid).astype(x.dtype)
    base_y = (np.arange(oh)[None, :] * sh - top + np.arange(kh)[:, None] * dh)  # (kh, oh)
    base_x = (np.arange(ow)[None, :] * sw - left + np.arange(kw)[:, None] * dw)  # (kw, ow)
    py = off_y + Tensor(base_y[:, None, :, None].astype(np.float64)).astype(x.dtype)
    px = off_x + Tensor(base_x[None, :, None, :].astype(np.float64)).astype(x.dtype)
    y0, x0 = ops.floor(py), ops.floor(px)
    ly, lx = py - y0, px - x0
    flat = ops.reshape(x, (n, dg, c // dg, h * w))
    m = k * oh * ow
    total = None
    for dy, wy in ((0, 1 - ly), (1, ly)):
        for dx, wx in ((0, 1 - lx), (1, lx)):
            yi, xi = y0 + dy, x0 + dx
            valid = (yi >= 0) & (yi <= h - 1) & (xi >= 0) & (xi <= w - 1)
            index = ops.clamp(yi, 0, h - 1) * w + ops.clamp(xi, 0, w - 1)
            index = ops.broadcast_to(ops.reshape(ops.cast(index, mstype.int64), (n, dg, 1, m)),
                                     (n, dg, c // dg, m))
            picked = ops.reshape(ops.gather_elements(flat, 3, index), (n, dg, c // dg) + grid[2:])
            weight = wy * wx * ops.cast(valid, x.dtype)
            part = picked * ops.expand_dims(weight, 2)
            total = part if total is None else total + part
    if modulated:
        mask = ops.reshape(offsets[:, 2 * dg * k:], grid).astype(x.dtype)
        total = total * ops.expand_dims(mask, 2)
    out = ops.transpose(ops.reshape(total, (n, c, kh, kw, oh, ow)), (0, 1, 4, 2, 5, 3))
    return ops.reshape(out, (n, c, oh * kh, ow * kw))


DeformableOffsets = primitive_class("DeformableOffsets", _deformable_offsets,
                                    ("strides", "pads", "ksize", "dilations", "data_format",
                                     "deformable_groups", "modulated"))


@functional("deformable_conv2d")
def deformable_conv2d(x, weight, offsets, kernel_size, strides, padding, bias=None,
                      dilations=(1, 1, 1, 1), groups=1, deformable_groups=1, modulated=True):
    """Modulated deformable 2-d convolution of (N, C, H, W) ``x`` with ``weight``
    (C_out, C / groups, kh, kw); ``strides``, ``padding`` (top, bottom, left, right) and
    ``dilations`` are 4-tuples as in MindSpore.

    >>> offsets = ops.zeros((1, 12, 2, 2))
    >>> deformable_conv2d(ops.ones((1, 1, 3, 3)), ops.ones((1, 1, 2, 2)), offsets, (2, 2),
    ...                   (1, 1, 1, 1), (0, 0, 0, 0)).shape
    (1, 1, 2, 2)
    """
    kh, kw = _pair("deformable_conv2d", "kernel_size", kernel_size)
    if not isinstance(weight, Tensor) or weight.ndim != 4 or tuple(weight.shape[2:]) != (kh,
                                                                                        kw):
        raise ValueError(f"deformable_conv2d: weight shape {getattr(weight, 'shape', None)} "
                         f"must be (C_out, C / groups, {kh}, {kw})")
    samples = _deformable_offsets(x, offsets, strides, padding, (kh, kw), dilations, "NCHW",
                                  deformable_groups, modulated)
    out = ops.conv2d(samples, weight, None, (kh, kw), "valid", 0, 1, groups)
    if bias is not None:
        out = out + ops.reshape(bias, (1, -1, 1, 1))
    return out
