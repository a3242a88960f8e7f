"""``RMSProp``, plain and centered."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.optim.optimizer import Optimizer, assign, clone_state

__all__ = ["RMSProp"]


class RMSProp(Optimizer):
    """``ms = decay * ms + (1 - decay) * g**2``;
    ``moment = momentum * moment + lr * g / sqrt(ms + epsilon)``; ``param -= moment``.
    Centered, ``ms - mean_grad**2`` replaces ``ms`` under the root, with
    ``mean_grad = decay * mean_grad + (1 - decay) * g``. ``mean_square`` starts at ones,
    as in MindSpore.

    Args:
        params: list of Parameters or parameter groups (see ``Optimizer``).
        learning_rate: float, Tensor, list or ``LearningRateSchedule`` (default 0.1).
        decay, momentum: floats >= 0; epsilon: float > 0.
        use_locking: accepted for compatibility.
        centered: the centered variant.
        loss_scale, weight_decay: see ``Optimizer``.
    """

    def __init__(self, params, learning_rate=0.1, decay=0.9, momentum=0.0, epsilon=1e-10,
                 use_locking=False, centered=False, loss_scale=1.0, weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        for name, value in (("decay", decay), ("momentum", momentum), ("epsilon", epsilon)):
            if isinstance(value, bool) or not isinstance(value, float):
                raise TypeError(f"RMSProp: {name} must be a float, got {type(value).__name__}")
            if value < 0.0 or (name == "epsilon" and value == 0.0):
                raise ValueError(f"RMSProp: {name} must be {'> 0' if name == 'epsilon' else '>= 0'}"
                                 f", got {value}")
        for name, value in (("use_locking", use_locking), ("centered", centered)):
            if not isinstance(value, bool):
                raise TypeError(f"RMSProp: {name} must be a bool, got {type(value).__name__}")
        self.decay = decay
        self.momentum = momentum
        self.epsilon = epsilon
        self.centered = centered
        if centered:
            self.mg = clone_state(self._parameters, "mean_grad")
        self.ms = clone_state(self._parameters, "mean_square", 1.0)
        self.moment = clone_state(self._parameters, "moment")

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        decay, keep = self.decay, 1.0 - self.decay
        mgs = self.mg if self.centered else (None,) * self.param_length
        for param, mg, ms, mom, grad, lr in zip(self._parameters, mgs, self.ms, self.moment,
                                                gradients, lrs):
            assign(ms, ms * decay + ops.square(grad) * keep)
            denom = ms
            if mg is not None:
                assign(mg, mg * decay + grad * keep)
                denom = ms - ops.square(mg)
            assign(mom, mom * self.momentum + ops.cast(lr, grad.dtype) * grad
                   / ops.sqrt(denom + self.epsilon))
            assign(param, param - mom)
        return True
