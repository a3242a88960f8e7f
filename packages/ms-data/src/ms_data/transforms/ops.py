"""Tensor operations of ``mindspore.dataset.transforms`` that work on any column."""

from __future__ import annotations

import numbers
import operator
from enum import IntEnum

import numpy as np

from ms_data.transforms.base import TensorOperation


def numpy_dtype(op: str, data_type) -> np.dtype:
    """An ms_tensor dtype (``ms_tensor.int32``), a numpy dtype or a type name, as numpy's."""
    np_dtype = getattr(data_type, "np", None)
    if isinstance(np_dtype, np.dtype):
        return np_dtype
    try:
        return np.dtype(data_type)
    except TypeError:
        raise TypeError(f"{op}: data_type must be an ms_tensor or numpy dtype, "
                        f"got {data_type!r}") from None


class TypeCast(TensorOperation):
    """Cast to ``data_type`` (``ms_tensor.int32`` or a numpy dtype)."""

    def __init__(self, data_type):
        self.data_type = data_type
        self.np_dtype = numpy_dtype("TypeCast", data_type)

    def _row(self, x, rng):
        return np.asarray(x).astype(self.np_dtype)

    def batch_call(self, x, rng=None):
        return x.astype(self.np_dtype)


class OneHot(TensorOperation):
    """Class index -> one-hot vector of ``num_classes`` (with label smoothing when
    ``smoothing_rate`` > 0: ``1 - rate + rate / n`` for the class, ``rate / n`` elsewhere)."""

    def __init__(self, num_classes, smoothing_rate=0.0):
        if not isinstance(num_classes, numbers.Integral) or num_classes < 1:
            raise ValueError(f"OneHot: num_classes must be a positive int, got {num_classes!r}")
        if not isinstance(smoothing_rate, numbers.Real) or not 0 <= smoothing_rate <= 1:
            raise ValueError(f"OneHot: smoothing_rate must be in [0, 1], got {smoothing_rate!r}")
        self.num_classes = int(num_classes)
        self.smoothing_rate = float(smoothing_rate)

    def _row(self, x, rng):
        return self.batch_call(np.asarray(x))

    def batch_call(self, x, rng=None):
        if x.dtype.kind not in "iu":
            raise TypeError(f"OneHot: expected integer class indices, got dtype {x.dtype}")
        if x.size and (x.min() < 0 or x.max() >= self.num_classes):
            raise ValueError(f"OneHot: class indices must be in [0, {self.num_classes}), got "
                             f"values in [{x.min()}, {x.max()}] (shape {x.shape})")
        hot = x[..., None] == np.arange(self.num_classes)
        if self.smoothing_rate == 0:
            return hot.astype(x.dtype)
        rate = self.smoothing_rate
        off = rate / self.num_classes
        return np.where(hot, 1 - rate + off, off).astype(np.float32)


class Fill(TensorOperation):
    """Every element replaced by ``fill_value`` (cast to the input's dtype)."""

    def __init__(self, fill_value):
        if not isinstance(fill_value, (numbers.Number, str, bytes, np.generic)):
            raise TypeError(f"Fill: fill_value must be a number or a string, got {fill_value!r}")
        self.fill_value = fill_value

    def _row(self, x, rng):
        return self.batch_call(np.asarray(x))

    def batch_call(self, x, rng=None):
        return np.full_like(x, self.fill_value)


class Concatenate(TensorOperation):
    """1-D row with ``prepend`` before it and ``append`` after it (MindSpore: axis 0 only)."""

    def __init__(self, axis=0, prepend=None, append=None):
        if axis not in (0, -1):
            raise ValueError(f"Concatenate: only axis 0 (or -1) is supported, got {axis!r}")
        self.axis = axis
        self.prepend = None if prepend is None else np.asarray(prepend)
        self.append = None if append is None else np.asarray(append)

    def _row(self, x, rng):
        x = np.asarray(x)
        if x.ndim != 1:
            raise ValueError(f"Concatenate: expected a 1-D row, got shape {x.shape}")
        parts = [p for p in (self.prepend, x, self.append) if p is not None]
        return np.concatenate(parts)

    def batch_call(self, x, rng=None):
        if x.ndim != 2:
            raise ValueError(f"Concatenate: expected a batch of 1-D rows, got shape {x.shape}")
        parts = [np.broadcast_to(p, (x.shape[0], p.shape[0])).astype(x.dtype, copy=False)
                 if p is not None else None for p in (self.prepend, None, self.append)]
        parts[1] = x
        return np.concatenate([p for p in parts if p is not None], axis=1)


class Duplicate(TensorOperation):
    """Two copies of the row (map with two output columns)."""

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"Duplicate: expected 1 input, got {len(inputs)}")
        x = np.asarray(inputs[0])
        return x, x.copy()


class Relational(IntEnum):
    """Comparisons for Mask."""

    EQ = 0
    NE = 1
    GT = 2
    GE = 3
    LT = 4
    LE = 5


_COMPARE = {Relational.EQ: operator.eq, Relational.NE: operator.ne, Relational.GT: operator.gt,
            Relational.GE: operator.ge, Relational.LT: operator.lt, Relational.LE: operator.le}


class Mask(TensorOperation):
    """``row <operator> constant`` element-wise, as ``dtype`` (bool by default)."""

    def __init__(self, operator, constant, dtype=np.bool_):
        self.operator = Relational(operator)
        self.constant = constant
        self.np_dtype = numpy_dtype("Mask", dtype)

    def _row(self, x, rng):
        return self.batch_call(np.asarray(x))

    def batch_call(self, x, rng=None):
        return _COMPARE[self.operator](x, self.constant).astype(self.np_dtype)


class Slice(TensorOperation):
    """Index each row with ``slices`` (ints, lists, slices, None = all, Ellipsis), one per
    dimension."""

    def __init__(self, *slices):
        self.slices = tuple(slice(None) if s is None else s for s in slices)

    def _row(self, x, rng):
        x = np.asarray(x)
        if len(self.slices) > x.ndim:
            raise ValueError(f"Slice: {len(self.slices)} slices for a row of shape {x.shape}")
        return np.asarray(x[self.slices])

    def batch_call(self, x, rng=None):
        if len(self.slices) > x.ndim - 1:
            raise ValueError(f"Slice: {len(self.slices)} slices for rows of shape {x.shape[1:]}")
        return np.asarray(x[(slice(None),) + self.slices])
