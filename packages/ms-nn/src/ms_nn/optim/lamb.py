"""``Lamb``: layer-wise adaptive moments (You et al. 2019): Adam's bias-corrected step
plus weight decay, scaled per Parameter by the trust ratio ||w|| / ||step||."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.optim.optimizer import Optimizer, assign, clone_state
from ms_tensor import float32

__all__ = ["Lamb"]


class Lamb(Optimizer):
    """``m, v`` as Adam's; ``step = m_hat / (sqrt(v_hat) + eps) + weight_decay * w``;
    ``w -= lr * ratio * step`` with ``ratio = ||w|| / ||step||`` (1 when either is 0).

    >>> w = Parameter(Tensor([3.0, 4.0]), name="w")
    >>> _ = Lamb([w], learning_rate=0.1)((Tensor([1.0, 0.0]),)); w.asnumpy().round(4)
    array([2.5, 4. ], dtype=float32)
    """

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        for name, v in (("beta1", beta1), ("beta2", beta2)):
            if not 0.0 < v < 1.0:
                raise ValueError(f"Lamb: {name} must be in (0.0, 1.0), got {v}")
        if eps <= 0:
            raise ValueError(f"Lamb: eps must be > 0, got {eps}")
        self.beta1, self.beta2, self.eps = float(beta1), float(beta2), float(eps)
        self.moments1 = clone_state(self._parameters, "lamb_m")
        self.moments2 = clone_state(self._parameters, "lamb_v")

    def construct(self, gradients):
        weight_decay = self.get_weight_decay()
        gradients = self.gradients_centralization(tuple(gradients))
        lr = self.get_lr()
        ops.AssignAdd()(self.global_step, 1)
        step = ops.cast(ops.reshape(self.global_step, ()), float32)
        bc1 = 1 - ops.pow(self.beta1, step)
        bc2 = 1 - ops.pow(self.beta2, step)
        decays = weight_decay if isinstance(weight_decay, tuple) else \
            (weight_decay,) * len(self._parameters)
        lrs = lr if self.is_group_lr else (lr,) * len(self._parameters)
        for param, m, v, grad, wd, lr_p, flag in zip(self._parameters, self.moments1,
                                                     self.moments2, gradients, decays, lrs,
                                                     self.decay_flags):
            m_new = assign(m, m * self.beta1 + grad * (1 - self.beta1))
            v_new = assign(v, v * self.beta2 + grad * grad * (1 - self.beta2))
            update = (m_new / bc1) / (ops.sqrt(v_new / bc2) + self.eps)
            if flag:
                update = update + wd * param
            w_norm = ops.sqrt(ops.sum(param * param))
            u_norm = ops.sqrt(ops.sum(update * update))
            ratio = ops.where(ops.logical_and(w_norm > 0, u_norm > 0),
                              w_norm / ops.where(u_norm > 0, u_norm, ops.ones_like(u_norm)),
                              ops.ones_like(w_norm))
            assign(param, param - ops.cast(lr_p, param.dtype) * ratio * update)
        return True
