"""``mint.optim``: PyTorch-shaped optimizers (``Adam``, ``AdamW``, ``FusedAdamW``, ``SGD``).

As in MindSpore's ``mint.optim`` (built on ``experimental.optim.Optimizer``), an optimizer
takes a list of Parameters or of parameter-group dicts (``{"params": [...], "lr": ...}``),
keeps ``param_groups``, ``parameters`` and ``group_start_id``, and is called with the
gradients in ``parameters`` order: ``optimizer(grads)``. The updates are PyTorch's, written
back with ``Assign`` so a compiled training step sees them; each group's learning rate is a
Parameter (``learning_rate_group_<i>``) that a scheduler may change between steps.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.optim.optimizer import clone_state
from ms_tensor import Parameter, ParameterTuple, Tensor

__all__ = ["Optimizer", "Adam", "AdamW", "FusedAdamW", "SGD"]


def _check(name, value, what, ok):
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not ok(value):
        raise ValueError(f"{name}: invalid {what} {value!r}")
    return float(value)


class Optimizer(Cell):
    """Parameter groups with their options; subclasses define ``construct(gradients)``."""

    def __init__(self, params, defaults: dict):
        super().__init__(auto_prefix=False)
        name = type(self).__name__
        if params is None or not isinstance(params, Iterable):
            raise TypeError(f"{name}: params must be an iterable of Parameters or dicts, got "
                            f"{type(params).__name__}")
        groups = list(params)
        if not groups:
            raise ValueError(f"{name}: params must not be empty")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        self.defaults = defaults
        self.param_groups, self.lrs, self.group_start_id = [], [], [0]
        self._param_list = []
        for group in groups:
            self.add_param_group(group)
        self.parameters = ParameterTuple(self._param_list)

    def add_param_group(self, param_group: dict):
        """Add a group; options it leaves out take the optimizer's defaults."""
        name = type(self).__name__
        if not isinstance(param_group, dict) or "params" not in param_group:
            raise TypeError(f"{name}: a param group must be a dict with 'params', got "
                            f"{param_group!r}")
        params = param_group["params"]
        if isinstance(params, set):
            raise TypeError(f"{name}: params must be an ordered collection, not a set")
        params = [params] if isinstance(params, Parameter) else list(params)
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"{name}: params must be Parameters, got {type(p).__name__}")
        group = {**self.defaults, **param_group, "params": params}
        index = len(self.param_groups)
        group["lr"] = Parameter(Tensor(np.array(float(group["lr"]), np.float32)),
                                name=f"learning_rate_group_{index}", requires_grad=False)
        self.lrs.append(group["lr"])
        self.param_groups.append(group)
        self._param_list += params
        self.group_start_id.append(self.group_start_id[-1] + len(params))
        if hasattr(self, "parameters"):
            self.parameters = ParameterTuple(self._param_list)

    def _groups(self, gradients):
        """(group, its parameters, their gradients (negated when maximizing)) per group."""
        if len(gradients) != len(self._param_list):
            raise ValueError(f"{type(self).__name__}: got {len(gradients)} gradients for "
                             f"{len(self._param_list)} parameters")
        for i, group in enumerate(self.param_groups):
            lo, hi = self.group_start_id[i], self.group_start_id[i + 1]
            grads = [-g if group.get("maximize") else g for g in gradients[lo:hi]]
            yield group, range(lo, hi), grads


class _AdamBase(Optimizer):
    decoupled = True

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False):
        name = type(self).__name__
        _check(name, lr, "learning rate", lambda v: v >= 0)
        _check(name, eps, "epsilon value", lambda v: v >= 0)
        _check(name, weight_decay, "weight_decay value", lambda v: v >= 0)
        if not (isinstance(betas, (tuple, list)) and len(betas) == 2):
            raise ValueError(f"{name}: betas must be a pair, got {betas!r}")
        for b in betas:
            _check(name, b, "beta parameter", lambda v: 0 <= v < 1)
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps,
                                  "weight_decay": weight_decay, "amsgrad": amsgrad,
                                  "maximize": maximize})
        self.exp_avg = clone_state(self.parameters, "exp_avg")
        self.exp_avg_sq = clone_state(self.parameters, "exp_avg_sq")
        self.max_exp_avg_sq = None
        if any(g["amsgrad"] for g in self.param_groups):
            self.max_exp_avg_sq = clone_state(self.parameters, "max_exp_avg_sq")
        self.state_step = Parameter(Tensor(np.array([0], np.float32)), name="state_step",
                                    requires_grad=False)

    def construct(self, gradients):
        step = self.state_step + 1
        ops.assign(self.state_step, step)
        for group, ids, grads in self._groups(gradients):
            beta1, beta2 = group["betas"]
            lr, eps, wd = group["lr"], group["eps"], group["weight_decay"]
            bc1 = 1 - ops.pow(Tensor(beta1, step.dtype), step)
            bc2_sqrt = ops.sqrt(1 - ops.pow(Tensor(beta2, step.dtype), step))
            for i, g in zip(ids, grads):
                p = self.parameters[i]
                if wd and self.decoupled:
                    p = ops.assign(p, p * (1 - lr * wd))
                elif wd:
                    g = g + wd * p
                m = ops.assign(self.exp_avg[i], beta1 * self.exp_avg[i] + (1 - beta1) * g)
                v = ops.assign(self.exp_avg_sq[i],
                               beta2 * self.exp_avg_sq[i] + (1 - beta2) * g * g)
                if group["amsgrad"]:
                    v = ops.assign(self.max_exp_avg_sq[i], ops.maximum(self.max_exp_avg_sq[i], v))
                denom = ops.sqrt(v) / bc2_sqrt + eps
                ops.assign(self.parameters[i], p - (lr / bc1) * m / denom)
        return True


class Adam(_AdamBase):
    """Adam (Kingma & Ba) with L2 ``weight_decay`` added to the gradient, as PyTorch's.

    >>> w = Parameter(Tensor([1.0, -1.0]), name="w")
    >>> opt = Adam([w], lr=0.1)
    >>> _ = opt((Tensor([0.5, -2.0]),)); w.asnumpy().round(4)
    array([ 0.9, -0.9], dtype=float32)
    """

    decoupled = False

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0.0,
                 amsgrad=False, *, maximize=False):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, maximize=maximize)


class AdamW(_AdamBase):
    """Adam with decoupled weight decay (Loshchilov & Hutter): the weights shrink by
    ``lr * weight_decay`` before the Adam step.

    >>> w = Parameter(Tensor([1.0]), name="w")
    >>> _ = AdamW([w], lr=0.1, weight_decay=0.5)((Tensor([1.0]),)); w.asnumpy().round(4)
    array([0.85], dtype=float32)
    """


class FusedAdamW(AdamW):
    """``AdamW`` (MindSpore fuses the update into one kernel on Ascend; the numbers are
    the same)."""


class SGD(Optimizer):
    """Stochastic gradient descent with PyTorch's momentum, dampening, Nesterov and L2
    weight decay.

    >>> w = Parameter(Tensor([1.0]), name="w")
    >>> opt = SGD([w], lr=0.1, momentum=0.9)
    >>> _ = opt((Tensor([1.0]),)); _ = opt((Tensor([1.0]),)); w.asnumpy()
    array([0.71], dtype=float32)
    """

    def __init__(self, params, lr, momentum=0, dampening=0, weight_decay=0, nesterov=False, *,
                 maximize=False):
        name = "SGD"
        _check(name, lr, "learning rate", lambda v: v >= 0)
        _check(name, momentum, "momentum value", lambda v: v >= 0)
        _check(name, weight_decay, "weight_decay value", lambda v: v >= 0)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("SGD: Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov,
                                  "maximize": maximize})
        self.momentum_buf = clone_state(self.parameters, "momentum_buf")
        self.step_t = Parameter(Tensor(np.array([0], np.float32)), name="step_t",
                                requires_grad=False)

    def construct(self, gradients):
        first = self.step_t == 0
        for group, ids, grads in self._groups(gradients):
            mu, damp = group["momentum"], group["dampening"]
            for i, g in zip(ids, grads):
                p = self.parameters[i]
                if group["weight_decay"]:
                    g = g + group["weight_decay"] * p
                if mu:
                    buf = ops.where(first, g, mu * self.momentum_buf[i] + (1 - damp) * g)
                    ops.assign(self.momentum_buf[i], buf)
                    g = g + mu * buf if group["nesterov"] else buf
                ops.assign(p, p - group["lr"] * g)
        ops.assign(self.step_t, self.step_t + 1)
        return True
