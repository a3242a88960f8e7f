"""Hue: AdjustHue (OpenCV's 8-bit full-range HSV round trip), RgbToHsv and HsvToRgb (float)."""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.transforms.base import TensorOperation
from ms_data.vision import pil_path
from ms_data.vision.adjust import rgb_only
from ms_data.vision.geometry import _ImageOp

_SHIFT = 12  # OpenCV's hsv_shift
_VECTOR = 32  # pixels per vector block of OpenCV's HSV2RGB (AVX2 build)
_SECTORS = np.array([[1, 3, 0], [1, 0, 2], [3, 0, 1], [0, 2, 1], [0, 1, 3], [2, 1, 0]])


def _div_table(num: int) -> np.ndarray:
    i = np.arange(256, dtype=np.float64)
    with np.errstate(divide="ignore"):
        t = np.where(i > 0, np.rint(num / np.maximum(i, 1)), 0)
    return t.astype(np.int64)


_SDIV = _div_table(255 << _SHIFT)
_HDIV = _div_table((256 << _SHIFT) / 6.0)


def rgb_to_hsv_full_u8(x: np.ndarray) -> np.ndarray:
    """``cv::COLOR_RGB2HSV_FULL`` on uint8 (..., 3): hue in 0..255 for a full turn."""
    r, g, b = (x[..., i].astype(np.int64) for i in range(3))
    v = np.maximum(np.maximum(r, g), b)
    diff = v - np.minimum(np.minimum(r, g), b)
    half = 1 << (_SHIFT - 1)
    s = (diff * _SDIV[v] + half) >> _SHIFT
    h = np.where(v == r, g - b, np.where(v == g, b - r + 2 * diff, r - g + 4 * diff))
    h = (h * _HDIV[diff] + half) >> _SHIFT
    h = np.where(h < 0, h + 256, h)
    return np.stack([h, s, v], -1).astype(np.uint8)


def hsv_full_to_rgb_u8(hsv: np.ndarray) -> np.ndarray:
    """``cv::COLOR_HSV2RGB_FULL`` on uint8 (..., 3) as MindSpore's OpenCV computes it: the
    way back reads a full turn as 255 (not 256). OpenCV converts each row in blocks of 32
    pixels with vector code that truncates, and the rest of the row with scalar code that
    rounds; ``hsv`` is (..., H, W, 3) and follows the same split."""
    h = hsv[..., 0].astype(np.float32) * np.float32(6.0 / 255)
    s = hsv[..., 1].astype(np.float32) * np.float32(1 / 255.0)
    v = hsv[..., 2].astype(np.float32) * np.float32(1 / 255.0)
    h = np.mod(h, np.float32(6))
    sector = np.floor(h)
    f = h - sector
    sector = sector.astype(np.int64)
    one = np.float32(1)
    tab = np.stack([v, v * (one - s), v * (one - s * f), v * (one - s * (one - f))], -1)
    idx = _SECTORS[np.clip(sector, 0, 5)]
    bgr = np.take_along_axis(tab, idx, axis=-1)
    bgr = np.where((s == 0)[..., None], v[..., None], bgr)
    v255 = bgr[..., ::-1] * np.float32(255)
    vector_cols = (hsv.shape[-2] // _VECTOR) * _VECTOR
    out = np.rint(v255)
    out[..., :vector_cols, :] = np.floor(v255[..., :vector_cols, :])
    return np.clip(out, 0, 255).astype(np.uint8)


def hue_nhwc(x: np.ndarray, shift) -> np.ndarray:
    """Rotate each image's hue by ``shift`` turns (one per image, in [-0.5, 0.5])."""
    rgb_only("AdjustHue", x)
    if x.dtype != np.uint8:
        raise TypeError(f"AdjustHue: expected a uint8 image, got dtype {x.dtype}")
    hsv = rgb_to_hsv_full_u8(x)
    # MindSpore: static_cast<uint8_t>(hue * 255) in float, i.e. truncated
    delta = np.trunc(np.broadcast_to(np.asarray(shift, np.float32), (len(x),)) * np.float32(255))
    h = (hsv[..., 0].astype(np.int64) + delta.astype(np.int64).reshape(-1, 1, 1)) % 256
    hsv[..., 0] = h
    return hsv_full_to_rgb_u8(hsv)


class AdjustHue(_ImageOp):
    """Rotate the hue of an RGB uint8 image by ``hue_factor`` turns, in [-0.5, 0.5]."""

    keeps_pil = True

    def __init__(self, hue_factor):
        if not isinstance(hue_factor, numbers.Real) or not -0.5 <= hue_factor <= 0.5:
            raise ValueError(f"AdjustHue: hue_factor must be in [-0.5, 0.5], got {hue_factor!r}")
        self.hue_factor = float(hue_factor)

    def _nhwc(self, x, rng):
        return hue_nhwc(x, self.hue_factor)

    def _pil(self, img, rng):
        return pil_path.adjust_hue(img, self.hue_factor)


def rgb_to_hsv(rgb: np.ndarray) -> np.ndarray:
    """Float RGB (..., 3) in [0, 1] to HSV with every component in [0, 1] (colorsys's)."""
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    maxc = np.maximum(np.maximum(r, g), b)
    minc = np.minimum(np.minimum(r, g), b)
    delta = maxc - minc
    safe = np.where(delta == 0, 1, delta)
    s = np.where(maxc == 0, 0, delta / np.where(maxc == 0, 1, maxc))
    rc, gc, bc = (maxc - r) / safe, (maxc - g) / safe, (maxc - b) / safe
    h = np.where(r == maxc, bc - gc, np.where(g == maxc, 2.0 + rc - bc, 4.0 + gc - rc))
    h = np.where(delta == 0, 0, (h / 6.0) % 1.0)
    return np.stack([h, s, maxc], -1)


def hsv_to_rgb(hsv: np.ndarray) -> np.ndarray:
    """Inverse of :func:`rgb_to_hsv` (colorsys's)."""
    h, s, v = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    i = np.floor(h * 6.0)
    f = h * 6.0 - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    i = i.astype(np.int64) % 6
    choices = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)]
    out = [np.select([i == k for k in range(6)], [c[ch] for c in choices]) for ch in range(3)]
    out = np.stack(out, -1)
    return np.where((s == 0)[..., None], v[..., None], out)


class _HsvConvert(TensorOperation):
    fn = staticmethod(rgb_to_hsv)

    def __init__(self, is_hwc=False):
        self.is_hwc = bool(is_hwc)

    def _row(self, x, rng):
        return self.batch_call(x[None])[0]

    def batch_call(self, x, rng=None):
        op = type(self).__name__
        axis = -1 if self.is_hwc else -3
        if x.ndim != 4 or x.shape[axis] != 3:
            layout = "<H, W, 3>" if self.is_hwc else "<3, H, W>"
            raise ValueError(f"{op}: expected images {layout} (is_hwc={self.is_hwc}), got "
                             f"shape {x.shape[1:]}")
        v = np.moveaxis(x, axis, -1).astype(np.float64)
        out = self.fn(v)  # float64, as MindSpore returns
        return np.ascontiguousarray(np.moveaxis(out, -1, axis))


class RgbToHsv(_HsvConvert):
    """Float RGB to HSV, CHW by default (``is_hwc=True`` for HWC)."""


class HsvToRgb(_HsvConvert):
    """Float HSV to RGB, CHW by default (``is_hwc=True`` for HWC)."""

    fn = staticmethod(hsv_to_rgb)
