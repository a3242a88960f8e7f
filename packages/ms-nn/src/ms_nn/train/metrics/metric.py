"""``Metric``: the clear / update / eval protocol that ``Model.eval`` drives."""

from __future__ import annotations

import functools

import numpy as np

from ms_tensor import Tensor

__all__ = ["Metric", "rearrange_inputs"]


def rearrange_inputs(func):
    """Decorate ``update`` so that it receives only the inputs chosen by ``set_indexes``.

    ``Model.eval`` hands every metric ``(loss, outputs, label)``; a metric that wants other
    positions calls ``metric.set_indexes([...])`` and the wrapped ``update`` sees just those.
    """

    @functools.wraps(func)
    def wrapper(self, *inputs):
        indexes = self.indexes
        if indexes is not None:
            inputs = [inputs[i] for i in indexes]
        return func(self, *inputs)

    return wrapper


class Metric:
    """Base class of evaluation metrics; subclasses define ``clear``, ``update`` and ``eval``.

    Calling a metric object runs ``clear``, ``update(*inputs)`` and returns ``eval()``.

    >>> class Mean(Metric):
    ...     def clear(self): self.total, self.n = 0.0, 0
    ...     def update(self, x): self.total += float(self._convert_data(x).sum()); self.n += x.size
    ...     def eval(self): return self.total / self.n
    >>> Mean()(Tensor([1.0, 3.0]))
    2.0
    """

    def __init__(self):
        self._indexes = None

    @property
    def indexes(self):
        """The positions of ``update``'s inputs this metric uses, or None for all of them."""
        return getattr(self, "_indexes", None)

    def set_indexes(self, indexes):
        """Choose which of ``Model.eval``'s ``(loss, outputs, label)`` this metric receives.

        Only takes effect on an ``update`` decorated with ``rearrange_inputs``.
        """
        if not isinstance(indexes, (list, tuple)) or not all(isinstance(i, int) for i in indexes):
            raise ValueError(f"{type(self).__name__}.set_indexes: indexes must be a list of "
                             f"ints, got {indexes!r}")
        self._indexes = list(indexes)
        return self

    @staticmethod
    def _convert_data(data) -> np.ndarray:
        """A numpy array from a Tensor, numpy array, list or number."""
        if isinstance(data, Tensor):
            return data.asnumpy()
        if isinstance(data, np.ndarray):
            return data
        if isinstance(data, (list, tuple, int, float, np.number)):
            return np.asarray(data)
        raise TypeError(f"metric input must be a Tensor, numpy array, list or number, got "
                        f"{type(data).__name__}")

    def clear(self):
        raise NotImplementedError(f"{type(self).__name__} must define clear()")

    def update(self, *inputs):
        raise NotImplementedError(f"{type(self).__name__} must define update()")

    def eval(self):
        raise NotImplementedError(f"{type(self).__name__} must define eval()")

    def __call__(self, *inputs):
        self.clear()
        self.update(*inputs)
        return self.eval()


def empty_error(metric: Metric) -> RuntimeError:
    """The error every metric raises when ``eval`` runs before any ``update``."""
    return RuntimeError(f"The '{type(metric).__name__}' can not be calculated, because the "
                        f"number of samples is 0: call update() with data before eval()")


def check_inputs(who: str, inputs, n: int) -> None:
    if len(inputs) != n:
        raise ValueError(f"{who}.update: expected {n} inputs, got {len(inputs)}")


def class_predictions(who: str, y_pred: np.ndarray, y: np.ndarray):
    """Turn ``(N, C)`` scores and ``(N,)`` indices or ``(N, C)`` one-hot labels into indices."""
    if y_pred.ndim != 2:
        raise ValueError(f"{who}.update: y_pred must have shape (N, C), got {y_pred.shape}")
    if y.ndim == 2 and y.shape == y_pred.shape:
        y = y.argmax(axis=1)
    elif y.ndim != 1:
        y = y.reshape(-1)
    if y.shape[0] != y_pred.shape[0]:
        raise ValueError(f"{who}.update: y_pred has {y_pred.shape[0]} samples but y has "
                         f"{y.shape[0]} (y_pred shape {y_pred.shape}, y shape {y.shape})")
    return y_pred.argmax(axis=1), y.astype(np.int64)


def check_binary(who: str, y_pred: np.ndarray, y: np.ndarray) -> None:
    """Multilabel inputs must be 0/1 arrays of the same shape."""
    if y_pred.shape != y.shape:
        raise ValueError(f"{who}.update: in the multilabel case y_pred and y must have the "
                         f"same shape, got {y_pred.shape} and {y.shape}")
    for name, a in (("y_pred", y_pred), ("y", y)):
        if not np.isin(a, (0, 1)).all():
            raise ValueError(f"{who}.update: in the multilabel case every element of {name} "
                             f"must be 0 or 1")
