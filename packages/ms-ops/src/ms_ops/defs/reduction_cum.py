"""Cumulative operators: CumSum and CumProd (``exclusive``/``reverse`` attributes).

``axis`` is a static input, as in MindSpore (``ops.CumSum()(x, 1)``). ``exclusive``
shifts the running result by one (the first element becomes 0 or 1); ``reverse`` runs
from the end of the axis.
"""

from __future__ import annotations

import numpy as np

from ms_ops.infer import check_bool, check_dtype, normalize_axis
from ms_ops.opdef import NUMBERS, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype


def _cum_infer(x, axis, exclusive=False, reverse=False):
    check_dtype("x", x, NUMBERS)
    normalize_axis(axis, x.ndim)
    check_bool("exclusive", exclusive)
    check_bool("reverse", reverse)
    return TensorSpec(x.shape, x.dtype)


_ATTRS = (Attr("exclusive", False), Attr("reverse", False))


def _scan(fn, identity, x, axis, exclusive, reverse):
    if x.ndim == 0:
        return _scan(fn, identity, x.reshape(1), 0, exclusive, reverse).reshape(())
    if reverse:
        x = np.flip(x, axis)
    out = fn(x, axis=axis, dtype=x.dtype)
    if exclusive:
        shifted = np.empty_like(out)
        head = [slice(None)] * x.ndim
        head[axis] = slice(0, 1)
        shifted[tuple(head)] = identity
        dst, src = list(head), list(head)
        dst[axis], src[axis] = slice(1, None), slice(None, -1)
        shifted[tuple(dst)] = out[tuple(src)]
        out = shifted
    return np.flip(out, axis) if reverse else out


def _as(x, dtype):
    from ms_ops.defs import array

    return x if dtype is None or x.dtype is dtype else array.Cast(x, dtype)


# Samples for CumSum and CumProd along each axis, with ``exclusive`` and ``reverse``.
# CumProd also gets inputs holding a zero, where dividing by x would not give its
# gradient.
FLAGS = [(False, False), (True, False), (False, True), (True, True)]


CumSum = OpDef("CumSum", (Arg("input"), Arg("axis", STATIC)), _ATTRS, infer=_cum_infer,
               doc="Running sum along ``axis``.")


@CumSum.kernel("CPU", dtypes=NUMBERS)
def cum_sum_cpu(x, axis, exclusive=False, reverse=False):
    return _scan(np.cumsum, 0, x, axis, exclusive, reverse)


@CumSum.bprop
def cum_sum_bprop(x, axis, out, dout, exclusive=False, reverse=False):
    return (CumSum(dout, axis, exclusive=exclusive, reverse=not reverse), None)


@CumSum.samples
def _cumsum(rng):
    for exclusive, reverse in FLAGS:
        yield (rng.standard_normal((2, 3)), 1), {"exclusive": exclusive, "reverse": reverse}
    yield (rng.standard_normal((3, 2, 2)), 0), {}
    yield (rng.standard_normal((4,)), -1), {"reverse": True}


CumProd = OpDef("CumProd", (Arg("x"), Arg("axis", STATIC)), _ATTRS, infer=_cum_infer,
                doc="Running product along ``axis``.")


@CumProd.kernel("CPU", dtypes=NUMBERS)
def cum_prod_cpu(x, axis, exclusive=False, reverse=False):
    return _scan(np.cumprod, 1, x, axis, exclusive, reverse)


@CumProd.bprop
def cum_prod_bprop(x, axis, out, dout, exclusive=False, reverse=False):
    # MindSpore's rule: it divides by x, so a zero in x gives inf/NaN gradients (ReduceProd's
    # rule avoids the division; a running product has no cheap exact form).
    from ms_ops.defs.arithmetic import Div, Mul

    acc = CumSum(Mul(out, dout), axis, exclusive=exclusive, reverse=not reverse)
    return (Div(acc, x), None)


@CumProd.samples
def _cumprod(rng):
    for exclusive, reverse in FLAGS:
        x = rng.uniform(0.5, 1.5, (2, 3)) * rng.choice([-1.0, 1.0], (2, 3))
        yield (x, 1), {"exclusive": exclusive, "reverse": reverse}
    # No zeros: CumProd's rule divides by x, as MindSpore's does (NaN where x == 0).
    yield (rng.uniform(0.5, 1.5, (3, 2, 2)), 0), {}


@functional("cumsum")
def cumsum(x, axis, dtype=None):
    """``ops.cumsum``: running sum along ``axis``, optionally in ``dtype``.

    >>> ops.cumsum(Tensor([1, 2, 3], mstype.int32), 0).asnumpy()
    array([1, 3, 6], dtype=int32)
    """
    return CumSum(_as(x, dtype), axis)


@functional("cumprod", methods="cumprod")
def cumprod(input, dim, dtype=None):
    """``ops.cumprod``: running product along ``dim``; integers give int64 unless ``dtype``."""
    if dtype is None and input.dtype.kind in "biu":
        dtype = mstype.int64
    return CumProd(_as(input, dtype), dim)


@functional(methods="cumsum")
def _t_cumsum(self, axis=None, dtype=None):
    if axis is None:
        from ms_ops.defs import array

        return cumsum(array.Reshape(self, (-1,)), 0, dtype)
    return cumsum(self, axis, dtype)


