"""Operations made of operations: Compose, RandomApply, RandomChoice."""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.transforms.base import TensorOperation, as_operation


def _op_list(op: str, transforms) -> list[TensorOperation]:
    if not isinstance(transforms, (list, tuple)) or not transforms:
        raise TypeError(f"{op}: transforms must be a non-empty list, got {transforms!r}")
    return [as_operation(t) for t in transforms]


class _Composite(TensorOperation):
    def __init__(self, transforms):
        self.transforms = _op_list(type(self).__name__, transforms)

    @property
    def gil_free(self):
        return all(t.gil_free for t in self.transforms)

    @property
    def python_callable(self):
        return any(t.python_callable for t in self.transforms)

    def _batchable(self) -> bool:
        return all(getattr(t, "batch_call", None) is not None for t in self.transforms)

    def _run(self, ts, x, rng):
        for t in ts:
            x = t._row(x, rng) if isinstance(t, TensorOperation) and t.batch_call is not None \
                else t(x)
        return x

    def _run_batch(self, ts, x, rng):
        for t in ts:
            x = t.batch_call(x, rng)
        return x


class Compose(_Composite):
    """Apply ``transforms`` in order, as one operation."""

    @property
    def is_random(self):
        return any(t.is_random for t in self.transforms)

    def __call__(self, *inputs):
        if len(inputs) == 1 and self._batchable():
            return super().__call__(*inputs)
        out = inputs
        for t in self.transforms:
            out = t(*out) if isinstance(out, tuple) else t(out)
        return out

    def _row(self, x, rng):
        return self._run(self.transforms, x, rng)

    def batch_call(self, x, rng=None):
        if not self._batchable():
            raise TypeError("Compose: batch_call needs every transform to offer batch_call")
        return self._run_batch(self.transforms, x, rng)


def _merge(op: str, x: np.ndarray, groups, rng) -> np.ndarray:
    """Rows of ``x`` transformed group by group: ``groups`` is [(row mask, ops)]."""
    out = None
    for mask, fn in groups:
        if not mask.any():
            continue
        part = fn(x[mask], rng)
        if out is None:
            out = np.empty((x.shape[0],) + part.shape[1:], dtype=part.dtype)
        if part.shape[1:] != out.shape[1:] or part.dtype != out.dtype:
            raise ValueError(f"{op}: its transforms give rows of different shapes or dtypes "
                             f"({out.shape[1:]} {out.dtype} vs {part.shape[1:]} {part.dtype}); "
                             "it cannot transform a batch")
        out[mask] = part
    return x.copy() if out is None else out


class RandomApply(_Composite):
    """Apply all ``transforms`` in order with probability ``prob``, else nothing."""

    is_random = True

    def __init__(self, transforms, prob=0.5):
        super().__init__(transforms)
        if not isinstance(prob, numbers.Real) or not 0 <= prob <= 1:
            raise ValueError(f"RandomApply: prob must be in [0, 1], got {prob!r}")
        self.prob = float(prob)

    def _row(self, x, rng):
        return self._run(self.transforms, x, rng) if rng.random() < self.prob else x

    def batch_call(self, x, rng=None):
        if not self._batchable():
            raise TypeError("RandomApply: batch_call needs every transform to offer batch_call")
        rng = rng if rng is not None else self._rng()
        on = rng.random(x.shape[0]) < self.prob
        return _merge("RandomApply", x, [(on, lambda v, r: self._run_batch(self.transforms, v, r)),
                                         (~on, lambda v, r: v)], rng)


class RandomChoice(_Composite):
    """Apply one of ``transforms``, chosen uniformly for each row."""

    is_random = True

    def _row(self, x, rng):
        return self._run([self.transforms[rng.integers(len(self.transforms))]], x, rng)

    def batch_call(self, x, rng=None):
        if not self._batchable():
            raise TypeError("RandomChoice: batch_call needs every transform to offer batch_call")
        rng = rng if rng is not None else self._rng()
        pick = rng.integers(len(self.transforms), size=x.shape[0])
        groups = [(pick == i, t.batch_call) for i, t in enumerate(self.transforms)]
        return _merge("RandomChoice", x, groups, rng)
