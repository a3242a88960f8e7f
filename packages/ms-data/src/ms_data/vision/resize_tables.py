"""Where each output pixel of a resize reads from, and the numpy reference resizers.

MindSpore resizes numpy images with OpenCV (``cv::resize``), and with a Pillow-like
filter for ``Inter.PILCUBIC``. The tables below reproduce those conventions:

* NEAREST: source index ``floor(d * in / out)`` (OpenCV's, not half-pixel);
* BILINEAR, BICUBIC: half-pixel centres ``(d + 0.5) * in / out - 0.5`` in float32, taps
  clamped at the border; for uint8 the weights are 11-bit fixed point and the arithmetic is
  OpenCV's integer arithmetic (bicubic uses a = -0.75);
* AREA: box averaging with fractional coverage when shrinking, OpenCV's area-weighted
  linear interpolation when growing;
* PILCUBIC: Pillow's bicubic (a = -0.5) widened by the shrink factor (antialiasing), 22-bit
  fixed point, horizontal pass then vertical pass, each rounded to uint8.

Tables depend only on (input size, output size) and are cached, so a batch pays for them
once. The Cython kernels in ``ms_data.kernels._resize`` consume the same tables.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

COEF_BITS = 11  # OpenCV's INTER_RESIZE_COEF_BITS
COEF_ONE = 1 << COEF_BITS


def _half_pixel(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """Integer source position and float32 fraction of each output pixel's centre."""
    d = np.arange(out_size, dtype=np.float64)
    f = ((d + 0.5) * (in_size / out_size) - 0.5).astype(np.float32)
    s = np.floor(f).astype(np.int32)
    return s, (f - s.astype(np.float32)).astype(np.float32)


@lru_cache(maxsize=256)
def nearest_table(in_size: int, out_size: int) -> np.ndarray:
    """Source index of each output pixel (int32)."""
    idx = np.floor(np.arange(out_size) * (1.0 / (out_size / in_size))).astype(np.int32)
    return np.minimum(idx, in_size - 1)


@lru_cache(maxsize=256)
def linear_table(in_size: int, out_size: int, area: bool = False, vertical: bool = False):
    """Two taps per output pixel: ``(index (out, 2) int32, float32 weights, int16 weights)``.

    OpenCV zeroes the fraction of a tap outside the image horizontally only; vertically it
    keeps the fraction and clamps the row (``vertical``), which rounds differently in
    fixed point at the first and last rows."""
    if area:  # OpenCV's INTER_AREA when enlarging: linear with area-style fractions
        d = np.arange(out_size)
        scale = in_size / out_size
        s = np.floor(d * scale).astype(np.int32)
        f = ((d + 1) - (s + 1) * (out_size / in_size)).astype(np.float32)
        f = np.where(f <= 0, np.float32(0), f - np.floor(f)).astype(np.float32)
    else:
        s, f = _half_pixel(in_size, out_size)
    if vertical:
        idx = np.clip(np.stack([s, s + 1], axis=1), 0, in_size - 1).astype(np.int32)
    else:
        low, high = s < 0, s >= in_size - 1
        f[low | high] = 0
        s = np.where(low, 0, np.where(high, in_size - 1, s)).astype(np.int32)
        idx = np.stack([s, np.minimum(s + 1, in_size - 1)], axis=1).astype(np.int32)
    w = np.stack([np.float32(1) - f, f], axis=1).astype(np.float32)
    iw = np.rint(w * COEF_ONE).astype(np.int16)
    return np.ascontiguousarray(idx), np.ascontiguousarray(w), np.ascontiguousarray(iw)


def _dense(idx: np.ndarray, w: np.ndarray, in_size: int) -> np.ndarray:
    m = np.zeros((idx.shape[0], in_size), dtype=w.dtype)
    np.add.at(m, (np.arange(idx.shape[0])[:, None], idx), w)
    return m


@lru_cache(maxsize=256)
def cubic_matrix(in_size: int, out_size: int) -> tuple[np.ndarray, np.ndarray]:
    """OpenCV bicubic weights as dense ``(out, in)`` matrices: float32 and 11-bit integers."""
    a = np.float32(-0.75)
    s, x = _half_pixel(in_size, out_size)
    one = np.float32(1)
    c0 = ((a * (x + one) - 5 * a) * (x + one) + 8 * a) * (x + one) - 4 * a
    c1 = ((a + 2) * x - (a + 3)) * x * x + one
    c2 = ((a + 2) * (one - x) - (a + 3)) * (one - x) * (one - x) + one
    c3 = one - c0 - c1 - c2
    w = np.stack([c0, c1, c2, c3], axis=1).astype(np.float32)
    idx = np.clip(s[:, None] + np.arange(-1, 3)[None, :], 0, in_size - 1)
    iw = np.rint(w * COEF_ONE).astype(np.int64)
    return _dense(idx, w, in_size), _dense(idx, iw, in_size)


@lru_cache(maxsize=256)
def area_matrix(in_size: int, out_size: int) -> np.ndarray:
    """Box filter when shrinking: each output averages the input span it covers."""
    scale = in_size / out_size
    lo = np.arange(out_size) * scale
    hi = lo + scale
    pix = np.arange(in_size)
    cover = np.clip(np.minimum(hi[:, None], pix + 1) - np.maximum(lo[:, None], pix), 0, None)
    return (cover / scale).astype(np.float64)


@lru_cache(maxsize=256)
def pil_cubic_matrix(in_size: int, out_size: int) -> np.ndarray:
    """Pillow's bicubic weights in 22-bit fixed point as a dense ``(out, in)`` int64 matrix."""
    scale = in_size / out_size
    filterscale = max(scale, 1.0)
    support = 2.0 * filterscale
    m = np.zeros((out_size, in_size), dtype=np.int64)
    for o in range(out_size):
        center = (o + 0.5) * scale
        xmin = max(int(center - support + 0.5), 0)
        xmax = min(int(center + support + 0.5), in_size)
        t = np.abs((np.arange(xmin, xmax) - center + 0.5) / filterscale)
        k = np.where(t < 1, (1.5 * t - 2.5) * t * t + 1,
                     np.where(t < 2, ((t - 5) * t + 8) * t * -0.5 - 4 * -0.5, 0.0))
        k = k / k.sum() if k.sum() != 0 else k
        m[o, xmin:xmax] = np.where(k < 0, np.trunc(-0.5 + k * (1 << 22)),
                                   np.trunc(0.5 + k * (1 << 22)))
    return m


# --- numpy reference resizers over (N, H, W, C) ------------------------------------------

def nearest_ref(x: np.ndarray, oh: int, ow: int) -> np.ndarray:
    return x[:, nearest_table(x.shape[1], oh)][:, :, nearest_table(x.shape[2], ow)]


def linear_ref(x: np.ndarray, oh: int, ow: int, area: bool = False) -> np.ndarray:
    yi, yw, yiw = linear_table(x.shape[1], oh, area, vertical=True)
    xi, xw, xiw = linear_table(x.shape[2], ow, area)
    if x.dtype == np.uint8:
        s = x.astype(np.int32)
        rows = s[:, :, xi[:, 0]] * xiw[:, 0, None] + s[:, :, xi[:, 1]] * xiw[:, 1, None]
        r0, r1 = rows[:, yi[:, 0]] >> 4, rows[:, yi[:, 1]] >> 4
        b0, b1 = yiw[:, 0, None, None].astype(np.int32), yiw[:, 1, None, None].astype(np.int32)
        return np.clip((((b0 * r0) >> 16) + ((b1 * r1) >> 16) + 2) >> 2, 0, 255).astype(np.uint8)
    s = x.astype(np.float32)
    rows = s[:, :, xi[:, 0]] * xw[:, 0, None] + s[:, :, xi[:, 1]] * xw[:, 1, None]
    return rows[:, yi[:, 0]] * yw[:, 0, None, None] + rows[:, yi[:, 1]] * yw[:, 1, None, None]


def _separable(x, my, mx):
    tmp = np.einsum("xw,nhwc->nhxc", mx, x)
    return np.einsum("yh,nhxc->nyxc", my, tmp)


def _finish(out: np.ndarray, dtype: np.dtype) -> np.ndarray:
    if dtype == np.uint8:
        return np.clip(np.rint(out), 0, 255).astype(np.uint8)
    return out.astype(np.float32)


def cubic_ref(x: np.ndarray, oh: int, ow: int) -> np.ndarray:
    (fy, iy), (fx, ix) = cubic_matrix(x.shape[1], oh), cubic_matrix(x.shape[2], ow)
    if x.dtype == np.uint8:
        out = _separable(x.astype(np.int64), iy, ix).astype(np.float64) / COEF_ONE**2
        return _finish(out, x.dtype)
    return _finish(_separable(x.astype(np.float32), fy, fx), x.dtype)


def area_ref(x: np.ndarray, oh: int, ow: int) -> np.ndarray:
    if oh > x.shape[1] or ow > x.shape[2]:
        return linear_ref(x, oh, ow, area=True)
    out = _separable(x.astype(np.float64), area_matrix(x.shape[1], oh),
                     area_matrix(x.shape[2], ow))
    return _finish(out, x.dtype)


def pil_cubic_ref(x: np.ndarray, oh: int, ow: int) -> np.ndarray:
    out = x
    half = 1 << 21
    if ow != x.shape[2]:
        mx = pil_cubic_matrix(x.shape[2], ow)
        out = np.einsum("xw,nhwc->nhxc", mx, out.astype(np.int64))
        out = np.clip((out + half) >> 22, 0, 255).astype(np.uint8)
    if oh != x.shape[1]:
        my = pil_cubic_matrix(x.shape[1], oh)
        out = np.einsum("yh,nhxc->nyxc", my, out.astype(np.int64))
        out = np.clip((out + half) >> 22, 0, 255).astype(np.uint8)
    return out if x.dtype == np.uint8 else out.astype(x.dtype)
