"""How an int8 tensor maps to real numbers: ``real = scale * (q - zero_point)``."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["QuantParam"]


@dataclass(frozen=True, eq=False)
class QuantParam:
    """Scales and zero points of one tensor: one pair per tensor (``axis == -1``) or one
    per channel along ``axis`` (weights: symmetric, zero points 0)."""

    scale: np.ndarray
    zero_point: np.ndarray
    axis: int = -1

    def __post_init__(self):
        object.__setattr__(self, "scale", np.atleast_1d(np.asarray(self.scale, np.float64)))
        object.__setattr__(self, "zero_point",
                           np.atleast_1d(np.asarray(self.zero_point, np.int64)))

    def __eq__(self, other) -> bool:
        return (isinstance(other, QuantParam) and self.axis == other.axis
                and np.array_equal(self.scale, other.scale)
                and np.array_equal(self.zero_point, other.zero_point))

    def __repr__(self) -> str:
        if self.scale.size == 1:
            return f"QuantParam(scale={self.scale[0]:.6g}, zero_point={self.zero_point[0]})"
        return f"QuantParam({self.scale.size} channels on axis {self.axis})"
