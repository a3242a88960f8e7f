"""Fused optimizer updates: ApplyGradientDescent, ApplyMomentum, Adam.

They update the variable in place (``inplace=0``: the call returns the variable itself)
and, like MindSpore's, also their accumulators (momentum's ``accumulation``, Adam's
``m`` and ``v``), which the kernel writes through directly. They take no gradient.
Hyper-parameters (learning rate, momentum, betas, ...) are Python numbers or tensors
holding one value. The Cython kernels (``kernels/_optim.pyx``) update every buffer in one
pass; the ``*_ref`` functions are the numpy references.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.infer import check_dtype
from ms_ops.kernels import _optim
from ms_ops.opdef import FLOATS, NUMBERS, Arg, Attr, OpDef, TensorSpec


def _check(var, tensors, scalars, var_name="var"):
    """Accumulators and gradients match ``var``; hyper-parameters hold one real value."""
    check_dtype(var_name, var, FLOATS)
    for name, s in tensors.items():
        if s.shape != var.shape:
            raise ValueError(f"{name} shape {s.shape} must equal {var_name} shape {var.shape}")
        check_dtype(name, s, FLOATS)
    for name, s in scalars.items():
        if math.prod(s.shape) != 1:
            raise ValueError(f"{name} must be a number or a tensor of one value, got shape "
                             f"{s.shape}")
        check_dtype(name, s, NUMBERS)
    return TensorSpec(var.shape, var.dtype)


def _check_state(var, var_name="var", **state):
    """Accumulators are updated in place, so they must already have ``var``'s dtype."""
    for name, s in state.items():
        if s.dtype is not var.dtype:
            raise TypeError(f"{name} has dtype {s.dtype} but {var_name} has {var.dtype}; an "
                            "accumulator is updated in place and cannot be cast")


def _hyper(name):
    # a hyper-parameter is read as a Python float, so any real dtype will do
    return Arg(name, promote=False)


def _f(a) -> float:
    return float(np.asarray(a).reshape(-1)[0])


def _adam_step(lr, beta1_power, beta2_power) -> float:
    return _f(lr) * math.sqrt(1 - _f(beta2_power)) / (1 - _f(beta1_power))


def gradient_descent_ref(var, alpha, delta):
    var -= (_f(alpha) * delta).astype(var.dtype)
    return var


def momentum_ref(var, accum, lr, grad, momentum, use_nesterov=False, **_attrs):
    lr, mom = _f(lr), _f(momentum)
    accum *= var.dtype.type(mom)
    accum += grad.astype(var.dtype)
    step = (grad * lr + accum * mom * lr) if use_nesterov else lr * accum
    var -= step.astype(var.dtype)
    return var


def adam_ref(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
             use_nesterov=False, **_attrs):
    b1, b2, eps = _f(beta1), _f(beta2), _f(epsilon)
    g = grad.astype(var.dtype)
    m += ((g - m) * (1 - b1)).astype(var.dtype)
    v += ((g * g - v) * (1 - b2)).astype(var.dtype)
    mt = m * b1 + g * (1 - b1) if use_nesterov else m
    var -= (_adam_step(lr, beta1_power, beta2_power) * mt / (np.sqrt(v) + eps)).astype(
        var.dtype)
    return var, m, v


def _flat(var, *state):
    """Flat views of buffers updated in place, or None if one is not a writable,
    C-contiguous float32/float64 array (then the numpy reference does the update)."""
    for a in (var,) + state:
        if a.dtype not in (np.float32, np.float64) or not a.flags.c_contiguous \
                or not a.flags.writeable:
            return None
    return [a.reshape(-1) for a in (var,) + state]


def _grad(g, var):
    return np.ascontiguousarray(g, var.dtype).reshape(-1)


def _gd_infer(var, alpha, delta):
    return _check(var, {"delta": delta}, {"alpha": alpha})


ApplyGradientDescent = OpDef(
    "ApplyGradientDescent", (Arg("var"), _hyper("alpha"), Arg("delta")), infer=_gd_infer,
    differentiable=False, inplace=0, doc="``var -= alpha * delta``, in place.")


@ApplyGradientDescent.kernel("CPU", dtypes=FLOATS)
def gradient_descent_cpu(var, alpha, delta):
    flat = _flat(var)
    if flat is None:
        return gradient_descent_ref(var, alpha, delta)
    _optim.gradient_descent(flat[0], _grad(delta, var), _f(alpha))
    return var


@ApplyGradientDescent.samples
def _gradient_descent(rng):
    yield (rng.standard_normal((2, 3)), np.array(0.1), rng.standard_normal((2, 3))), {}


def _momentum_infer(var, accum, lr, grad, momentum, **_attrs):
    _check_state(var, "variable", accumulation=accum)
    return _check(var, {"accumulation": accum, "gradient": grad},
                  {"learning_rate": lr, "momentum": momentum}, "variable")


ApplyMomentum = OpDef(
    "ApplyMomentum",
    (Arg("variable"), Arg("accumulation"), _hyper("learning_rate"), Arg("gradient"),
     _hyper("momentum")),
    (Attr("use_nesterov", False), Attr("use_locking", False), Attr("gradient_scale", 1.0)),
    infer=_momentum_infer, differentiable=False, inplace=0,
    doc="Momentum: ``accumulation = accumulation * momentum + gradient``, then ``variable "
        "-= learning_rate * accumulation`` (Nesterov: ``learning_rate * (gradient + "
        "momentum * accumulation)``). Like MindSpore's kernels, it ignores gradient_scale.")


@ApplyMomentum.kernel("CPU", dtypes=FLOATS)
def momentum_cpu(var, accum, lr, grad, momentum, use_nesterov=False, **_attrs):
    flat = _flat(var, accum)
    if flat is None:
        return momentum_ref(var, accum, lr, grad, momentum, use_nesterov)
    _optim.momentum(*flat, _grad(grad, var), _f(lr), _f(momentum), use_nesterov)
    return var


@ApplyMomentum.samples
def _momentum(rng):
    for nesterov in (False, True):
        yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), np.array(0.1),
               rng.standard_normal((2, 3)), np.array(0.9)), {"use_nesterov": nesterov}


def _adam_infer(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
                **_attrs):
    _check_state(var, m=m, v=v)
    out = _check(var, {"m": m, "v": v, "grad": grad},
                 {"beta1_power": beta1_power, "beta2_power": beta2_power, "lr": lr,
                  "beta1": beta1, "beta2": beta2, "epsilon": epsilon})
    return out, m, v


Adam = OpDef(
    "Adam",
    (Arg("var"), Arg("m"), Arg("v"), _hyper("beta1_power"), _hyper("beta2_power"),
     _hyper("lr"), _hyper("beta1"), _hyper("beta2"), _hyper("epsilon"), Arg("grad")),
    (Attr("use_locking", False), Attr("use_nesterov", False)),
    infer=_adam_infer, differentiable=False, inplace=(0, 1, 2),
    doc="Adam: ``m += (grad - m) * (1 - beta1)``, ``v += (grad**2 - v) * (1 - beta2)``, "
        "``var -= lr * sqrt(1 - beta2_power) / (1 - beta1_power) * m / (sqrt(v) + "
        "epsilon)`` (Nesterov uses ``m * beta1 + grad * (1 - beta1)`` for ``m``).")


@Adam.kernel("CPU", dtypes=FLOATS)
def adam_cpu(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
             use_nesterov=False, **_attrs):
    flat = _flat(var, m, v)
    if flat is None:
        return adam_ref(var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad,
                        use_nesterov)
    _optim.adam(*flat, _grad(grad, var), _adam_step(lr, beta1_power, beta2_power),
                _f(beta1), _f(beta2), _f(epsilon), use_nesterov)
    return var, m, v


@Adam.samples
def _adam(rng):
    for nesterov in (False, True):
        yield (rng.standard_normal((2, 3)), rng.standard_normal((2, 3)),
               rng.random((2, 3)), np.array(0.9 ** 3), np.array(0.999 ** 3), np.array(1e-3),
               np.array(0.9), np.array(0.999), np.array(1e-8),
               rng.standard_normal((2, 3))), {"use_nesterov": nesterov}
