"""``Rprop`` (resilient back-propagation, sign-based steps) and ``ASGD`` (averaged SGD),
with MindSpore's arguments, state names and update rules."""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_nn.optim.optimizer import Optimizer, assign, clone_state
from ms_tensor import Parameter, ParameterTuple, Tensor, float32

__all__ = ["Rprop", "ASGD"]


class Rprop(Optimizer):
    """Each weight moves by its own step size against the gradient's sign; the step grows
    by ``etas[1]`` while the sign holds, shrinks by ``etas[0]`` when it flips (and that
    step is skipped), clipped to ``step_sizes``. Step sizes start at the learning rate.

    >>> w = Parameter(Tensor([1.0, 1.0]), name="w")
    >>> opt = Rprop([w], learning_rate=0.1)
    >>> for g in ([1.0, -1.0], [1.0, 1.0]): _ = opt((Tensor(g),))
    >>> w.asnumpy().round(4)
    array([0.78, 1.1 ], dtype=float32)
    """

    def __init__(self, params, learning_rate=0.1, etas=(0.5, 1.2), step_sizes=(1e-6, 50.0),
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        if not (isinstance(etas, tuple) and len(etas) == 2):
            raise ValueError(f"Rprop: etas must be a tuple of 2, got {etas!r}")
        if not (isinstance(step_sizes, tuple) and len(step_sizes) == 2):
            raise ValueError(f"Rprop: step_sizes must be a tuple of 2, got {step_sizes!r}")
        if step_sizes[0] > step_sizes[1]:
            raise ValueError(f"Rprop: the minimal step size {step_sizes[0]} exceeds the maximal "
                             f"{step_sizes[1]}")
        if etas[1] <= 1.0:
            raise ValueError(f"Rprop: etaplus (etas[1]) must be > 1.0, got {etas[1]}")
        self.etaminus, self.etaplus = float(etas[0]), float(etas[1])
        self.step_size_min, self.step_size_max = float(step_sizes[0]), float(step_sizes[1])
        self.prev = clone_state(self._parameters, "prev")
        self.step_size = clone_state(self._parameters, "step_size")

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        first = ops.equal(self.global_step, 1)
        for param, prev, step_p, grad, lr in zip(self._parameters, self.prev, self.step_size,
                                                gradients, lrs):
            step = ops.where(first, ops.ones_like(step_p) * ops.cast(lr, step_p.dtype), step_p)
            sign = ops.sign(grad * prev)
            factor = ops.where(sign > 0, ops.full_like(sign, self.etaplus),
                               ops.where(sign < 0, ops.full_like(sign, self.etaminus),
                                         ops.ones_like(sign)))
            step = ops.clip_by_value(step * factor, self.step_size_min, self.step_size_max)
            grad = ops.where(sign < 0, ops.zeros_like(grad), grad)
            assign(param, param - ops.sign(grad) * step)
            assign(prev, grad)
            assign(step_p, step)
        return True


class ASGD(Optimizer):
    """SGD with weight decay ``lambd`` whose step ``eta = lr / (1 + lambd lr t)^alpha``
    shrinks over time, keeping ``ax``, the running average of the weights from step ``t0``.

    >>> w = Parameter(Tensor([1.0]), name="w")
    >>> _ = ASGD([w], learning_rate=0.1, lambd=0.0)((Tensor([2.0]),)); w.asnumpy()
    array([0.8], dtype=float32)
    """

    def __init__(self, params, learning_rate=0.1, lambd=1e-4, alpha=0.75, t0=1e6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        self.lambd, self.alpha, self.t0 = float(lambd), float(alpha), float(t0)
        self.mu = ParameterTuple(Parameter(Tensor(np.array(1.0, np.float32)), name=f"mu_{p.name}")
                                 for p in self._parameters)
        self.eta = ParameterTuple(Parameter(Tensor(np.array(0.0, np.float32)),
                                            name=f"eta_{p.name}") for p in self._parameters)
        self.ax = clone_state(self._parameters, "ax_")

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        step = ops.cast(ops.reshape(self.global_step, ()), float32)
        for param, mu, eta, ax, grad, lr in zip(self._parameters, self.mu, self.eta, self.ax,
                                                gradients, lrs):
            lr = ops.reshape(ops.cast(lr, float32), ())
            eta_now = ops.where(step == 1, lr, eta)
            new = param * (1.0 - self.lambd * eta_now) - eta_now * grad
            assign(param, new)
            assign(ax, ops.where(mu != 1, ax + (new - ax) * mu, new))
            assign(eta, lr / ops.pow(1.0 + self.lambd * lr * step, self.alpha))
            assign(mu, 1.0 / ops.maximum(Tensor(1.0, float32), step - self.t0))
        return True
