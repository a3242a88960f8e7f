"""Masks: MaskedFill, and ``ops.nonzero``/``argwhere``/``masked_select``/``count_nonzero``.

``nonzero`` and ``masked_select`` give shapes that depend on the data, so they read the
mask's values (in a compiled graph that read is refused with file:line, like every value
read); ``masked_select`` then gathers with GatherNd, so its gradient flows to the input.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs._grad_util import grad_for, shape_of, sum_to
from ms_ops.infer import broadcast_shapes, check_dtype
from ms_ops.opdef import ALL, Arg, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _masked_fill_infer(input, mask, value):
    if mask.dtype is not mstype.bool_:
        raise TypeError(f"MaskedFill: mask must be Bool, got {mask.dtype}")
    if value.ndim != 0:
        raise ValueError(f"MaskedFill: value must be a 0-d tensor or a number, got shape "
                         f"{value.shape}")
    return TensorSpec(broadcast_shapes(input, mask, names=("input", "mask")), input.dtype)


MaskedFill = OpDef("MaskedFill", (Arg("input", promote=False), Arg("mask", promote=False),
                                  Arg("value", promote=False)),
                   infer=_masked_fill_infer, nondiff_inputs=("mask",),
                   doc="``value`` where ``mask`` is True, else ``input`` (broadcasting); "
                       "the result has input's dtype.")


@MaskedFill.kernel("CPU", dtypes=ALL)
def masked_fill_cpu(input, mask, value):
    return np.where(mask, value.astype(input.dtype), input)


@MaskedFill.bprop
def masked_fill_bprop(input, mask, value, out, dout):
    from ms_ops.defs.array_reorder import Select

    return (grad_for(input, sum_to(Select(mask, 0, dout), shape_of(input))), None,
            grad_for(value, sum_to(Select(mask, dout, 0), shape_of(value))))


@MaskedFill.samples
def _masked_fill(rng):
    yield (rng.standard_normal((2, 3)), rng.random((2, 3)) < 0.5, np.array(1.5)), {}
    yield (rng.standard_normal((2, 3)), np.array([True, False, True]), np.array(-2.0)), {}


def _value_like(value, input):
    if isinstance(value, Tensor):
        return value if value.dtype is input.dtype else array.Cast(value, input.dtype)
    return Tensor(np.asarray(value), input.dtype)


@functional("masked_fill", methods="masked_fill")
def masked_fill(input_x, mask, value):
    """``ops.masked_fill``: ``value`` where ``mask`` is True (broadcasting), else ``input_x``.

    >>> ops.masked_fill(Tensor([1.0, 2.0]), Tensor([True, False]), 0.0).asnumpy()
    array([0., 2.], dtype=float32)
    """
    return MaskedFill(input_x, mask, _value_like(value, input_x))


def _indices(input) -> np.ndarray:
    if not isinstance(input, Tensor):
        raise TypeError(f"nonzero: input must be a Tensor, got {type(input).__name__}")
    return np.argwhere(input.asnumpy())


@functional("nonzero", methods="nonzero")
def nonzero(input, *, as_tuple=False):
    """``ops.nonzero``: the int64 coordinates of the non-zero entries, one row each
    (``as_tuple=True``: one 1-D tensor per axis).

    >>> ops.nonzero(Tensor([[0, 1], [2, 0]])).asnumpy()
    array([[0, 1],
           [1, 0]])
    """
    where = _indices(input)
    if as_tuple:
        return tuple(Tensor(np.ascontiguousarray(where[:, i])) for i in range(where.shape[1]))
    return Tensor(where)


@functional("argwhere", methods="argwhere")
def argwhere(input):
    """``ops.argwhere``: the int64 coordinates of the non-zero entries (as ``nonzero``)."""
    return Tensor(_indices(input))


@functional("masked_select", methods="masked_select")
def masked_select(input, mask):
    """``ops.masked_select``: the entries of ``input`` where ``mask`` (broadcast) is True,
    as a 1-D tensor; differentiable in ``input``.

    >>> ops.masked_select(Tensor([1.0, 2.0, 3.0]), Tensor([True, False, True])).asnumpy()
    array([1., 3.], dtype=float32)
    """
    check_dtype("mask", mask, {mstype.bool_})
    shape = np.broadcast_shapes(input.shape, mask.shape)
    if input.shape != shape:
        input = array.BroadcastTo(input, shape)
    where = np.argwhere(np.broadcast_to(mask.asnumpy(), shape))
    from ms_ops.defs.indexing import GatherNd

    return GatherNd(input, Tensor(where))


@functional("count_nonzero", methods="count_nonzero")
def count_nonzero(x, axis=(), keep_dims=False, dtype=mstype.int32):
    """``ops.count_nonzero``: how many entries are non-zero along ``axis`` (all: ``()``)."""
    from ms_ops.defs.comparison import NotEqual
    from ms_ops.defs.reduction import ReduceSum

    counted = ReduceSum(array.Cast(NotEqual(x, 0), mstype.int32), axis, keep_dims=keep_dims)
    return counted if dtype is mstype.int32 else array.Cast(counted, dtype)
