"""Crops, flips and padding, on single images and on stacked batches."""

from __future__ import annotations

import math
import numbers

import numpy as np

from ms_data.transforms.base import TensorOperation
from ms_data.vision import _checks
from ms_data.vision.enums import Border, Inter
from ms_data.vision.resize import check_interpolation, resize_nhwc


def _padding(op: str, padding) -> tuple[int, int, int, int]:
    """MindSpore's padding forms as (left, top, right, bottom)."""
    if isinstance(padding, numbers.Integral) and not isinstance(padding, bool):
        padding = (padding,) * 4
    elif isinstance(padding, (tuple, list)) and len(padding) == 2:
        padding = (padding[0], padding[1], padding[0], padding[1])
    if (not isinstance(padding, (tuple, list)) or len(padding) != 4
            or not all(isinstance(p, numbers.Integral) and p >= 0 for p in padding)):
        raise ValueError(f"{op}: padding must be a non-negative int or a sequence of 2 or 4 "
                         f"of them, got {padding!r}")
    return tuple(int(p) for p in padding)


def _fill(op: str, fill_value):
    if isinstance(fill_value, numbers.Real):
        return fill_value
    if isinstance(fill_value, (tuple, list)) and len(fill_value) == 3:
        return tuple(fill_value)
    raise TypeError(f"{op}: fill_value must be a number or a 3-tuple, got {fill_value!r}")


def pad_nhwc(op: str, x: np.ndarray, ltrb, fill=0, mode=Border.CONSTANT) -> np.ndarray:
    """Pad a batch (N, H, W, C) by (left, top, right, bottom)."""
    left, top, right, bottom = ltrb
    mode = Border(mode)
    too_big = max(top, bottom) >= x.shape[1] or max(left, right) >= x.shape[2]
    if mode == Border.REFLECT and too_big:
        raise ValueError(f"{op}: reflect padding {ltrb} needs an image larger than the padding, "
                         f"got shape {x.shape[1:]}")
    if mode != Border.CONSTANT:
        return np.pad(x, ((0, 0), (top, bottom), (left, right), (0, 0)), mode=mode.value)
    if isinstance(fill, tuple) and len(fill) != x.shape[3]:
        raise ValueError(f"{op}: fill_value has {len(fill)} values but the image has "
                         f"{x.shape[3]} channels")
    out = np.empty((x.shape[0], x.shape[1] + top + bottom, x.shape[2] + left + right,
                    x.shape[3]), dtype=x.dtype)
    out[...] = np.asarray(fill, dtype=x.dtype)
    out[:, top:top + x.shape[1], left:left + x.shape[2]] = x
    return out


class _ImageOp(TensorOperation):
    """An operation on (H, W) or (H, W, C) images whose batch form works on (N, H, W, C).

    ``keeps_pil`` marks the operations MindSpore runs on PIL images and answers with PIL
    images; the numbers are the numpy path's either way.
    """

    keeps_pil = False

    def __call__(self, *inputs):
        if len(inputs) == 1 and hasattr(inputs[0], "getbands") and hasattr(self, "_pil"):
            return self._pil(inputs[0], self._rng())  # MindSpore's Pillow path
        out = super().__call__(*inputs)
        return _checks.pil_like(inputs[0], out) if self.keeps_pil else out

    def _row(self, x, rng):
        _checks.image(type(self).__name__, x)
        return self.batch_call(x[None], rng)[0]

    def batch_call(self, x, rng=None):
        _checks.image(type(self).__name__, x, batched=True)
        xb, added = _checks.as_nhwc(x)
        out = self._nhwc(xb, rng)
        return out[..., 0] if added else out


class Pad(_ImageOp):
    """Pad by ``padding``: int (all sides), (left/right, top/bottom) or (left, top, right,
    bottom), with ``fill_value`` or the ``padding_mode`` border."""

    keeps_pil = True

    def __init__(self, padding, fill_value=0, padding_mode=Border.CONSTANT):
        self.padding = _padding("Pad", padding)
        self.fill_value = _fill("Pad", fill_value)
        self.padding_mode = Border(padding_mode)

    def _nhwc(self, x, rng):
        return pad_nhwc("Pad", x, self.padding, self.fill_value, self.padding_mode)


class CenterCrop(_ImageOp):
    """Crop the centre ``size`` (an int for a square); a larger size pads with zeros around."""

    keeps_pil = True

    def __init__(self, size):
        self.size = _checks.size_pair("CenterCrop", size)

    def _pil(self, img, rng):
        """MindSpore's Python path: offsets round((size - crop) / 2) (half to even), Pillow's
        crop filling outside the image with zeros."""
        (ch, cw), (w, h) = self.size, img.size
        top, left = int(round((h - ch) / 2.0)), int(round((w - cw) / 2.0))
        return img.crop((left, top, left + cw, top + ch))

    def _nhwc(self, x, rng):
        ch, cw = self.size
        h, w = x.shape[1:3]
        if ch > h or cw > w:
            dh, dw = max(ch - h, 0), max(cw - w, 0)
            x = pad_nhwc("CenterCrop", x, (dw - dw // 2, dh - dh // 2, dw // 2, dh // 2))
            h, w = x.shape[1:3]
        top, left = (h - ch) // 2, (w - cw) // 2
        return np.ascontiguousarray(x[:, top:top + ch, left:left + cw])


class RandomCrop(_ImageOp):
    """Crop ``size`` at a random place, after optional padding."""

    keeps_pil = True

    is_random = True

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        self.size = _checks.size_pair("RandomCrop", size)
        self.padding = None if padding is None else _padding("RandomCrop", padding)
        self.pad_if_needed = bool(pad_if_needed)
        self.fill_value = _fill("RandomCrop", fill_value)
        self.padding_mode = Border(padding_mode)

    def _nhwc(self, x, rng):
        if self.padding is not None:
            x = pad_nhwc("RandomCrop", x, self.padding, self.fill_value, self.padding_mode)
        ch, cw = self.size
        h, w = x.shape[1:3]
        if self.pad_if_needed and (ch > h or cw > w):
            dh, dw = max(ch - h, 0), max(cw - w, 0)
            x = pad_nhwc("RandomCrop", x, (dw, dh, dw, dh), self.fill_value, self.padding_mode)
            h, w = x.shape[1:3]
        if ch > h or cw > w:
            raise ValueError(f"RandomCrop: crop size {self.size} is larger than the image "
                             f"{(h, w)} (after padding); set pad_if_needed=True to pad")
        n = x.shape[0]
        tops = rng.integers(0, h - ch + 1, size=n)
        lefts = rng.integers(0, w - cw + 1, size=n)
        rows = tops[:, None, None] + np.arange(ch)[None, :, None]
        cols = lefts[:, None, None] + np.arange(cw)[None, None, :]
        return x[np.arange(n)[:, None, None], rows, cols]


class _RandomFlip(_ImageOp):
    is_random = True
    axis = 2

    def __init__(self, prob=0.5):
        self.prob = _checks.probability(type(self).__name__, prob)

    def _nhwc(self, x, rng):
        flip = rng.random(x.shape[0]) < self.prob
        out = x.copy()
        out[flip] = np.flip(x[flip], axis=self.axis)
        return out


class RandomHorizontalFlip(_RandomFlip):
    """Mirror left-right with probability ``prob``."""

    keeps_pil = True


class RandomVerticalFlip(_RandomFlip):
    """Mirror top-bottom with probability ``prob``."""

    keeps_pil = True

    axis = 1


class _Flip(_ImageOp):
    axis = 2

    def _nhwc(self, x, rng):
        return np.ascontiguousarray(np.flip(x, axis=self.axis))


class HorizontalFlip(_Flip):
    """Mirror left-right (every image; ``RandomHorizontalFlip`` picks some)."""


class VerticalFlip(_Flip):
    """Mirror top-bottom (every image; ``RandomVerticalFlip`` picks some)."""

    axis = 1


class RandomResizedCrop(_ImageOp):
    """Crop a random area fraction in ``scale`` with aspect ratio in ``ratio``, resized to
    ``size`` (Inception-style; falls back to a centre crop after ``max_attempts``)."""

    keeps_pil = True

    is_random = True

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        self.size = _checks.size_pair("RandomResizedCrop", size)
        for name, rng_ in (("scale", scale), ("ratio", ratio)):
            if len(rng_) != 2 or not 0 <= rng_[0] <= rng_[1]:
                raise ValueError(f"RandomResizedCrop: {name} must be (min, max) with "
                                 f"0 <= min <= max, got {rng_!r}")
        self.scale = tuple(float(s) for s in scale)
        self.ratio = tuple(float(r) for r in ratio)
        self.interpolation = check_interpolation("RandomResizedCrop", interpolation)
        if not isinstance(max_attempts, numbers.Integral) or max_attempts < 1:
            raise ValueError(f"RandomResizedCrop: max_attempts must be a positive int, "
                             f"got {max_attempts!r}")
        self.max_attempts = int(max_attempts)

    def crop_box(self, h: int, w: int, rng) -> tuple[int, int, int, int]:
        """(top, left, height, width) of one random crop."""
        area = h * w
        log_ratio = (math.log(self.ratio[0]), math.log(self.ratio[1]))
        for _ in range(self.max_attempts):
            target = area * rng.uniform(*self.scale)
            aspect = math.exp(rng.uniform(*log_ratio))
            cw = int(round(math.sqrt(target * aspect)))
            ch = int(round(math.sqrt(target / aspect)))
            if 0 < cw <= w and 0 < ch <= h:
                return int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1)), ch, cw
        in_ratio = w / h
        if in_ratio < self.ratio[0]:
            cw, ch = w, int(round(w / self.ratio[0]))
        elif in_ratio > self.ratio[1]:
            ch, cw = h, int(round(h * self.ratio[1]))
        else:
            ch, cw = h, w
        return (h - ch) // 2, (w - cw) // 2, ch, cw

    def _pil(self, img, rng):
        top, left, ch, cw = self.crop_box(img.size[1], img.size[0], rng)
        return img.crop((left, top, left + cw, top + ch)).resize(self.size[::-1],
                                                                  int(self.interpolation))

    def _nhwc(self, x, rng):
        oh, ow = self.size
        out = np.empty((x.shape[0], oh, ow, x.shape[3]), dtype=x.dtype)
        for i in range(x.shape[0]):
            top, left, ch, cw = self.crop_box(x.shape[1], x.shape[2], rng)
            crop = x[i:i + 1, top:top + ch, left:left + cw]
            out[i] = resize_nhwc("RandomResizedCrop", crop, oh, ow, self.interpolation)[0]
        return out
