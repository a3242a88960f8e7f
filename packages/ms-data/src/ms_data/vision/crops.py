"""Fixed crops and tilings: Crop, ResizedCrop, FiveCrop, TenCrop, PadToSize, SlicePatches,
and RandomResize / RandomCropDecodeResize."""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.transforms.base import TensorOperation, to_array
from ms_data.vision import _checks
from ms_data.vision.enums import Border, Inter, SliceMode
from ms_data.vision.geometry import (
    CenterCrop,
    RandomResizedCrop,
    _fill,
    _ImageOp,
    pad_nhwc,
)
from ms_data.vision.resize import check_interpolation, resize_nhwc


def _crop(op: str, x: np.ndarray, top: int, left: int, h: int, w: int) -> np.ndarray:
    if top + h > x.shape[1] or left + w > x.shape[2]:
        raise ValueError(f"{op}: crop box (top={top}, left={left}, height={h}, width={w}) "
                         f"exceeds the image of size {x.shape[1:3]}")
    return np.ascontiguousarray(x[:, top:top + h, left:left + w])


def _coordinate(op: str, v, name: str) -> int:
    if not isinstance(v, numbers.Integral) or v < 0:
        raise ValueError(f"{op}: {name} must be a non-negative int, got {v!r}")
    return int(v)


class Crop(_ImageOp):
    """Crop ``size`` (int or (height, width)) at ``coordinates`` (top, left)."""

    def __init__(self, coordinates, size):
        if not isinstance(coordinates, (tuple, list)) or len(coordinates) != 2:
            raise TypeError(f"Crop: coordinates must be (top, left), got {coordinates!r}")
        self.coordinates = tuple(_coordinate("Crop", c, "coordinates") for c in coordinates)
        self.size = _checks.size_pair("Crop", size)

    def _nhwc(self, x, rng):
        return _crop("Crop", x, *self.coordinates, *self.size)


class ResizedCrop(_ImageOp):
    """Crop (top, left, height, width), then resize to ``size``."""

    def __init__(self, top, left, height, width, size, interpolation=Inter.BILINEAR):
        self.top = _coordinate("ResizedCrop", top, "top")
        self.left = _coordinate("ResizedCrop", left, "left")
        self.height, self.width = _checks.size_pair("ResizedCrop", (height, width),
                                                    "height and width")
        self.size = _checks.size_pair("ResizedCrop", size)
        self.interpolation = check_interpolation("ResizedCrop", interpolation)

    def _nhwc(self, x, rng):
        crop = _crop("ResizedCrop", x, self.top, self.left, self.height, self.width)
        return resize_nhwc("ResizedCrop", crop, *self.size, self.interpolation)


def _image_row(op: str, img) -> tuple[np.ndarray, bool]:
    """An (H, W[, C]) array from a numpy or PIL image, and whether it was PIL."""
    is_pil = hasattr(img, "getbands")
    x = to_array(op, img)
    _checks.image(op, x)
    return x, is_pil


def _as_input_kind(arr: np.ndarray, is_pil: bool):
    if is_pil:
        from PIL import Image

        return Image.fromarray(arr)
    return arr


def five_crops(op: str, x: np.ndarray, size) -> list[np.ndarray]:
    ch, cw = size
    h, w = x.shape[:2]
    if ch > h or cw > w:
        raise ValueError(f"{op}: crop size {size} is larger than the image {(h, w)}")
    centre = CenterCrop(size)(x)
    return [x[:ch, :cw], x[:ch, w - cw:], x[h - ch:, :cw], x[h - ch:, w - cw:], centre]


class FiveCrop(TensorOperation):
    """The four corner crops and the centre crop of ``size``, as a tuple of 5 images (PIL
    images in, PIL images out)."""

    def __init__(self, size):
        self.size = _checks.size_pair("FiveCrop", size)

    def __call__(self, img):
        x, is_pil = _image_row("FiveCrop", img)
        return tuple(_as_input_kind(np.ascontiguousarray(c), is_pil)
                     for c in five_crops("FiveCrop", x, self.size))


class TenCrop(TensorOperation):
    """FiveCrop of the image and of its mirror (left-right, or top-bottom when
    ``use_vertical_flip``), as a tuple of 10 images."""

    def __init__(self, size, use_vertical_flip=False):
        self.size = _checks.size_pair("TenCrop", size)
        if not isinstance(use_vertical_flip, bool):
            raise TypeError(f"TenCrop: use_vertical_flip must be a bool, got {use_vertical_flip!r}")
        self.use_vertical_flip = use_vertical_flip

    def __call__(self, img):
        x, is_pil = _image_row("TenCrop", img)
        flipped = x[::-1] if self.use_vertical_flip else x[:, ::-1]
        crops = five_crops("TenCrop", x, self.size) + five_crops("TenCrop", flipped, self.size)
        return tuple(_as_input_kind(np.ascontiguousarray(c), is_pil) for c in crops)


class PadToSize(_ImageOp):
    """Pad to ``size`` with the image at ``offset`` (top, left; centred by default)."""

    def __init__(self, size, offset=None, fill_value=0, padding_mode=Border.CONSTANT):
        self.size = _checks.size_pair("PadToSize", size)
        if isinstance(offset, numbers.Integral):
            offset = (offset, offset)
        if offset is not None and (len(offset) != 2 or min(offset) < 0):
            raise ValueError(f"PadToSize: offset must be None, an int or (top, left) >= 0, "
                             f"got {offset!r}")
        self.offset = None if offset is None else (int(offset[0]), int(offset[1]))
        self.fill_value = _fill("PadToSize", fill_value)
        self.padding_mode = Border(padding_mode)

    def _nhwc(self, x, rng):
        h, w = x.shape[1:3]
        th, tw = self.size
        if th < h or tw < w:
            raise ValueError(f"PadToSize: target size {self.size} is smaller than the image "
                             f"{(h, w)}")
        top, left = self.offset if self.offset is not None else ((th - h) // 2, (tw - w) // 2)
        if top + h > th or left + w > tw:
            raise ValueError(f"PadToSize: offset {self.offset} puts the image {(h, w)} outside "
                             f"the target size {self.size}")
        ltrb = (left, top, tw - w - left, th - h - top)
        return pad_nhwc("PadToSize", x, ltrb, self.fill_value, self.padding_mode)


class SlicePatches(TensorOperation):
    """Cut an image into ``num_height`` x ``num_width`` patches, row by row; SliceMode.PAD
    first pads right and bottom with ``fill_value``, SliceMode.DROP drops the remainder."""

    def __init__(self, num_height=1, num_width=1, slice_mode=SliceMode.PAD, fill_value=0):
        for name, v in (("num_height", num_height), ("num_width", num_width)):
            if not isinstance(v, numbers.Integral) or v < 1:
                raise ValueError(f"SlicePatches: {name} must be a positive int, got {v!r}")
        self.num_height, self.num_width = int(num_height), int(num_width)
        self.slice_mode = SliceMode(slice_mode)
        if not isinstance(fill_value, numbers.Integral) or not 0 <= fill_value <= 255:
            raise ValueError(f"SlicePatches: fill_value must be an int in [0, 255], "
                             f"got {fill_value!r}")
        self.fill_value = int(fill_value)

    def __call__(self, img):
        x = to_array("SlicePatches", img)
        _checks.image("SlicePatches", x)
        h, w = x.shape[:2]
        if self.num_height > h or self.num_width > w:
            raise ValueError(f"SlicePatches: {self.num_height}x{self.num_width} patches do not "
                             f"fit an image of size {(h, w)}")
        pad = self.slice_mode == SliceMode.PAD
        ph = -(-h // self.num_height) if pad else h // self.num_height
        pw = -(-w // self.num_width) if pad else w // self.num_width
        if pad:
            canvas = np.full((ph * self.num_height, pw * self.num_width) + x.shape[2:],
                             self.fill_value, dtype=x.dtype)
            canvas[:h, :w] = x
            x = canvas
        return tuple(np.ascontiguousarray(x[i * ph:(i + 1) * ph, j * pw:(j + 1) * pw])
                     for i in range(self.num_height) for j in range(self.num_width))


class RandomResize(TensorOperation):
    """Resize to ``size`` with an interpolation drawn from NEAREST, BILINEAR, BICUBIC, AREA."""

    is_random = True

    _MODES = (Inter.NEAREST, Inter.BILINEAR, Inter.BICUBIC, Inter.AREA)

    def __init__(self, size):
        from ms_data.vision.resize import Resize

        self._resize = Resize(size)
        self.size = self._resize.size

    def _row(self, x, rng):
        from ms_data.vision.resize import Resize

        return Resize(self.size, self._MODES[rng.integers(len(self._MODES))])(x)


class RandomCropDecodeResize(RandomResizedCrop):
    """Decode encoded image bytes, then RandomResizedCrop (MindSpore fuses the two).

    Encoded rows differ in length, so there is no batch form.
    """

    batch_call = None

    def _row(self, x, rng):
        from ms_data.vision.color import Decode

        img = Decode()(x)
        return _ImageOp.batch_call(self, img[None], rng)[0]
