"""Transforms of an image and its bounding boxes together (detection pipelines).

Boxes are rows ``[x, y, width, height, ...]`` (float32; extra columns such as a label ride
along). Each transform takes two inputs, ``(image, bboxes)``, and returns both.
"""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.transforms.base import TensorOperation, as_operation, to_array
from ms_data.vision import _checks
from ms_data.vision.enums import Border, Inter
from ms_data.vision.geometry import RandomCrop, RandomResizedCrop, pad_nhwc
from ms_data.vision.resize import Resize


def _inputs(op: str, inputs) -> tuple[np.ndarray, np.ndarray]:
    if len(inputs) != 2:
        raise TypeError(f"{op}: expected 2 inputs (image, bboxes), got {len(inputs)}")
    img, boxes = to_array(op, inputs[0]), to_array(op, inputs[1])
    _checks.image(op, img)
    if boxes.ndim != 2 or boxes.shape[1] < 4:
        raise ValueError(f"{op}: bboxes must be (N, 4+) rows [x, y, width, height, ...], got "
                         f"shape {boxes.shape}")
    h, w = img.shape[:2]
    b = boxes[:, :4]
    if (b < 0).any() or (b[:, 0] + b[:, 2] > w).any() or (b[:, 1] + b[:, 3] > h).any():
        raise ValueError(f"{op}: bounding boxes must lie inside the image of size {(h, w)}")
    return img, boxes


class _BBoxOp(TensorOperation):
    def __call__(self, *inputs):
        img, boxes = _inputs(type(self).__name__, inputs)
        return self._both(img, boxes, self._rng())


def _scale(boxes: np.ndarray, sy: float, sx: float) -> np.ndarray:
    out = boxes.astype(np.float32).copy()
    out[:, [0, 2]] *= np.float32(sx)
    out[:, [1, 3]] *= np.float32(sy)
    return out


def crop_boxes(boxes: np.ndarray, top: int, left: int, h: int, w: int) -> np.ndarray:
    """Boxes shifted into a crop window and clipped to it; boxes left empty are dropped."""
    out = boxes.astype(np.float32).copy()
    x0 = np.clip(out[:, 0] - left, 0, w)
    y0 = np.clip(out[:, 1] - top, 0, h)
    x1 = np.clip(out[:, 0] + out[:, 2] - left, 0, w)
    y1 = np.clip(out[:, 1] + out[:, 3] - top, 0, h)
    out[:, 0], out[:, 1], out[:, 2], out[:, 3] = x0, y0, x1 - x0, y1 - y0
    return out[(out[:, 2] > 0) & (out[:, 3] > 0)]


class ResizeWithBBox(_BBoxOp):
    """Resize the image (as Resize) and scale its boxes alike."""

    def __init__(self, size, interpolation=Inter.BILINEAR):
        self._resize = Resize(size, interpolation)
        self.size, self.interpolation = self._resize.size, self._resize.interpolation

    def _both(self, img, boxes, rng):
        out = self._resize(img)
        return out, _scale(boxes, out.shape[0] / img.shape[0], out.shape[1] / img.shape[1])


class RandomResizeWithBBox(ResizeWithBBox):
    """ResizeWithBBox with an interpolation drawn from NEAREST, BILINEAR, BICUBIC, AREA."""

    is_random = True
    _MODES = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA)

    def __init__(self, size):
        super().__init__(size)

    def _both(self, img, boxes, rng):
        out = Resize(self.size, self._MODES[rng.integers(len(self._MODES))])(img)
        return out, _scale(boxes, out.shape[0] / img.shape[0], out.shape[1] / img.shape[1])


class RandomHorizontalFlipWithBBox(_BBoxOp):
    """Mirror the image and its boxes left-right with probability ``prob``."""

    is_random = True

    def __init__(self, prob=0.5):
        self.prob = _checks.probability(type(self).__name__, prob)

    def _both(self, img, boxes, rng):
        if rng.random() >= self.prob:
            return img, boxes
        out = boxes.astype(np.float32).copy()
        out[:, 0] = img.shape[1] - out[:, 0] - out[:, 2]
        return np.ascontiguousarray(img[:, ::-1]), out


class RandomVerticalFlipWithBBox(RandomHorizontalFlipWithBBox):
    """Mirror the image and its boxes top-bottom with probability ``prob``."""

    def _both(self, img, boxes, rng):
        if rng.random() >= self.prob:
            return img, boxes
        out = boxes.astype(np.float32).copy()
        out[:, 1] = img.shape[0] - out[:, 1] - out[:, 3]
        return np.ascontiguousarray(img[::-1]), out


class RandomCropWithBBox(_BBoxOp):
    """RandomCrop of the image (with its padding options); boxes follow and are clipped."""

    is_random = True

    def __init__(self, size, padding=None, pad_if_needed=False, fill_value=0,
                 padding_mode=Border.CONSTANT):
        self._crop = RandomCrop(size, padding, pad_if_needed, fill_value, padding_mode)
        self.size = self._crop.size

    def _both(self, img, boxes, rng):
        c = self._crop
        pl, pt = (c.padding[0], c.padding[1]) if c.padding is not None else (0, 0)
        x = img if img.ndim == 3 else img[..., None]
        if c.padding is not None:
            x = pad_nhwc("RandomCropWithBBox", x[None], c.padding, c.fill_value,
                         c.padding_mode)[0]
        ch, cw = c.size
        h, w = x.shape[:2]
        if c.pad_if_needed and (ch > h or cw > w):
            dh, dw = max(ch - h, 0), max(cw - w, 0)
            x = pad_nhwc("RandomCropWithBBox", x[None], (dw, dh, dw, dh), c.fill_value,
                         c.padding_mode)[0]
            pl, pt, h, w = pl + dw, pt + dh, x.shape[0], x.shape[1]
        if ch > h or cw > w:
            raise ValueError(f"RandomCropWithBBox: crop size {c.size} is larger than the image "
                             f"{(h, w)}; set pad_if_needed=True to pad")
        top, left = int(rng.integers(0, h - ch + 1)), int(rng.integers(0, w - cw + 1))
        shifted = boxes.astype(np.float32).copy()
        shifted[:, 0] += pl
        shifted[:, 1] += pt
        out = np.ascontiguousarray(x[top:top + ch, left:left + cw])
        return (out if img.ndim == 3 else out[..., 0]), crop_boxes(shifted, top, left, ch, cw)


class RandomResizedCropWithBBox(_BBoxOp):
    """RandomResizedCrop of the image; boxes are clipped to the crop and scaled."""

    is_random = True

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=Inter.BILINEAR, max_attempts=10):
        self._crop = RandomResizedCrop(size, scale, ratio, interpolation, max_attempts)
        self.size = self._crop.size

    def _both(self, img, boxes, rng):
        from ms_data.vision.resize import resize_nhwc

        top, left, ch, cw = self._crop.crop_box(img.shape[0], img.shape[1], rng)
        x = img if img.ndim == 3 else img[..., None]
        oh, ow = self._crop.size
        out = resize_nhwc("RandomResizedCropWithBBox", x[None, top:top + ch, left:left + cw],
                          oh, ow, self._crop.interpolation)[0]
        kept = crop_boxes(boxes, top, left, ch, cw)
        return (out if img.ndim == 3 else out[..., 0]), _scale(kept, oh / ch, ow / cw)


class BoundingBoxAugment(_BBoxOp):
    """Apply ``transform`` to the regions of a random ``ratio`` of the boxes (in place of
    each region; the transform must keep the region's shape)."""

    is_random = True

    def __init__(self, transform, ratio=0.3):
        self.transform = as_operation(transform)
        if not isinstance(ratio, numbers.Real) or not 0 <= ratio <= 1:
            raise ValueError(f"BoundingBoxAugment: ratio must be in [0, 1], got {ratio!r}")
        self.ratio = float(ratio)

    def _both(self, img, boxes, rng):
        out = img.copy()
        n = int(len(boxes) * self.ratio)
        for i in rng.choice(len(boxes), n, replace=False):
            x, y, w, h = (int(v) for v in boxes[i, :4])
            if w < 1 or h < 1:
                continue
            region = self.transform(np.ascontiguousarray(img[y:y + h, x:x + w]))
            region = to_array("BoundingBoxAugment", region)
            if region.shape != img[y:y + h, x:x + w].shape:
                raise ValueError(f"BoundingBoxAugment: the transform changed a box region's "
                                 f"shape from {img[y:y + h, x:x + w].shape} to {region.shape}")
            out[y:y + h, x:x + w] = region
        return out, boxes

