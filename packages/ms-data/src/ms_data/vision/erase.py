"""Erasing regions: Erase (a fixed box), RandomErasing (CHW tensors, torchvision-style) and
CutOut (square patches)."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ms_data.transforms.base import TensorOperation
from ms_data.vision import _checks
from ms_data.vision.geometry import _ImageOp


class Erase(_ImageOp):
    """Fill the box (top, left, height, width) with ``value`` (a number or one per channel)."""

    def __init__(self, top, left, height, width, value=0.0, inplace=False):
        for name, v in (("top", top), ("left", left), ("height", height), ("width", width)):
            if not isinstance(v, numbers.Integral) or v < 0:
                raise ValueError(f"Erase: {name} must be a non-negative int, got {v!r}")
        self.top, self.left, self.height, self.width = int(top), int(left), int(height), \
            int(width)
        if not isinstance(value, (numbers.Real, tuple, list)):
            raise TypeError(f"Erase: value must be a number or a sequence of 3, got {value!r}")
        self.value = value
        self.inplace = bool(inplace)

    def _nhwc(self, x, rng):
        out = x.copy()
        fill = np.asarray(self.value, dtype=np.float64)
        if fill.ndim and fill.shape[0] != x.shape[3]:
            raise ValueError(f"Erase: value has {fill.shape[0]} entries but the image has "
                             f"{x.shape[3]} channels")
        out[:, self.top:self.top + self.height, self.left:self.left + self.width] = \
            fill.astype(x.dtype)
        return out


class RandomErasing(TensorOperation):
    """With probability ``prob``, erase one random box of a (C, H, W) tensor: area fraction in
    ``scale``, aspect ratio (width / height) in ``ratio``, filled with ``value`` (a number, one
    per channel, or any string for normal noise)."""

    is_random = True

    def __init__(self, prob=0.5, scale=(0.02, 0.33), ratio=(0.3, 3.3), value=0, inplace=False,
                 max_attempts=10):
        self.prob = _checks.probability("RandomErasing", prob)
        if len(scale) != 2 or not 0 <= scale[0] <= scale[1]:
            raise ValueError(f"RandomErasing: scale must be (min, max), got {scale!r}")
        if len(ratio) != 2 or not 0 < ratio[0] <= ratio[1]:
            raise ValueError(f"RandomErasing: ratio must be (min, max) > 0, got {ratio!r}")
        if not isinstance(value, (numbers.Real, tuple, list, str, bytes)):
            raise ValueError(f"RandomErasing: value must be a number, a sequence of 3 or a "
                             f"string (normal noise), got {value!r}")
        self.scale, self.ratio = tuple(scale), tuple(ratio)
        self.value = value
        self.inplace = bool(inplace)
        self.max_attempts = int(max_attempts)

    def _row(self, x, rng):
        if x.ndim != 3:
            raise ValueError(f"RandomErasing: expected a <C, H, W> tensor, got shape {x.shape}")
        if rng.random() >= self.prob:
            return x
        c, h, w = x.shape
        for _ in range(self.max_attempts):  # MindSpore's draws: uniform ratio, width first
            area = h * w * rng.uniform(*self.scale)
            aspect = rng.uniform(*self.ratio)
            ew = int(round(math.sqrt(area * aspect)))
            eh = int(round(ew / aspect))
            if eh < h and ew < w:
                top, left = int(rng.integers(0, h - eh + 1)), int(rng.integers(0, w - ew + 1))
                out = x.copy()
                if isinstance(self.value, (str, bytes)):
                    out[:, top:top + eh, left:left + ew] = rng.standard_normal((c, eh, ew))
                else:
                    v = np.asarray(self.value, dtype=x.dtype)
                    out[:, top:top + eh, left:left + ew] = v.reshape(-1, 1, 1) if v.ndim else v
                return out
        return x


class CutOut(TensorOperation):
    """Zero ``num_patches`` random ``length`` x ``length`` squares; a square may hang over the
    border (its top-left corner lies in [-length, size]) and is clipped there."""

    is_random = True

    def __init__(self, length, num_patches=1, is_hwc=True):
        for name, v in (("length", length), ("num_patches", num_patches)):
            if not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"CutOut: {name} must be a positive int, got {v!r}")
        self.length, self.num_patches, self.is_hwc = int(length), int(num_patches), bool(is_hwc)

    def _row(self, x, rng):
        _checks.image("CutOut", x)
        h, w = (x.shape[0], x.shape[1]) if self.is_hwc or x.ndim == 2 else x.shape[1:3]
        if self.length > min(h, w):
            raise ValueError(f"CutOut: length {self.length} exceeds the image size {(h, w)}")
        out = x.copy()
        n = self.length
        for _ in range(self.num_patches):  # MindSpore's unbounded draw: clipped at the border
            top = int(rng.integers(0, h + n + 1)) - n
            left = int(rng.integers(0, w + n + 1)) - n
            box = (slice(max(top, 0), max(top + n, 0)), slice(max(left, 0), max(left + n, 0)))
            if self.is_hwc or x.ndim == 2:
                out[box] = 0
            else:
                out[(slice(None),) + box] = 0
        return out
