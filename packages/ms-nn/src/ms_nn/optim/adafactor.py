"""``AdaFactor`` (Shazeer & Stern 2018): Adam-like steps whose second moment of a matrix
is kept as a row and a column average (O(n + m) memory), with relative step sizes,
parameter-scaled learning rates and update clipping, as MindSpore computes them."""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_nn.optim.optimizer import Optimizer, assign, clone_state
from ms_tensor import Parameter, ParameterTuple, Tensor, float32

__all__ = ["AdaFactor"]


def _rms(x):
    return ops.sqrt(ops.mean(ops.square(x)))


def _zeros(shape, name):
    return Parameter(Tensor(np.zeros(shape, np.float32)), name=name, requires_grad=False)


class AdaFactor(Optimizer):
    """With ``relative_step`` (and no ``learning_rate``) the step size is
    ``min(1e-2, 1/sqrt(t))``; ``scale_parameter`` multiplies it by max(eps[1], rms(w));
    the second-moment decay is ``1 - t^-decay_rate``; ``beta1`` keeps a first moment.

    >>> w = Parameter(Tensor(np.ones((2, 2), np.float32)), name="w")
    >>> _ = AdaFactor([w])((Tensor(np.ones((2, 2), np.float32)),)); w.asnumpy().round(4)
    array([[0.999, 0.999],
           [0.999, 0.999]], dtype=float32)
    """

    def __init__(self, params, learning_rate=None, eps=(1e-30, 1e-3), clip_threshold=1.0,
                 decay_rate=0.8, beta1=0.9, weight_decay=0.0, scale_parameter=True,
                 relative_step=True, warmup_init=False, compression=False, loss_scale=1.0):
        if learning_rate is not None and relative_step:
            raise ValueError("AdaFactor: a learning_rate cannot be combined with relative_step")
        if warmup_init and not relative_step:
            raise ValueError("AdaFactor: warmup_init requires relative_step=True")
        if learning_rate is None and not relative_step:
            raise ValueError("AdaFactor: give a learning_rate or relative_step=True")
        if len(eps) != 2:
            raise ValueError(f"AdaFactor: eps must hold 2 values (eps1, eps2), got {eps!r}")
        self.scale_lr = learning_rate is None or isinstance(learning_rate, (float, int))
        super().__init__(0.0 if learning_rate is None else learning_rate, params, 0.0, loss_scale)
        self.eps = tuple(float(e) for e in eps)
        self.clip_threshold, self.decay_rate = float(clip_threshold), float(decay_rate)
        self.beta1 = float(beta1 or 0.0)
        self.weight_decay_value = float(weight_decay)
        self.scale_parameter = scale_parameter and self.scale_lr
        self.relative_step, self.warmup_init, self.compression = relative_step, warmup_init, \
            compression
        self.use_first_moment = self.beta1 > 0
        if self.use_first_moment:
            self.exp_avg = clone_state(self._parameters, "exp_avg")
        rows, cols, full = [], [], []
        for p in self._parameters:
            factored = len(p.shape) > 1
            rows.append(_zeros(p.shape[:-1] if factored else (1,), f"exp_avg_sq_row_{p.name}"))
            cols.append(_zeros(p.shape[:-2] + p.shape[-1:] if factored else (1,),
                               f"exp_avg_sq_col_{p.name}"))
            full.append(_zeros((1,) if factored else p.shape, f"exp_avg_sq_{p.name}"))
        self.exp_avg_sq_row = ParameterTuple(rows)
        self.exp_avg_sq_col = ParameterTuple(cols)
        self.exp_avg_sq = ParameterTuple(full)
        self.step = _zeros((1,), "afactor_step")

    def construct(self, gradients):
        gradients = self.scale_grad(tuple(gradients))
        lr = ops.reshape(ops.cast(self.get_lr(), float32), ())
        ops.AssignAdd()(self.global_step, 1)
        step = ops.reshape(assign(self.step, self.step + 1), ())
        if self.scale_lr and self.relative_step:
            min_step = 1e-6 * step if self.warmup_init else 1e-2
            lr = ops.minimum(min_step * ops.ones_like(step), 1.0 / ops.sqrt(step))
        beta2t = 1.0 - ops.pow(step, -self.decay_rate)
        for i, (param, grad) in enumerate(zip(self._parameters, gradients)):
            lr_p = lr * ops.maximum(Tensor(self.eps[1], float32), _rms(param)) \
                if self.scale_parameter else lr
            sq = grad * grad + self.eps[0]
            if len(param.shape) > 1:
                row = assign(self.exp_avg_sq_row[i], self.exp_avg_sq_row[i] * beta2t
                             + ops.mean(sq, -1) * (1.0 - beta2t))
                col = assign(self.exp_avg_sq_col[i], self.exp_avg_sq_col[i] * beta2t
                             + ops.mean(sq, -2) * (1.0 - beta2t))
                r = 1.0 / ops.sqrt(row / ops.mean(row, -1, True))
                update = ops.expand_dims(r, -1) * ops.expand_dims(1.0 / ops.sqrt(col), -2) * grad
            else:
                full = assign(self.exp_avg_sq[i], self.exp_avg_sq[i] * beta2t
                              + sq * (1.0 - beta2t))
                update = grad / ops.sqrt(full)
            coef = ops.maximum(_rms(update) / self.clip_threshold, Tensor(1.0, float32))
            update = update / coef * lr_p
            if self.use_first_moment:
                update = assign(self.exp_avg[i], self.exp_avg[i] * self.beta1
                                + update * (1 - self.beta1))
            new = param
            if self.weight_decay_value:
                new = new - new * self.weight_decay_value * lr_p
            assign(param, new - update)
        return True
