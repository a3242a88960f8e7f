"""Rotate, Affine, Perspective and their random forms, on :mod:`ms_data.vision.warp`."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ms_data.vision import _checks, pil_path
from ms_data.vision.enums import Inter
from ms_data.vision.geometry import _fill, _ImageOp
from ms_data.vision.warp import (
    affine_matrix,
    perspective_matrix,
    rotation_matrix,
    warp_nhwc,
)


def _mode(op: str, mode) -> Inter:
    try:
        mode = Inter(mode)
    except ValueError:
        raise TypeError(f"{op}: interpolation must be an Inter mode, got {mode!r}") from None
    if mode not in (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA):
        raise ValueError(f"{op}: interpolation must be NEAREST, BILINEAR, BICUBIC or AREA, "
                         f"got {mode.name}")
    return mode


def _range(op: str, name: str, v, symmetric=True, lo=None) -> tuple[float, float]:
    """A number d as (-d, d) (or (max(lo, 1 - d), 1 + d) when not symmetric), or (min, max)."""
    if isinstance(v, numbers.Real) and not isinstance(v, bool):
        if v < 0:
            raise ValueError(f"{op}: {name} must be non-negative, got {v}")
        return (-float(v), float(v)) if symmetric else (max(lo or 0.0, 1 - v), 1 + float(v))
    if (isinstance(v, (tuple, list)) and len(v) == 2
            and all(isinstance(t, numbers.Real) for t in v) and v[0] <= v[1]):
        return float(v[0]), float(v[1])
    raise ValueError(f"{op}: {name} must be a number or (min, max) with min <= max, got {v!r}")


def rotate_image(x: np.ndarray, degrees: float, mode, expand, center, fill) -> np.ndarray:
    """MindSpore's Rotate on a batch (N, H, W, C) sharing one angle."""
    h, w = x.shape[1:3]
    c = center if center is not None else ((w - 1) / 2.0, (h - 1) / 2.0)
    m = rotation_matrix(c, degrees)
    out_hw = (h, w)
    if expand:
        t = math.radians(degrees)
        bw = abs(w * math.cos(t)) + abs(h * math.sin(t))
        bh = abs(w * math.sin(t)) + abs(h * math.cos(t))
        m[0, 2] += bw / 2.0 - w / 2.0
        m[1, 2] += bh / 2.0 - h / 2.0
        out_hw = (int(np.rint(np.float32(bh))), int(np.rint(np.float32(bw))))
    return warp_nhwc(x, [m] * len(x), out_hw, mode, fill)


class Rotate(_ImageOp):
    """Rotate by ``degrees`` counter-clockwise about ``center`` (x, y; the image centre by
    default); ``expand=True`` grows the canvas to hold the whole rotated image."""

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        if not isinstance(degrees, numbers.Real) or isinstance(degrees, bool):
            raise TypeError(f"Rotate: degrees must be a number, got {degrees!r}")
        self.degrees = float(degrees)
        self.resample = _mode("Rotate", resample)
        self.expand = bool(expand)
        if center is not None and len(center) != 2:
            raise ValueError(f"Rotate: center must be (x, y), got {center!r}")
        self.center = None if center is None else (float(center[0]), float(center[1]))
        self.fill_value = _fill("Rotate", fill_value)

    def _nhwc(self, x, rng):
        return rotate_image(x, self.degrees, self.resample, self.expand, self.center,
                            self.fill_value)


def _shear_pair(op: str, shear) -> tuple[float, float]:
    if isinstance(shear, numbers.Real):
        return float(shear), 0.0
    if isinstance(shear, (tuple, list)) and len(shear) == 2:
        return float(shear[0]), float(shear[1])
    raise ValueError(f"{op}: shear must be a number or (x, y), got {shear!r}")


class Affine(_ImageOp):
    """Rotate by ``degrees``, scale by ``scale`` and shear by ``shear`` (degrees, x or (x, y))
    about the centre, then translate by ``translate`` (fractions of width and height)."""

    def __init__(self, degrees, translate, scale, shear, resample=Inter.NEAREST, fill_value=0):
        if not isinstance(degrees, numbers.Real) or not -180 <= degrees <= 180:
            raise ValueError(f"Affine: degrees must be in [-180, 180], got {degrees!r}")
        if (not isinstance(translate, (tuple, list)) or len(translate) != 2
                or not all(-1 <= t <= 1 for t in translate)):
            raise ValueError(f"Affine: translate must be 2 numbers in [-1, 1], got {translate!r}")
        if not isinstance(scale, numbers.Real) or scale <= 0:
            raise ValueError(f"Affine: scale must be positive, got {scale!r}")
        self.degrees = float(degrees)
        self.translate = (float(translate[0]), float(translate[1]))
        self.scale = float(scale)
        self.shear = _shear_pair("Affine", shear)
        self.resample = _mode("Affine", resample)
        self.fill_value = _fill("Affine", fill_value)

    def _nhwc(self, x, rng):
        h, w = x.shape[1:3]
        t = (self.translate[0] * w, self.translate[1] * h)
        m = affine_matrix(h, w, self.degrees, t, self.scale, self.shear)
        return warp_nhwc(x, [m] * len(x), (h, w), self.resample, self.fill_value)


class RandomAffine(_ImageOp):
    """Affine with random parameters: ``degrees`` range, ``translate`` (max fractions, x then
    optionally y ranges), ``scale`` range and ``shear`` ranges, drawn per image."""

    keeps_pil = True

    is_random = True

    def __init__(self, degrees, translate=None, scale=None, shear=None,
                 resample=Inter.NEAREST, fill_value=0):
        self.degrees = _range("RandomAffine", "degrees", degrees)
        if translate is not None:
            if not isinstance(translate, (tuple, list)) or len(translate) not in (2, 4) or \
                    not all(-1 <= t <= 1 for t in translate):
                raise ValueError(f"RandomAffine: translate must be 2 or 4 numbers in [-1, 1], "
                                 f"got {translate!r}")
            translate = tuple(float(t) for t in translate)
            if len(translate) == 2:
                translate = (translate[0], translate[1], 0.0, 0.0)
        self.translate = translate
        if scale is not None and (len(scale) != 2 or not 0 < scale[0] <= scale[1]):
            raise ValueError(f"RandomAffine: scale must be (min, max) with 0 < min <= max, "
                             f"got {scale!r}")
        self.scale = None if scale is None else (float(scale[0]), float(scale[1]))
        if shear is None:
            self.shear = None
        elif isinstance(shear, numbers.Real):
            self.shear = (-float(shear), float(shear), 0.0, 0.0)
        elif len(shear) in (2, 4):
            self.shear = tuple(float(s) for s in shear) + ((0.0, 0.0) if len(shear) == 2 else ())
        else:
            raise ValueError(f"RandomAffine: shear must be a number or 2 or 4 numbers, "
                             f"got {shear!r}")
        self.resample = _mode("RandomAffine", resample)
        self.fill_value = _fill("RandomAffine", fill_value)

    def _nhwc(self, x, rng):
        h, w = x.shape[1:3]
        mats = []
        for _ in range(len(x)):
            deg = rng.uniform(*self.degrees)
            t = (0.0, 0.0)
            if self.translate is not None:
                t = (rng.uniform(self.translate[0], self.translate[1]) * w,
                     rng.uniform(self.translate[2], self.translate[3]) * h)
            s = rng.uniform(*self.scale) if self.scale is not None else 1.0
            sh = (0.0, 0.0)
            if self.shear is not None:
                sh = (rng.uniform(self.shear[0], self.shear[1]),
                      rng.uniform(self.shear[2], self.shear[3]))
            mats.append(affine_matrix(h, w, deg, t, s, sh))  # MindSpore: unrounded pixels
        return warp_nhwc(x, mats, (h, w), self.resample, self.fill_value)

    def _pil(self, img, rng):
        """MindSpore's Python path, which reads ``translate`` as the largest x and y shifts
        (fractions of width and height; its first two numbers) and rounds them."""
        w, h = img.size
        deg = rng.uniform(*self.degrees)
        t = (0.0, 0.0)
        if self.translate is not None:
            dx, dy = self.translate[0] * w, self.translate[1] * h
            t = (float(np.round(rng.uniform(-dx, dx))), float(np.round(rng.uniform(-dy, dy))))
        s = rng.uniform(*self.scale) if self.scale is not None else 1.0
        sh = (0.0, 0.0)
        if self.shear is not None:
            sh = (rng.uniform(self.shear[0], self.shear[1]),
                  rng.uniform(self.shear[2], self.shear[3]))
        # MindSpore 2.10 drops fill_value here (its Pillow version check compares strings and
        # fails for Pillow >= 10), so the border is black
        return pil_path.affine(img, deg, t, s, sh, self.resample, 0)


def _points(op: str, pts) -> np.ndarray:
    a = np.asarray(pts, dtype=np.float64)
    if a.shape != (4, 2):
        raise TypeError(f"{op}: points must be 4 (x, y) pairs, got {pts!r}")
    return a


class Perspective(_ImageOp):
    """Warp so that the 4 ``start_points`` (x, y) land on ``end_points``."""

    keeps_pil = True

    def __init__(self, start_points, end_points, interpolation=Inter.BILINEAR):
        self.start_points = _points("Perspective", start_points).tolist()
        self.end_points = _points("Perspective", end_points).tolist()
        self.interpolation = _mode("Perspective", interpolation)
        self._matrix = perspective_matrix(self.start_points, self.end_points)

    def _pil(self, img, rng):
        return pil_path.perspective(img, self.start_points, self.end_points,
                                    self.interpolation)

    def _nhwc(self, x, rng):
        return warp_nhwc(x, [self._matrix] * len(x), x.shape[1:3], self.interpolation, 0,
                         perspective=True)


class RandomPerspective(_ImageOp):
    """With probability ``prob``, move each corner inwards by up to ``distortion_scale`` of
    half the image and warp accordingly (torchvision's corner sampling)."""

    keeps_pil = True

    is_random = True

    def __init__(self, distortion_scale=0.5, prob=0.5, interpolation=Inter.BICUBIC):
        if not isinstance(distortion_scale, numbers.Real) or not 0 <= distortion_scale <= 1:
            raise ValueError(f"RandomPerspective: distortion_scale must be in [0, 1], "
                             f"got {distortion_scale!r}")
        self.distortion_scale = float(distortion_scale)
        self.prob = _checks.probability("RandomPerspective", prob)
        self.interpolation = _mode("RandomPerspective", interpolation)

    def end_points(self, h: int, w: int, rng) -> list:
        """MindSpore's draw: each corner moves inwards by up to ``distortion_scale`` of half
        the size."""
        dw, dh = int(w / 2 * self.distortion_scale), int(h / 2 * self.distortion_scale)
        r = lambda hi: int(rng.integers(0, hi + 1))  # noqa: E731
        return [[r(dw), r(dh)], [w - 1 - r(dw), r(dh)], [w - 1 - r(dw), h - 1 - r(dh)],
                [r(dw), h - 1 - r(dh)]]

    def _pil(self, img, rng):
        if rng.random() >= self.prob:
            return img
        w, h = img.size
        start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        return pil_path.perspective(img, start, self.end_points(h, w, rng), self.interpolation)

    def _nhwc(self, x, rng):
        h, w = x.shape[1:3]
        start = [[0, 0], [w - 1, 0], [w - 1, h - 1], [0, h - 1]]
        out = x.copy()
        for i in range(len(x)):
            if rng.random() < self.prob:
                m = perspective_matrix(start, self.end_points(h, w, rng))
                out[i] = warp_nhwc(x[i:i + 1], [m], (h, w), self.interpolation, 0, True)[0]
        return out
