"""The Mish operator, ``x * tanh(softplus(x))``, defined once: signature, inference, CPU
kernel, gradient rule, functional name and Tensor method.

Everything here uses microspore's public API only (``ms_ops.OpDef``, ``ms_ops.Arg``,
``ms_ops.infer``, ``ms_ops.functional``); ``plugin.py`` registers it.
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


Mish = OpDef("Mish", (Arg("x"),), infer=mish_infer,
             doc="x * tanh(softplus(x)), elementwise (Misra, 2019).")


def mish_cpu(x):
    """numpy kernel. ``logaddexp(0, x)`` is softplus without overflow: ``log1p(exp(x))``
    would give inf for x > 88 in float32 and the product inf * 1 = inf, not x."""
    if x.dtype.itemsize < 4:  # float16 / bfloat16: compute in float32, dispatch casts back
        x = x.astype(np.float32)
    return x * np.tanh(np.logaddexp(0, x))


def mish_bprop(x, out, dout):
    """d mish / dx = tanh(sp) + x * sigmoid(x) * (1 - tanh(sp)^2), with sp = softplus(x).

    Written with operators, so it runs eagerly, traces into graphs and differentiates
    again (second derivatives of Mish come for free).
    """
    t = F.tanh(F.softplus(x))
    return (dout * (t + x * F.sigmoid(x) * (1 - t * t)),)


def mish_samples(rng):
    """Sample inputs for the registry-wide checks (``fn(rng)`` yields ``(args, attrs)``):
    Mish is smooth everywhere, so plain normal values, plus large ones where softplus
    and tanh saturate."""
    yield (rng.standard_normal((2, 3)),), {}
    yield (np.array([-12.0, -3.0, 0.0, 4.0, 15.0]),), {}


def mish(x):
    """Mish activation of ``x`` (MindSpore's ``ops.mish``).

    Args:
        x: float Tensor of any shape.
    Returns:
        Tensor of the same shape and dtype.
    Raises:
        TypeError: for a non-float ``x``; the message names Mish and the dtype.

    >>> mish(Tensor([0.0, 1.0])).asnumpy().round(4).tolist()
    [0.0, 0.8651]
    """
    return Mish(x)


def tensor_mish(self):
    """``Tensor.mish()``."""
    return Mish(self)
