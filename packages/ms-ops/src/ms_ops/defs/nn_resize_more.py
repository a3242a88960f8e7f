"""``interpolate``/``upsample``: resizing N-C-spatial tensors, one spatial axis at a time.

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
