"""``Accuracy``: the fraction of samples classified correctly."""

from __future__ import annotations

import numpy as np

from ms_nn.train.metrics.metric import (
    Metric,
    check_binary,
    check_inputs,
    class_predictions,
    empty_error,
    rearrange_inputs,
)

__all__ = ["Accuracy"]


class Accuracy(Metric):
    """Accuracy over every ``update`` since the last ``clear``.

    Args:
        eval_type: ``"classification"`` (``y_pred`` scores ``(N, C)``, ``y`` indices ``(N,)``
            or one-hot ``(N, C)``) or ``"multilabel"`` (0/1 arrays of the same shape; a sample
            counts as correct only when its whole row matches).

    >>> import numpy as np
    >>> m = Accuracy()
    >>> m.update(np.array([[0.1, 0.9], [0.8, 0.2]]), np.array([1, 1]))
    >>> float(m.eval())
    0.5
    """

    def __init__(self, eval_type: str = "classification"):
        super().__init__()
        if eval_type not in ("classification", "multilabel"):
            raise ValueError(f"Accuracy: eval_type must be 'classification' or 'multilabel', "
                             f"got {eval_type!r}")
        self._type = eval_type
        self.clear()

    def clear(self):
        self._correct_num = 0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        check_inputs("Accuracy", inputs, 2)
        y_pred = self._convert_data(inputs[0])
        y = self._convert_data(inputs[1])
        if self._type == "classification":
            pred, label = class_predictions("Accuracy", y_pred, y)
            correct = pred == label
        else:
            check_binary("Accuracy", y_pred, y)
            correct = (y_pred == y).reshape(y.shape[0], -1).all(axis=1)
        self._correct_num += int(correct.sum())
        self._total_num += correct.shape[0]

    def eval(self):
        if self._total_num == 0:
            raise empty_error(self)
        return np.float64(self._correct_num / self._total_num)
