"""Decoding and colour: Decode, ConvertColor, Grayscale."""

from __future__ import annotations

import numpy as np

from ms_data.transforms.base import TensorOperation
from ms_data.vision.enums import ConvertMode
from ms_data.vision.geometry import _ImageOp


class Decode(TensorOperation):
    """Encoded image bytes (JPEG, PNG, BMP, ...) to an RGB (H, W, 3) uint8 array (Pillow).

    Rows differ in size, so there is no batch form. ``to_pil=True`` returns the PIL image.
    Bytes Pillow cannot read are a DatasetError.
    """

    gil_free = False

    def __init__(self, to_pil=False):
        self.to_pil = bool(to_pil)

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"Decode: expected 1 input, got {len(inputs)}")
        data = inputs[0]
        if isinstance(data, np.ndarray):
            if data.dtype != np.uint8 or data.ndim != 1:
                raise TypeError(f"Decode: expected encoded bytes as a 1-D uint8 array, got "
                                f"shape {data.shape} dtype {data.dtype}")
            data = data.tobytes()
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"Decode: expected bytes, got {type(data).__name__}")
        from ms_data.sources.image_folder import decode_image

        return decode_image(bytes(data), f"Decode's input of {len(data)} bytes", self.to_pil)


_GRAY_RGB = (9798, 19235, 3735)  # OpenCV's 15-bit fixed-point luma weights, R G B
_GRAY_F = (0.299, 0.587, 0.114)

_PERMUTE = {  # mode: (source channel order for the output's first 3 channels, add alpha)
    ConvertMode.COLOR_BGR2BGRA: ((0, 1, 2), True),
    ConvertMode.COLOR_BGRA2BGR: ((0, 1, 2), False),
    ConvertMode.COLOR_BGR2RGBA: ((2, 1, 0), True),
    ConvertMode.COLOR_RGBA2BGR: ((2, 1, 0), False),
    ConvertMode.COLOR_BGR2RGB: ((2, 1, 0), False),
}


def _gray(x: np.ndarray, rgb: bool) -> np.ndarray:
    r, g, b = (x[..., 0], x[..., 1], x[..., 2]) if rgb else (x[..., 2], x[..., 1], x[..., 0])
    if x.dtype == np.uint8:
        wr, wg, wb = _GRAY_RGB
        y = (r.astype(np.int32) * wr + g.astype(np.int32) * wg + b.astype(np.int32) * wb
             + (1 << 14)) >> 15
        return y.astype(np.uint8)
    wr, wg, wb = (np.float32(v) for v in _GRAY_F)
    return (r * wr + g * wg + b * wb).astype(x.dtype)


def _alpha(x: np.ndarray) -> np.ndarray:
    full = 255 if x.dtype == np.uint8 else 1
    return np.full(x.shape[:-1] + (1,), full, dtype=x.dtype)


class ConvertColor(_ImageOp):
    """Convert between RGB, BGR, RGBA, BGRA and gray (OpenCV's conversions and rounding)."""

    def __init__(self, convert_mode):
        try:
            self.convert_mode = ConvertMode(convert_mode)
        except ValueError:
            raise TypeError(f"ConvertColor: convert_mode must be a ConvertMode, "
                            f"got {convert_mode!r}") from None

    def batch_call(self, x, rng=None):
        m = self.convert_mode
        gray_in = m in (ConvertMode.COLOR_GRAY2BGR, ConvertMode.COLOR_GRAY2BGRA)
        want = 1 if gray_in else (4 if m in (ConvertMode.COLOR_BGRA2BGR,
                                              ConvertMode.COLOR_RGBA2BGR,
                                              ConvertMode.COLOR_BGRA2RGBA,
                                              ConvertMode.COLOR_BGRA2GRAY,
                                              ConvertMode.COLOR_RGBA2GRAY) else 3)
        if gray_in and x.ndim == 3:
            x = x[..., None]
        if x.ndim != 4 or x.shape[-1] != want:
            raise ValueError(f"ConvertColor: {m.name} needs images with {want} channel(s), "
                             f"got batch shape {x.shape}")
        if gray_in:
            out = np.repeat(x, 3, axis=-1)
            return np.concatenate([out, _alpha(x)], -1) if m == ConvertMode.COLOR_GRAY2BGRA \
                else out
        if m in (ConvertMode.COLOR_BGR2GRAY, ConvertMode.COLOR_BGRA2GRAY):
            return _gray(x, rgb=False)
        if m in (ConvertMode.COLOR_RGB2GRAY, ConvertMode.COLOR_RGBA2GRAY):
            return _gray(x, rgb=True)
        if m == ConvertMode.COLOR_BGRA2RGBA:
            return np.ascontiguousarray(x[..., [2, 1, 0, 3]])
        order, alpha = _PERMUTE[m]
        out = x[..., list(order)]
        return np.concatenate([out, _alpha(x)], -1) if alpha else np.ascontiguousarray(out)


class Grayscale(_ImageOp):
    """RGB (H, W, 3) to gray with Pillow's luma weights: (H, W) for ``num_output_channels=1``,
    (H, W, 3) with the gray value repeated for 3. PIL images are accepted as well."""

    keeps_pil = True

    def __init__(self, num_output_channels=1):
        if num_output_channels not in (1, 3):
            raise ValueError(f"Grayscale: num_output_channels must be 1 or 3, "
                             f"got {num_output_channels!r}")
        self.num_output_channels = num_output_channels

    def _pil(self, img, rng):
        from ms_data.vision import pil_path

        return pil_path.grayscale(img, self.num_output_channels)

    def batch_call(self, x, rng=None):
        if x.ndim != 4 or x.shape[-1] != 3:
            raise ValueError(f"Grayscale: expected RGB images (N, H, W, 3), got shape {x.shape}")
        r, g, b = (x[..., i].astype(np.int64) for i in range(3))
        gray = ((r * 19595 + g * 38470 + b * 7471 + 0x8000) >> 16).astype(x.dtype)
        if x.dtype != np.uint8:
            gray = (x[..., 0] * 0.299 + x[..., 1] * 0.587 + x[..., 2] * 0.114).astype(x.dtype)
        return gray if self.num_output_channels == 1 else np.repeat(gray[..., None], 3, axis=-1)
