"""Top-k categorical accuracy: the true class is among the k highest scores."""

from __future__ import annotations

import numpy as np

from ms_nn.train.metrics.metric import (
    Metric,
    check_inputs,
    class_predictions,
    empty_error,
    rearrange_inputs,
)

__all__ = ["TopKCategoricalAccuracy", "Top1CategoricalAccuracy", "Top5CategoricalAccuracy"]


class TopKCategoricalAccuracy(Metric):
    """Fraction of samples whose label is among the ``k`` largest of ``y_pred``'s scores.

    Args:
        k: how many of the top scores count (positive int, at most the number of classes).
    """

    def __init__(self, k: int):
        super().__init__()
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise ValueError(f"{type(self).__name__}: k must be a positive int, got {k!r}")
        self.k = k
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        who = type(self).__name__
        check_inputs(who, inputs, 2)
        y_pred = self._convert_data(inputs[0])
        _, label = class_predictions(who, y_pred, self._convert_data(inputs[1]))
        if self.k > y_pred.shape[1]:
            raise ValueError(f"{who}.update: k={self.k} is larger than the number of classes "
                             f"{y_pred.shape[1]} (y_pred shape {y_pred.shape})")
        # Stable descending order, so ties break towards the lower class index.
        top = np.argsort(-y_pred, axis=1, kind="stable")[:, :self.k]
        self._correct_num += int((top == label[:, None]).any(axis=1).sum())
        self._samples_num += label.shape[0]

    def eval(self):
        if self._samples_num == 0:
            raise empty_error(self)
        return np.float64(self._correct_num / self._samples_num)


class Top1CategoricalAccuracy(TopKCategoricalAccuracy):
    """``TopKCategoricalAccuracy`` with ``k=1``."""

    def __init__(self):
        super().__init__(1)


class Top5CategoricalAccuracy(TopKCategoricalAccuracy):
    """``TopKCategoricalAccuracy`` with ``k=5``."""

    def __init__(self):
        super().__init__(5)
