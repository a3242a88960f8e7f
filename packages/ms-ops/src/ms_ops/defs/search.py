"""Searching and counting: Cummax/Cummin, Bucketize, SearchSorted, the unsorted segment
maximum/minimum/product, and ``bincount``, ``histc``, ``unique``, ``unique_consecutive``,
``aminmax``, ``EqualCount``.

Where MindSpore 2.10's CPU answers differ from numpy's they are MindSpore's: ``bincount``
and ``histc`` count in float32, ``unique`` keeps the order of first appearance, an empty
segment of ``unsorted_segment_max`` holds the dtype's lowest finite value, ``cummin``'s
indices are int32 while ``cummax``'s are int64.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array, comparison
from ms_ops.defs._grad_util import grad_for
from ms_ops.defs.arithmetic import Div, Mul
from ms_ops.defs.array_create import OnesLike, ZerosLike
from ms_ops.defs.array_reorder import Select
from ms_ops.defs.indexing import Gather, GatherD, TensorScatterElements
from ms_ops.defs.nn_misc import UnsortedSegmentSum
from ms_ops.defs.reduction import ReduceMax, ReduceMin
from ms_ops.infer import check_dtype, check_int
from ms_ops.opdef import (
    INTS,
    NUMBERS,
    STATIC,
    Arg,
    Attr,
    OpDef,
    TensorSpec,
    functional,
    primitive_class,
)
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

_REAL = NUMBERS


def _cum_extreme(name: str, ufunc, index_dtype, functional_name: str) -> OpDef:
    def infer(x, axis):
        check_dtype("input", x, _REAL)
        check_int("axis", axis)
        if not -x.ndim <= axis < max(x.ndim, 1):
            raise ValueError(f"{name}: axis {axis} is out of range for shape {x.shape}")
        return TensorSpec(x.shape, x.dtype), TensorSpec(x.shape, index_dtype)

    op = OpDef(name, (Arg("input"),), (Attr("axis"),), infer=infer,
               doc=f"The running {ufunc.__name__} along ``axis`` and where it was reached "
                   "(the latest position among equal values).")

    @op.kernel("CPU", dtypes=_REAL)
    def cpu(x, axis):
        values = ufunc.accumulate(x, axis=axis)
        ax = axis % x.ndim
        positions = np.arange(x.shape[ax]).reshape((-1,) + (1,) * (x.ndim - ax - 1))
        hit = np.where(x == values, positions, 0)  # the running extremum was set here
        return values, np.maximum.accumulate(hit, axis=ax).astype(index_dtype.np)

    @op.bprop
    def bprop(x, out, dout, axis):
        return (TensorScatterElements(ZerosLike(x), out[1], dout[0], axis=axis,
                                      reduction="add"),)

    @op.samples
    def _samples(rng):
        yield (rng.permutation(12).reshape(3, 4).astype(np.float64),), {"axis": 1}
        yield (rng.permutation(12).reshape(3, 4).astype(np.float64),), {"axis": 0}

    @functional(functional_name, methods=functional_name)
    def fn(input, axis):
        return op(input, axis=axis)

    fn.__doc__ = f"``ops.{functional_name}``: (values, indices) of the running extremum."
    fn.__name__ = fn.__qualname__ = functional_name
    return op, fn


Cummax, cummax = _cum_extreme("Cummax", np.maximum, mstype.int64, "cummax")
Cummin, cummin = _cum_extreme("Cummin", np.minimum, mstype.int32, "cummin")


def _search_infer(sorted_sequence, values, dtype=mstype.int64, right=False):
    check_dtype("sorted_sequence", sorted_sequence, _REAL)
    if sorted_sequence.ndim > 1 and sorted_sequence.shape[:-1] != values.shape[:-1]:
        raise ValueError(f"SearchSorted: sorted_sequence shape {sorted_sequence.shape} and "
                         f"values shape {values.shape} must agree on all but the last axis")
    if dtype not in (mstype.int32, mstype.int64):
        raise TypeError(f"SearchSorted: dtype must be int32 or int64, got {dtype}")
    return TensorSpec(values.shape, dtype)


SearchSorted = OpDef("SearchSorted", (Arg("sorted_sequence"), Arg("values")),
                     (Attr("dtype", mstype.int64), Attr("right", False)),
                     infer=_search_infer, promote="common", differentiable=False,
                     doc="Where each value would be inserted into the last axis of "
                         "``sorted_sequence`` to keep it sorted.")


@SearchSorted.kernel("CPU", dtypes=_REAL)
def search_sorted_cpu(seq, values, dtype=mstype.int64, right=False):
    side = "right" if right else "left"
    if seq.ndim <= 1:
        return np.searchsorted(seq, values, side=side).astype(dtype.np)
    rows = seq.reshape(-1, seq.shape[-1])
    wanted = values.reshape(rows.shape[0], -1)
    out = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, wanted)])
    return out.reshape(values.shape).astype(dtype.np)


@SearchSorted.samples
def _search_sorted(rng):
    yield (np.sort(rng.standard_normal((5,))), rng.standard_normal((2, 3))), {}
    yield (np.sort(rng.standard_normal((2, 4)), -1), rng.standard_normal((2, 3))), {"right": True}


@functional("searchsorted", methods="searchsorted")
def searchsorted(sorted_sequence, values, *, out_int32=False, right=False, side=None,
                 sorter=None):
    """``ops.searchsorted``: insertion positions of ``values`` in ``sorted_sequence``
    (``side="right"`` or ``right=True`` after equal entries; ``sorter`` sorts it first)."""
    if side not in (None, "left", "right"):
        raise ValueError(f"searchsorted: side must be 'left' or 'right', got {side!r}")
    if side == "left" and right:
        raise ValueError("searchsorted: side='left' contradicts right=True")
    if sorter is not None:
        sorted_sequence = GatherD(sorted_sequence, -1, sorter) \
            if sorted_sequence.ndim > 1 else Gather(sorted_sequence, sorter, 0)
    values = values if isinstance(values, Tensor) else Tensor(values, sorted_sequence.dtype)
    return SearchSorted(sorted_sequence, values, dtype=mstype.int32 if out_int32 else mstype.int64,
                        right=right or side == "right")


@functional("bucketize")
def bucketize(input, boundaries, *, right=False):
    """``ops.bucketize``: the index of each element's bucket among sorted ``boundaries``
    (int32); ``right=True`` puts a value equal to a boundary in the bucket after it."""
    bounds = boundaries if isinstance(boundaries, Tensor) else Tensor(
        np.asarray(boundaries, input.dtype.np))
    return SearchSorted(bounds, input, dtype=mstype.int32, right=right)


Bucketize = primitive_class("Bucketize", lambda input, boundaries: bucketize(
    input, boundaries, right=True), ("boundaries",))


def _segment_extreme(name: str, ufunc, empty, doc: str):
    def infer(x, segment_ids, num_segments):
        check_dtype("segment_ids", segment_ids, INTS)
        if segment_ids.shape != x.shape[:segment_ids.ndim]:
            raise ValueError(f"{name}: segment_ids shape {segment_ids.shape} must be a prefix "
                             f"of input shape {x.shape}")
        return TensorSpec((num_segments,) + x.shape[segment_ids.ndim:], x.dtype)

    op = OpDef(name, (Arg("x"), Arg("segment_ids", promote=False),
                      Arg("num_segments", STATIC)), infer=infer,
               nondiff_inputs=("segment_ids",), doc=doc)

    @op.kernel("CPU", dtypes=NUMBERS)
    def cpu(x, segment_ids, num_segments):
        out = np.full((num_segments,) + x.shape[segment_ids.ndim:], empty(x.dtype), x.dtype)
        flat = segment_ids.reshape(-1)
        keep = (flat >= 0) & (flat < num_segments)  # out-of-range ids are dropped
        ufunc.at(out, flat[keep], x.reshape((flat.size,) + out.shape[1:])[keep])
        return out

    @op.samples
    def _samples(rng):
        yield (rng.permutation(12).reshape(4, 3) + 1.0, np.array([0, 2, 0, 1]), 3), {}
        yield (rng.permutation(6).reshape(2, 3) + 1.0, np.array([[1, 0, 1], [1, 1, 0]]), 2), {}

    return op


def _lowest(dtype):
    return np.finfo(dtype).min if dtype.kind == "f" else np.iinfo(dtype).min


def _highest(dtype):
    return np.finfo(dtype).max if dtype.kind == "f" else np.iinfo(dtype).max


UnsortedSegmentMax = _segment_extreme(
    "UnsortedSegmentMax", np.maximum, _lowest,
    "The maximum of each segment; an empty segment holds the dtype's lowest value.")
UnsortedSegmentMin = _segment_extreme(
    "UnsortedSegmentMin", np.minimum, _highest,
    "The minimum of each segment; an empty segment holds the dtype's highest value.")
UnsortedSegmentProd = _segment_extreme(
    "UnsortedSegmentProd", np.multiply, lambda dtype: 1,
    "The product of each segment; an empty segment holds 1.")


def _segment_extreme_bprop(x, segment_ids, num_segments, out, dout):
    # the gradient is shared equally between the elements that hold the extremum
    hit = array.Cast(comparison.Equal(x, Gather(out, segment_ids, 0)), x.dtype)
    ties = UnsortedSegmentSum(hit, segment_ids, num_segments)
    share = Div(Gather(dout, segment_ids, 0), Gather(ties, segment_ids, 0))
    return (grad_for(x, Mul(share, hit)), None, None)


UnsortedSegmentMax.bprop(_segment_extreme_bprop)
UnsortedSegmentMin.bprop(_segment_extreme_bprop)


@UnsortedSegmentProd.bprop
def unsorted_segment_prod_bprop(x, segment_ids, num_segments, out, dout):
    # the product of the others, without dividing by a zero: segments with one zero
    # send their gradient to that zero only, segments with two or more send none
    is_zero = comparison.Equal(x, 0)
    nonzero = Select(is_zero, OnesLike(x), x)
    prod_nonzero = UnsortedSegmentProd(nonzero, segment_ids, num_segments)
    zeros = UnsortedSegmentSum(array.Cast(is_zero, x.dtype), segment_ids, num_segments)
    zeros_here = Gather(zeros, segment_ids, 0)
    others = Select(is_zero,
                    Select(comparison.Equal(zeros_here, 1.0),
                           Gather(prod_nonzero, segment_ids, 0), ZerosLike(x)),
                    Select(comparison.Equal(zeros_here, 0.0),
                           Div(Gather(prod_nonzero, segment_ids, 0), nonzero), ZerosLike(x)))
    return (grad_for(x, Mul(Gather(dout, segment_ids, 0), others)), None, None)


def _segment_fn(name, op):
    def fn(x, segment_ids, num_segments):
        return op(x, segment_ids, num_segments)

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = f"``ops.{name}``: {op.__doc__}"
    return functional(name, methods=name)(fn)


unsorted_segment_max = _segment_fn("unsorted_segment_max", UnsortedSegmentMax)
unsorted_segment_min = _segment_fn("unsorted_segment_min", UnsortedSegmentMin)
unsorted_segment_prod = _segment_fn("unsorted_segment_prod", UnsortedSegmentProd)


def _values(name: str, t) -> np.ndarray:
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}: input must be a Tensor, got {type(t).__name__}")
    return t.asnumpy()  # the result's shape depends on the values (refused in a graph)


@functional("bincount", methods="bincount")
def bincount(input, weights=None, minlength=0):
    """``ops.bincount``: how often each non-negative int occurs (float32, as MindSpore),
    or the sum of ``weights`` per value (the gradient reaches ``weights``)."""
    values = _values("bincount", input)
    if values.ndim != 1 or values.dtype.kind not in "iu":
        raise ValueError(f"bincount: input must be a 1-D integer tensor, got shape "
                         f"{values.shape} dtype {input.dtype}")
    if values.size and values.min() < 0:
        raise ValueError(f"bincount: input must be non-negative, got {values.min()}")
    size = max(int(values.max()) + 1 if values.size else 0, minlength)
    w = OnesLike(array.Cast(input, mstype.float32)) if weights is None else weights
    return UnsortedSegmentSum(w, input, size)


@functional("histc", methods="histc")
def histc(input, bins=100, min=0.0, max=0.0):
    """``ops.histc``: counts of ``bins`` equal-width bins over [min, max] (the data's range
    when both are 0); values outside are ignored; the result has input's float dtype."""
    values = _values("histc", input)
    if not isinstance(bins, int) or bins <= 0:
        raise ValueError(f"histc: bins must be a positive int, got {bins!r}")
    lo, hi = float(min), float(max)
    if lo == hi == 0.0 and values.size:
        lo, hi = float(values.min()), float(values.max())
    if lo > hi:
        raise ValueError(f"histc: min {lo} must not exceed max {hi}")
    counts, _ = np.histogram(values, bins=bins, range=(lo, hi) if hi > lo else (lo - 0.5, lo + 0.5))
    dtype = input.dtype if input.dtype in mstype.float_types else mstype.float32
    return Tensor(counts.astype(dtype.np))


Histogram = primitive_class("Histogram", histc, ("bins", "min", "max"))


def _histogram_fixed_width(x, range, nbins, dtype="int32"):
    lo, hi = (float(v) for v in _values("HistogramFixedWidth", range))
    values = _values("HistogramFixedWidth", x).astype(np.float64)
    index = np.clip(np.floor((values - lo) / (hi - lo) * nbins), 0, nbins - 1).astype(np.int64)
    return Tensor(np.bincount(index.reshape(-1), minlength=nbins).astype(np.int32))


HistogramFixedWidth = primitive_class("HistogramFixedWidth", _histogram_fixed_width,
                                      ("nbins", "dtype"))


@functional("unique", methods="unique")
def unique(input):
    """``ops.unique``: (the distinct values in order of first appearance, the int32 index
    of each element's value among them)."""
    values = _values("unique", input).reshape(-1)
    _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    picks = Tensor(first[order].astype(np.int64))
    out = Gather(array.Reshape(input, (-1,)), picks, 0)
    return out, Tensor(rank[inverse.reshape(-1)].reshape(input.shape).astype(np.int32))


Unique = primitive_class("Unique", unique)


@functional("unique_consecutive", methods="unique_consecutive")
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """``ops.unique_consecutive``: each run of equal elements (or slices along ``dim``)
    kept once, with the int64 run index of every element and the run lengths on request."""
    values = _values("unique_consecutive", input)
    flat = values.reshape(-1) if dim is None else np.moveaxis(values, dim, 0)
    n = flat.shape[0]
    if n == 0:
        starts = np.zeros(0, np.int64)
    else:
        change = np.any((flat[1:] != flat[:-1]).reshape(n - 1, -1), axis=1)
        starts = np.concatenate([[0], np.nonzero(change)[0] + 1]).astype(np.int64)
    source = array.Reshape(input, (-1,)) if dim is None else input
    out = Gather(source, Tensor(starts), 0 if dim is None else dim)
    result = [out]
    if return_inverse:
        result.append(Tensor(np.cumsum(np.isin(np.arange(n), starts)) - 1))
    if return_counts:
        result.append(Tensor(np.diff(np.append(starts, n)).astype(np.int64)))
    return tuple(result) if len(result) > 1 else out


UniqueConsecutive = primitive_class("UniqueConsecutive", unique_consecutive,
                                    ("return_inverse", "return_counts", "dim"))


@functional("aminmax", methods="aminmax")
def aminmax(input, *, axis=0, keepdims=False):
    """``ops.aminmax``: (minimum, maximum) along ``axis``."""
    return ReduceMin(input, (axis,), keep_dims=keepdims), ReduceMax(input, (axis,),
                                                                    keep_dims=keepdims)


def _equal_count(x, y):
    from ms_ops.defs.reduction import ReduceSum

    hits = array.Cast(comparison.Equal(x, y), mstype.int32)
    return array.Reshape(ReduceSum(hits, ()), (1,))


EqualCount = primitive_class("EqualCount", _equal_count)


@functional("top_k", methods="top_k")
def top_k(input_x, k, sorted=True):
    """``ops.top_k``: MindSpore's old name of :func:`ops.topk`."""
    from ms_ops.defs.sort import TopK

    return TopK(input_x, k, sorted=sorted)

