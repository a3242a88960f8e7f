"""Evenly spaced values: LinSpace, and ``ops.linspace``/``ops.logspace``.

MindSpore's LinSpace takes ``start`` and ``stop`` as 0-d tensors (so they can be
differentiated) and ``num`` as a static int; the values are ``start + i * (stop - start) /
(num - 1)``. Python numbers given to ``ops.linspace`` become float32 tensors.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs.arithmetic import Mul, Pow, Sub
from ms_ops.defs.reduction import ReduceSum
from ms_ops.infer import check_dtype, check_int
from ms_ops.opdef import FLOATS, STATIC, Arg, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _fractions(num: int, dtype) -> Tensor:
    """i / (num - 1) for each output position (0 when num is 1)."""
    return Tensor(np.linspace(0.0, 1.0, num) if num > 1 else np.zeros(num), dtype)


def _lin_space_infer(start, stop, num):
    for name, v in (("start", start), ("stop", stop)):
        check_dtype(name, v, FLOATS)
        if v.ndim != 0:
            raise ValueError(f"LinSpace: {name} must be a 0-d tensor, got shape {v.shape}")
    if start.dtype is not stop.dtype:
        raise TypeError(f"LinSpace: start ({start.dtype}) and stop ({stop.dtype}) must have "
                        "the same dtype")
    check_int("num", num, minimum=1)
    return TensorSpec((num,), start.dtype)


LinSpace = OpDef("LinSpace", (Arg("start", promote=False), Arg("stop", promote=False),
                              Arg("num", STATIC)),
                 infer=_lin_space_infer,
                 doc="``num`` evenly spaced values from ``start`` to ``stop``, both included.")


@LinSpace.kernel("CPU", dtypes=FLOATS)
def lin_space_cpu(start, stop, num):
    return np.linspace(start, stop, num, dtype=start.dtype)


@LinSpace.bprop
def lin_space_bprop(start, stop, num, out, dout):
    t = _fractions(num, dout.dtype)
    return (ReduceSum(Sub(dout, Mul(dout, t))), ReduceSum(Mul(dout, t)), None)


@LinSpace.samples
def _lin_space(rng):
    yield (np.array(rng.standard_normal()), np.array(rng.standard_normal() + 3.0), 5), {}
    yield (np.array(1.0), np.array(-2.0), 1), {}


def _bound(v) -> Tensor:
    if isinstance(v, Tensor):
        return v
    return Tensor(np.asarray(v, np.float32), mstype.float32)


@functional("linspace")
def linspace(start, end, steps):
    """``ops.linspace``: ``steps`` evenly spaced values from ``start`` to ``end``.

    >>> ops.linspace(1.0, 10.0, 5).asnumpy()
    array([ 1.  ,  3.25,  5.5 ,  7.75, 10.  ], dtype=float32)
    """
    return LinSpace(_bound(start), _bound(end), steps)


@functional("logspace")
def logspace(start, end, steps, base=10, *, dtype=mstype.float32):
    """``ops.logspace``: ``base ** linspace(start, end, steps)`` in ``dtype``."""
    from ms_ops.defs.array import Cast

    exponents = LinSpace(_bound(start), _bound(end), steps)
    out = Pow(Tensor(np.asarray(base, np.float32), mstype.float32), exponents)
    return out if dtype is mstype.float32 else Cast(out, dtype)
