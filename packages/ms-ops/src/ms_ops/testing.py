"""Test helpers that ms-ops, other packages and plugins reuse.

- ``check_bprop``: a gradient rule against central finite differences (float64).
- ``check_kernel``: a backend's kernel against the CPU reference, on the same inputs.
- ``check_against_reference``: a fast (Cython) kernel against its numpy reference.
"""

from __future__ import annotations

import numpy as np

from ms_ops.opdef import TENSOR, OpDef
from ms_tensor import registry
from ms_tensor.tensor import Tensor

__all__ = ["check_bprop", "numeric_vjp", "check_kernel", "check_against_reference"]


def _call(op, inputs, attrs):
    return op(*inputs, **attrs) if isinstance(op, OpDef) else op(*inputs)


def _as_tuple(x):
    return x if isinstance(x, tuple) else (x,)


def _scalar_objective(op, inputs, attrs, douts):
    outs = _as_tuple(_call(op, inputs, attrs))
    return sum(float(np.sum(o.asnumpy().astype(np.float64) * d)) for o, d in zip(outs, douts))


def numeric_vjp(op, inputs, attrs, douts, index, eps=1e-6):
    """d/d inputs[index] of sum(op(inputs) * douts), by central differences."""
    base = inputs[index].asnumpy().astype(np.float64)
    grad = np.zeros_like(base)
    flat = grad.reshape(-1)
    for k in range(base.size):
        values = []
        for sign in (1.0, -1.0):
            probe = base.copy().reshape(-1)
            probe[k] += sign * eps
            args = list(inputs)
            args[index] = Tensor(probe.reshape(base.shape))
            values.append(_scalar_objective(op, args, attrs, douts))
        flat[k] = (values[0] - values[1]) / (2 * eps)
    return grad


def check_bprop(op: OpDef, *inputs, attrs=None, rtol=1e-5, atol=1e-6, eps=1e-6, seed=0,
                skip=()):
    """Assert that ``op``'s registered gradient rule matches finite differences.

    ``inputs`` are float64 numpy arrays for tensor inputs (or Python values for static
    ones). Inputs listed in ``op.nondiff_inputs`` or ``skip`` are not checked.
    """
    values, attrs = op.bind(inputs, dict(attrs or {}))  # static defaults filled in
    rng = np.random.default_rng(seed)
    args = [Tensor(v) if isinstance(v, np.ndarray) else v for v in values]
    out = _call(op, args, attrs)
    outs = _as_tuple(out)
    douts = tuple(rng.standard_normal(o.shape) for o in outs)
    dout_t = tuple(Tensor(d.astype(o.asnumpy().dtype)) for d, o in zip(douts, outs))
    bprop = registry.load().bprop(op)
    assert bprop is not None, f"{op.name} has no registered gradient rule"
    grads = bprop(*args, out=out, dout=dout_t if isinstance(out, tuple) else dout_t[0], **attrs)
    assert len(grads) == len(op.inputs), \
        f"{op.name}: bprop returned {len(grads)} gradients for {len(op.inputs)} inputs"
    for i, a in enumerate(op.inputs):
        if a.kind != TENSOR or a.name in op.nondiff_inputs or a.name in skip \
                or not isinstance(args[i], Tensor):
            continue
        assert grads[i] is not None, f"{op.name}: no gradient for input {a.name!r}"
        got = np.asarray(grads[i].asnumpy(), dtype=np.float64)
        want = numeric_vjp(op, args, attrs, douts, i, eps)
        assert got.shape == want.shape, \
            f"{op.name}: gradient of {a.name!r} has shape {got.shape}, expected {want.shape}"
        np.testing.assert_allclose(got, want, rtol=rtol, atol=atol,
                                   err_msg=f"{op.name}: gradient of input {a.name!r}")


def check_kernel(op: OpDef, backend: str, *arrays, rtol=1e-5, atol=1e-6, **kwargs):
    """Assert that ``backend``'s kernel for ``op`` agrees with the CPU kernel."""
    reg = registry.load()
    fn = reg.kernel(op, backend)
    assert fn is not None, f"{op.name}: no {backend} kernel is registered"
    be = reg.backend(backend)
    got = _as_tuple(fn(*[be.asarray(a) for a in arrays], **kwargs))
    want = _as_tuple(reg.kernel(op, "CPU")(*arrays, **kwargs))
    for g, w in zip(got, want):
        np.testing.assert_allclose(np.asarray(be.to_host(g)), w, rtol=rtol, atol=atol)


def check_against_reference(fast, reference, *args, rtol=1e-5, atol=1e-6, **kwargs):
    """Assert that a compiled kernel returns what its numpy reference returns."""
    got = _as_tuple(fast(*args, **kwargs))
    want = _as_tuple(reference(*args, **kwargs))
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert np.shape(g) == np.shape(w), f"shape {np.shape(g)} != reference {np.shape(w)}"
        np.testing.assert_allclose(g, w, rtol=rtol, atol=atol)
