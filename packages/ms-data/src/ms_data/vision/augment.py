"""Learned and random augmentation policies: AutoAugment, RandAugment, TrivialAugmentWide,
and the combinators UniformAugment and RandomSelectSubpolicy.

The policies draw operations and magnitudes as torchvision does and apply them as MindSpore's
``ApplyAugment`` does (shears in degrees of the magnitude, translations in pixels, colour
factors ``1 + magnitude``), on one uint8 RGB image at a time.
"""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.transforms.base import TensorOperation, as_operation, to_array
from ms_data.vision import _checks
from ms_data.vision.adjust import (
    brightness_nhwc,
    contrast_nhwc,
    saturation_nhwc,
    sharpness_nhwc,
)
from ms_data.vision.affine import _mode, rotate_image
from ms_data.vision.autoaugment_policies import POLICIES
from ms_data.vision.enums import AutoAugmentPolicy, Inter
from ms_data.vision.geometry import _fill
from ms_data.vision.tone import (
    AutoContrast,
    Equalize,
    Invert,
    posterize_nhwc,
    solarize_nhwc,
)
from ms_data.vision.warp import affine_matrix, warp_nhwc

_SIGNED = {"ShearX", "ShearY", "TranslateX", "TranslateY", "Rotate", "Brightness", "Color",
           "Contrast", "Sharpness"}


def apply_op(x: np.ndarray, name: str, magnitude: float, mode: Inter, fill) -> np.ndarray:
    """One named augmentation on a batch (1, H, W, C) of uint8 images."""
    h, w = x.shape[1:3]
    if name in ("ShearX", "ShearY", "TranslateX", "TranslateY"):
        deg = float(np.degrees(magnitude))
        shear = {"ShearX": (deg, 0.0), "ShearY": (0.0, deg)}.get(name, (0.0, 0.0))
        t = {"TranslateX": (int(magnitude), 0), "TranslateY": (0, int(magnitude))}.get(name,
                                                                                     (0, 0))
        m = affine_matrix(h, w, 0.0, t, 1.0, shear)
        return warp_nhwc(x, [m] * len(x), (h, w), mode, fill)
    simple = {
        "Rotate": lambda: rotate_image(x, magnitude, mode, False, None, fill),
        "Brightness": lambda: brightness_nhwc(x, 1 + magnitude),
        "Color": lambda: saturation_nhwc(x, 1 + magnitude),
        "Contrast": lambda: contrast_nhwc(x, 1 + magnitude),
        "Sharpness": lambda: sharpness_nhwc(x, 1 + magnitude),
        "Posterize": lambda: posterize_nhwc(x, int(magnitude)),
        "Solarize": lambda: solarize_nhwc(x, magnitude, magnitude),
        "AutoContrast": lambda: AutoContrast()._nhwc(x, None),
        "Equalize": lambda: Equalize()._nhwc(x, None),
        "Invert": lambda: Invert()._nhwc(x, None),
        "Identity": lambda: x,
    }
    return simple[name]()


def magnitudes(bins: int, h: int, w: int, wide: bool = False) -> dict:
    """Each operation's magnitude per bin (torchvision's tables; ``wide`` for TrivialAugment)."""
    lin = np.linspace
    if wide:
        return {"Identity": None, "ShearX": lin(0, 0.99, bins), "ShearY": lin(0, 0.99, bins),
                "TranslateX": lin(0, 32, bins), "TranslateY": lin(0, 32, bins),
                "Rotate": lin(0, 135, bins), "Brightness": lin(0, 0.99, bins),
                "Color": lin(0, 0.99, bins), "Contrast": lin(0, 0.99, bins),
                "Sharpness": lin(0, 0.99, bins),
                "Posterize": 8 - np.round(np.arange(bins) / ((bins - 1) / 6)).astype(int),
                "Solarize": lin(255, 0, bins), "AutoContrast": None, "Equalize": None}
    return {"Identity": None, "ShearX": lin(0, 0.3, bins), "ShearY": lin(0, 0.3, bins),
            "TranslateX": lin(0, 150 / 331 * w, bins), "TranslateY": lin(0, 150 / 331 * h, bins),
            "Rotate": lin(0, 30, bins), "Brightness": lin(0, 0.9, bins),
            "Color": lin(0, 0.9, bins), "Contrast": lin(0, 0.9, bins),
            "Sharpness": lin(0, 0.9, bins),
            "Posterize": 8 - np.round(np.arange(bins) / ((bins - 1) / 4)).astype(int),
            "Solarize": lin(255, 0, bins), "AutoContrast": None, "Equalize": None}


def _signed(name: str, value: float, rng) -> float:
    return -value if name in _SIGNED and rng.random() < 0.5 else value


class _Policy(TensorOperation):
    """A policy on (H, W, 3) uint8 images, row by row."""

    is_random = True

    def _setup(self, interpolation, fill_value):
        self.interpolation = _mode(type(self).__name__, interpolation)
        self.fill_value = _fill(type(self).__name__, fill_value)

    def _row(self, x, rng):
        op = type(self).__name__
        _checks.image(op, x)
        if x.dtype != np.uint8 or x.ndim != 3 or x.shape[2] != 3:
            raise ValueError(f"{op}: expected an RGB uint8 image <H, W, 3>, got shape {x.shape} "
                             f"dtype {x.dtype}")
        return self._augment(x[None], rng)[0]

    def _do(self, x, name, value):
        return apply_op(x, name, value, self.interpolation, self.fill_value)


class AutoAugment(_Policy):
    """Apply one of the 25 learned sub-policies of ``policy``, drawn per image."""

    def __init__(self, policy=AutoAugmentPolicy.IMAGENET, interpolation=Inter.NEAREST,
                 fill_value=0):
        self.policy = AutoAugmentPolicy(policy)
        self._setup(interpolation, fill_value)

    def _augment(self, x, rng):
        subs = POLICIES[self.policy]
        table = magnitudes(10, *x.shape[1:3])
        for name, prob, bin_ in subs[rng.integers(len(subs))]:
            if rng.random() <= prob:
                value = 0.0 if bin_ is None or table.get(name) is None else float(
                    table[name][bin_])
                x = self._do(x, name, _signed(name, value, rng))
        return x


def _bins(op: str, num_magnitude_bins) -> int:
    if not isinstance(num_magnitude_bins, numbers.Integral) or num_magnitude_bins < 2:
        raise ValueError(f"{op}: num_magnitude_bins must be an int >= 2, "
                         f"got {num_magnitude_bins!r}")
    return int(num_magnitude_bins)


class RandAugment(_Policy):
    """Apply ``num_ops`` operations drawn uniformly, each at bin ``magnitude`` of
    ``num_magnitude_bins``."""

    def __init__(self, num_ops=2, magnitude=9, num_magnitude_bins=31,
                 interpolation=Inter.NEAREST, fill_value=0):
        self.num_magnitude_bins = _bins("RandAugment", num_magnitude_bins)
        if not isinstance(num_ops, numbers.Integral) or num_ops < 0:
            raise ValueError(f"RandAugment: num_ops must be a non-negative int, got {num_ops!r}")
        if not isinstance(magnitude, numbers.Integral) or not 0 <= magnitude < num_magnitude_bins:
            raise ValueError(f"RandAugment: magnitude must be an int in [0, "
                             f"{num_magnitude_bins}), got {magnitude!r}")
        self.num_ops, self.magnitude = int(num_ops), int(magnitude)
        self._setup(interpolation, fill_value)

    def _augment(self, x, rng):
        table = magnitudes(self.num_magnitude_bins, *x.shape[1:3])
        names = list(table)
        for _ in range(self.num_ops):
            name = names[rng.integers(len(names))]
            value = 0.0 if table[name] is None else float(table[name][self.magnitude])
            x = self._do(x, name, _signed(name, value, rng))
        return x


class TrivialAugmentWide(_Policy):
    """Apply one operation drawn uniformly at a magnitude bin drawn uniformly (wide ranges)."""

    def __init__(self, num_magnitude_bins=31, interpolation=Inter.NEAREST, fill_value=0):
        self.num_magnitude_bins = _bins("TrivialAugmentWide", num_magnitude_bins)
        self._setup(interpolation, fill_value)

    def _augment(self, x, rng):
        table = magnitudes(self.num_magnitude_bins, *x.shape[1:3], wide=True)
        names = list(table)
        name = names[rng.integers(len(names))]
        bin_ = int(rng.integers(self.num_magnitude_bins))
        value = 0.0 if table[name] is None else float(table[name][bin_])
        return self._do(x, name, _signed(name, value, rng))


def _apply(t, x: np.ndarray, rng) -> np.ndarray:
    """One transform of a combinator on one image; random ones draw from ``rng`` (the
    pipeline's generator) so results do not depend on the worker count."""
    if isinstance(t, TensorOperation) and t.is_random and not t.python_callable:
        return to_array("augment", t._row(x, rng))
    return to_array("augment", t(x))


def _ops(op: str, transforms) -> list:
    if not isinstance(transforms, (list, tuple)) or not transforms:
        raise TypeError(f"{op}: transforms must be a non-empty list, got {transforms!r}")
    return [as_operation(t) for t in transforms]


class UniformAugment(TensorOperation):
    """Apply ``num_ops`` of ``transforms``, drawn without replacement, in random order."""

    is_random = True

    def __init__(self, transforms, num_ops=2):
        self.transforms = _ops("UniformAugment", transforms)
        if not isinstance(num_ops, numbers.Integral) or not 1 <= num_ops <= len(transforms):
            raise ValueError(f"UniformAugment: num_ops must be in [1, {len(transforms)}], "
                             f"got {num_ops!r}")
        self.num_ops = int(num_ops)

    def __call__(self, *inputs):
        if len(inputs) == 1 and hasattr(inputs[0], "getbands"):
            return self._pil(inputs[0], self._rng())
        return super().__call__(*inputs)

    def _pil(self, img, rng):
        """MindSpore's Python path: each chosen transform runs with probability ``pr`` drawn
        uniformly first (one half on average), on the PIL image."""
        for i in rng.choice(len(self.transforms), self.num_ops, replace=False):
            pr = rng.random()
            if rng.random() < pr:
                img = self.transforms[i](img.copy())
        return img

    def _row(self, x, rng):
        for i in rng.choice(len(self.transforms), self.num_ops, replace=False):
            x = _apply(self.transforms[i], x, rng)
        return x


class RandomSelectSubpolicy(TensorOperation):
    """Pick one sub-policy of ``policy`` per image; a sub-policy is a list of
    (transform, probability) steps, each applied with its probability."""

    is_random = True

    def __init__(self, policy):
        if not isinstance(policy, (list, tuple)) or not policy or not all(
                isinstance(sub, (list, tuple)) and sub for sub in policy):
            raise TypeError(f"RandomSelectSubpolicy: policy must be a non-empty list of "
                            f"non-empty lists of (transform, prob), got {policy!r}")
        self.policy = [[(as_operation(t), _checks.probability("RandomSelectSubpolicy", p))
                        for t, p in sub] for sub in policy]

    def _row(self, x, rng):
        for t, p in self.policy[rng.integers(len(self.policy))]:
            if rng.random() < p:
                x = _apply(t, x, rng)
        return x
