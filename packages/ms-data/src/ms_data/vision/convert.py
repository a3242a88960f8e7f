"""Type and layout conversions: ToPIL, ToNumpy, ToType, NormalizePad, LinearTransformation."""

from __future__ import annotations

import numpy as np

from ms_data.transforms.base import TensorOperation, to_array
from ms_data.transforms.ops import TypeCast, numpy_dtype
from ms_data.vision import _checks
from ms_data.vision.pointwise import Normalize


class ToPIL(TensorOperation):
    """A decoded (H, W[, C]) uint8 image (or a PIL image, returned as is) as a PIL image."""

    gil_free = False

    def __call__(self, img):
        if hasattr(img, "getbands"):
            return img
        from PIL import Image

        x = to_array("ToPIL", img)
        _checks.image("ToPIL", x)
        if x.ndim == 3 and x.shape[2] == 1:
            x = x[..., 0]
        if x.ndim == 3 and (x.dtype != np.uint8 or x.shape[2] not in (3, 4)):
            raise TypeError(f"ToPIL: a <H, W, C> image must be uint8 with 3 or 4 channels, got "
                            f"shape {x.shape} dtype {x.dtype}")
        return Image.fromarray(x)


class ToNumpy(TensorOperation):
    """A PIL image (or any array-like) as a numpy array."""

    def __call__(self, img):
        return np.array(to_array("ToNumpy", img))


class ToType(TypeCast):
    """Cast to ``data_type`` (``vision``'s name for ``transforms.TypeCast``)."""


class NormalizePad(TensorOperation):
    """Normalize (H, W, C) per channel, then append a zero channel; output ``dtype`` is
    float32 or float16. (Not a pointwise step: ``fuse`` leaves it whole.)"""

    def __init__(self, mean, std, dtype="float32", is_hwc=True):
        self._normalize = Normalize(mean, std, is_hwc)
        self.mean, self.std, self.is_hwc = self._normalize.mean, self._normalize.std, is_hwc
        self.dtype = np.dtype(numpy_dtype("NormalizePad", dtype))
        if self.dtype not in (np.float32, np.float16):
            raise ValueError(f"NormalizePad: dtype must be float32 or float16, got {dtype!r}")

    def _row(self, x, rng):
        _checks.image("NormalizePad", x)
        return self.batch_call(x[None])[0]

    def batch_call(self, x, rng=None):
        out = self._normalize.batch_call(x).astype(self.dtype)
        axis = -1 if self.is_hwc else 1
        if out.ndim == 3:
            out, axis = out[..., None], -1
        pad = np.zeros_like(np.take(out, [0], axis=axis))
        return np.concatenate([out, pad], axis=axis)


class LinearTransformation(TensorOperation):
    """Flatten, subtract ``mean_vector``, multiply by ``transformation_matrix`` (D x D), and
    reshape back (whitening, as torchvision's)."""

    def __init__(self, transformation_matrix, mean_vector):
        m = np.asarray(transformation_matrix)
        v = np.asarray(mean_vector)
        if m.ndim != 2 or m.shape[0] != m.shape[1] or v.shape != (m.shape[0],):
            raise ValueError(f"LinearTransformation: expected a square (D, D) matrix and a (D,) "
                             f"mean vector, got {m.shape} and {v.shape}")
        self.transformation_matrix, self.mean_vector = m, v

    def _row(self, x, rng):
        d = self.mean_vector.shape[0]
        if x.size != d:
            raise ValueError(f"LinearTransformation: the input has {x.size} elements (shape "
                             f"{x.shape}) but the matrix is {d} x {d}")
        flat = x.reshape(1, -1) - self.mean_vector
        return (flat @ self.transformation_matrix).reshape(x.shape).astype(x.dtype)
