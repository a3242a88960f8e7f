"""Padding layers: ``nn.ConstantPad1d/2d/3d``, ``nn.ZeroPad2d``, ``nn.ReflectionPad1d/2d/3d``,
``nn.ReplicationPad1d/2d/3d`` and ``nn.Pad``, all on ms-ops' PadV3.

``padding`` is an int (every side of the last 1, 2 or 3 axes) or a tuple listing (before,
after) for the last axis first, as ``ops.pad`` takes it. ``nn.Pad`` takes MindSpore's
``paddings``, one (before, after) pair per axis from the first, and ``mode`` "CONSTANT",
"REFLECT" or "SYMMETRIC".
"""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell
from ms_ops.defs.array_slice import PadV3

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad2d", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "Pad"]


class _PadNd(Cell):
    dims = 1
    mode = "constant"

    def __init__(self, padding, value=None):
        super().__init__()
        name = type(self).__name__
        if isinstance(padding, int) and not isinstance(padding, bool):
            padding = (padding,) * (2 * self.dims)
        if not isinstance(padding, (tuple, list)) or len(padding) != 2 * self.dims or not all(
                isinstance(p, int) and not isinstance(p, bool) for p in padding):
            raise ValueError(f"{name}: padding must be an int or a tuple of {2 * self.dims} "
                             f"ints, got {padding!r}")
        self.padding = tuple(padding)
        self.value = value

    def construct(self, x):
        if x.ndim < self.dims + 1:
            raise ValueError(f"{type(self).__name__}: input must have at least "
                             f"{self.dims + 1} axes, got shape {x.shape}")
        return ops.pad(x, self.padding, mode=self.mode, value=self.value)


class ConstantPad1d(_PadNd):
    """Pad the last axis with ``value``.

    >>> ConstantPad1d((1, 2), 9.0)(Tensor([[1.0]])).asnumpy()
    array([[9., 1., 9., 9.]], dtype=float32)
    """


class ConstantPad2d(_PadNd):
    """Pad the last two axes with ``value``."""

    dims = 2


class ConstantPad3d(_PadNd):
    """Pad the last three axes with ``value``."""

    dims = 3


class ZeroPad2d(_PadNd):
    """Pad the last two axes with zeros."""

    dims = 2

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class _CopyPad(_PadNd):
    def __init__(self, padding):
        super().__init__(padding, None)


class ReflectionPad1d(_CopyPad):
    """Mirror the last axis (the edge not repeated)."""

    mode = "reflect"


class ReflectionPad2d(_CopyPad):
    """Mirror the last two axes (the edge not repeated)."""

    dims, mode = 2, "reflect"


class ReflectionPad3d(_CopyPad):
    """Mirror the last three axes (the edge not repeated)."""

    dims, mode = 3, "reflect"


class ReplicationPad1d(_CopyPad):
    """Repeat the edge of the last axis."""

    mode = "replicate"


class ReplicationPad2d(_CopyPad):
    """Repeat the edges of the last two axes."""

    dims, mode = 2, "replicate"


class ReplicationPad3d(_CopyPad):
    """Repeat the edges of the last three axes."""

    dims, mode = 3, "replicate"


_PAD_MODES = {"CONSTANT": "constant", "REFLECT": "reflect", "SYMMETRIC": "symmetric"}


class Pad(Cell):
    """Pad every axis by ``paddings[i] = (before, after)``: zeros ("CONSTANT"), a mirror
    without the edge ("REFLECT") or with it ("SYMMETRIC").

    >>> Pad(((1, 0), (0, 2)), "SYMMETRIC")(Tensor([[1.0, 2.0]])).asnumpy()
    array([[1., 2., 2., 1.],
           [1., 2., 2., 1.]], dtype=float32)
    """

    def __init__(self, paddings, mode="CONSTANT"):
        super().__init__()
        if mode not in _PAD_MODES:
            raise ValueError(f"Pad: mode must be 'CONSTANT', 'REFLECT' or 'SYMMETRIC', got "
                             f"{mode!r}")
        if not isinstance(paddings, (tuple, list)) or not all(
                isinstance(p, (tuple, list)) and len(p) == 2 for p in paddings):
            raise ValueError(f"Pad: paddings must be ((before, after), ...) per axis, got "
                             f"{paddings!r}")
        self.paddings = tuple(tuple(p) for p in paddings)
        self.mode = mode

    def construct(self, x):
        if len(self.paddings) != x.ndim:
            raise ValueError(f"Pad: {len(self.paddings)} (before, after) pairs for input shape "
                             f"{x.shape}")
        flat = tuple(v for pair in reversed(self.paddings) for v in pair)
        return PadV3(x, flat, 0, mode=_PAD_MODES[self.mode])
