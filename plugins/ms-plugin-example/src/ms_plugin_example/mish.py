"""The Mish operator, ``x * tanh(softplus(x))``, defined once: signature, inference, names,
CPU kernel, gradient rule and samples, in one block.

Everything here uses microspore's public API only (``ms_ops.OpDef``, ``ms_ops.Arg``,
``ms_ops.infer``, ``ms_ops.functional``); ``plugin.py`` registers it with one call.
"""

from __future__ import annotations

import numpy as np

from ms_ops import Arg, OpDef, TensorSpec
from ms_ops import functional as F
from ms_ops.infer import check_dtype
from ms_tensor import dtype as mstype

FLOATS = mstype.float_types


def mish_infer(x):
    """Same shape and dtype as ``x``, which must be a float tensor."""
    check_dtype("x", x, FLOATS)
    return TensorSpec(x.shape, x.dtype)


Mish = OpDef("Mish", (Arg("x"),), infer=mish_infer, functional="mish", methods="mish",
             doc="x * tanh(softplus(x)), elementwise (Misra, 2019).")


@Mish.kernel("CPU", dtypes=FLOATS)
def mish_cpu(x):
    """numpy kernel. ``logaddexp(0, x)`` is softplus without overflow: ``log1p(exp(x))``
    would give inf for x > 88 in float32 and the product inf * 1 = inf, not x."""
    if x.dtype.itemsize < 4:  # float16 / bfloat16: compute in float32, dispatch casts back
        x = x.astype(np.float32)
    return x * np.tanh(np.logaddexp(0, x))


@Mish.bprop
def mish_bprop(x, out, dout):
    """d mish / dx = tanh(sp) + x * sigmoid(x) * (1 - tanh(sp)^2), with sp = softplus(x).

    Written with operators (``F.mul`` is ms-ops' ``Mul``), so it runs eagerly, traces
    into graphs and differentiates again (second derivatives of Mish come for free).
    """
    t = F.tanh(F.softplus(x))
    slope = F.mul(F.mul(x, F.sigmoid(x)), F.sub(1, F.mul(t, t)))
    return (F.mul(dout, F.add(t, slope)),)


@Mish.samples
def mish_samples(rng):
    """Inputs for the registry-wide gradient and kernel suites: plain normal values, plus
    large ones where softplus and tanh saturate (Mish is smooth everywhere)."""
    yield (rng.standard_normal((2, 3)),), {}
    yield (np.array([-12.0, -3.0, 0.0, 4.0, 15.0]),), {}
