"""``Adagrad``: per-coordinate rates from the running sum of squared gradients."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.optim.optimizer import Optimizer, assign, clone_state

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """``accum += g**2`` (when ``update_slots``), then ``param -= lr * g / sqrt(accum)``.

    Args:
        params: list of Parameters or parameter groups (see ``Optimizer``).
        accum: the accumulators' starting value (> 0 keeps the first step finite).
        learning_rate: float, Tensor, list or ``LearningRateSchedule`` (default 1e-3).
        update_slots: whether the accumulators grow.
        loss_scale, weight_decay: see ``Optimizer``.
    """

    def __init__(self, params, accum=0.1, learning_rate=0.001, update_slots=True,
                 loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(accum, bool) or not isinstance(accum, float):
            raise TypeError(f"Adagrad: accum must be a float, got {type(accum).__name__}")
        if accum < 0.0:
            raise ValueError(f"Adagrad: accum must be >= 0.0, got {accum}")
        if not isinstance(update_slots, bool):
            raise TypeError(f"Adagrad: update_slots must be a bool, got "
                            f"{type(update_slots).__name__}")
        self.update_slots = update_slots
        self.accum = clone_state(self._parameters, "accum", accum)

    def construct(self, grads):
        grads, lrs = self._prepare(grads)
        for param, accum, grad, lr in zip(self._parameters, self.accum, grads, lrs):
            if self.update_slots:
                assign(accum, accum + ops.square(grad))
            assign(param, param - ops.cast(lr, grad.dtype) * grad / ops.sqrt(accum))
        return True
