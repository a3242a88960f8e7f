"""``Adadelta`` and ``AdaMax``: the two adaptive methods of MindSpore's optimizer list that
Adam's family did not cover."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.optim.optimizer import Optimizer, assign, clone_state
from ms_tensor import Parameter, Tensor, float32

__all__ = ["Adadelta", "AdaMax"]


def _floats(who, **values):
    for name, value in values.items():
        if isinstance(value, bool) or not isinstance(value, float):
            raise TypeError(f"{who}: {name} must be a float, got {type(value).__name__}")


class Adadelta(Optimizer):
    """Zeiler's Adadelta: ``accum = rho accum + (1 - rho) g^2``; ``update = sqrt(accum_update
    + eps) / sqrt(accum + eps) * g``; ``accum_update = rho accum_update + (1 - rho)
    update^2``; ``param -= lr * update``.

    Args:
        params: list of Parameters or parameter groups (see ``Optimizer``).
        learning_rate: float, Tensor, list or ``LearningRateSchedule`` (default 1.0).
        rho: decay of both running averages, in [0, 1]; epsilon: > 0.
        loss_scale, weight_decay: see ``Optimizer``.
    """

    def __init__(self, params, learning_rate=1.0, rho=0.9, epsilon=1e-6, loss_scale=1.0,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _floats("Adadelta", rho=rho, epsilon=epsilon)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Adadelta: rho must be in [0.0, 1.0], got {rho}")
        if epsilon <= 0.0:
            raise ValueError(f"Adadelta: epsilon must be > 0.0, got {epsilon}")
        self.rho, self.epsilon = rho, epsilon
        self.accum = clone_state(self._parameters, "accum")
        self.accum_update = clone_state(self._parameters, "accum_update")

    def construct(self, grads):
        grads, lrs = self._prepare(grads)
        rho, keep = self.rho, 1.0 - self.rho
        for param, accum, accum_update, grad, lr in zip(self._parameters, self.accum,
                                                        self.accum_update, grads, lrs):
            assign(accum, accum * rho + ops.square(grad) * keep)
            update = ops.sqrt(accum_update + self.epsilon) / ops.sqrt(accum + self.epsilon) * grad
            assign(accum_update, accum_update * rho + ops.square(update) * keep)
            assign(param, param - ops.cast(lr, grad.dtype) * update)
        return True


class AdaMax(Optimizer):
    """Adam with the infinity norm: ``m = beta1 m + (1 - beta1) g``; ``v = max(beta2 v,
    |g|)``; ``param -= lr / (1 - beta1^t) * m / (v + eps)``.

    Args:
        params: list of Parameters or parameter groups (see ``Optimizer``).
        learning_rate: float, Tensor, list or ``LearningRateSchedule`` (default 0.001).
        beta1, beta2: in (0, 1); eps: > 0.
        weight_decay, loss_scale: see ``Optimizer``.
    """

    def __init__(self, params, learning_rate=0.001, beta1=0.9, beta2=0.999, eps=1e-08,
                 weight_decay=0.0, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _floats("AdaMax", beta1=beta1, beta2=beta2, eps=eps)
        for name, value in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 < value < 1.0:
                raise ValueError(f"AdaMax: {name} must be in (0.0, 1.0), got {value}")
        if eps <= 0.0:
            raise ValueError(f"AdaMax: eps must be > 0.0, got {eps}")
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.beta1_power = Parameter(Tensor(1.0, float32), name="beta1_power")
        self.moment1 = clone_state(self._parameters, "moment1")
        self.moment2 = clone_state(self._parameters, "moment2")

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        assign(self.beta1_power, ops.mul(self.beta1_power, self.beta1))
        for param, m, v, grad, lr in zip(self._parameters, self.moment1, self.moment2,
                                         gradients, lrs):
            assign(m, m * self.beta1 + grad * (1.0 - self.beta1))
            assign(v, ops.maximum(v * self.beta2, ops.abs(grad)))
            step = ops.cast(lr, grad.dtype) / (1.0 - ops.cast(self.beta1_power, grad.dtype))
            assign(param, param - step * m / (v + self.eps))
        return True
