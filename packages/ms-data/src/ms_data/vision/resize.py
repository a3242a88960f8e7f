"""Resize, and the batched resizer that the cropping transforms reuse."""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.kernels import load, threads_for
from ms_data.transforms.base import TensorOperation
from ms_data.vision import _checks
from ms_data.vision import resize_tables as rt
from ms_data.vision.enums import Inter

_kernel = load("_resize")

_REFERENCE = {
    Inter.NEAREST: rt.nearest_ref,
    Inter.BILINEAR: rt.linear_ref,
    Inter.BICUBIC: rt.cubic_ref,
    Inter.AREA: rt.area_ref,
    Inter.PILCUBIC: rt.pil_cubic_ref,
}


def output_size(size, h: int, w: int) -> tuple[int, int]:
    """MindSpore's rule: an int resizes the shorter edge and keeps the aspect ratio."""
    if isinstance(size, tuple):
        return size
    if h <= w:
        return size, max(1, int(w * size / h))
    return max(1, int(h * size / w)), size


def resize_nhwc(op: str, x: np.ndarray, oh: int, ow: int, mode: Inter,
                use_kernel: bool = True) -> np.ndarray:
    """Resize a batch (N, H, W, C) to (N, oh, ow, C); Cython for nearest and bilinear."""
    n, h, w, c = x.shape
    if mode == Inter.PILCUBIC and x.dtype != np.uint8:
        raise TypeError(f"{op}: Inter.PILCUBIC needs uint8 images, got dtype {x.dtype}")
    if (oh, ow) == (h, w) and mode != Inter.PILCUBIC:
        return x.copy()
    if _kernel is not None and use_kernel:
        if mode == Inter.NEAREST:
            xc = np.ascontiguousarray(x)
            out = np.empty((n, oh, ow, c), dtype=x.dtype)
            pb = c * x.dtype.itemsize
            _kernel.nearest(xc.view(np.uint8).reshape(n, h, w * pb),
                            out.view(np.uint8).reshape(n, oh, ow * pb),
                            rt.nearest_table(w, ow), rt.nearest_table(h, oh), pb,
                            threads_for(out.size))
            return out
        if mode == Inter.BILINEAR and x.dtype in (np.uint8, np.float32):
            xi, xw, xiw = rt.linear_table(w, ow)
            yi, yw, yiw = rt.linear_table(h, oh, vertical=True)
            xc = np.ascontiguousarray(x)
            out = np.empty((n, oh, ow, c), dtype=x.dtype)
            if x.dtype == np.uint8:
                _kernel.linear_u8(xc, out, xi.ravel(), xiw.ravel(), yi.ravel(), yiw.ravel(),
                                  threads_for(out.size))
            else:
                _kernel.linear_f32(xc, out, xi.ravel(), xw.ravel(), yi.ravel(), yw.ravel(),
                                   threads_for(out.size))
            return out
    if mode == Inter.NEAREST or x.dtype in (np.uint8, np.float32):
        return _REFERENCE[mode](x, oh, ow)
    out = _REFERENCE[mode](x.astype(np.float32), oh, ow)
    if x.dtype.kind in "iub":
        info = np.iinfo(x.dtype) if x.dtype.kind != "b" else None
        out = np.rint(out) if info is None else np.clip(np.rint(out), info.min, info.max)
    return out.astype(x.dtype)


def check_interpolation(op: str, interpolation) -> Inter:
    try:
        mode = Inter(interpolation)
    except ValueError:
        raise TypeError(f"{op}: interpolation must be an Inter mode, "
                        f"got {interpolation!r}") from None
    if mode == Inter.ANTIALIAS:
        raise ValueError(f"{op}: Inter.ANTIALIAS applies to PIL images only; numpy images "
                         "support NEAREST, BILINEAR, BICUBIC, AREA and PILCUBIC")
    return mode


class Resize(TensorOperation):
    """Resize an image (H, W) or (H, W, C) to ``size``: (height, width), or an int for the
    shorter edge (the other edge keeps the aspect ratio, rounded down)."""

    def __init__(self, size, interpolation=Inter.LINEAR):
        if isinstance(size, numbers.Integral) and not isinstance(size, bool):
            if size < 1:
                raise ValueError(f"Resize: size must be at least 1, got {size}")
            self.size = int(size)
        else:
            self.size = _checks.size_pair("Resize", size)
        antialias = isinstance(interpolation, Inter) and interpolation == Inter.ANTIALIAS
        self.interpolation = Inter.ANTIALIAS if antialias else check_interpolation(
            "Resize", interpolation)  # ANTIALIAS serves PIL images only

    def __call__(self, *inputs):
        if len(inputs) == 1 and hasattr(inputs[0], "getbands"):  # MindSpore's Pillow path
            from ms_data.vision import pil_path

            return pil_path.resize(inputs[0], self.size, self.interpolation)
        return super().__call__(*inputs)

    def _row(self, x, rng):
        _checks.image("Resize", x)
        return self.batch_call(x[None])[0]

    def batch_call(self, x, rng=None):
        if self.interpolation == Inter.ANTIALIAS:
            check_interpolation("Resize", self.interpolation)  # raises: numpy has no ANTIALIAS
        _checks.image("Resize", x, batched=True)
        xb, added = _checks.as_nhwc(x)
        oh, ow = output_size(self.size, xb.shape[1], xb.shape[2])
        out = resize_nhwc("Resize", xb, oh, ow, self.interpolation)
        return out[..., 0] if added else out
