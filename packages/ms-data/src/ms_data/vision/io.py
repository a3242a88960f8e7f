"""Reading and writing files and images: read_file, write_file, read_image, encode_jpeg,
encode_png, write_jpeg, write_png, get_image_size, get_image_num_channels (Pillow)."""

from __future__ import annotations

import io
import numbers
import os

import numpy as np

from ms_data.transforms.base import to_array
from ms_data.vision import _checks
from ms_data.vision.enums import ImageReadMode


def read_file(filename) -> np.ndarray:
    """A file's bytes as a 1-D uint8 array."""
    if not isinstance(filename, (str, os.PathLike)) or not os.path.isfile(filename):
        raise ValueError(f"read_file: {filename!r} is not an existing file")
    with open(filename, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8).copy()


def write_file(filename, data) -> None:
    """Write a 1-D uint8 array's bytes to ``filename``."""
    data = to_array("write_file", data)
    if data.dtype != np.uint8 or data.ndim != 1:
        raise TypeError(f"write_file: data must be a 1-D uint8 array, got shape {data.shape} "
                        f"dtype {data.dtype}")
    with open(filename, "wb") as f:
        f.write(data.tobytes())


def _pil(op: str, image):
    from PIL import Image

    x = to_array(op, image)
    if x.dtype != np.uint8 or x.ndim not in (2, 3) or (x.ndim == 3 and x.shape[2] not in (1, 3)):
        raise ValueError(f"{op}: expected a uint8 image <H, W>, <H, W, 1> or <H, W, 3>, got "
                         f"shape {x.shape} dtype {x.dtype}")
    return Image.fromarray(x[..., 0] if x.ndim == 3 and x.shape[2] == 1 else x)


def _encode(image, fmt: str, **kw) -> np.ndarray:
    buf = io.BytesIO()
    image.save(buf, format=fmt, **kw)
    return np.frombuffer(buf.getvalue(), dtype=np.uint8).copy()


def _level(op: str, name: str, v, lo: int, hi: int) -> int:
    if not isinstance(v, numbers.Integral) or not lo <= v <= hi:
        raise ValueError(f"{op}: {name} must be an int in [{lo}, {hi}], got {v!r}")
    return int(v)


def encode_jpeg(image, quality=75) -> np.ndarray:
    """JPEG bytes (1-D uint8) of an RGB or gray uint8 image."""
    q = _level("encode_jpeg", "quality", quality, 1, 100)
    return _encode(_pil("encode_jpeg", image), "JPEG", quality=q)


def encode_png(image, compression_level=6) -> np.ndarray:
    """PNG bytes (1-D uint8) of an RGB or gray uint8 image."""
    c = _level("encode_png", "compression_level", compression_level, 0, 9)
    return _encode(_pil("encode_png", image), "PNG", compress_level=c)


def write_jpeg(filename, image, quality=75) -> None:
    write_file(filename, encode_jpeg(image, quality))


def write_png(filename, image, compression_level=6) -> None:
    write_file(filename, encode_png(image, compression_level))


def read_image(filename, mode=ImageReadMode.UNCHANGED) -> np.ndarray:
    """Decode an image file to (H, W, C) uint8: as stored (gray as 1 channel), GRAYSCALE
    (1 channel) or COLOR (RGB)."""
    from ms_data.vision.color import Decode

    mode = ImageReadMode(mode)
    data = read_file(filename)
    img = Decode(to_pil=True)(data) if mode == ImageReadMode.COLOR else None
    if img is None:
        from PIL import Image

        with Image.open(io.BytesIO(data.tobytes())) as raw:
            if mode == ImageReadMode.GRAYSCALE or raw.mode in ("L", "1", "I", "I;16"):
                img = raw.convert("L")
            else:
                img = raw.convert("RGBA" if "A" in raw.getbands() else "RGB")
    x = np.asarray(img)
    return x[..., None] if x.ndim == 2 else x


def get_image_size(image) -> list:
    """[height, width] of a numpy (H, W[, C]) or PIL image."""
    if hasattr(image, "getbands"):
        return [image.size[1], image.size[0]]
    x = to_array("get_image_size", image)
    _checks.image("get_image_size", x)
    return [int(x.shape[0]), int(x.shape[1])]


def get_image_num_channels(image) -> int:
    """The number of channels: C of (H, W, C), 1 for (H, W), the bands of a PIL image."""
    if hasattr(image, "getbands"):
        return len(image.getbands())
    x = to_array("get_image_num_channels", image)
    _checks.image("get_image_num_channels", x)
    return 1 if x.ndim == 2 else int(x.shape[2])
