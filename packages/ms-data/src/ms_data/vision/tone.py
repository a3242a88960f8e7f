"""Tone curves on uint8 images: AutoContrast, Equalize, Invert, Posterize, Solarize.

Each works per image and channel through a 256-entry table built from the histogram
(AutoContrast, Equalize) or from the arguments (the others), as MindSpore does.
"""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.vision import pil_path
from ms_data.vision.geometry import _ImageOp


def uint8_only(op: str, x: np.ndarray) -> None:
    if x.dtype != np.uint8:
        raise TypeError(f"{op}: expected a uint8 image, got dtype {x.dtype}")


def _per_channel(x: np.ndarray, table_fn) -> np.ndarray:
    """Apply ``table_fn(histogram) -> lut`` to each image's channels of a (N, H, W, C) batch."""
    out = np.empty_like(x)
    for i in range(x.shape[0]):
        for c in range(x.shape[3]):
            ch = x[i, :, :, c]
            out[i, :, :, c] = table_fn(np.bincount(ch.ravel(), minlength=256))[ch]
    return out


def autocontrast_table(hist: np.ndarray, cutoff: float, ignore) -> np.ndarray:
    """MindSpore's AutoContrast table (Pillow's ``ImageOps.autocontrast`` in float32): stretch
    [lo, hi] after cutting ``cutoff``% of the pixels at each end."""
    h = hist.copy()
    for v in ignore:
        h[v] = 0
    if cutoff:
        cut = int(h.sum() * cutoff / 100)
        for order in (slice(None), slice(None, None, -1)):
            view, left = h[order], cut
            for j in range(256):
                take = min(left, view[j])
                view[j] -= take
                left -= take
                if left <= 0:
                    break
    nz = np.flatnonzero(h)
    lo, hi = (nz[0], nz[-1]) if nz.size else (0, 0)
    if hi <= lo:
        return np.arange(256, dtype=np.uint8)
    scale = np.float32(255) / np.float32(hi - lo)  # MindSpore computes the table in float32
    table = np.arange(256, dtype=np.float32) * scale + np.float32(-lo) * scale
    return np.clip(table.astype(np.int64), 0, 255).astype(np.uint8)


def equalize_table(hist: np.ndarray) -> np.ndarray:
    """OpenCV's ``equalizeHist`` table (MindSpore's Equalize)."""
    nz = np.flatnonzero(hist)
    total = hist.sum()
    if nz.size == 0 or hist[nz[0]] == total:
        return np.full(256, nz[0] if nz.size else 0, dtype=np.uint8)
    first = nz[0]
    scale = np.float32(255) / np.float32(total - hist[first])
    cum = np.cumsum(hist) - hist[first]
    table = np.rint(cum.astype(np.float32) * scale)
    table[:first + 1] = 0
    return np.clip(table, 0, 255).astype(np.uint8)


class AutoContrast(_ImageOp):
    """Stretch each channel to [0, 255] after dropping ``cutoff`` percent of the darkest and
    lightest pixels; values in ``ignore`` are left out of the histogram."""

    keeps_pil = True

    def __init__(self, cutoff=0.0, ignore=None):
        if not isinstance(cutoff, numbers.Real) or not 0 <= cutoff < 50:
            raise ValueError(f"AutoContrast: cutoff must be in [0, 50), got {cutoff!r}")
        if ignore is None:
            ignore = []
        elif isinstance(ignore, numbers.Integral):
            ignore = [ignore]
        if not all(isinstance(v, numbers.Integral) and 0 <= v <= 255 for v in ignore):
            raise ValueError(f"AutoContrast: ignore must hold ints in [0, 255], got {ignore!r}")
        self.cutoff = float(cutoff)
        self.ignore = [int(v) for v in ignore]

    def _pil(self, img, rng):
        return pil_path.ops("autocontrast", img, self.cutoff, self.ignore or None)

    def _nhwc(self, x, rng):
        uint8_only("AutoContrast", x)
        return _per_channel(x, lambda h: autocontrast_table(h, self.cutoff, self.ignore))


class Equalize(_ImageOp):
    """Equalize each channel's histogram."""

    keeps_pil = True

    def _pil(self, img, rng):
        return pil_path.ops("equalize", img)

    def _nhwc(self, x, rng):
        uint8_only("Equalize", x)
        return _per_channel(x, equalize_table)


def invert(x: np.ndarray) -> np.ndarray:
    """``255 - x`` in x's dtype (MindSpore inverts float images about 255 as well)."""
    return (255 - x).astype(x.dtype) if x.dtype == np.uint8 else (255 - x.astype(np.float64)
                                                                   ).astype(x.dtype)


class Invert(_ImageOp):
    """``255 - pixel`` (uint8 or float images)."""

    keeps_pil = True

    def _nhwc(self, x, rng):
        if x.dtype.kind not in "uf":
            raise TypeError(f"Invert: expected a uint8 or float image, got dtype {x.dtype}")
        return invert(x)

    def _pil(self, img, rng):
        return pil_path.ops("invert", img)


def posterize_nhwc(x: np.ndarray, bits) -> np.ndarray:
    """Keep the ``bits`` high bits of each value (one bit count per image)."""
    bits = np.broadcast_to(np.asarray(bits, np.int64), (len(x),))
    mask = (~((1 << (8 - bits)) - 1) & 0xFF).astype(np.uint8).reshape(-1, 1, 1, 1)
    return x & mask


class Posterize(_ImageOp):
    """Keep the ``bits`` (1..8) highest bits of each uint8 value."""

    def __init__(self, bits):
        if not isinstance(bits, numbers.Integral) or not 0 <= bits <= 8:
            raise ValueError(f"Posterize: bits must be an int in [0, 8], got {bits!r}")
        self.bits = int(bits)

    def _nhwc(self, x, rng):
        uint8_only("Posterize", x)
        return posterize_nhwc(x, self.bits)


def solarize_nhwc(x: np.ndarray, lo, hi) -> np.ndarray:
    """Invert values in [lo, hi] (one range per image); lo == hi inverts all values >= lo,
    as MindSpore does."""
    lo = np.broadcast_to(np.asarray(lo), (len(x),)).reshape(-1, 1, 1, 1)
    hi = np.broadcast_to(np.asarray(hi), (len(x),)).reshape(-1, 1, 1, 1)
    hi = np.where(hi == lo, np.inf, hi)
    inside = (x >= lo) & (x <= hi)
    return np.where(inside, invert(x), x).astype(x.dtype)


def threshold_pair(op: str, threshold) -> tuple[float, float]:
    if isinstance(threshold, numbers.Real) and not isinstance(threshold, bool):
        threshold = (threshold, threshold)  # equal ends: every value >= threshold
    if (not isinstance(threshold, (tuple, list)) or len(threshold) != 2
            or not all(isinstance(t, numbers.Real) and 0 <= t <= 255 for t in threshold)
            or threshold[0] > threshold[1]):
        raise ValueError(f"{op}: threshold must be a number or (min, max) in [0, 255] with "
                         f"min <= max, got {threshold!r}")
    return float(threshold[0]), float(threshold[1])


class Solarize(_ImageOp):
    """Invert (``255 - x``) the values at or above ``threshold``, or inside ``(min, max)``."""

    def __init__(self, threshold):
        self.threshold = threshold_pair("Solarize", threshold)

    def _nhwc(self, x, rng):
        if x.dtype.kind not in "uf":
            raise TypeError(f"Solarize: expected a uint8 or float image, got dtype {x.dtype}")
        return solarize_nhwc(x, *self.threshold)
