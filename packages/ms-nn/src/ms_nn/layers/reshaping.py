"""Layers that only rearrange: ``nn.PixelShuffle``, ``nn.PixelUnshuffle``, ``nn.Unflatten``."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell

__all__ = ["PixelShuffle", "PixelUnshuffle", "Unflatten"]


class PixelShuffle(Cell):
    """(..., C * r * r, H, W) to (..., C, H * r, W * r): sub-pixel upsampling.

    >>> PixelShuffle(2)(ops.ones((1, 4, 3, 3))).shape
    (1, 1, 6, 6)
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def construct(self, input):
        return ops.pixel_shuffle(input, self.upscale_factor)


class PixelUnshuffle(Cell):
    """(..., C, H * r, W * r) to (..., C * r * r, H, W), the inverse of PixelShuffle."""

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def construct(self, input):
        return ops.pixel_unshuffle(input, self.downscale_factor)


class Unflatten(Cell):
    """Axis ``axis`` split into ``unflattened_size``."""

    def __init__(self, axis, unflattened_size):
        super().__init__()
        if not isinstance(unflattened_size, (tuple, list)):
            raise TypeError(f"Unflatten: unflattened_size must be a tuple or list, got "
                            f"{unflattened_size!r}")
        self.axis, self.unflattened_size = axis, tuple(unflattened_size)

    def construct(self, input):
        return ops.unflatten(input, self.axis, self.unflattened_size)
