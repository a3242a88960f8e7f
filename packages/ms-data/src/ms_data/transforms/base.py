"""What a data operation is: callable on one row, optionally on a whole stacked batch.

Every transform in ``ms_data.vision`` and ``ms_data.transforms`` derives from
:class:`TensorOperation`. Calling it (``op(img)``) transforms one row's numpy array, as in
MindSpore. ``batch_call(x, rng)`` transforms a stacked batch ``(rows, *row_shape)`` at once;
``map`` uses it when every operation of a map offers one (``batch_call`` is not ``None``)
and the column has a fixed row shape, and otherwise calls the operations row by row.

Three class attributes tell ``map`` how to schedule an operation:

* ``is_random`` -- the operation draws from the generator it is given, so ``map`` passes it
  ``ctx.rng("map", op_index, batch_index)`` and results do not depend on the worker count;
* ``gil_free`` -- ``batch_call`` spends its time in numpy or Cython with the GIL released, so
  threads scale;
* ``python_callable`` -- a plain user function, worth a worker process when
  ``python_multiprocessing=True``.
"""

from __future__ import annotations

import numpy as np

from ms_data._recorded import Recorded

__all__ = ["TensorOperation", "PyFunc", "as_operation", "row_rng", "to_array"]


def to_array(op: str, x) -> np.ndarray:
    """One row's data as a numpy array (PIL images and Tensors included)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "asnumpy"):
        return x.asnumpy()
    try:
        return np.asarray(x)
    except Exception as exc:  # noqa: BLE001 -- any conversion failure means "not an array"
        raise TypeError(f"{op}: expected a numpy array, got {type(x).__name__}") from exc


def row_rng() -> np.random.Generator:
    """A generator for row-by-row calls of random operations.

    Seeded from ``ms_data.config``'s seed when the user set one (``ds.config.set_seed``), so
    eager calls repeat across runs like MindSpore's; fresh entropy otherwise.
    """
    from ms_data import config  # late: config is not needed to define operations

    seed = config.get_seed()
    return np.random.default_rng(None if seed == config._DEFAULT_SEED else seed)


class TensorOperation(Recorded):
    """Base of every data operation (MindSpore's ``TensorOperation``)."""

    is_random = False
    gil_free = True
    python_callable = False

    def __call__(self, *inputs):
        if len(inputs) != 1:
            raise TypeError(f"{type(self).__name__}: expected 1 input, got {len(inputs)}")
        return self._row(to_array(type(self).__name__, inputs[0]), self._rng())

    def _rng(self) -> np.random.Generator | None:
        if not self.is_random:
            return None
        rng = self.__dict__.get("_row_generator")
        if rng is None:
            rng = self._row_generator = row_rng()
        return rng

    #: ``batch_call(x, rng)`` in subclasses that transform a stacked batch ``(rows, *row_shape)``
    #: at once; ``None`` where only row-by-row calls make sense (Decode, variable shapes).
    batch_call = None

    def _row(self, x: np.ndarray, rng: np.random.Generator | None) -> np.ndarray:
        """Transform one row; ``rng`` is ``None`` unless the operation is random."""
        return self.batch_call(x[None], rng)[0]

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


class PyFunc(TensorOperation):
    """A plain Python callable used as an operation (MindSpore accepts functions and lambdas).

    It sees and returns whole rows (one argument per input column), runs row by row and,
    holding the GIL, goes to worker processes when ``python_multiprocessing=True``.
    """

    gil_free = False
    python_callable = True

    def __init__(self, fn):
        if not callable(fn):
            raise TypeError(f"PyFunc: expected a callable, got {type(fn).__name__}")
        self.fn = fn

    def __call__(self, *inputs):
        return self.fn(*inputs)


def as_operation(op) -> TensorOperation:
    """``op`` itself when it is an operation, else a callable wrapped in :class:`PyFunc`."""
    if isinstance(op, TensorOperation):
        return op
    return PyFunc(op)
