"""RandomRotation: rotate by a random angle, counter-clockwise for positive degrees."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ms_data.vision.enums import Inter
from ms_data.vision.geometry import _fill, _ImageOp


def _degrees(degrees) -> tuple[float, float]:
    if isinstance(degrees, numbers.Real) and not isinstance(degrees, bool):
        if degrees < 0:
            raise ValueError(f"RandomRotation: degrees must be non-negative, got {degrees}")
        return -float(degrees), float(degrees)
    if isinstance(degrees, (tuple, list)) and len(degrees) == 2 and degrees[0] <= degrees[1]:
        return float(degrees[0]), float(degrees[1])
    raise ValueError(f"RandomRotation: degrees must be a number or (min, max), got {degrees!r}")


def rotate_nhwc(x: np.ndarray, angles: np.ndarray, center, out_hw, resample: Inter,
                fill) -> np.ndarray:
    """Rotate each image of (N, H, W, C) by its angle (degrees) into an ``out_hw`` canvas.

    Output pixel q reads source ``R^T (q - c_out) + c_in``: the inverse of OpenCV's
    ``getRotationMatrix2D`` with scale 1, the convention MindSpore follows.
    """
    n, h, w, c = x.shape
    oh, ow = out_hw
    cx, cy = center
    ocx, ocy = cx + (ow - w) / 2, cy + (oh - h) / 2
    t = np.deg2rad(angles)[:, None, None]
    cos, sin = np.cos(t), np.sin(t)
    qy, qx = np.mgrid[0:oh, 0:ow].astype(np.float64)
    dx, dy = qx[None] - ocx, qy[None] - ocy
    sx = cos * dx - sin * dy + cx
    sy = sin * dx + cos * dy + cy
    fill_px = np.broadcast_to(np.asarray(fill, dtype=np.float64), (c,))
    img = np.arange(n)[:, None, None]
    if resample == Inter.NEAREST:
        ix, iy = np.rint(sx).astype(np.int64), np.rint(sy).astype(np.int64)
        inside = (ix >= 0) & (ix < w) & (iy >= 0) & (iy < h)
        out = x[img, np.clip(iy, 0, h - 1), np.clip(ix, 0, w - 1)].astype(np.float64)
        out[~inside] = fill_px
    else:
        x0, y0 = np.floor(sx).astype(np.int64), np.floor(sy).astype(np.int64)
        fx, fy = (sx - x0)[..., None], (sy - y0)[..., None]
        out = 0
        for ox, oy, wgt in ((0, 0, (1 - fx) * (1 - fy)), (1, 0, fx * (1 - fy)),
                            (0, 1, (1 - fx) * fy), (1, 1, fx * fy)):
            xi, yi = x0 + ox, y0 + oy
            inside = ((xi >= 0) & (xi < w) & (yi >= 0) & (yi < h))[..., None]
            px = x[img, np.clip(yi, 0, h - 1), np.clip(xi, 0, w - 1)].astype(np.float64)
            out = out + wgt * np.where(inside, px, fill_px)
    if x.dtype.kind in "iu":
        info = np.iinfo(x.dtype)
        out = np.clip(np.rint(out), info.min, info.max)
    return out.astype(x.dtype)


class RandomRotation(_ImageOp):
    """Rotate by an angle drawn uniformly from ``degrees`` ((-d, d) for a number d).

    ``expand=True`` grows the canvas to hold the whole rotated image (rows then differ in
    shape, so there is no batch form); ``center`` is (x, y), the image centre by default;
    pixels from outside the image get ``fill_value``.
    """

    is_random = True

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        self.degrees = _degrees(degrees)
        self.resample = Inter(resample)
        if self.resample not in (Inter.NEAREST, Inter.BILINEAR):
            raise ValueError(f"RandomRotation: resample must be Inter.NEAREST or "
                             f"Inter.BILINEAR, got {self.resample!r}")
        self.expand = bool(expand)
        if center is not None and (len(center) != 2):
            raise ValueError(f"RandomRotation: center must be (x, y), got {center!r}")
        self.center = None if center is None else (float(center[0]), float(center[1]))
        self.fill_value = _fill("RandomRotation", fill_value)
        if self.expand:
            self.batch_call = None

    def _row(self, x, rng):
        if not self.expand:
            return super()._row(x, rng)
        angle = rng.uniform(*self.degrees)
        h, w = x.shape[:2]
        t = math.radians(angle)
        oh = int(math.ceil(abs(h * math.cos(t)) + abs(w * math.sin(t)) - 1e-9))
        ow = int(math.ceil(abs(w * math.cos(t)) + abs(h * math.sin(t)) - 1e-9))
        xb = x[None] if x.ndim == 3 else x[None, ..., None]
        out = rotate_nhwc(xb, np.array([angle]), self._center(h, w), (oh, ow), self.resample,
                          self.fill_value)[0]
        return out if x.ndim == 3 else out[..., 0]

    def _center(self, h, w):
        return self.center if self.center is not None else ((w - 1) / 2, (h - 1) / 2)

    def _nhwc(self, x, rng):
        angles = rng.uniform(*self.degrees, size=x.shape[0])
        h, w = x.shape[1:3]
        return rotate_nhwc(x, angles, self._center(h, w), (h, w), self.resample,
                           self.fill_value)
