"""Test helpers for gradients that other packages and plugins reuse.

- ``check_grad``: ``ms_autodiff.grad`` of a function against central finite differences.
- ``check_op_gradients``: one operator on its registered samples; differentiable
  operators are checked through the tape (so the registered rule, the tape's
  accumulation and the dtype handling are all exercised), non-differentiable ones are
  checked to really have no derivative.
"""

from __future__ import annotations

import sys
import threading

import numpy as np

from ms_autodiff.api import grad
from ms_ops.defs import complex_ops
from ms_ops.opdef import TENSOR
from ms_tensor.tensor import Tensor

__all__ = ["check_grad", "check_op_gradients", "numeric_grad", "run_concurrently"]


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _is_float(t) -> bool:
    """Float or complex: an output or input that has a derivative."""
    return isinstance(t, Tensor) and t.asnumpy().dtype.kind in "fc"


def _weights_for(outs, rng, complex_outputs=True):
    """A fixed random cotangent for every float or complex output (None for bool/int).

    A complex output ``o`` with weight ``w`` adds ``Re(o * conj(w))`` to the objective,
    so its real and imaginary parts are both weighted. ``complex_outputs=False`` leaves
    them out (an operator declared to give complex outputs no gradient, such as Eig)."""
    weights = []
    for o in outs:
        is_complex = _is_float(o) and o.asnumpy().dtype.kind == "c"
        w = rng.standard_normal(o.shape) if _is_float(o) and (complex_outputs or not is_complex) \
            else None
        if w is not None and is_complex:
            w = w + 1j * rng.standard_normal(o.shape)
        weights.append(w)
    return weights


def _objective_value(fn, xs, weights) -> float:
    outs = _as_tuple(fn(*[Tensor(x) for x in xs]))
    return sum(float(np.sum(np.real(o.asnumpy().astype(np.complex128) * np.conj(w))))
               for o, w in zip(outs, weights) if w is not None)


def numeric_grad(fn, xs, weights, eps=1e-6) -> list:
    """d/dxs of ``sum(fn(*xs)[k] * weights[k])`` by central differences (float64).

    For a complex input the result is ``dL/dRe + i dL/dIm``: MindSpore's and PyTorch's
    convention for the gradient of a real function of a complex tensor."""
    grads = []
    for i, base in enumerate(xs):
        steps = (eps, 1j * eps) if base.dtype.kind == "c" else (eps,)
        g = np.zeros(base.shape, dtype=base.dtype if base.dtype.kind == "c" else np.float64)
        flat = g.reshape(-1)
        for j in range(base.size):
            for step in steps:
                values = []
                for sign in (1.0, -1.0):
                    probe = base.copy().reshape(-1)
                    probe[j] += sign * step
                    args = list(xs)
                    args[i] = probe.reshape(base.shape)
                    values.append(_objective_value(fn, args, weights))
                flat[j] += (values[0] - values[1]) / (2 * eps) * (step / eps)
        grads.append(g)
    return grads


def _tape_grads(fn, xs, weights) -> list:
    """``ms_autodiff.grad`` of ``sum(fn(*xs)[k] * weights[k])`` with respect to every x."""

    def objective(*ts):
        total = None
        for o, w in zip(_as_tuple(fn(*ts)), weights):
            if w is not None:
                term = (o * Tensor(np.conj(w))).sum()
                if np.iscomplexobj(w):
                    term = complex_ops.Real(term)
                total = term if total is None else total + term
        return total

    got = grad(objective, grad_position=tuple(range(len(xs))))(*[Tensor(x) for x in xs])
    return [np.asarray(g.asnumpy(), dtype=np.complex128 if x.dtype.kind == "c" else np.float64)
            for g, x in zip(got, xs)]


def check_grad(fn, *arrays, rtol=1e-5, atol=1e-7, eps=1e-6, seed=0, name=None,
               input_names=None):
    """Assert that ``ms_autodiff.grad`` of ``fn`` matches central finite differences.

    ``fn`` takes one Tensor per array (float64) and returns a Tensor or a tuple of them;
    every float output is weighted by its own fixed random tensor and summed, and the
    gradient of that scalar with respect to every input is compared.

    Returns the tape's gradients (float64 numpy arrays).
    """
    name = name or getattr(fn, "__name__", "fn")
    labels = input_names or [f"input {i}" for i in range(len(arrays))]
    xs = [np.array(a, dtype=np.complex128 if np.iscomplexobj(a) else np.float64)
          for a in arrays]
    outs = _as_tuple(fn(*[Tensor(x) for x in xs]))
    weights = _weights_for(outs, np.random.default_rng(seed))
    assert any(w is not None for w in weights), f"{name}: no float output to differentiate"
    got = _tape_grads(fn, xs, weights)
    want = numeric_grad(fn, xs, weights, eps)
    for label, g, w in zip(labels, got, want):
        assert g.shape == w.shape, \
            f"{name}: gradient of {label} has shape {g.shape}, expected {w.shape}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol,
                                   err_msg=f"{name}: gradient of {label}")
    return got


def _check_no_grad(fn, xs, outs, rng, name, labels, atol):
    """A non-differentiable claim: the tape gives zeros and so do finite differences."""
    weights = _weights_for(outs, rng, complex_outputs=False)
    if not xs or all(w is None for w in weights):
        return
    for label, g in zip(labels, _tape_grads(fn, xs, weights)):
        assert not np.any(g), f"{name}: gradient of {label} is not zero: {g}"
    for label, g in zip(labels, numeric_grad(fn, xs, weights)):
        np.testing.assert_allclose(
            g, 0.0, atol=atol,
            err_msg=f"{name} is marked differentiable=False, but {label} changes its "
                    "output (finite differences are not zero); list it in nondiff_inputs "
                    "if it deliberately gets no gradient")


def _describe(args, attrs) -> str:
    parts = [f"array{v.shape}:{v.dtype}" if isinstance(v, np.ndarray) else repr(v)
             for v in args]
    return f"({', '.join(parts)}) attrs={attrs}"


def _call(op, args, attrs):
    return op(*[Tensor(v.copy()) if isinstance(v, np.ndarray) else v for v in args], **attrs)


def _same(a, b) -> bool:
    return all(np.array_equal(x.asnumpy(), y.asnumpy(), equal_nan=x.asnumpy().dtype.kind == "f")
               for x, y in zip(_as_tuple(a), _as_tuple(b)))


def _check_sample(op, args, attrs, rng, name, rtol, atol, eps) -> bool:
    """Check one sample; return whether a gradient (or its absence) was compared."""
    args = list(args)
    out = _call(op, args, attrs)
    if op.inplace is not None or (op.stateful and not op.differentiable):
        return False  # in-place updates and random draws: running on the sample is the check
    if op.stateful:
        assert _same(out, _call(op, args, attrs)), \
            f"{name}: a random operator's sample must pin its seeds ({op.seed_attrs}) so " \
            "that finite differences see one function"
    positions = [i for i, v in enumerate(args)
                 if i < len(op.inputs) and op.inputs[i].kind == TENSOR
                 and isinstance(v, np.ndarray) and v.dtype.kind in "fc"
                 and op.inputs[i].name not in op.nondiff_inputs]

    def fn(*ts):
        full = [Tensor(v) if isinstance(v, np.ndarray) else v for v in args]
        for i, t in zip(positions, ts):
            full[i] = t
        return op(*full, **attrs)

    xs = [args[i] for i in positions]
    labels = [f"input {op.inputs[i].name!r}" for i in positions]
    outs = _as_tuple(out)
    if not op.differentiable:
        _check_no_grad(fn, xs, outs, rng, name, labels, atol)
        return True
    assert any(_is_float(o) for o in outs), \
        f"{name} is marked differentiable but has no float output on this sample"
    if not positions:
        return False
    check_grad(fn, *xs, rtol=rtol, atol=atol, eps=eps, seed=int(rng.integers(2**31)), name=name,
               input_names=labels)
    return True


def check_op_gradients(op, samples, *, seed=0, rtol=1e-5, atol=1e-7, eps=1e-6):
    """Check ``op`` on every sample (``samples(rng)`` yields ``(args, attrs)``).

    A differentiable operator: ``ms_autodiff.grad`` of ``sum(op(...) * w)`` (each float
    output with its own random ``w``) with respect to every float tensor input not in
    ``op.nondiff_inputs`` matches central finite differences. A non-differentiable one:
    its outputs are bool/int, or both the tape and finite differences give zero. Random
    and in-place operators must run on their samples. Fails if no sample exercises a
    gradient of a differentiable operator.
    """
    rng = np.random.default_rng(seed)
    produced = samples(rng) if callable(samples) else samples
    count = checked = 0
    for k, (args, attrs) in enumerate(produced):
        count += 1
        name = f"{op.name} sample {k} {_describe(args, attrs)}"
        checked += _check_sample(op, args, dict(attrs), rng, name, rtol, atol, eps)
    assert count, f"{op.name}: its samples function yielded nothing"
    if op.differentiable:
        assert checked, f"{op.name}: no sample has a float input to differentiate"


def run_concurrently(workers, switch_interval: float = 1e-5) -> None:
    """Start every ``worker()`` in its own thread at the same moment and wait for all;
    re-raise the first error. The short switch interval makes the threads interleave
    between almost every operator, where shared state would be corrupted."""
    errors = []
    start = threading.Barrier(len(workers))

    def wrapped(fn):
        try:
            start.wait()
            fn()
        except BaseException as e:  # noqa: BLE001 - re-raised below
            errors.append(e)

    previous = sys.getswitchinterval()
    sys.setswitchinterval(switch_interval)
    try:
        threads = [threading.Thread(target=wrapped, args=(w,)) for w in workers]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(previous)
    if errors:
        raise errors[0]
