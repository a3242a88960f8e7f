"""Argument and input checks shared by the vision operations; messages name the operation."""

from __future__ import annotations

import numbers

import numpy as np


def size_pair(op: str, size, name: str = "size") -> tuple[int, int]:
    """``size`` as (height, width): an int means a square."""
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        size = (size, size)
    if (not isinstance(size, (tuple, list)) or len(size) != 2
            or not all(isinstance(s, numbers.Integral) and not isinstance(s, bool) for s in size)):
        raise TypeError(f"{op}: {name} must be an int or a sequence of 2 ints, got {size!r}")
    if not all(1 <= s <= 16777216 for s in size):
        raise ValueError(f"{op}: {name} values must be in [1, 16777216], got {tuple(size)}")
    return int(size[0]), int(size[1])


def probability(op: str, prob) -> float:
    if not isinstance(prob, numbers.Real) or isinstance(prob, bool) or not 0 <= prob <= 1:
        raise ValueError(f"{op}: prob must be a number in [0, 1], got {prob!r}")
    return float(prob)


def image(op: str, x: np.ndarray, batched: bool = False) -> np.ndarray:
    """Check an image (H, W) or (H, W, C), or a batch of them when ``batched``."""
    lo = 3 if batched else 2
    if x.ndim not in (lo, lo + 1):
        what = "(N, H, W) or (N, H, W, C)" if batched else "<H, W> or <H, W, C>"
        raise ValueError(f"{op}: expected an image of shape {what}, got shape {x.shape}")
    if x.dtype.kind not in "biuf":
        raise TypeError(f"{op}: expected a numeric image, got dtype {x.dtype}")
    return x


def as_nhwc(x: np.ndarray) -> tuple[np.ndarray, bool]:
    """A batch (N, H, W[, C]) as (N, H, W, C); the flag says whether C was added."""
    if x.ndim == 3:
        return x[..., None], True
    return x, False


def channels_match(op: str, name: str, values, channels: int) -> None:
    if len(values) != channels:
        raise ValueError(f"{op}: {name} has {len(values)} values but the image has "
                         f"{channels} channels")


def pil_like(inp, out):
    """``out`` as a PIL image when ``inp`` was one (MindSpore's Python path returns PIL images
    for PIL inputs); numpy otherwise, and whenever PIL cannot hold ``out``."""
    if (hasattr(inp, "getbands") and isinstance(out, np.ndarray) and out.dtype == np.uint8
            and (out.ndim == 2 or (out.ndim == 3 and out.shape[2] in (3, 4)))):
        from PIL import Image

        return Image.fromarray(out)
    return out
