"""Regression metrics: ``MAE`` and ``MSE``.

As in MindSpore, the error of every element is summed and divided by the number of
*samples* (the first axis), not of elements: for ``(N, D)`` outputs the result is the
per-sample error summed over ``D``, averaged over ``N``.
"""

from __future__ import annotations

import numpy as np

from ms_nn.train.metrics.metric import Metric, check_inputs, empty_error, rearrange_inputs

__all__ = ["MAE", "MSE"]


class _ErrorSum(Metric):
    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._error_sum = 0.0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        name = type(self).__name__
        check_inputs(name, inputs, 2)
        y_pred, y = (self._convert_data(v) for v in inputs)
        if y.size != y_pred.size:
            raise ValueError(f"{name}.update: y (shape {y.shape}) must have as many elements "
                             f"as y_pred (shape {y_pred.shape})")
        diff = y.reshape(y_pred.shape) - y_pred
        self._error_sum += float(self._error(diff).sum())
        self._samples_num += y.shape[0] if y.ndim else 1

    def eval(self):
        if self._samples_num == 0:
            raise empty_error(self)
        return self._error_sum / self._samples_num


class MAE(_ErrorSum):
    """Mean absolute error per sample.

    >>> m = MAE()
    >>> m.update(Tensor([[0.1, 0.2], [0.6, 0.9]]), Tensor([[0.1, 0.25], [0.7, 0.9]]))
    >>> round(m.eval(), 6)
    0.075
    """

    _error = staticmethod(np.abs)


class MSE(_ErrorSum):
    """Mean squared error per sample.

    >>> m = MSE()
    >>> m.update(Tensor([[0.1, 0.2], [0.6, 0.9]]), Tensor([[0.1, 0.25], [0.7, 0.9]]))
    >>> round(m.eval(), 6)
    0.00625
    """

    _error = staticmethod(np.square)
