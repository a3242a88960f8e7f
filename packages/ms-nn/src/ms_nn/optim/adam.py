"""Adam (ms-ops' fused ``Adam`` kernel), AdamWeightDecay and AdamW."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.optim.optimizer import Optimizer, assign, clone_state
from ms_tensor import Parameter, Tensor, float32

__all__ = ["Adam", "AdamWeightDecay", "AdamW"]


def _check_betas(who, beta1, beta2, eps):
    for name, value in (("beta1", beta1), ("beta2", beta2), ("eps", eps)):
        if isinstance(value, bool) or not isinstance(value, float):
            raise TypeError(f"{who}: {name} must be a float, got {type(value).__name__}")
    for name, value in (("beta1", beta1), ("beta2", beta2)):
        if not 0.0 < value < 1.0:
            raise ValueError(f"{who}: {name} must be in (0.0, 1.0), got {value}")
    if eps <= 0.0:
        raise ValueError(f"{who}: eps must be > 0.0, got {eps}")


def _check_bool(who, name, value):
    if not isinstance(value, bool):
        raise TypeError(f"{who}: {name} must be a bool, got {type(value).__name__}")


class Adam(Optimizer):
    """Adam with bias correction folded into the step size:
    ``m += (1 - beta1) * (g - m)``, ``v += (1 - beta2) * (g*g - v)``,
    ``param -= lr * sqrt(1 - beta2**t) / (1 - beta1**t) * m / (sqrt(v) + eps)``.

    Args:
        params: list of Parameters or parameter groups (see ``Optimizer``).
        learning_rate: float, Tensor, list or ``LearningRateSchedule`` (default 1e-3).
        beta1, beta2, eps: Adam's constants.
        use_locking: accepted for compatibility (updates are never concurrent here).
        use_nesterov: Nesterov's momentum in the step.
        weight_decay, loss_scale: see ``Optimizer``.
        use_amsgrad: keep the running maximum of ``v`` and step with it.
        use_lazy, use_offload: accepted; with dense gradients they compute the same
            update.
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 use_locking=False, use_nesterov=False, weight_decay=0.0, loss_scale=1.0,
                 use_amsgrad=False, **kwargs):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        unknown = set(kwargs) - {"use_lazy", "use_offload"}
        if unknown:
            raise KeyError(f"Adam: unknown keyword arguments {sorted(unknown)}; the supported "
                           "ones are 'use_lazy' and 'use_offload'")
        _check_betas("Adam", beta1, beta2, eps)
        for name, value in (("use_locking", use_locking), ("use_nesterov", use_nesterov),
                            ("use_amsgrad", use_amsgrad)) + tuple(kwargs.items()):
            _check_bool("Adam", name, value)
        if kwargs.get("use_lazy") and kwargs.get("use_offload"):
            raise ValueError("Adam: use_lazy and use_offload cannot both be True")
        if use_amsgrad and (kwargs.get("use_lazy") or kwargs.get("use_offload")):
            raise ValueError("Adam: use_amsgrad cannot be combined with use_lazy or use_offload")
        self.beta1 = Tensor(beta1, float32)
        self.beta2 = Tensor(beta2, float32)
        self.eps = Tensor(eps, float32)
        self.beta1_power = Parameter(Tensor(1.0, float32), name="beta1_power")
        self.beta2_power = Parameter(Tensor(1.0, float32), name="beta2_power")
        self.use_nesterov = use_nesterov
        self.use_locking = use_locking
        self.use_amsgrad = use_amsgrad
        self.moment1 = clone_state(self._parameters, "moment1")
        self.moment2 = clone_state(self._parameters, "moment2")
        if use_amsgrad:
            self.vhat = clone_state(self._parameters, "vhat")
        self.opt = ops.Adam(use_locking=use_locking, use_nesterov=use_nesterov)

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        # the powers are float32 products, as MindSpore keeps them
        assign(self.beta1_power, ops.mul(self.beta1_power, self.beta1))
        assign(self.beta2_power, ops.mul(self.beta2_power, self.beta2))
        b1p, b2p = self.beta1_power, self.beta2_power
        if self.use_amsgrad:
            for param, m, v, vhat, grad, lr in zip(self._parameters, self.moment1, self.moment2,
                                                   self.vhat, gradients, lrs):
                self._amsgrad(param, m, v, vhat, grad, lr)
            return True
        for param, m, v, grad, lr in zip(self._parameters, self.moment1, self.moment2,
                                         gradients, lrs):
            self.opt(param, m, v, b1p, b2p, lr, self.beta1, self.beta2, self.eps, grad)
        return True

    def _amsgrad(self, param, m, v, vhat, grad, lr):
        b1, b2 = self.beta1, self.beta2
        assign(m, m * b1 + grad * (1 - b1))
        assign(v, v * b2 + ops.square(grad) * (1 - b2))
        assign(vhat, ops.maximum(vhat, v))
        step = lr * ops.sqrt(1 - self.beta2_power) / (1 - self.beta1_power)
        assign(param, param - step * m / (ops.sqrt(vhat) + self.eps))


class AdamWeightDecay(Optimizer):
    """Adam without bias correction, with the decay added to the update:
    ``param -= lr * (m / (eps + sqrt(v)) + weight_decay * param)``.

    Unlike the other optimizers it takes no ``loss_scale``. Decay applies as described
    in ``Optimizer`` (not to ``beta``/``gamma`` Parameters without groups).
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-6,
                 weight_decay=0.0):
        super().__init__(learning_rate, params, weight_decay)
        _check_betas("AdamWeightDecay", beta1, beta2, eps)
        self.beta1 = Tensor(beta1, float32)
        self.beta2 = Tensor(beta2, float32)
        self.eps = Tensor(eps, float32)
        self.moments1 = clone_state(self._parameters, "adam_m")
        self.moments2 = clone_state(self._parameters, "adam_v")

    def construct(self, gradients):
        gradients = tuple(gradients)
        if len(gradients) != len(self._parameters):
            raise ValueError(f"AdamWeightDecay: got {len(gradients)} gradients for "
                             f"{len(self._parameters)} parameters")
        wd = self.get_weight_decay()
        decays = wd if self.is_group else (wd,) * len(gradients)
        gradients, lrs = self._prepare_lr_only(gradients)
        b1, b2, eps = self.beta1, self.beta2, self.eps
        for param, m, v, grad, lr, d, flag in zip(self._parameters, self.moments1,
                                                  self.moments2, gradients, lrs, decays,
                                                  self.decay_flags):
            grad = ops.cast(grad, float32)
            next_m = b1 * m + (1.0 - b1) * grad
            next_v = b2 * v + (1.0 - b2) * ops.square(grad)
            update = next_m / (eps + ops.sqrt(next_v))
            if flag and self.exec_weight_decay:
                update = d * param + update
            assign(param, param - lr * update)
            assign(m, next_m)
            assign(v, next_v)
        return True

    def _prepare_lr_only(self, gradients):
        lr = self.get_lr()
        ops.AssignAdd()(self.global_step, 1)
        return gradients, (lr if self.is_group_lr else (lr,) * len(gradients))


class AdamW(Optimizer):
    """Adam with decoupled weight decay (Loshchilov & Hutter), the form of MindSpore's
    ``mint.optim.AdamW`` with ``nn``-style arguments: ``param *= 1 - lr * weight_decay``,
    then a bias-corrected Adam step ``lr / (1 - beta1**t) * m / (sqrt(v / (1 - beta2**t))
    + eps)``. The decay applies to every Parameter (or per group).
    """

    def __init__(self, params, learning_rate=1e-3, beta1=0.9, beta2=0.999, eps=1e-8,
                 weight_decay=1e-2, loss_scale=1.0):
        super().__init__(learning_rate, params, weight_decay, loss_scale)
        _check_betas("AdamW", beta1, beta2, eps)
        if self.dynamic_weight_decay:
            raise TypeError("AdamW: weight_decay must be a float; a schedule is not supported")
        decays = self.weight_decay if self.is_group else (self.weight_decay,) * self.param_length
        # the base class folded the loss scale into the decay, for gradients that are still
        # scaled; the decoupled decay multiplies the weights, so it comes back out here
        self._decoupled = tuple(float(d) / self.loss_scale for d in decays)
        self.exec_weight_decay = False
        self.beta1 = Tensor(beta1, float32)
        self.beta2 = Tensor(beta2, float32)
        self.eps = Tensor(eps, float32)
        self.beta1_power = Parameter(Tensor(1.0, float32), name="beta1_power")
        self.beta2_power = Parameter(Tensor(1.0, float32), name="beta2_power")
        self.exp_avg = clone_state(self._parameters, "exp_avg")
        self.exp_avg_sq = clone_state(self._parameters, "exp_avg_sq")

    def construct(self, gradients):
        gradients, lrs = self._prepare(gradients)
        assign(self.beta1_power, ops.mul(self.beta1_power, self.beta1))
        assign(self.beta2_power, ops.mul(self.beta2_power, self.beta2))
        b1, b2, eps = self.beta1, self.beta2, self.eps
        correction1 = 1 - self.beta1_power
        root_correction2 = ops.sqrt(1 - self.beta2_power)
        for param, m, v, grad, lr, wd in zip(self._parameters, self.exp_avg, self.exp_avg_sq,
                                             gradients, lrs, self._decoupled):
            if wd:
                assign(param, param * (1 - lr * wd))
            assign(m, m * b1 + grad * (1 - b1))
            assign(v, v * b2 + ops.square(grad) * (1 - b2))
            denom = ops.sqrt(v) / root_correction2 + eps
            assign(param, param - (lr / correction1) * m / denom)
        return True
