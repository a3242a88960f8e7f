"""Random colour and tone transforms: each draws its parameters per image, then applies the
deterministic functions of :mod:`adjust`, :mod:`hsv` and :mod:`tone`."""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.vision import _checks, pil_path
from ms_data.vision.adjust import (
    brightness_nhwc,
    contrast_nhwc,
    rgb_only,
    saturate,
    saturation_nhwc,
    sharpness_nhwc,
)
from ms_data.vision.affine import _range
from ms_data.vision.color import Grayscale
from ms_data.vision.geometry import _ImageOp
from ms_data.vision.hsv import hue_nhwc
from ms_data.vision.tone import (
    AutoContrast,
    Equalize,
    Invert,
    posterize_nhwc,
    solarize_nhwc,
    threshold_pair,
    uint8_only,
)


def _factor_range(op: str, name: str, v, hue=False) -> tuple[float, float]:
    lo, hi = _range(op, name, v, symmetric=hue, lo=0.0)
    if hue and not -0.5 <= lo <= hi <= 0.5:
        raise ValueError(f"{op}: {name} must lie in [-0.5, 0.5], got {v!r}")
    if not hue and lo < 0:
        raise ValueError(f"{op}: {name} must be non-negative, got {v!r}")
    return lo, hi


class RandomColorAdjust(_ImageOp):
    """Brightness, contrast, saturation and hue factors drawn per image (a number d means
    [max(0, 1 - d), 1 + d], or [-d, d] for hue), applied in a random order."""

    keeps_pil = True

    is_random = True

    def __init__(self, brightness=(1, 1), contrast=(1, 1), saturation=(1, 1), hue=(0, 0)):
        op = "RandomColorAdjust"
        self.brightness = _factor_range(op, "brightness", brightness)
        self.contrast = _factor_range(op, "contrast", contrast)
        self.saturation = _factor_range(op, "saturation", saturation)
        self.hue = _factor_range(op, "hue", hue, hue=True)

    def _pil(self, img, rng):
        """MindSpore's Python path: all four factors drawn, applied in a shuffled order."""
        factors = [rng.uniform(*r) for r in (self.brightness, self.contrast, self.saturation,
                                             self.hue)]
        steps = [lambda im: pil_path.enhance(im, "Brightness", factors[0]),
                 lambda im: pil_path.enhance(im, "Contrast", factors[1]),
                 lambda im: pil_path.enhance(im, "Color", factors[2]),
                 lambda im: pil_path.adjust_hue(im, factors[3])]
        for k in rng.permutation(4):
            img = steps[k](img)
        return img

    def _nhwc(self, x, rng):
        steps = [(self.brightness, brightness_nhwc, 1), (self.contrast, contrast_nhwc, 1),
                 (self.saturation, saturation_nhwc, 1), (self.hue, hue_nhwc, 0)]
        steps = [s for s in steps if s[0] != (s[2], s[2])]
        if steps:
            rgb_only("RandomColorAdjust", x)
        out = x.copy()
        for i in range(len(x)):
            img = x[i:i + 1]
            for k in rng.permutation(len(steps)):
                (lo, hi), fn, _ = steps[k]
                img = fn(img, rng.uniform(lo, hi))
            out[i] = img[0]
        return out


class _RandomFactor(_ImageOp):
    is_random = True
    fn = None

    def __init__(self, degrees=(0.1, 1.9)):
        if (not isinstance(degrees, (tuple, list)) or len(degrees) != 2
                or not 0 <= degrees[0] <= degrees[1]):
            raise ValueError(f"{type(self).__name__}: degrees must be (min, max) with "
                             f"0 <= min <= max, got {degrees!r}")
        self.degrees = (float(degrees[0]), float(degrees[1]))

    def _nhwc(self, x, rng):
        return type(self).fn(x, rng.uniform(*self.degrees, size=len(x)))


class RandomColor(_RandomFactor):
    """Blend with the gray image by a factor drawn from ``degrees`` (saturation)."""

    def _pil(self, img, rng):
        return pil_path.enhance(img, "Color", rng.uniform(*self.degrees))

    keeps_pil = True

    fn = staticmethod(saturation_nhwc)


class RandomSharpness(_RandomFactor):
    """Sharpen or blur by a factor drawn from ``degrees``."""

    def _pil(self, img, rng):
        return pil_path.enhance(img, "Sharpness", rng.uniform(*self.degrees))

    keeps_pil = True

    fn = staticmethod(sharpness_nhwc)


class _WithProb(_ImageOp):
    """Apply ``self._apply`` to each image with probability ``prob``."""

    is_random = True

    def __init__(self, prob=0.5):
        self.prob = _checks.probability(type(self).__name__, prob)

    def _nhwc(self, x, rng):
        on = rng.random(len(x)) < self.prob
        out = x.copy()
        if on.any():
            out[on] = self._apply(x[on])
        return out


class RandomAdjustSharpness(_WithProb):
    """AdjustSharpness(``degree``) with probability ``prob``."""

    def __init__(self, degree, prob=0.5):
        super().__init__(prob)
        if not isinstance(degree, numbers.Real) or degree < 0:
            raise ValueError(f"RandomAdjustSharpness: degree must be non-negative, "
                             f"got {degree!r}")
        self.degree = float(degree)

    def _apply(self, x):
        return sharpness_nhwc(x, self.degree)


class RandomAutoContrast(_WithProb):
    """AutoContrast(``cutoff``, ``ignore``) with probability ``prob``."""

    def __init__(self, cutoff=0.0, ignore=None, prob=0.5):
        super().__init__(prob)
        self._op = AutoContrast(cutoff, ignore)
        self.cutoff, self.ignore = self._op.cutoff, self._op.ignore

    def _apply(self, x):
        return self._op._nhwc(x, None)


class RandomEqualize(_WithProb):
    """Equalize with probability ``prob``."""

    def _apply(self, x):
        return Equalize()._nhwc(x, None)


class RandomInvert(_WithProb):
    """Invert with probability ``prob``."""

    def _apply(self, x):
        return Invert()._nhwc(x, None)


class RandomGrayscale(_WithProb):
    """Gray (repeated over the 3 channels, so the shape stays) with probability ``prob``."""

    keeps_pil = True

    def __init__(self, prob=0.1):
        super().__init__(prob)

    def _apply(self, x):
        return Grayscale(3).batch_call(x)


class RandomPosterize(_ImageOp):
    """Posterize with a bit count drawn from ``bits`` ((min, max) in [1, 8], or an int)."""

    is_random = True

    def __init__(self, bits=(8, 8)):
        if isinstance(bits, numbers.Integral):
            bits = (bits, bits)
        if (not isinstance(bits, (tuple, list)) or len(bits) != 2
                or not 1 <= bits[0] <= bits[1] <= 8):
            raise ValueError(f"RandomPosterize: bits must be an int or (min, max) in [1, 8], "
                             f"got {bits!r}")
        self.bits = (int(bits[0]), int(bits[1]))

    def _nhwc(self, x, rng):
        uint8_only("RandomPosterize", x)
        return posterize_nhwc(x, rng.integers(self.bits[0], self.bits[1] + 1, size=len(x)))


class RandomSolarize(_ImageOp):
    """Solarize the values between two thresholds drawn from ``threshold`` (min, max)."""

    is_random = True

    def __init__(self, threshold=(0, 255)):
        if not isinstance(threshold, (tuple, list)):
            raise ValueError(f"RandomSolarize: threshold must be (min, max), got {threshold!r}")
        self.threshold = threshold_pair("RandomSolarize", threshold)

    def _nhwc(self, x, rng):
        uint8_only("RandomSolarize", x)
        lo, hi = self.threshold
        a = rng.integers(int(lo), int(hi) + 1, size=(2, len(x)))
        return solarize_nhwc(x, a.min(axis=0), a.max(axis=0))


_EIGVAL = np.array([0.2175, 0.0188, 0.0045])
_EIGVEC = np.array([[-0.5675, 0.7192, 0.4009], [-0.5808, -0.0045, -0.8140],
                    [-0.5836, -0.6948, 0.4203]])


class RandomLighting(_ImageOp):
    """AlexNet's PCA lighting noise: add ``eigvec @ (a * eigval)`` (a ~ N(0, ``alpha``) per
    image), in units of 255 for uint8 images."""

    keeps_pil = True

    is_random = True

    def __init__(self, alpha=0.05):
        if not isinstance(alpha, numbers.Real) or alpha < 0:
            raise ValueError(f"RandomLighting: alpha must be non-negative, got {alpha!r}")
        self.alpha = float(alpha)

    def _pil(self, img, rng):
        """MindSpore's Python path: the same noise, truncated (not rounded) to uint8."""
        from PIL import Image

        x = np.asarray(img).astype(np.float64)
        rgb_only("RandomLighting", x[None])
        noise = (rng.normal(0.0, self.alpha, size=3) * _EIGVAL) @ _EIGVEC.T * 255
        return Image.fromarray(np.uint8(np.clip(x + noise, 0, 255)))

    def _nhwc(self, x, rng):
        rgb_only("RandomLighting", x)
        a = rng.normal(0.0, self.alpha, size=(len(x), 3))
        noise = (a * _EIGVAL) @ _EIGVEC.T
        if x.dtype == np.uint8:
            noise = noise * 255
        return saturate(x.astype(np.float64) + noise.reshape(-1, 1, 1, 3), x.dtype)
