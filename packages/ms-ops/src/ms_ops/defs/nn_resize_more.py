"""``interpolate``/``upsample`` (resizing N-C-spatial tensors, one spatial axis at a time)
and ``grid_sample``.

Every mode is separable: each output position along an axis reads a few input positions
(Gather with constant indices) and mixes them with constant weights, so the result
differentiates through Gather, Mul and Add. Positions follow PyTorch/MindSpore: with
``align_corners`` the corners map onto each other, otherwise pixel centres do
(``(i + 0.5) * scale - 0.5``); a given ``scale_factor`` sets the scale as ``1 / factor``
unless ``recompute_scale_factor``.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.opdef import functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

_MODES = {"nearest": (1, 2, 3), "nearest-exact": (1, 2, 3), "linear": (1,), "bilinear": (2,),
          "bicubic": (2,), "trilinear": (3,), "area": (1, 2, 3)}


def _sizes(x, size, scale_factor, recompute):
    nd = x.ndim - 2
    if (size is None) == (scale_factor is None):
        raise ValueError("interpolate: exactly one of size and scale_factor must be given, got "
                         f"size={size!r}, scale_factor={scale_factor!r}")
    if size is not None:
        size = (size,) * nd if isinstance(size, int) else tuple(size)
        if len(size) != nd or not all(isinstance(s, int) and s > 0 for s in size):
            raise ValueError(f"interpolate: size must be {nd} positive ints for input shape "
                             f"{x.shape}, got {size!r}")
        return size, [n / s for n, s in zip(x.shape[2:], size)]
    factors = (scale_factor,) * nd if isinstance(scale_factor, (int, float)) else \
        tuple(scale_factor)
    if len(factors) != nd or not all(f > 0 for f in factors):
        raise ValueError(f"interpolate: scale_factor must be {nd} positive numbers for input "
                         f"shape {x.shape}, got {scale_factor!r}")
    size = tuple(int(np.floor(n * f)) for n, f in zip(x.shape[2:], factors))
    if recompute:
        return size, [n / s for n, s in zip(x.shape[2:], size)]
    return size, [1.0 / f for f in factors]


def _cubic(t, a=-0.75):
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


def _cubic_taps(src, n, align_corners):
    """MindSpore's ResizeBicubic: Keys' a=-0.75 with edge clamping when aligning corners;
    with half-pixel centres (TensorFlow's rule) a=-0.5 at 1/1024 steps, taps outside the
    input dropped and the rest renormalized."""
    base = np.floor(src)
    frac = src - base
    if align_corners:
        return [(np.clip(base + k, 0, n - 1).astype(np.int64), _cubic(frac - k))
                for k in (-1, 0, 1, 2)]
    frac = np.rint(frac * 1024) / 1024  # TensorFlow reads the weights from a 1024-step table
    idx = [base + k for k in (-1, 0, 1, 2)]
    weights = [_cubic(frac - k, -0.5) * ((i >= 0) & (i <= n - 1)) for k, i in zip((-1, 0, 1, 2),
                                                                                 idx)]
    total = sum(weights)
    return [(np.clip(i, 0, n - 1).astype(np.int64), w / total) for i, w in zip(idx, weights)]


def _taps(mode, n, out, scale, align_corners):
    """(indices, weights) per tap: each (out,) array, for one axis of length n -> out."""
    dst = np.arange(out, dtype=np.float64)
    if mode in ("nearest", "nearest-exact"):
        shift = 0.5 if mode == "nearest-exact" else 0.0
        return [(np.minimum(np.floor((dst + shift) * scale), n - 1).astype(np.int64),
                 np.ones(out))]
    if align_corners:
        src = dst * ((n - 1) / (out - 1) if out > 1 else 0.0)
    else:
        src = (dst + 0.5) * scale - 0.5
    if mode == "bicubic":
        return _cubic_taps(src, n, align_corners)
    src = np.maximum(src, 0.0)
    i0 = np.minimum(np.floor(src), n - 1).astype(np.int64)
    lam = src - i0
    return [(i0, 1.0 - lam), (np.minimum(i0 + 1, n - 1), lam)]


def _resample(x, axis, taps):
    out = None
    for idx, weight in taps:
        part = ops.gather(x, Tensor(idx.astype(np.int32)), axis)
        if not np.all(weight == 1.0):
            shape = [1] * x.ndim
            shape[axis] = weight.shape[0]
            part = part * Tensor(weight.reshape(shape)).astype(x.dtype)
        out = part if out is None else out + part
    return out


@functional("interpolate")
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None):
    """Resize the spatial axes of (N, C, *spatial) ``input`` to ``size`` or by
    ``scale_factor`` with ``mode`` nearest, nearest-exact, linear, bilinear, bicubic,
    trilinear or area.

    >>> interpolate(ops.ones((1, 2, 3, 4)), scale_factor=2, mode="bilinear").shape
    (1, 2, 6, 8)
    """
    if not isinstance(input, Tensor) or input.ndim not in (3, 4, 5):
        raise ValueError(f"interpolate: input must be a 3-, 4- or 5-d Tensor, got "
                         f"{getattr(input, 'shape', type(input).__name__)}")
    if mode not in _MODES:
        raise ValueError(f"interpolate: mode must be one of {sorted(_MODES)}, got {mode!r}")
    nd = input.ndim - 2
    if nd not in _MODES[mode]:
        raise ValueError(f"interpolate: mode {mode!r} needs a {_MODES[mode][0] + 2}-d input, "
                         f"got shape {input.shape}")
    if align_corners and mode in ("nearest", "nearest-exact", "area"):
        raise ValueError(f"interpolate: align_corners is only for linear modes, not {mode!r}")
    size, scales = _sizes(input, size, scale_factor, recompute_scale_factor)
    if mode == "area":
        pool = {1: ops.adaptive_avg_pool1d, 2: ops.adaptive_avg_pool2d,
                3: ops.adaptive_avg_pool3d}[nd]
        return pool(input, size if nd > 1 else size[0])
    out = input
    for k, (n, m, scale) in enumerate(zip(input.shape[2:], size, scales)):
        out = _resample(out, 2 + k, _taps(mode, n, m, scale, bool(align_corners)))
    return out


@functional("upsample")
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
             recompute_scale_factor=None):
    """``interpolate`` under its older name.

    >>> upsample(ops.ones((1, 1, 2, 2)), size=(3, 3)).shape
    (1, 1, 3, 3)
    """
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


def _unnormalize(coord, size, align_corners):
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord, low2, high2):
    """Reflect ``coord`` into [low2 / 2, high2 / 2] as often as needed (PyTorch's rule)."""
    if low2 == high2:
        return coord * 0
    lo, span = low2 / 2, (high2 - low2) / 2
    dist = ops.abs(coord - lo)
    flips = ops.floor(dist / span)
    extra = dist - flips * span
    even = ops.equal(flips - ops.floor(flips / 2) * 2, 0)
    return ops.where(even, extra + lo, span - extra + lo)


def _source(coord, size, padding_mode, align_corners):
    coord = _unnormalize(coord, size, align_corners)
    if padding_mode == "reflection":
        coord = _reflect(coord, 0, 2 * (size - 1)) if align_corners else \
            _reflect(coord, -1, 2 * size - 1)
    if padding_mode in ("border", "reflection"):
        coord = ops.clamp(coord, 0, size - 1)
    return coord


@functional("grid_sample")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample (N, C, H, W) ``input`` at the normalized (x, y) locations of ``grid``
    (N, H_out, W_out, 2), -1 and 1 being the edges (``align_corners``: the corner pixels'
    centres); ``mode`` bilinear or nearest, ``padding_mode`` zeros, border or reflection.

    >>> grid_sample(ops.ones((1, 1, 3, 3)), ops.zeros((1, 2, 2, 2))).shape
    (1, 1, 2, 2)
    """
    if mode not in ("bilinear", "nearest") or padding_mode not in ("zeros", "border",
                                                                   "reflection"):
        raise ValueError(f"grid_sample: mode must be 'bilinear' or 'nearest' and padding_mode "
                         f"'zeros', 'border' or 'reflection', got {mode!r}, {padding_mode!r}")
    if input.ndim != 4 or grid.ndim != 4 or grid.shape[-1] != 2 or grid.shape[0] != input.shape[0]:
        raise ValueError(f"grid_sample: input {tuple(input.shape)} must be (N, C, H, W) and grid "
                         f"{tuple(grid.shape)} (N, H_out, W_out, 2) with the same N")
    n, c, h, w = input.shape
    oh, ow = grid.shape[1:3]
    ix = _source(grid[..., 0], w, padding_mode, bool(align_corners))
    iy = _source(grid[..., 1], h, padding_mode, bool(align_corners))
    flat = ops.reshape(input, (n, c, h * w))

    def tap(xi, yi):
        valid = ops.logical_and(ops.logical_and(xi >= 0, xi <= w - 1),
                                ops.logical_and(yi >= 0, yi <= h - 1))
        index = ops.clamp(yi, 0, h - 1) * w + ops.clamp(xi, 0, w - 1)
        index = ops.broadcast_to(ops.reshape(ops.cast(index, mstype.int64), (n, 1, oh * ow)),
                                 (n, c, oh * ow))
        values = ops.reshape(ops.gather_elements(flat, 2, index), (n, c, oh, ow))
        return values * ops.expand_dims(ops.cast(valid, input.dtype), 1)

    if mode == "nearest":
        return tap(ops.round(ix), ops.round(iy))
    x0, y0 = ops.floor(ix), ops.floor(iy)
    wx, wy = ops.expand_dims(ix - x0, 1), ops.expand_dims(iy - y0, 1)
    return (tap(x0, y0) * (1 - wx) * (1 - wy) + tap(x0 + 1, y0) * wx * (1 - wy)
            + tap(x0, y0 + 1) * (1 - wx) * wy + tap(x0 + 1, y0 + 1) * wx * wy)
