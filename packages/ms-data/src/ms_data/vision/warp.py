"""Affine and perspective warps with OpenCV's fixed-point sampling (``cv::warpAffine`` and
``cv::warpPerspective``, the functions MindSpore calls).

Source coordinates are quantised as OpenCV does: to whole pixels (rounded) for NEAREST, to
1/32 pixel for BILINEAR and BICUBIC (AREA warps as BILINEAR, as in OpenCV), whose uint8
weights are then 15-bit fixed point. Taps outside the image read the fill colour
(``BORDER_CONSTANT``).
"""

from __future__ import annotations

import numpy as np

from ms_data.vision.enums import Inter

_AB_BITS, _INTER_BITS = 10, 5
_TAB = 1 << _INTER_BITS
_SCALE = 1 << 15  # INTER_REMAP_COEF_SCALE


def _cubic_1d(t: np.ndarray) -> np.ndarray:
    """OpenCV's ``interpolateCubic`` (A = -0.75): 4 weights per fraction, in float32."""
    a = np.float32(-0.75)
    t = t.astype(np.float32)
    c0 = ((a * (t + 1) - 5 * a) * (t + 1) + 8 * a) * (t + 1) - 4 * a
    c1 = ((a + 2) * t - (a + 3)) * t * t + 1
    c2 = ((a + 2) * (1 - t) - (a + 3)) * (1 - t) * (1 - t) + 1
    return np.stack([c0, c1, c2, 1 - c0 - c1 - c2], -1)


def _cubic_table() -> tuple[np.ndarray, np.ndarray]:
    """(32, 32, 4, 4) weights per (y, x) fraction: float32, and 15-bit ints summing to 1."""
    w1 = _cubic_1d(np.arange(_TAB) / np.float32(_TAB))
    tab = (w1[:, None, :, None] * w1[None, :, None, :]).astype(np.float32)
    itab = np.rint(tab.astype(np.float64) * _SCALE).astype(np.int64)
    flat = itab.reshape(_TAB, _TAB, 16)
    for i in range(_TAB):
        for j in range(_TAB):
            diff = int(flat[i, j].sum()) - _SCALE
            if diff:  # OpenCV moves the rounding error onto the smallest or largest of 4 taps
                centre = [10, 11, 14, 15]  # OpenCV scans taps (2..3, 2..3)
                vals = flat[i, j, centre]
                k = centre[int(np.argmin(vals))] if diff > 0 else centre[int(np.argmax(vals))]
                flat[i, j, k] -= diff
    return tab, itab


_CUBIC = None


def invert_affine(m: np.ndarray) -> np.ndarray:
    """``cv::invertAffineTransform`` of a 2x3 matrix."""
    d = m[0, 0] * m[1, 1] - m[0, 1] * m[1, 0]
    d = 1.0 / d if d != 0 else 0.0
    a11, a22, a12, a21 = m[1, 1] * d, m[0, 0] * d, -m[0, 1] * d, -m[1, 0] * d
    return np.array([[a11, a12, -a11 * m[0, 2] - a12 * m[1, 2]],
                     [a21, a22, -a21 * m[0, 2] - a22 * m[1, 2]]])


def _affine_coords(inv: np.ndarray, oh: int, ow: int, nearest: bool):
    """Fixed-point source coordinates of every output pixel, as warpAffine computes them."""
    scale = 1 << _AB_BITS
    round_delta = scale // 2 if nearest else scale // _TAB // 2
    xs, ys = np.arange(ow, dtype=np.float64), np.arange(oh, dtype=np.float64)
    adelta = np.rint(inv[0, 0] * xs * scale).astype(np.int64)
    bdelta = np.rint(inv[1, 0] * xs * scale).astype(np.int64)
    x0 = np.rint((inv[0, 1] * ys + inv[0, 2]) * scale).astype(np.int64) + round_delta
    y0 = np.rint((inv[1, 1] * ys + inv[1, 2]) * scale).astype(np.int64) + round_delta
    shift = _AB_BITS if nearest else _AB_BITS - _INTER_BITS
    return (x0[:, None] + adelta[None]) >> shift, (y0[:, None] + bdelta[None]) >> shift


def _perspective_coords(inv: np.ndarray, oh: int, ow: int, nearest: bool):
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float64)
    x0 = inv[0, 0] * xs + inv[0, 1] * ys + inv[0, 2]
    y0 = inv[1, 0] * xs + inv[1, 1] * ys + inv[1, 2]
    w = inv[2, 0] * xs + inv[2, 1] * ys + inv[2, 2]
    k = 1.0 if nearest else float(_TAB)
    w = np.where(w != 0, k / np.where(w == 0, 1, w), 0)
    lim = float(np.iinfo(np.int32).max)
    return (np.rint(np.clip(x0 * w, -lim, lim)).astype(np.int64),
            np.rint(np.clip(y0 * w, -lim, lim)).astype(np.int64))


def _sample(img: np.ndarray, sx, sy, fx, fy, mode: Inter, fill) -> np.ndarray:
    """One image (H, W, C) sampled at integer (sx, sy) plus 1/32 fractions (fx, fy)."""
    h, w, c = img.shape
    fill_px = np.broadcast_to(np.asarray(fill, dtype=np.float64), (c,))

    def taps(dx, dy):
        xi, yi = sx + dx, sy + dy
        inside = (xi >= 0) & (xi < w) & (yi >= 0) & (yi < h)
        px = img[np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)]
        return np.where(inside[..., None], px, fill_px.astype(img.dtype))

    if mode == Inter.NEAREST:
        return taps(0, 0).astype(img.dtype)
    if mode == Inter.BICUBIC:
        return _sample_cubic(img, taps, fx, fy)
    wx1, wy1 = fx / _TAB, fy / _TAB
    weights = ((1 - wx1) * (1 - wy1), wx1 * (1 - wy1), (1 - wx1) * wy1, wx1 * wy1)
    corners = [taps(dx, dy) for dx, dy in ((0, 0), (1, 0), (0, 1), (1, 1))]
    if img.dtype == np.uint8:
        acc = sum(np.rint(wt * 32768).astype(np.int64)[..., None] * p.astype(np.int64)
                  for wt, p in zip(weights, corners))
        return np.clip((acc + (1 << 14)) >> 15, 0, 255).astype(np.uint8)
    out = sum(wt[..., None].astype(np.float32) * p.astype(np.float32)
              for wt, p in zip(weights, corners))
    if img.dtype.kind in "iu":
        info = np.iinfo(img.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(img.dtype)


def _sample_cubic(img, taps, fx, fy):
    global _CUBIC
    if _CUBIC is None:
        _CUBIC = _cubic_table()
    tab, itab = _CUBIC
    weights = (itab if img.dtype == np.uint8 else tab)[fy, fx]  # (oh, ow, 4, 4)
    acc = 0
    for dy in range(4):
        for dx in range(4):
            px = taps(dx - 1, dy - 1)
            wt = weights[..., dy, dx][..., None]
            acc = acc + (wt * px.astype(np.int64) if img.dtype == np.uint8
                         else wt.astype(np.float32) * px.astype(np.float32))
    if img.dtype == np.uint8:
        return np.clip((acc + (1 << 14)) >> 15, 0, 255).astype(np.uint8)
    if img.dtype.kind in "iu":
        info = np.iinfo(img.dtype)
        acc = np.clip(np.rint(acc), info.min, info.max)
    return acc.astype(img.dtype)


def warp_nhwc(x: np.ndarray, matrices, out_hw, mode: Inter, fill, perspective=False):
    """Warp each image of (N, H, W, C) by its forward matrix (2x3 affine or 3x3 perspective)
    into an ``out_hw`` canvas."""
    if mode not in (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC):
        mode = Inter.BILINEAR  # OpenCV warps INTER_AREA as INTER_LINEAR
    nearest = mode == Inter.NEAREST
    oh, ow = out_hw
    out = np.empty((x.shape[0], oh, ow, x.shape[3]), dtype=x.dtype)
    for i, m in enumerate(matrices):
        m = np.asarray(m, dtype=np.float64)
        if perspective:
            sx, sy = _perspective_coords(np.linalg.inv(m), oh, ow, nearest)
        else:
            sx, sy = _affine_coords(invert_affine(m), oh, ow, nearest)
        if nearest:
            out[i] = _sample(x[i], sx, sy, None, None, mode, fill)
        else:
            out[i] = _sample(x[i], sx >> _INTER_BITS, sy >> _INTER_BITS, sx & (_TAB - 1),
                             sy & (_TAB - 1), mode, fill)
    return out


def rotation_matrix(center, degrees: float) -> np.ndarray:
    """``cv::getRotationMatrix2D(center, degrees, 1)``: counter-clockwise for positive degrees."""
    a = np.deg2rad(degrees)
    alpha, beta = np.cos(a), np.sin(a)
    cx, cy = center
    return np.array([[alpha, beta, (1 - alpha) * cx - beta * cy],
                     [-beta, alpha, beta * cx + (1 - alpha) * cy]])


def affine_matrix(h: int, w: int, degrees, translate_px, scale, shear) -> np.ndarray:
    """MindSpore's ``GetAffineMatrix``: rotation, scale and shear about the centre, then a
    translation in pixels (computed in float32, as MindSpore stores it)."""
    f32 = np.float32  # every step in float32 (numpy 1.x would widen scalar arithmetic)
    a = np.deg2rad(f32(degrees))
    sx, sy = np.deg2rad(f32(shear[0])), np.deg2rad(-f32(shear[1]))
    if np.cos(sy) == 0:
        raise ValueError("Affine: cos(shear_y) must not be zero")
    cx, cy = f32((w - 1) / 2.0), f32((h - 1) / 2.0)
    s, one = f32(scale), f32(1)
    m = np.array([s * np.cos(a + sy) / np.cos(sy),
                  s * (-np.cos(a + sy) * np.tan(sx) / np.cos(sy) - np.sin(a)), 0,
                  s * np.sin(a + sy) / np.cos(sy),
                  s * (-np.sin(a + sy) * np.tan(sx) / np.cos(sy) + np.cos(a)), 0],
                 dtype=np.float32)
    m[2] = (one - m[0]) * cx - m[1] * cy + f32(translate_px[0])
    m[5] = (one - m[4]) * cy - m[3] * cx + f32(translate_px[1])
    return m.reshape(2, 3).astype(np.float64)


def perspective_matrix(src, dst) -> np.ndarray:
    """``cv::getPerspectiveTransform``: the 3x3 matrix mapping 4 ``src`` points onto ``dst``."""
    a = np.zeros((8, 8))
    b = np.zeros(8)
    for i, ((x, y), (u, v)) in enumerate(zip(src, dst)):
        a[i] = [x, y, 1, 0, 0, 0, -x * u, -y * u]
        a[i + 4] = [0, 0, 0, x, y, 1, -x * v, -y * v]
        b[i], b[i + 4] = u, v
    try:
        sol = np.linalg.solve(a, b)
    except np.linalg.LinAlgError:
        raise ValueError(f"Perspective: the points {list(src)} -> {list(dst)} do not define a "
                         "perspective transform (three of them are collinear)") from None
    return np.append(sol, 1.0).reshape(3, 3)
