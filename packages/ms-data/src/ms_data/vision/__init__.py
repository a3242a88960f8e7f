"""``mindspore.dataset.vision``: image transforms on numpy HWC images and stacked batches.

Each transform is callable on one image (``Resize((32, 32))(img)``) and offers
``batch_call(x, rng)`` on a batch (N, H, W[, C]) where rows keep one shape; ``fuse(ops)``
merges consecutive Rescale / Normalize / ToTensor / HWC2CHW / TypeCast into one pass.
"""

from ms_data.vision.color import ConvertColor, Decode, Grayscale
from ms_data.vision.enums import Border, ConvertMode, Inter
from ms_data.vision.geometry import (
    CenterCrop,
    HorizontalFlip,
    Pad,
    RandomCrop,
    RandomHorizontalFlip,
    RandomResizedCrop,
    RandomVerticalFlip,
    VerticalFlip,
)
from ms_data.vision.pointwise import HWC2CHW, FusedPointwise, Normalize, Rescale, ToTensor, fuse
from ms_data.vision.resize import Resize
from ms_data.vision.rotation import RandomRotation

__all__ = [
    "Border", "CenterCrop", "ConvertColor", "ConvertMode", "Decode", "FusedPointwise",
    "Grayscale", "HWC2CHW", "HorizontalFlip", "Inter", "Normalize", "Pad", "RandomCrop",
    "RandomHorizontalFlip",
    "RandomResizedCrop", "RandomRotation", "RandomVerticalFlip", "Rescale", "Resize",
    "ToTensor", "VerticalFlip", "fuse",
]
