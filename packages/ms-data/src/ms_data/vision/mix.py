"""Batch mixing for (images, one-hot labels) columns after ``batch``: MixUpBatch, CutMixBatch
and the older MixUp."""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.transforms.base import TensorOperation, to_array
from ms_data.vision import _checks
from ms_data.vision.adjust import saturate
from ms_data.vision.enums import ImageBatchFormat


def _batch(op: str, images, labels) -> tuple[np.ndarray, np.ndarray]:
    x, y = to_array(op, images), to_array(op, labels)
    if x.ndim not in (3, 4):
        raise ValueError(f"{op}: expected a batch of images (N, H, W, C) or (N, C, H, W), got "
                         f"shape {x.shape}; apply it after batch()")
    if y.ndim not in (2, 3) or y.shape[0] != x.shape[0]:
        raise ValueError(f"{op}: expected one-hot labels (N, num_classes) for {x.shape[0]} "
                         f"images, got shape {y.shape}; apply OneHot before batch()")
    return x, y


def _alpha(op: str, alpha) -> float:
    if not isinstance(alpha, numbers.Real) or alpha <= 0:
        raise ValueError(f"{op}: alpha must be positive, got {alpha!r}")
    return float(alpha)


class _BatchMix(TensorOperation):
    is_random = True

    def __call__(self, *inputs):
        if len(inputs) != 2:
            raise TypeError(f"{type(self).__name__}: expected 2 inputs (images, labels), "
                            f"got {len(inputs)}")
        x, y = _batch(type(self).__name__, *inputs)
        return self._mix(x, y, self._rng())


class MixUpBatch(_BatchMix):
    """Mix each image and label with another of the batch: ``lam * a + (1 - lam) * b``,
    one ``lam ~ Beta(alpha, alpha)`` per batch."""

    def __init__(self, alpha=1.0):
        self.alpha = _alpha("MixUpBatch", alpha)

    def _mix(self, x, y, rng):
        lam = rng.beta(self.alpha, self.alpha)
        perm = rng.permutation(len(x))
        images = saturate(lam * x.astype(np.float64) + (1 - lam) * x[perm], x.dtype)
        labels = (lam * y + (1 - lam) * y[perm]).astype(np.float32)
        return images, labels


class MixUp(_BatchMix):
    """MindSpore's older Python MixUp on batches of ``batch_size``: one ``lam ~ Beta(alpha,
    alpha)`` per image; ``is_single`` mixes image i with image i + 1 of the same batch,
    otherwise with the previous mixed batch (the first batch passes through). Outputs are
    float64, as MindSpore's."""

    def __init__(self, batch_size, alpha, is_single=True):
        if not isinstance(batch_size, numbers.Integral) or batch_size < 1:
            raise ValueError(f"MixUp: batch_size must be a positive int, got {batch_size!r}")
        self.batch_size, self.alpha = int(batch_size), _alpha("MixUp", alpha)
        self.is_single = bool(is_single)
        self._previous = None

    def _mix(self, x, y, rng):
        if len(x) != self.batch_size:
            raise ValueError(f"MixUp: expected batches of {self.batch_size} rows, got "
                             f"{len(x)} (use drop_remainder=True in batch())")
        lam = rng.beta(self.alpha, self.alpha, self.batch_size)
        if self.is_single:
            other_x, other_y = np.roll(x, -1, axis=0), np.roll(y, -1, axis=0)
        elif self._previous is None:
            lam, (other_x, other_y) = np.ones(self.batch_size), (x, y)
        else:
            other_x, other_y = self._previous
        li = lam.reshape((-1,) + (1,) * (x.ndim - 1))
        images = li * x + (1 - li) * other_x
        labels = lam.reshape(-1, 1) * y + (1 - lam.reshape(-1, 1)) * other_y
        if not self.is_single:
            self._previous = (images, labels)
        return images, labels


class CutMixBatch(_BatchMix):
    """With probability ``prob`` per image, paste a box from another image of the batch; the
    box covers ``1 - lam`` of the area (``lam ~ Beta(alpha, alpha)``) and the labels mix by
    the area actually pasted."""

    def __init__(self, image_batch_format, alpha=1.0, prob=1.0):
        if not isinstance(image_batch_format, ImageBatchFormat):
            raise TypeError(f"CutMixBatch: image_batch_format must be an ImageBatchFormat, got "
                            f"{image_batch_format!r}")
        self.image_batch_format = image_batch_format
        self.alpha = _alpha("CutMixBatch", alpha)
        self.prob = _checks.probability("CutMixBatch", prob)

    def _mix(self, x, y, rng):
        nchw = self.image_batch_format == ImageBatchFormat.NCHW
        if x.ndim != 4:
            raise ValueError(f"CutMixBatch: expected 4-D images, got shape {x.shape}")
        h, w = x.shape[2:4] if nchw else x.shape[1:3]
        images, labels = x.copy(), y.astype(np.float32)
        for i in range(len(x)):
            if rng.random() >= self.prob:
                continue
            j = int(rng.integers(len(x)))
            lam = rng.beta(self.alpha, self.alpha)
            ch, cw = int(h * np.sqrt(1 - lam)), int(w * np.sqrt(1 - lam))
            cy, cx = int(rng.integers(h)), int(rng.integers(w))
            y0, y1 = max(cy - ch // 2, 0), min(cy + ch // 2, h)
            x0, x1 = max(cx - cw // 2, 0), min(cx + cw // 2, w)
            box = (slice(None), slice(y0, y1), slice(x0, x1)) if nchw else \
                (slice(y0, y1), slice(x0, x1))
            images[i][box] = x[j][box]
            kept = 1 - (y1 - y0) * (x1 - x0) / (h * w)
            labels[i] = kept * y[i] + (1 - kept) * y[j]
        return images, labels
