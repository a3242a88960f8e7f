"""RandomRotation: rotate by a random angle, counter-clockwise for positive degrees.

It is MindSpore's Rotate (``cv::warpAffine`` about the centre, see :mod:`warp`) with the
angle drawn per image.
"""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.vision import pil_path
from ms_data.vision.affine import _mode, rotate_image
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


class RandomRotation(_ImageOp):
    """Rotate by an angle drawn uniformly from ``degrees`` ((-d, d) for a number d).

    ``expand=True`` grows the canvas to hold the whole rotated image (rows then differ in
    shape, so there is no batch form); ``center`` is (x, y), the image centre by default;
    pixels from outside the image get ``fill_value``.
    """

    keeps_pil = True

    is_random = True

    def __init__(self, degrees, resample=Inter.NEAREST, expand=False, center=None,
                 fill_value=0):
        self.degrees = _degrees(degrees)
        self.resample = _mode("RandomRotation", resample)
        self.expand = bool(expand)
        if center is not None and (len(center) != 2):
            raise ValueError(f"RandomRotation: center must be (x, y), got {center!r}")
        self.center = None if center is None else (float(center[0]), float(center[1]))
        self.fill_value = _fill("RandomRotation", fill_value)
        if self.expand:
            self.batch_call = None

    def _pil(self, img, rng):
        return pil_path.rotate(img, rng.uniform(*self.degrees), self.resample, self.expand,
                               self.center, self.fill_value)

    def _row(self, x, rng):
        if not self.expand:
            return super()._row(x, rng)
        xb = x[None] if x.ndim == 3 else x[None, ..., None]
        out = rotate_image(xb, rng.uniform(*self.degrees), self.resample, True, self.center,
                           self.fill_value)[0]
        return out if x.ndim == 3 else out[..., 0]

    def _nhwc(self, x, rng):
        angles = rng.uniform(*self.degrees, size=x.shape[0])
        out = np.empty_like(x)
        for i, angle in enumerate(angles):
            out[i] = rotate_image(x[i:i + 1], angle, self.resample, False, self.center,
                                  self.fill_value)[0]
        return out
