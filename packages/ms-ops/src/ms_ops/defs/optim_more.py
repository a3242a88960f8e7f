"""MindSpore's other fused optimizer updates: ApplyAdagrad, ApplyRMSProp,
ApplyCenteredRMSProp, ApplyAdaMax, ApplyAdadelta, ApplyAdamWithAmsgrad(V2),
ApplyKerasMomentum, AdamWeightDecay and SGD.

As in ``optim.py`` each writes its variable and accumulators in place (numpy, in the
variable's dtype), returns what MindSpore returns, and takes no gradient.
Hyper-parameters are numbers or one-value tensors.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs.optim import _check, _check_state, _f, _hyper
from ms_ops.opdef import FLOATS, Arg, Attr, OpDef


def _update(name, inputs, attrs, state, hypers, returns, doc):
    """An in-place update: ``state`` names the accumulators, ``returns`` the inputs
    returned (their indices become ``inplace``)."""
    names = list(inputs)
    args = tuple(Arg(n) if n not in hypers else _hyper(n) for n in names)

    def infer(*values, **_attrs):
        by = dict(zip(names, values))
        var = by[names[0]]
        _check_state(var, names[0], **{s: by[s] for s in state})
        _check(var, {n: by[n] for n in names[1:] if n not in hypers},
               {h: by[h] for h in hypers}, names[0])
        outs = tuple(by[r] for r in returns)
        return outs[0] if len(outs) == 1 else outs

    idx = tuple(names.index(r) for r in returns)
    return OpDef(name, args, tuple(Attr(k, v) for k, v in attrs.items()), infer=infer,
                 differentiable=False, inplace=idx[0] if len(idx) == 1 else idx, doc=doc)


def _cast(var, value):
    return np.asarray(value).astype(var.dtype, copy=False)


ApplyAdagrad = _update("ApplyAdagrad", ("var", "accum", "lr", "grad"),
                       {"update_slots": True}, ("accum",), ("lr",), ("var", "accum"),
                       "accum += grad**2; var -= lr * grad / sqrt(accum).")


@ApplyAdagrad.kernel("CPU", dtypes=FLOATS)
def apply_adagrad_cpu(var, accum, lr, grad, update_slots=True):
    if update_slots:
        accum += _cast(var, grad * grad)
    with np.errstate(divide="ignore", invalid="ignore"):
        var -= _cast(var, _f(lr) * grad / np.sqrt(accum))
    return var, accum


ApplyRMSProp = _update(
    "ApplyRMSProp", ("var", "mean_square", "moment", "learning_rate", "grad", "decay",
                     "momentum", "epsilon"), {"use_locking": False},
    ("mean_square", "moment"), ("learning_rate", "decay", "momentum", "epsilon"), ("var",),
    "mean_square = decay ms + (1 - decay) grad**2; moment = momentum moment + lr grad / "
    "sqrt(mean_square + epsilon); var -= moment.")


@ApplyRMSProp.kernel("CPU", dtypes=FLOATS)
def apply_rms_prop_cpu(var, ms, mom, lr, grad, decay, momentum, eps, use_locking=False):
    d = _f(decay)
    ms[...] = _cast(var, d * ms + (1 - d) * grad * grad)
    mom[...] = _cast(var, _f(momentum) * mom + _f(lr) * grad / np.sqrt(ms + _f(eps)))
    var -= mom
    return var


ApplyCenteredRMSProp = _update(
    "ApplyCenteredRMSProp", ("var", "mean_gradient", "mean_square", "moment", "grad",
                             "learning_rate", "decay", "momentum", "epsilon"),
    {"use_locking": False}, ("mean_gradient", "mean_square", "moment"),
    ("learning_rate", "decay", "momentum", "epsilon"), ("var",),
    "RMSProp with the variance centred by the running mean of the gradient.")


@ApplyCenteredRMSProp.kernel("CPU", dtypes=FLOATS)
def apply_centered_rms_prop_cpu(var, mg, ms, mom, grad, lr, decay, momentum, eps,
                                use_locking=False):
    d = _f(decay)
    mg[...] = _cast(var, d * mg + (1 - d) * grad)
    ms[...] = _cast(var, d * ms + (1 - d) * grad * grad)
    mom[...] = _cast(var, _f(momentum) * mom + _f(lr) * grad / np.sqrt(ms - mg * mg + _f(eps)))
    var -= mom
    return var


ApplyAdaMax = _update(
    "ApplyAdaMax", ("var", "m", "v", "beta1_power", "lr", "beta1", "beta2", "epsilon", "grad"),
    {}, ("m", "v"), ("beta1_power", "lr", "beta1", "beta2", "epsilon"), ("var", "m", "v"),
    "m = b1 m + (1 - b1) g; v = max(b2 v, |g|); var -= lr / (1 - b1**t) m / (v + eps).")


@ApplyAdaMax.kernel("CPU", dtypes=FLOATS)
def apply_ada_max_cpu(var, m, v, beta1_power, lr, beta1, beta2, eps, grad):
    b1 = _f(beta1)
    m[...] = _cast(var, b1 * m + (1 - b1) * grad)
    v[...] = _cast(var, np.maximum(_f(beta2) * v, np.abs(grad)))
    var -= _cast(var, _f(lr) / (1 - _f(beta1_power)) * m / (v + _f(eps)))
    return var, m, v


ApplyAdadelta = _update(
    "ApplyAdadelta", ("var", "accum", "accum_update", "lr", "rho", "epsilon", "grad"), {},
    ("accum", "accum_update"), ("lr", "rho", "epsilon"), ("var", "accum", "accum_update"),
    "accum = rho accum + (1 - rho) g**2; update = sqrt(accum_update + eps) g / sqrt(accum "
    "+ eps); accum_update = rho accum_update + (1 - rho) update**2; var -= lr update.")


@ApplyAdadelta.kernel("CPU", dtypes=FLOATS)
def apply_adadelta_cpu(var, accum, accum_update, lr, rho, eps, grad):
    r, e = _f(rho), _f(eps)
    accum[...] = _cast(var, r * accum + (1 - r) * grad * grad)
    update = np.sqrt(accum_update + e) * grad / np.sqrt(accum + e)
    accum_update[...] = _cast(var, r * accum_update + (1 - r) * update * update)
    var -= _cast(var, _f(lr) * update)
    return var, accum, accum_update


def _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, b1, b2, eps, grad):
    m[...] = _cast(var, b1 * m + (1 - b1) * grad)
    v[...] = _cast(var, b2 * v + (1 - b2) * grad * grad)
    vhat[...] = np.maximum(vhat, v)
    step = _f(lr) * np.sqrt(1 - _f(beta2_power)) / (1 - _f(beta1_power))
    var -= _cast(var, step * m / (np.sqrt(vhat) + eps))
    return var, m, v, vhat


ApplyAdamWithAmsgrad = _update(
    "ApplyAdamWithAmsgrad", ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr",
                             "grad"),
    {"beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8, "use_locking": False},
    ("m", "v", "vhat"), ("beta1_power", "beta2_power", "lr"), ("var", "m", "v", "vhat"),
    "Adam with AMSGrad: the step divides by the running maximum of v.")


@ApplyAdamWithAmsgrad.kernel("CPU", dtypes=FLOATS)
def apply_amsgrad_cpu(var, m, v, vhat, beta1_power, beta2_power, lr, grad, beta1=0.9,
                      beta2=0.999, epsilon=1e-8, use_locking=False):
    return _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad)


ApplyAdamWithAmsgradV2 = _update(
    "ApplyAdamWithAmsgradV2", ("var", "m", "v", "vhat", "beta1_power", "beta2_power", "lr",
                               "beta1", "beta2", "epsilon", "grad"),
    {"use_locking": False}, ("m", "v", "vhat"),
    ("beta1_power", "beta2_power", "lr", "beta1", "beta2", "epsilon"),
    ("var", "m", "v", "vhat"), "ApplyAdamWithAmsgrad with the betas and epsilon as inputs.")


@ApplyAdamWithAmsgradV2.kernel("CPU", dtypes=FLOATS)
def apply_amsgrad_v2_cpu(var, m, v, vhat, beta1_power, beta2_power, lr, beta1, beta2, eps,
                         grad, use_locking=False):
    return _amsgrad(var, m, v, vhat, beta1_power, beta2_power, lr, _f(beta1), _f(beta2),
                    _f(eps), grad)


ApplyKerasMomentum = _update(
    "ApplyKerasMomentum", ("var", "accum", "lr", "grad", "momentum"),
    {"use_locking": False, "use_nesterov": False}, ("accum",), ("lr", "momentum"),
    ("var", "accum"), "accum = momentum accum - lr grad; var += accum (Nesterov: var += "
    "momentum accum - lr grad).")


@ApplyKerasMomentum.kernel("CPU", dtypes=FLOATS)
def apply_keras_momentum_cpu(var, accum, lr, grad, momentum, use_locking=False,
                             use_nesterov=False):
    mu, rate = _f(momentum), _f(lr)
    accum[...] = _cast(var, mu * accum - rate * grad)
    var += _cast(var, mu * accum - rate * grad) if use_nesterov else accum
    return var, accum


AdamWeightDecay = _update(
    "AdamWeightDecay", ("var", "m", "v", "lr", "beta1", "beta2", "epsilon", "decay",
                        "gradient"), {"use_locking": False}, ("m", "v"),
    ("lr", "beta1", "beta2", "epsilon", "decay"), ("var", "m", "v"),
    "Adam without bias correction plus decoupled weight decay: var -= lr (m / (sqrt(v) + "
    "eps) + decay var).")


@AdamWeightDecay.kernel("CPU", dtypes=FLOATS)
def adam_weight_decay_cpu(var, m, v, lr, beta1, beta2, eps, decay, grad, use_locking=False):
    b1, b2 = _f(beta1), _f(beta2)
    m[...] = _cast(var, b1 * m + (1 - b1) * grad)
    v[...] = _cast(var, b2 * v + (1 - b2) * grad * grad)
    var -= _cast(var, _f(lr) * (m / (np.sqrt(v) + _f(eps)) + _f(decay) * var))
    return var, m, v


SGD = _update(
    "SGD", ("parameters", "gradient", "learning_rate", "accum", "momentum", "stat"),
    {"dampening": 0.0, "weight_decay": 0.0, "nesterov": False}, ("accum", "stat"),
    ("learning_rate", "momentum"), ("parameters",),
    "SGD with momentum, dampening, weight decay and Nesterov (PyTorch's rule; ``stat`` "
    "(parameters' shape) marks the first step, where the accumulator takes the gradient).")


@SGD.kernel("CPU", dtypes=FLOATS)
def sgd_cpu(param, grad, lr, accum, momentum, stat, dampening=0.0, weight_decay=0.0,
            nesterov=False):
    if nesterov and dampening != 0:
        raise ValueError(f"SGD: dampening must be 0 with nesterov=True, got {dampening}")
    g = grad + weight_decay * param if weight_decay else grad
    mu = _f(momentum)
    if mu > 0:
        accum[...] = _cast(param, np.where(stat > 0, g, mu * accum + (1 - dampening) * g))
        stat[...] = 0
        g = g + mu * accum if nesterov else accum
    param -= _cast(param, _f(lr) * g)
    return param


def _samples(*names, **scalars):
    def samples(rng):
        args = []
        for n in names:
            if n in scalars:
                args.append(np.array(scalars[n]))
            else:
                args.append(rng.random((2, 3)) + 0.1)
        yield tuple(args), {}
    return samples


for _op, _hyper_values in (
        (ApplyAdagrad, {"lr": 0.1}),
        (ApplyRMSProp, {"learning_rate": 0.01, "decay": 0.9, "momentum": 0.5,
                        "epsilon": 1e-6}),
        (ApplyCenteredRMSProp, {"learning_rate": 0.01, "decay": 0.9, "momentum": 0.5,
                                "epsilon": 1.0}),
        (ApplyAdaMax, {"beta1_power": 0.9, "lr": 0.01, "beta1": 0.9, "beta2": 0.99,
                       "epsilon": 1e-8}),
        (ApplyAdadelta, {"lr": 1.0, "rho": 0.9, "epsilon": 1e-6}),
        (ApplyAdamWithAmsgrad, {"beta1_power": 0.9, "beta2_power": 0.999, "lr": 0.01}),
        (ApplyAdamWithAmsgradV2, {"beta1_power": 0.9, "beta2_power": 0.999, "lr": 0.01,
                                  "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8}),
        (ApplyKerasMomentum, {"lr": 0.1, "momentum": 0.9}),
        (AdamWeightDecay, {"lr": 0.01, "beta1": 0.9, "beta2": 0.999, "epsilon": 1e-8,
                           "decay": 0.01}),
        (SGD, {"learning_rate": 0.1, "momentum": 0.9})):
    _op.samples(_samples(*_op.input_names, **_hyper_values))
