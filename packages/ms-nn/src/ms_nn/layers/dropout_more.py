"""MindSpore's channel dropouts ``nn.Dropout1d/2d/3d``: in training each (sample, channel)
is zeroed with probability ``p`` and the rest scaled by 1 / (1 - p); in inference the
input passes unchanged."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell

__all__ = ["Dropout1d", "Dropout2d", "Dropout3d"]


class _ChannelDropout(Cell):
    fn = None

    def __init__(self, p=0.5):
        super().__init__()
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0 <= p <= 1:
            raise ValueError(f"{type(self).__name__}: p must be a number in [0, 1], got {p!r}")
        self.p = float(p)

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return type(self).fn(x, self.p, True)


class Dropout1d(_ChannelDropout):
    """Channel dropout of (N, C, L).

    >>> Dropout1d(0.5)(ops.ones((2, 3, 4))).shape
    (2, 3, 4)
    """

    fn = staticmethod(ops.dropout1d)


class Dropout2d(_ChannelDropout):
    """Channel dropout of (N, C, H, W).

    >>> Dropout2d(0.5)(ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)
    """

    fn = staticmethod(ops.dropout2d)


class Dropout3d(_ChannelDropout):
    """Channel dropout of (N, C, D, H, W).

    >>> Dropout3d(0.5)(ops.ones((2, 3, 2, 2, 2))).shape
    (2, 3, 2, 2, 2)
    """

    fn = staticmethod(ops.dropout3d)
