"""``mindspore.dataset.vision``: image transforms on numpy HWC images and stacked batches.

Each transform is callable on one image (``Resize((32, 32))(img)``) and offers
``batch_call(x, rng)`` on a batch (N, H, W[, C]) where rows keep one shape; ``fuse(ops)``
merges consecutive Rescale / Normalize / ToTensor / HWC2CHW / TypeCast into one pass.
"""

from ms_data.transforms.more import not_random
from ms_data.vision.adjust import (
    AdjustBrightness,
    AdjustContrast,
    AdjustGamma,
    AdjustSaturation,
    AdjustSharpness,
)
from ms_data.vision.affine import Affine, Perspective, RandomAffine, RandomPerspective, Rotate
from ms_data.vision.augment import (
    AutoAugment,
    RandAugment,
    RandomSelectSubpolicy,
    TrivialAugmentWide,
    UniformAugment,
)
from ms_data.vision.bbox import (
    BoundingBoxAugment,
    RandomCropWithBBox,
    RandomHorizontalFlipWithBBox,
    RandomResizedCropWithBBox,
    RandomResizeWithBBox,
    RandomVerticalFlipWithBBox,
    ResizeWithBBox,
)
from ms_data.vision.blur import GaussianBlur
from ms_data.vision.color import ConvertColor, Decode, Grayscale
from ms_data.vision.convert import LinearTransformation, NormalizePad, ToNumpy, ToPIL, ToType
from ms_data.vision.crops import (
    Crop,
    FiveCrop,
    PadToSize,
    RandomCropDecodeResize,
    RandomResize,
    ResizedCrop,
    SlicePatches,
    TenCrop,
)
from ms_data.vision.enums import (
    AutoAugmentPolicy,
    Border,
    ConvertMode,
    ImageBatchFormat,
    ImageReadMode,
    Inter,
    SliceMode,
)
from ms_data.vision.erase import CutOut, Erase, RandomErasing
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
from ms_data.vision.hsv import AdjustHue, HsvToRgb, RgbToHsv
from ms_data.vision.io import (
    encode_jpeg,
    encode_png,
    get_image_num_channels,
    get_image_size,
    read_file,
    read_image,
    write_file,
    write_jpeg,
    write_png,
)
from ms_data.vision.mix import CutMixBatch, MixUp, MixUpBatch
from ms_data.vision.pointwise import HWC2CHW, FusedPointwise, Normalize, Rescale, ToTensor, fuse
from ms_data.vision.random_color import (
    RandomAdjustSharpness,
    RandomAutoContrast,
    RandomColor,
    RandomColorAdjust,
    RandomEqualize,
    RandomGrayscale,
    RandomInvert,
    RandomLighting,
    RandomPosterize,
    RandomSharpness,
    RandomSolarize,
)
from ms_data.vision.resize import Resize
from ms_data.vision.rotation import RandomRotation
from ms_data.vision.tone import AutoContrast, Equalize, Invert, Posterize, Solarize

__all__ = [
    "AdjustBrightness", "AdjustContrast", "AdjustGamma", "AdjustHue", "AdjustSaturation",
    "AdjustSharpness", "Affine", "AutoAugment", "AutoAugmentPolicy", "AutoContrast", "Border",
    "BoundingBoxAugment", "CenterCrop", "ConvertColor", "ConvertMode", "Crop", "CutMixBatch",
    "CutOut", "Decode", "Equalize", "Erase", "FiveCrop", "FusedPointwise", "GaussianBlur",
    "Grayscale", "HWC2CHW", "HorizontalFlip", "HsvToRgb", "ImageBatchFormat", "ImageReadMode",
    "Inter", "Invert", "LinearTransformation", "MixUp", "MixUpBatch", "Normalize",
    "NormalizePad", "Pad", "PadToSize", "Perspective", "Posterize", "RandAugment",
    "RandomAdjustSharpness", "RandomAffine", "RandomAutoContrast", "RandomColor",
    "RandomColorAdjust", "RandomCrop", "RandomCropDecodeResize", "RandomCropWithBBox",
    "RandomEqualize", "RandomErasing", "RandomGrayscale", "RandomHorizontalFlip",
    "RandomHorizontalFlipWithBBox", "RandomInvert", "RandomLighting", "RandomPerspective",
    "RandomPosterize", "RandomResize", "RandomResizeWithBBox", "RandomResizedCrop",
    "RandomResizedCropWithBBox", "RandomRotation", "RandomSelectSubpolicy", "RandomSharpness",
    "RandomSolarize", "RandomVerticalFlip", "RandomVerticalFlipWithBBox", "Rescale", "Resize",
    "ResizeWithBBox", "ResizedCrop", "RgbToHsv", "Rotate", "SliceMode", "SlicePatches",
    "Solarize", "TenCrop", "ToNumpy", "ToPIL", "ToTensor", "ToType", "TrivialAugmentWide",
    "UniformAugment", "VerticalFlip", "encode_jpeg", "encode_png", "fuse",
    "get_image_num_channels", "get_image_size", "not_random", "read_file", "read_image",
    "write_file", "write_jpeg", "write_png",
]
