"""``Momentum``: SGD with a velocity, through ms-ops' fused ``ApplyMomentum``."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.optim.optimizer import Optimizer, clone_state
from ms_tensor import Parameter, Tensor, float32

__all__ = ["Momentum"]


class Momentum(Optimizer):
    """``moment = momentum * moment + gradient``, then ``param -= lr * moment``
    (Nesterov: ``param -= lr * (gradient + momentum * moment)``).

    Args:
        params: list of Parameters or parameter groups (see ``Optimizer``).
        learning_rate: float, Tensor, list or ``LearningRateSchedule``.
        momentum: float >= 0.
        weight_decay, loss_scale: see ``Optimizer``.
        use_nesterov: use Nesterov momentum.

    >>> from ms_tensor import Parameter, Tensor
    >>> w = Parameter(Tensor([1.0]), name="w")
    >>> opt = Momentum([w], learning_rate=0.1, momentum=0.9)
    >>> opt((Tensor([1.0]),)) and round(float(w[0]), 6)
    0.9
    """

    def __init__(self, params, learning_rate, momentum, weight_decay=0.0, loss_scale=1.0,
                 use_nesterov=False):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        if isinstance(momentum, bool) or not isinstance(momentum, float):
            raise TypeError(f"Momentum: momentum must be a float, got {type(momentum).__name__}")
        if momentum < 0.0:
            raise ValueError(f"Momentum: momentum must be at least 0.0, got {momentum}")
        if not isinstance(use_nesterov, bool):
            raise TypeError(f"Momentum: use_nesterov must be a bool, got "
                            f"{type(use_nesterov).__name__}")
        self.momentum = Parameter(Tensor(momentum, float32), name="momentum")
        self.params = self._parameters
        self.use_nesterov = use_nesterov
        self.moments = clone_state(self._parameters, "moments")
        self.opt = ops.ApplyMomentum(use_nesterov=use_nesterov)

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        opt, momentum = self.opt, self.momentum
        for param, moment, grad, lr in zip(self._parameters, self.moments, gradients, lrs):
            opt(param, moment, lr, grad, momentum)
        return True
