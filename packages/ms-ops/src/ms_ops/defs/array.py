"""Shape manipulation: Reshape, BroadcastTo, Cast, ..."""

from __future__ import annotations

import math

import numpy as np

from ms_tensor import dtype as mstype

from ms_ops.opdef import ALL, STATIC, Arg, OpDef, TensorSpec


def _reshape_infer(x, shape):
    shape = tuple(shape)
    unknown = [i for i, d in enumerate(shape) if d == -1]
    if len(unknown) > 1 or any(not isinstance(d, int) or d < -1 for d in shape):
        raise ValueError(f"shape {shape} is invalid: use non-negative ints and at most one -1")
    size = math.prod(x.shape)
    known = math.prod(d for d in shape if d != -1)
    if unknown:
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape input of shape {x.shape} (size {size}) to {shape}")
        shape = tuple(size // known if d == -1 else d for d in shape)
    elif known != size:
        raise ValueError(f"cannot reshape input of shape {x.shape} (size {size}) to {shape} "
                         f"(size {known})")
    return TensorSpec(shape, x.dtype)


Reshape = OpDef("Reshape", (Arg("input_x"), Arg("input_shape", STATIC)), infer=_reshape_infer,
                doc="The same data with a new shape (one dimension may be -1).")


def _broadcast_to_infer(x, shape):
    shape = tuple(shape)
    if len(shape) < x.ndim:
        raise ValueError(f"cannot broadcast input of shape {x.shape} to {shape}: target has "
                         "fewer dimensions")
    out = list(shape)
    lead = len(shape) - x.ndim
    for i, d in enumerate(x.shape):
        t = shape[lead + i]
        if t == -1:
            out[lead + i] = d
        elif d != t and d != 1:
            raise ValueError(f"cannot broadcast input of shape {x.shape} to {shape}: "
                             f"dimension {i} is {d}, target {t}")
    return TensorSpec(tuple(out), x.dtype)


BroadcastTo = OpDef("BroadcastTo", (Arg("input_x"), Arg("shape", STATIC)),
                    infer=_broadcast_to_infer, doc="Broadcast to ``shape`` (-1 keeps a dim).")


def _cast_infer(x, dtype):
    if not isinstance(dtype, mstype.DType):
        raise TypeError(f"dtype must be a microspore dtype (e.g. float32), got {dtype!r}")
    return TensorSpec(x.shape, dtype)


Cast = OpDef("Cast", (Arg("input_x"), Arg("dtype", STATIC)), infer=_cast_infer,
             doc="Convert to ``dtype``.")


def reshape_cpu(x, input_shape):
    return np.reshape(x, input_shape)


def broadcast_to_cpu(x, shape):
    shape = tuple(d if t == -1 else t for d, t in
                  zip((1,) * (len(shape) - x.ndim) + x.shape, shape))
    return np.broadcast_to(x, shape)


def cast_cpu(x, dtype):
    return x.astype(dtype.np)


def reshape_bprop(x, shape, out, dout):
    return (Reshape(dout, x.shape), None)


def broadcast_to_bprop(x, shape, out, dout):
    from ms_ops.defs._grad_util import sum_to

    return (sum_to(dout, x.shape), None)


def cast_bprop(x, dtype, out, dout):
    return (Cast(dout, x.dtype), None)


PRIMITIVES = (Reshape, BroadcastTo, Cast)
CPU_KERNELS = {Reshape: (reshape_cpu, ALL), BroadcastTo: (broadcast_to_cpu, ALL),
               Cast: (cast_cpu, ALL)}
BPROPS = {Reshape: reshape_bprop, BroadcastTo: broadcast_to_bprop, Cast: cast_bprop}
FUNCTIONS = {}
TENSOR_METHODS = {}
