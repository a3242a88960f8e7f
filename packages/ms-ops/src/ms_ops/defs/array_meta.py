"""What a tensor is, not what it holds: ``ops.shape``/``rank``/``size``/``numel`` and their
Primitive forms ``ops.Shape()``, ``ops.Rank()``, ``ops.Size()``.

They return Python values (a tuple, ints), as MindSpore's do: shapes are static, so in a
compiled graph they are constants, and nothing here reads a tensor's data.
``ops.dyn_shape`` returns the shape as an int64 tensor.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.opdef import functional
from ms_tensor.tensor import Tensor


def _checked(name: str, x) -> Tensor:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(x).__name__}")
    return x


@functional("shape")
def shape(input_x) -> tuple:
    """``ops.shape``: the shape as a tuple of ints.

    >>> ops.shape(ops.ones((2, 3)))
    (2, 3)
    """
    return tuple(_checked("shape", input_x).shape)


@functional("rank")
def rank(input_x) -> int:
    """``ops.rank``: the number of axes."""
    return len(_checked("rank", input_x).shape)


@functional("size", "numel")
def size(input_x) -> int:
    """``ops.size``/``ops.numel``: the number of elements."""
    return math.prod(_checked("size", input_x).shape)


@functional("dyn_shape")
def dyn_shape(input_x) -> Tensor:
    """``ops.dyn_shape``: the shape as a 1-D int64 tensor."""
    return Tensor(np.array(_checked("dyn_shape", input_x).shape, np.int64))


class _Query:
    """A Primitive-style wrapper: ``ops.Shape()(x)`` calls :func:`shape`."""

    fn = staticmethod(shape)

    def __call__(self, x):
        return self.fn(x)

    def __repr__(self) -> str:
        return f"Prim[{type(self).__name__}]"


@functional("Shape")
class Shape(_Query):
    """``ops.Shape()(x)``: the shape as a tuple of ints."""

    fn = staticmethod(shape)


@functional("Rank")
class Rank(_Query):
    """``ops.Rank()(x)``: the number of axes."""

    fn = staticmethod(rank)


@functional("Size")
class Size(_Query):
    """``ops.Size()(x)``: the number of elements."""

    fn = staticmethod(size)
