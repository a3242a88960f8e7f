"""``mindspore.dataset.vision.utils``: the enums (``Inter``, ``Border``, ``ConvertMode``, ...)
and the image file helpers."""

from ms_data.vision import (
    AutoAugmentPolicy,
    Border,
    ConvertMode,
    ImageBatchFormat,
    ImageReadMode,
    Inter,
    SliceMode,
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

__all__ = [
    "AutoAugmentPolicy", "Border", "ConvertMode", "ImageBatchFormat", "ImageReadMode", "Inter",
    "SliceMode", "encode_jpeg", "encode_png", "get_image_num_channels", "get_image_size",
    "read_file", "read_image", "write_file", "write_jpeg", "write_png",
]
