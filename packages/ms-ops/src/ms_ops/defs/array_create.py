"""Tensor creation: Fill, Zeros, Ones, ZerosLike, OnesLike, Range, Eye, OneHot, and the
functional forms ``ops.full``, ``ops.zeros``, ``ops.arange``, ``ops.eye``, ``ops.one_hot``...

Shapes, dtypes and Range's bounds are static inputs, so inference knows every output
shape. Only Fill has a gradient (for its value); the other results are constants.
"""

from __future__ import annotations

import math
import numbers

import numpy as np

from ms_ops.infer import check_dtype, check_int
from ms_ops.opdef import ALL, INTS, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def check_shape(name: str, shape) -> tuple:
    if isinstance(shape, int) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"{name} must be an int or a tuple of ints, got {type(shape).__name__}")
    for d in shape:
        check_int(name, d, minimum=0)
    return tuple(shape)


def check_type(name: str, dtype) -> mstype.DType:
    if not isinstance(dtype, mstype.DType):
        raise TypeError(f"{name} must be a microspore dtype (e.g. float32), got {dtype!r}")
    return dtype


def _constant_infer(size, dtype=None):
    return TensorSpec(check_shape("size", size),
                      mstype.float32 if dtype is None else check_type("dtype", dtype))


def scalar(name: str, v):
    """A Range bound as a Python number (a one-element Tensor or array is read)."""
    if isinstance(v, (Tensor, np.ndarray, np.generic)):
        if v.size != 1:
            raise ValueError(f"{name} must be a scalar, got a tensor of shape {v.shape}")
        v = v.item()
    if isinstance(v, bool) or not isinstance(v, numbers.Real):
        raise TypeError(f"{name} must be an int or a float, got {type(v).__name__}")
    return v


def range_length(start, end, step) -> int:
    if step == 0:
        raise ValueError("step cannot be 0")
    if (end - start) * step < 0:
        raise ValueError(f"step {step} moves away from end {end} when starting at {start}")
    return max(math.ceil((end - start) / step), 0)


def _dtype_of(value):
    """MindSpore 2.x's dtype for a fill value: a tensor's own, else bool/int64/float32."""
    if isinstance(value, Tensor):
        return value.dtype
    if isinstance(value, (bool, np.bool_)):
        return mstype.bool_
    if isinstance(value, numbers.Integral):
        return mstype.int64
    if isinstance(value, numbers.Real):
        return mstype.float32
    return mstype.complex64


def _typed(*bounds):
    # Dispatch keys static inputs by value, and 5 == 5.0: as 0-d arrays, the bounds' types
    # (which decide int64 or float32) become part of the key.
    return tuple(np.asarray(b) if isinstance(b, (int, float)) else b for b in bounds)


# Samples for the creation operators (Fill, Zeros, Range, Eye, OneHot, ...).
def _constant(rng):
    yield ((2, 3), mstype.float32), {}
    yield ((4,), None), {}


def _like(rng):
    yield (rng.standard_normal((2, 3)),), {}


def _fill_infer(type, shape, value):
    if math.prod(value.shape) != 1:
        raise ValueError(f"value must hold one element, got shape {value.shape}")
    return TensorSpec(check_shape("shape", shape), check_type("type", type))


Fill = OpDef("Fill", (Arg("type", STATIC), Arg("shape", STATIC), Arg("value", promote=False)),
             infer=_fill_infer, doc="A tensor of ``shape`` and ``type`` filled with ``value``.")


@Fill.kernel("CPU", dtypes=ALL)
def fill_cpu(value, type, shape):
    return np.full(shape, value.reshape(()), dtype=type.np)


@Fill.bprop
def fill_bprop(type, shape, value, out, dout):
    if not isinstance(value, Tensor):
        return (None, None, None)
    from ms_ops.defs.array import Cast, Reshape
    from ms_ops.defs.reduction import ReduceSum

    total = Reshape(ReduceSum(dout, ()), value.shape)
    return (None, None, total if total.dtype is value.dtype else Cast(total, value.dtype))


@Fill.samples
def _fill(rng):
    yield (mstype.float64, (2, 3), rng.standard_normal(())), {}
    yield (mstype.float64, (4,), rng.standard_normal((1,))), {}


Zeros = OpDef("Zeros", (Arg("size", STATIC), Arg("dtype", STATIC, None)), infer=_constant_infer,
              differentiable=False, doc="Zeros of ``size`` (float32 unless ``dtype``).")


@Zeros.kernel("CPU", dtypes=ALL)
def zeros_cpu(size, dtype=None):
    return np.zeros(check_shape("size", size), (dtype or mstype.float32).np)


Zeros.samples(_constant)


Ones = OpDef("Ones", (Arg("shape", STATIC), Arg("dtype", STATIC, None)), infer=_constant_infer,
             differentiable=False, doc="Ones of ``shape`` (float32 unless ``dtype``).")


@Ones.kernel("CPU", dtypes=ALL)
def ones_cpu(shape, dtype=None):
    return np.ones(check_shape("shape", shape), (dtype or mstype.float32).np)


Ones.samples(_constant)


ZerosLike = OpDef("ZerosLike", (Arg("x"),), infer=lambda x: TensorSpec(x.shape, x.dtype),
                  differentiable=False, doc="Zeros of the input's shape and dtype.")
ZerosLike.kernel("CPU", dtypes=ALL)(np.zeros_like)
ZerosLike.samples(_like)


OnesLike = OpDef("OnesLike", (Arg("x"),), infer=lambda x: TensorSpec(x.shape, x.dtype),
                 differentiable=False, doc="Ones of the input's shape and dtype.")
OnesLike.kernel("CPU", dtypes=ALL)(np.ones_like)
OnesLike.samples(_like)


def _range_infer(start, end, step, maxlen=1000000):
    values = [scalar(n, v) for n, v in (("start", start), ("end", end), ("step", step))]
    n = range_length(*values)
    if n > maxlen:
        raise ValueError(f"the range has {n} elements, more than maxlen {maxlen}")
    dtype = mstype.int64 if all(isinstance(v, int) for v in values) else mstype.float32
    return TensorSpec((n,), dtype)


Range = OpDef("Range", (Arg("start", STATIC), Arg("end", STATIC), Arg("step", STATIC)),
              (Attr("maxlen", 1000000),), infer=_range_infer, differentiable=False,
              doc="start, start + step, ... up to end (excluded): int64 for int bounds, "
                  "else float32.")


@Range.kernel("CPU", dtypes=ALL)
def range_cpu(start, end, step, maxlen=1000000):
    return np.arange(scalar("start", start), scalar("end", end), scalar("step", step))


@Range.samples
def _range_samples(rng):
    yield (0, 5, 1), {}
    yield (0.5, 2.0, 0.25), {}
    yield (4, -3, -2), {}


def _eye_infer(n, m, dtype):
    check_int("n", n, minimum=0)
    check_int("m", m, minimum=0)
    return TensorSpec((n, m), check_type("dtype", dtype))


Eye = OpDef("Eye", (Arg("n", STATIC), Arg("m", STATIC), Arg("dtype", STATIC)), infer=_eye_infer,
            differentiable=False, doc="An n x m matrix with ones on the diagonal.")


@Eye.kernel("CPU", dtypes=ALL)
def eye_cpu(n, m, dtype):
    return np.eye(n, m, dtype=dtype.np)


@Eye.samples
def _eye(rng):
    yield (3, 4, mstype.float32), {}
    yield (2, 2, mstype.int32), {}


def _one_hot_infer(indices, depth, on_value, off_value, axis=-1):
    check_dtype("indices", indices, INTS)
    check_int("depth", depth, minimum=0)
    check_int("axis", axis)
    if not -1 <= axis <= indices.ndim:
        raise ValueError(f"axis {axis} is out of range for indices of shape {indices.shape} "
                         f"(expected -1 <= axis <= {indices.ndim})")
    for name, v in (("on_value", on_value), ("off_value", off_value)):
        if math.prod(v.shape) != 1:
            raise ValueError(f"{name} must hold one element, got shape {v.shape}")
    a = indices.ndim if axis == -1 else axis
    return TensorSpec(indices.shape[:a] + (depth,) + indices.shape[a:], on_value.dtype)


OneHot = OpDef("OneHot", (Arg("indices", promote=False), Arg("depth", STATIC), Arg("on_value"),
                          Arg("off_value")), (Attr("axis", -1),),
               infer=_one_hot_infer, promote="common", differentiable=False,
               nondiff_inputs=("indices", "on_value", "off_value"),
               doc="on_value where the new axis equals the index, off_value elsewhere "
                   "(indices outside [0, depth) give a row of off_value).")


@OneHot.kernel("CPU", dtypes=ALL)
def one_hot_cpu(indices, on_value, off_value, depth, axis=-1):
    a = indices.ndim if axis == -1 else axis
    positions = np.arange(depth).reshape((depth,) + (1,) * (indices.ndim - a))
    return np.where(np.expand_dims(indices, a) == positions, on_value.reshape(()),
                    off_value.reshape(()))


@OneHot.samples
def _one_hot(rng):
    indices = rng.integers(0, 4, (2, 3))
    for axis in (-1, 0):
        yield (indices, 4, np.array(rng.standard_normal()), np.array(rng.standard_normal())),\
            {"axis": axis}


@functional("fill")
def fill(type, shape, value):
    """``ops.fill``: a tensor of ``shape`` and ``type`` filled with ``value``."""
    return Fill(type, shape, value)


@functional("full")
def full(size, fill_value, *, dtype=None):
    """``ops.full``: ``size`` filled with ``fill_value``; the dtype follows the value.

    >>> ops.full((2,), 3).dtype
    Int64
    """
    return Fill(dtype or _dtype_of(fill_value), size, fill_value)


@functional("full_like")
def full_like(input, fill_value, *, dtype=None):
    """``ops.full_like``: ``input``'s shape filled with ``fill_value``, in ``input``'s dtype."""
    return Fill(dtype or input.dtype, input.shape, fill_value)


@functional("zeros")
def zeros(size, dtype=None):
    """``ops.zeros``: zeros of ``size`` (float32 unless ``dtype``)."""
    return Zeros(size, dtype)


@functional("ones")
def ones(shape, dtype=None):
    """``ops.ones``: ones of ``shape`` (float32 unless ``dtype``)."""
    return Ones(shape, dtype)


@functional("zeros_like")
def zeros_like(input, *, dtype=None):
    """``ops.zeros_like``: zeros of ``input``'s shape, in ``dtype`` or ``input``'s dtype."""
    return ZerosLike(input) if dtype is None else Zeros(input.shape, dtype)


@functional("ones_like")
def ones_like(input, *, dtype=None):
    """``ops.ones_like``: ones of ``input``'s shape, in ``dtype`` or ``input``'s dtype."""
    return OnesLike(input) if dtype is None else Ones(input.shape, dtype)


@functional("arange")
def arange(start=0, end=None, step=1, *, dtype=None):
    """``ops.arange``: start, start + step, ... before end; int64 for int bounds, else
    float32, unless ``dtype``.

    >>> ops.arange(5).asnumpy()
    array([0, 1, 2, 3, 4])
    """
    if end is None:
        start, end = 0, start
    out = Range(*_typed(start, end, step))
    if dtype is None or dtype is out.dtype:
        return out
    from ms_ops.defs.array import Cast

    return Cast(out, dtype)


@functional("range")
def _range(start, end, step, maxlen=1000000):
    """``ops.range``: as :func:`arange`, with bounds that may be 0-d tensors."""
    return Range(*_typed(start, end, step), maxlen=maxlen)


@functional("eye")
def eye(n, m=None, dtype=None):
    """``ops.eye``: an n x m identity matrix (m = n if None; float32 unless ``dtype``)."""
    return Eye(n, n if m is None else m, dtype or mstype.float32)


@functional("one_hot")
def one_hot(indices, depth, on_value=1, off_value=0, axis=-1):
    """``ops.one_hot``: one-hot vectors of ``depth`` along ``axis``."""
    return OneHot(indices, depth, on_value, off_value, axis=axis)
