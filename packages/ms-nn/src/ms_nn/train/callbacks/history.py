"""``History`` and ``LearningRateScheduler``."""

from __future__ import annotations

import math

import numpy as np

from ms_nn.train.callbacks.callback import Callback, loss_value
from ms_tensor import Tensor

__all__ = ["History", "LearningRateScheduler"]


class History(Callback):
    """Record the loss (``"net_output"``) and metrics at the end of every epoch.

    After training, ``history.epoch`` is ``{"epoch": [1, 2, ...]}`` and ``history.history``
    maps ``"net_output"`` (and each metric ``Model.fit`` computed) to per-epoch lists.
    """

    def __init__(self):
        self.history = {}
        self.epoch = None

    def begin(self, run_context):
        self.epoch = {"epoch": []}

    def epoch_end(self, run_context):
        cb = run_context.original_args()
        self.epoch["epoch"].append(cb.get("cur_epoch_num", 1))
        loss = loss_value(cb.get("net_outputs"))
        record = {"net_output": np.float32(loss) if loss is not None else cb.get("net_outputs")}
        record.update(cb.get("metrics") or {})
        for key, value in record.items():
            self.history.setdefault(key, []).append(value)


class LearningRateScheduler(Callback):
    """Change the optimizer's learning rate after every step.

    Args:
        learning_rate_function: ``fn(lr, cur_step_num) -> new_lr``; the optimizer's
            ``learning_rate`` Parameter is set to the result when it differs.
    """

    def __init__(self, learning_rate_function):
        if not callable(learning_rate_function):
            raise TypeError("LearningRateScheduler: learning_rate_function must be callable")
        self.learning_rate_function = learning_rate_function

    def step_end(self, run_context):
        cb = run_context.original_args()
        optimizer = cb.get("optimizer")
        lr_param = getattr(optimizer, "learning_rate", None)
        if lr_param is None:
            raise ValueError("LearningRateScheduler needs cb_params.optimizer with a "
                             "learning_rate Parameter")
        old = lr_param.asnumpy()
        if old.size != 1:
            raise ValueError("LearningRateScheduler works with a fixed learning rate, not a "
                             f"schedule of shape {old.shape}")
        lr = float(old.reshape(()))
        new = self.learning_rate_function(lr, cb.cur_step_num)
        if not math.isclose(lr, new, rel_tol=1e-10):
            lr_param.set_data(Tensor(np.full(old.shape, new, old.dtype)))
