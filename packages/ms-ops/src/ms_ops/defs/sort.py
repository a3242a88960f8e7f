"""Sorting: Sort and TopK, and ``ops.sort``/``argsort``/``msort``/``topk``.

Both primitives return ``(values, indices)`` with int32 indices, as MindSpore's do. Sorts
are stable, descending ones included (equal values keep their input order), so indices
are deterministic. The gradient of the values is the incoming gradient scattered back to
the positions the indices name; the indices have none.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.array_slice import Slice
from ms_ops.infer import check_bool, check_dtype, check_int, normalize_axis
from ms_ops.opdef import NUMBERS, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype

_SORTABLE = NUMBERS | {mstype.bool_}


def _order(x: np.ndarray, axis: int, descending: bool) -> np.ndarray:
    """Stable argsort; descending sorts a key that reverses the order without overflow."""
    if descending:
        x = -x if x.dtype.kind in "fc" else ~x  # ~ reverses ints, unsigned and bool exactly
    return np.argsort(x, axis=axis, kind="stable")


def _scatter_back(x, axis, indices, dvalues):
    from ms_ops.defs.array_create import ZerosLike
    from ms_ops.defs.indexing import TensorScatterElements

    return TensorScatterElements(ZerosLike(x), indices, dvalues, axis=axis, reduction="add")


def _sort_infer(x, axis=-1, descending=False):
    check_dtype("input_x", x, _SORTABLE)
    normalize_axis(axis, max(x.ndim, 1))
    check_bool("descending", descending)
    return TensorSpec(x.shape, x.dtype), TensorSpec(x.shape, mstype.int32)


Sort = OpDef("Sort", (Arg("input_x"),), (Attr("axis", -1), Attr("descending", False)),
             infer=_sort_infer,
             doc="``(values, indices)`` of a stable sort along ``axis``; indices are int32.")


@Sort.kernel("CPU", dtypes=_SORTABLE)
def sort_cpu(x, axis=-1, descending=False):
    if x.ndim == 0:
        return x.copy(), np.zeros((), np.int32)
    index = _order(x, axis, descending)
    return np.take_along_axis(x, index, axis), index.astype(np.int32)


@Sort.bprop
def sort_bprop(x, out, dout, axis=-1, descending=False):
    if dout[0] is None or x.ndim == 0:
        return (dout[0],)
    return (_scatter_back(x, axis, out[1], dout[0]),)


@Sort.samples
def _sort(rng):
    yield (rng.permutation(12).reshape(3, 4) * 0.5,), {}
    yield (rng.permutation(12).reshape(3, 4) * 0.5,), {"axis": 0, "descending": True}
    yield (rng.permutation(24).reshape(2, 3, 4) - 11.5,), {"axis": 1}


def _top_k_infer(x, k, sorted=True):
    check_dtype("input_x", x, NUMBERS)
    if x.ndim == 0:
        raise ValueError("TopK: input_x must have at least 1 dimension, got a 0-d tensor")
    check_int("k", k, minimum=0)
    if k > x.shape[-1]:
        raise ValueError(f"TopK: k={k} is larger than the last axis of input shape {x.shape}")
    check_bool("sorted", sorted)
    shape = x.shape[:-1] + (k,)
    return TensorSpec(shape, x.dtype), TensorSpec(shape, mstype.int32)


TopK = OpDef("TopK", (Arg("input_x"), Arg("k", STATIC)), (Attr("sorted", True),),
             infer=_top_k_infer,
             doc="``(values, indices)`` of the ``k`` largest entries of the last axis, "
                 "largest first (ties: the earlier index first).")


@TopK.kernel("CPU", dtypes=NUMBERS)
def top_k_cpu(x, k, sorted=True):
    index = _order(x, -1, True)[..., :k]
    return np.take_along_axis(x, index, -1), index.astype(np.int32)


@TopK.bprop
def top_k_bprop(x, k, out, dout, sorted=True):
    if dout[0] is None:
        return (None, None)
    return (_scatter_back(x, -1, out[1], dout[0]), None)


@TopK.samples
def _top_k(rng):
    yield (rng.permutation(12).reshape(3, 4) * 0.5, 2), {}
    yield (rng.permutation(24).reshape(2, 3, 4) - 11.5, 4), {}
    yield (rng.permutation(5) * 1.0, 1), {}


def _moved(input, dim, fn):
    """``fn`` applied along the last axis after moving ``dim`` there, then moved back."""
    d = normalize_axis(dim, input.ndim, "dim")
    if d == input.ndim - 1:
        return fn(input)
    perm = list(range(input.ndim))
    perm[d], perm[-1] = perm[-1], perm[d]
    return tuple(array.Transpose(o, tuple(perm)) for o in fn(array.Transpose(input, tuple(perm))))


@functional("sort", methods="sort")
def sort(input_x, axis=-1, descending=False):
    """``ops.sort``: ``(values, indices)`` of a stable sort along ``axis`` (int32 indices).

    >>> ops.sort(Tensor([3.0, 1.0, 2.0]))[1].asnumpy()
    array([1, 2, 0], dtype=int32)
    """
    return Sort(input_x, axis=axis, descending=descending)


@functional("argsort", methods="argsort")
def argsort(input, axis=-1, descending=False):
    """``ops.argsort``: the int32 indices that sort ``input`` along ``axis`` (stable)."""
    return Sort(input, axis=axis, descending=descending)[1]


@functional("msort", methods="msort")
def msort(input):
    """``ops.msort``: ``input`` sorted along its first axis (values only)."""
    return Sort(input, axis=0)[0]


@functional("topk", methods="topk")
def topk(input, k, dim=None, largest=True, sorted=True):
    """``ops.topk``: ``(values, indices)`` of the ``k`` largest (or smallest) entries
    along ``dim`` (the last axis when None), int32 indices.

    >>> ops.topk(Tensor([[3.0, 1.0, 2.0]]), 2)[0].asnumpy()
    array([[3., 2.]], dtype=float32)
    """
    check_int("k", k, minimum=0)
    dim = -1 if dim is None else dim

    def last(t):
        if largest:
            return TopK(t, k, sorted=sorted)
        if k > t.shape[-1]:
            raise ValueError(f"topk: k={k} is larger than the size {t.shape[-1]} of dim {dim}")
        values, indices = Sort(t, axis=-1)
        size = t.shape[:-1] + (k,)
        begin = (0,) * t.ndim
        return Slice(values, begin, size), Slice(indices, begin, size)

    return _moved(input, dim, last)
