"""Fused float operators, named as in MindSpore Lite.

``Conv2DFusion``: Conv2D + per-channel bias + activation, one pass over the output.
``FullConnection``: Dense (``x @ w.T + b``) + activation. ``Conv2DPoolFusion``: a
Conv2DFusion and the max pooling that alone reads it (the converter's ``fuse_conv_pool``
pass; its ``pool`` attribute holds the MaxPool's attributes). The convolution itself is the
registry's ``Conv2D`` CPU kernel, so the fused form computes exactly what the unfused
graph did, then adds the bias and clamps in place.
"""

from __future__ import annotations

import numpy as np

from ms_lite.runtime.ops import LiteOp
from ms_tensor import registry as _registry

__all__ = ["CONV2D_FUSION", "CONV2D_POOL_FUSION", "FULL_CONNECTION", "ACTIVATIONS",
           "activate"]

ACTIVATIONS = ("NO_ACTIVATION", "RELU", "RELU6")


def activate(out: np.ndarray, activation_type: str) -> np.ndarray:
    """Apply the fused activation in place."""
    if activation_type == "RELU":
        np.maximum(out, 0, out=out)
    elif activation_type == "RELU6":
        np.clip(out, 0, 6, out=out)
    elif activation_type != "NO_ACTIVATION":
        raise ValueError(f"unknown activation_type {activation_type!r}; expected one of "
                         f"{ACTIVATIONS}")
    return out


def _conv_infer(x, w, b=None, activation_type="NO_ACTIVATION", **attrs):
    out = _registry.load().primitive("Conv2D").abstract_eval(x, w, **attrs)
    if b is not None and b.shape != (out.shape[1],):
        raise ValueError(f"Conv2DFusion: bias shape {b.shape}, expected ({out.shape[1]},)")
    if activation_type not in ACTIVATIONS:
        raise ValueError(f"Conv2DFusion: activation_type {activation_type!r} is not one of "
                         f"{ACTIVATIONS}")
    return out


def _conv_kernel(x, w, b=None, activation_type="NO_ACTIVATION", **attrs):
    reg = _registry.load()
    out = reg.kernel("Conv2D", "CPU")(x, w, **reg.primitive("Conv2D").complete_attrs(attrs))
    if b is not None:
        out += b.reshape(1, -1, 1, 1).astype(out.dtype, copy=False)
    return activate(out, activation_type)


CONV2D_FUSION = LiteOp("Conv2DFusion", _conv_infer, _conv_kernel,
                       doc="Conv2D (NCHW) + bias + activation_type")


def _conv_pool_infer(x, w, b=None, pool=None, conv_shape=None, **attrs):
    conv = _conv_infer(x, w, b, **attrs)
    if not isinstance(pool, dict):
        raise ValueError(f"Conv2DPoolFusion: the attribute 'pool' must hold the MaxPool's "
                         f"attributes, got {pool!r}")
    return _registry.load().primitive("MaxPool").abstract_eval(conv, **pool)


def _conv_pool_kernel(x, w, b=None, pool=None, conv_shape=None, **attrs):
    reg = _registry.load()
    conv = _conv_kernel(x, w, b, **attrs)
    return reg.kernel("MaxPool", "CPU")(conv, **reg.primitive("MaxPool").complete_attrs(pool))


CONV2D_POOL_FUSION = LiteOp("Conv2DPoolFusion", _conv_pool_infer, _conv_pool_kernel,
                            doc="Conv2DFusion, then MaxPool (attribute 'pool') on its output")


def _fc_infer(x, w, b=None, activation_type="NO_ACTIVATION"):
    dense = _registry.load().primitive("Dense")
    if activation_type not in ACTIVATIONS:
        raise ValueError(f"FullConnection: activation_type {activation_type!r} is not one of "
                         f"{ACTIVATIONS}")
    return dense.abstract_eval(x, w, b)


def _fc_kernel(x, w, b=None, activation_type="NO_ACTIVATION"):
    out = _registry.load().kernel("Dense", "CPU")(x, w, b)
    return activate(out, activation_type)


FULL_CONNECTION = LiteOp("FullConnection", _fc_infer, _fc_kernel,
                         doc="x @ w.T + b, then activation_type (Dense's layout)")
