"""``Loss``: the mean of the losses ``Model.eval`` produces."""

from __future__ import annotations

import numpy as np

from ms_nn.train.metrics.metric import Metric, check_inputs, empty_error, rearrange_inputs

__all__ = ["Loss"]


class Loss(Metric):
    """Average loss over the ``update`` calls; a 1-d loss counts as its mean.

    >>> m = Loss()
    >>> m.update(2.0); m.update([1.0, 3.0])
    >>> float(m.eval())
    2.0
    """

    def __init__(self):
        super().__init__()
        self.clear()

    def clear(self):
        self._sum_loss = 0.0
        self._total_num = 0

    @rearrange_inputs
    def update(self, *inputs):
        check_inputs("Loss", inputs, 1)
        loss = self._convert_data(inputs[0])
        if loss.ndim > 1:
            raise ValueError(f"Loss.update: the loss must be a scalar or 1-d, got shape "
                             f"{loss.shape}")
        self._sum_loss += float(np.mean(loss))
        self._total_num += 1

    def eval(self):
        if self._total_num == 0:
            raise empty_error(self)
        return np.float64(self._sum_loss / self._total_num)  # MindSpore's type
