"""The enumerations of ``mindspore.dataset.vision``, with MindSpore's names and values."""

from __future__ import annotations

from enum import Enum, IntEnum


class Inter(IntEnum):
    """Interpolation modes of Resize and the geometric transforms."""

    NEAREST = 0
    ANTIALIAS = 1
    BILINEAR = LINEAR = 2
    BICUBIC = CUBIC = 3
    AREA = 4
    PILCUBIC = 5


class Border(str, Enum):
    """Padding modes; the values are numpy.pad's mode names."""

    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class ConvertMode(IntEnum):
    """Colour conversions of ConvertColor (OpenCV's codes, MindSpore's aliases)."""

    COLOR_BGR2BGRA = COLOR_RGB2RGBA = 0
    COLOR_BGRA2BGR = COLOR_RGBA2RGB = 1
    COLOR_BGR2RGBA = COLOR_RGB2BGRA = 2
    COLOR_RGBA2BGR = COLOR_BGRA2RGB = 3
    COLOR_BGR2RGB = COLOR_RGB2BGR = 4
    COLOR_BGRA2RGBA = COLOR_RGBA2BGRA = 5
    COLOR_BGR2GRAY = 6
    COLOR_RGB2GRAY = 7
    COLOR_GRAY2BGR = COLOR_GRAY2RGB = 8
    COLOR_GRAY2BGRA = COLOR_GRAY2RGBA = 9
    COLOR_BGRA2GRAY = 10
    COLOR_RGBA2GRAY = 11


class SliceMode(IntEnum):
    """How SlicePatches treats a remainder: pad it out, or drop it."""

    PAD = 0
    DROP = 1


class ImageBatchFormat(IntEnum):
    """Layout of an image batch for CutMixBatch: (N, H, W, C) or (N, C, H, W)."""

    NHWC = 0
    NCHW = 1


class AutoAugmentPolicy(str, Enum):
    """The AutoAugment policies learned on ImageNet, CIFAR-10 and SVHN."""

    IMAGENET = "imagenet"
    CIFAR10 = "cifar10"
    SVHN = "svhn"


class ImageReadMode(IntEnum):
    """How read_image decodes: as stored, grayscale, or RGB."""

    UNCHANGED = 0
    GRAYSCALE = 1
    COLOR = 2
