"""PadEnd, Unique, RandomOrder and the ``not_random`` marker."""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.transforms.base import TensorOperation
from ms_data.transforms.compose import _Composite


class PadEnd(TensorOperation):
    """Pad each dimension at its end up to ``pad_shape`` with ``pad_value`` (0 or ``""`` by
    default); dimensions longer than ``pad_shape`` are cut."""

    def __init__(self, pad_shape, pad_value=None):
        if not isinstance(pad_shape, (list, tuple)) or not all(
                isinstance(s, numbers.Integral) and s >= 0 for s in pad_shape):
            raise TypeError(f"PadEnd: pad_shape must be a list of non-negative ints, "
                            f"got {pad_shape!r}")
        self.pad_shape = [int(s) for s in pad_shape]
        self.pad_value = pad_value

    def _row(self, x, rng):
        if x.ndim != len(self.pad_shape):
            raise ValueError(f"PadEnd: pad_shape {self.pad_shape} has {len(self.pad_shape)} "
                             f"dimensions but the row has shape {x.shape}")
        fill = self.pad_value
        if fill is None:
            fill = "" if x.dtype.kind in "US" else 0
        out = np.full(self.pad_shape, fill, dtype=x.dtype)
        keep = tuple(slice(0, min(a, b)) for a, b in zip(x.shape, self.pad_shape))
        out[keep] = x[keep]
        return out

    def batch_call(self, x, rng=None):
        return np.stack([self._row(r, rng) for r in x]) if len(x) else \
            np.empty((0, *self.pad_shape), x.dtype)


class Unique(TensorOperation):
    """The distinct values of a row (flattened) in order of first appearance, the index of
    each element's value among them, and each value's count: three outputs."""

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"Unique: expected 1 input, got {len(inputs)}")
        x = np.asarray(inputs[0]).ravel()
        values, first, inverse, counts = np.unique(x, return_index=True, return_inverse=True,
                                                   return_counts=True)
        order = np.argsort(first, kind="stable")
        rank = np.empty_like(order)
        rank[order] = np.arange(len(order))
        return (values[order], rank[inverse.ravel()].astype(np.int32),
                counts[order].astype(np.int32))


class RandomOrder(_Composite):
    """Apply all ``transforms``, in an order shuffled for each row."""

    is_random = True

    def _row(self, x, rng):
        order = rng.permutation(len(self.transforms))
        return self._run([self.transforms[i] for i in order], x, rng)

    def batch_call(self, x, rng=None):
        rng = rng if rng is not None else self._rng()
        return np.stack([self._row(r, rng) for r in x]) if len(x) else x.copy()


def not_random(function):
    """Mark a Python function used as a transform as deterministic (MindSpore's decorator;
    the pipeline's caching and seeding then treat it as such)."""
    function.random = False
    return function
