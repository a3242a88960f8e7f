"""``SGD``: stochastic gradient descent with optional momentum, dampening and Nesterov."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.optim.optimizer import Optimizer, clone_state
from ms_tensor import Parameter, Tensor, float32

__all__ = ["SGD"]


def _nonnegative_float(name, value):
    if isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if not isinstance(value, float):
        raise TypeError(f"SGD: {name} must be a float, got {type(value).__name__}")
    if value < 0.0:
        raise ValueError(f"SGD: {name} must be at least 0.0, got {value}")
    return value


class SGD(Optimizer):
    """Without momentum ``param -= lr * gradient``. With momentum the first step sets
    ``accum = gradient`` and later ones ``accum = momentum * accum + (1 - dampening) *
    gradient``; then ``param -= lr * accum`` (Nesterov: ``lr * (gradient + momentum *
    accum)``). The ``stat`` state marks whether a Parameter has taken its first step.

    Args:
        params: list of Parameters or parameter groups (see ``Optimizer``).
        learning_rate: float, Tensor, list or ``LearningRateSchedule`` (default 0.1).
        momentum, dampening: floats >= 0.
        weight_decay: float (a schedule is not accepted, as in MindSpore).
        nesterov: needs ``momentum > 0`` and ``dampening == 0``.
        loss_scale: see ``Optimizer``.
    """

    def __init__(self, params, learning_rate=0.1, momentum=0.0, dampening=0.0, weight_decay=0.0,
                 nesterov=False, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        momentum = _nonnegative_float("momentum", momentum)
        self.dampening = _nonnegative_float("dampening", dampening)
        if not isinstance(nesterov, bool):
            raise TypeError(f"SGD: nesterov must be a bool, got {type(nesterov).__name__}")
        if nesterov and (momentum <= 0.0 or self.dampening != 0.0):
            raise ValueError(f"SGD: nesterov needs momentum > 0.0 and dampening 0.0, got "
                             f"momentum {momentum}, dampening {self.dampening}")
        if self.dynamic_weight_decay:
            raise TypeError("SGD: weight_decay must be a float or an int; a dynamic weight "
                            "decay is not supported by SGD")
        self.nesterov = nesterov
        # Decided once, as a Python value: a branch on the Parameter's value would be
        # baked into a compiled step (a momentum of 0 set later still computes right).
        self._use_momentum = momentum > 0.0
        self.momentum = Parameter(Tensor(momentum, float32), name="momentum")
        self.accum = clone_state(self._parameters, "accum")
        self.stat = clone_state(self._parameters, "stat", 1.0)
        self._momentum_op = ops.ApplyMomentum(use_nesterov=nesterov)
        self._descent_op = ops.ApplyGradientDescent()

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        momentum = self.momentum
        use_momentum = self._use_momentum
        keep = 1.0 - self.dampening
        for param, accum, stat, grad, lr in zip(self._parameters, self.accum, self.stat,
                                                gradients, lrs):
            if not use_momentum:
                self._descent_op(param, lr, grad)
                continue
            # On the first step (stat > 0) accum becomes the gradient, undamped; written
            # with operators rather than a Python branch on the value, so a graph trace
            # of the step replays it correctly.
            first = ops.cast(ops.greater(stat, 0), accum.dtype)
            ops.Assign()(accum, accum * (1 - first))
            if keep != 1.0:
                grad = grad * (first + (1 - first) * Tensor(keep, float32))
            ops.Assign()(stat, ops.zeros_like(stat))
            self._momentum_op(param, accum, lr, grad, momentum)
        return True
