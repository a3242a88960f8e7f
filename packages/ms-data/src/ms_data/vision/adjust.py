"""Colour adjustments with MindSpore's (OpenCV's) uint8 arithmetic, as batch functions.

Each ``*_nhwc`` function takes a batch (N, H, W, C) and one factor per image, so the
deterministic transforms (``AdjustBrightness(1.5)``) and the random ones
(``RandomColorAdjust``) share them. Blends follow ``cv::addWeighted`` (see
:func:`add_weighted`), then round half to even and saturate.
"""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.vision import pil_path
from ms_data.vision.color import _gray
from ms_data.vision.geometry import _ImageOp


def saturate(v: np.ndarray, dtype) -> np.ndarray:
    """Round (integers) and clip to ``dtype``'s range, as OpenCV's ``saturate_cast``."""
    dtype = np.dtype(dtype)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return np.clip(np.rint(v), info.min, info.max).astype(dtype)
    return v.astype(dtype)


def factors(f, n: int) -> np.ndarray:
    """One float32 factor per image, shaped to broadcast over (N, H, W, C)."""
    return np.broadcast_to(np.asarray(f, np.float32), (n,)).reshape(n, 1, 1, 1)


def add_weighted(src1: np.ndarray, a, src2: np.ndarray, b) -> np.ndarray:
    """``cv::addWeighted(src1, a, src2, b, 0)`` per image (``a``, ``b`` from
    :func:`factors`): for uint8, ``fma(src1, a, float32(src2 * b))`` in float32 as OpenCV's
    vector code computes it, then rounded and saturated."""
    a, b = a.astype(np.float32), b.astype(np.float32)
    inner = src2.astype(np.float32) * b
    if src1.dtype != np.uint8:
        return saturate(src1.astype(np.float32) * a + inner, src1.dtype)
    fused = (src1.astype(np.float64) * a.astype(np.float64) + inner).astype(np.float32)
    return saturate(fused, np.uint8)


def _one_minus(alpha: np.ndarray) -> np.ndarray:
    """MindSpore's ``1.0 - alpha`` of a float32 alpha, computed in double."""
    return 1.0 - alpha.astype(np.float64)


def rgb_only(op: str, x: np.ndarray) -> None:
    if x.shape[-1] != 3:
        raise ValueError(f"{op}: expected RGB images <H, W, 3>, got shape {x.shape[1:]}")


def brightness_nhwc(x, f):
    return saturate(x.astype(np.float32) * factors(f, len(x)), x.dtype)


def contrast_nhwc(x, f):
    rgb_only("AdjustContrast", x)
    mean = _gray(x, rgb=True).reshape(len(x), -1).mean(axis=1)
    mean = saturate(mean, x.dtype).reshape(-1, 1, 1, 1)
    alpha = factors(f, len(x))  # MindSpore: mean * (1 - alpha) + image * alpha
    return add_weighted(np.broadcast_to(mean, x.shape), _one_minus(alpha), x, alpha)


def saturation_nhwc(x, f):
    rgb_only("AdjustSaturation", x)
    gray = _gray(x, rgb=True)[..., None]
    alpha = factors(f, len(x))  # MindSpore: gray * (1 - alpha) + image * alpha
    return add_weighted(np.broadcast_to(gray, x.shape), _one_minus(alpha), x, alpha)


def sharpness_nhwc(x, f):
    """Blend with a 3x3 smoothing (centre 5, others 1, /13); border pixels stay unblurred."""
    xf = x.astype(np.float32)
    blur = xf.copy()
    if x.shape[1] > 2 and x.shape[2] > 2:
        acc = sum(xf[:, 1 + dy:x.shape[1] - 1 + dy, 1 + dx:x.shape[2] - 1 + dx]
                  for dy in (-1, 0, 1) for dx in (-1, 0, 1)) + 4 * xf[:, 1:-1, 1:-1]
        blur[:, 1:-1, 1:-1] = acc / np.float32(13)
        blur = saturate(blur, x.dtype)
    alpha = factors(f, len(x))  # MindSpore: addWeighted(image, alpha, blur, 1 - alpha)
    return add_weighted(x, alpha, blur, _one_minus(alpha))


def gamma_nhwc(x, gamma, gain):
    if x.dtype == np.uint8:
        # MindSpore's float32 table: truncated, scaled by 255.999 so 255 stays 255
        f = np.power(np.arange(256, dtype=np.float32) / np.float32(255), np.float32(gamma))
        lut = np.minimum(f * (np.float32(256) - np.float32(1e-3)) * np.float32(gain), 255)
        return np.clip(np.floor(lut), 0, 255).astype(np.uint8)[x]
    # MindSpore's float formula scales before the power and clips to [0, 1]
    out = np.power(x.astype(np.float32) * np.float32(gain), np.float32(gamma))
    return np.clip(out, 0, 1).astype(x.dtype)


def _number(op: str, name: str, v, lo=None, hi=None) -> float:
    if not isinstance(v, numbers.Real) or isinstance(v, bool):
        raise TypeError(f"{op}: {name} must be a number, got {v!r}")
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{op}: {name} must be in [{lo}, {'inf' if hi is None else hi}], "
                         f"got {v}")
    return float(v)


class AdjustBrightness(_ImageOp):
    """Multiply every pixel by ``brightness_factor`` (0 gives black, 1 the original)."""

    keeps_pil = True

    def __init__(self, brightness_factor):
        self.brightness_factor = _number("AdjustBrightness", "brightness_factor",
                                         brightness_factor, 0)

    def _nhwc(self, x, rng):
        return brightness_nhwc(x, self.brightness_factor)

    def _pil(self, img, rng):
        return pil_path.enhance(img, "Brightness", self.brightness_factor)


class AdjustContrast(_ImageOp):
    """Blend an RGB image with its mean gray level (0 gives a flat gray image)."""

    keeps_pil = True

    def __init__(self, contrast_factor):
        self.contrast_factor = _number("AdjustContrast", "contrast_factor", contrast_factor, 0)

    def _nhwc(self, x, rng):
        return contrast_nhwc(x, self.contrast_factor)

    def _pil(self, img, rng):
        return pil_path.enhance(img, "Contrast", self.contrast_factor)


class AdjustSaturation(_ImageOp):
    """Blend an RGB image with its gray version (0 gives gray, 1 the original)."""

    keeps_pil = True

    def __init__(self, saturation_factor):
        self.saturation_factor = _number("AdjustSaturation", "saturation_factor",
                                         saturation_factor, 0)

    def _nhwc(self, x, rng):
        return saturation_nhwc(x, self.saturation_factor)

    def _pil(self, img, rng):
        return pil_path.enhance(img, "Color", self.saturation_factor)


class AdjustSharpness(_ImageOp):
    """Blend with a smoothed copy: 0 blurs, 1 keeps, 2 sharpens."""

    def __init__(self, sharpness_factor):
        self.sharpness_factor = _number("AdjustSharpness", "sharpness_factor",
                                        sharpness_factor, 0)

    def _nhwc(self, x, rng):
        return sharpness_nhwc(x, self.sharpness_factor)


class AdjustGamma(_ImageOp):
    """``out = 255.999 * gain * (in / 255) ** gamma`` truncated for uint8
    (``(gain * in) ** gamma`` clipped to [0, 1] for floats, as MindSpore computes it)."""

    keeps_pil = True

    def __init__(self, gamma, gain=1):
        self.gamma = _number("AdjustGamma", "gamma", gamma, 0)
        self.gain = _number("AdjustGamma", "gain", gain)

    def _nhwc(self, x, rng):
        return gamma_nhwc(x, self.gamma, self.gain)
