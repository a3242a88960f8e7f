"""Indexing: ``Tensor.__getitem__``/``__setitem__`` (TensorGetItem, TensorSetItem) and
Gather, GatherD, GatherNd, ScatterNd, TensorScatterUpdate/Add/Elements.

Index tensors are never promoted and take no gradient. Indices follow numpy: negative
positions count from the end; a position out of range is an error. How ``x[index]``
becomes a static description plus one stacked index tensor is explained in ``_index``.

``x[index] = value`` mutates ``x`` as in MindSpore, but not by writing into its
array: TensorSetItem is a pure operator that returns an updated copy, and
``__setitem__`` then makes ``x`` hold that result (its ``_data``, and its ``_node``
for autodiff). For autodiff this is an ordinary operator on the old value of ``x``:
uses of ``x`` recorded before the assignment keep the old array and the old tape node,
uses after it differentiate through TensorSetItem (the gradient reaches the old ``x``
everywhere except the assigned positions, and ``value`` at those positions). Other
tensors sharing the old array (views from Reshape or slicing, ``asnumpy()`` results)
keep the old values, unlike MindSpore 2.10's in-place writes through views.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs._grad_util import sum_to
from ms_ops.defs._index import (
    ADV,
    EMPTY_INDICES,
    FULL,
    check_desc,
    count_adv,
    index_shape,
    normalize_index,
    numpy_index,
)
from ms_ops.infer import check_dtype, check_int, normalize_axis
from ms_ops.opdef import ALL, INTS, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor, array_of, node_of, set_array, set_node, wrap


def _adv_shape(indices, desc, what="indices"):
    check_dtype(what, indices, INTS)
    k = count_adv(desc)
    if indices.shape[:1] != (k,):
        raise ValueError(f"{what} shape {indices.shape} does not hold the {k} index arrays "
                         "the description expects (shape (k, ...))")
    return indices.shape[1:] if k else ()


def _selected(name, shape, desc, indices):
    """The shape ``desc`` selects from ``shape``; IndexErrors name the operator."""
    try:
        return index_shape(tuple(shape), desc, _adv_shape(indices, desc))
    except IndexError as e:
        raise IndexError(f"{name}: {e}") from None


def assignable(value_shape: tuple, target: tuple) -> bool:
    """Whether numpy assigns a value of ``value_shape`` to a selection of ``target``."""
    v = list(value_shape)
    while len(v) > len(target) and v[0] == 1:
        v.pop(0)
    if len(v) > len(target):
        return False
    return all(a in (1, b) for a, b in zip(v[::-1], target[::-1]))


_IDX = Arg("indices", promote=False)


def _to_value(g, value):
    """A gradient for ``value`` from one of the selection's shape (numpy assignment rules)."""
    if not isinstance(value, Tensor):
        return None
    if value.ndim > g.ndim:
        g = array.Reshape(g, (1,) * (value.ndim - g.ndim) + g.shape)
    g = sum_to(g, value.shape)
    return g if g.dtype is value.dtype else array.Cast(g, value.dtype)


def gather_index(params_shape, indices, axis, batch_dims):
    """(description, stacked indices, dout permutation) with which TensorGetItem reads
    what Gather does, built from operators so the gradient traces."""
    a = axis % len(params_shape)
    idx = indices if indices.dtype is mstype.int64 else array.Cast(indices, mstype.int64)
    if batch_dims == 0:
        return (FULL,) * a + (ADV,), array.ExpandDims(idx, 0), None
    from ms_ops.defs.array_join import concat

    full = tuple(indices.shape)
    rows = []
    for j in range(batch_dims):
        r = np.arange(full[j]).reshape(tuple(full[j] if t == j else 1 for t in range(len(full))))
        rows.append(array.ExpandDims(array.BroadcastTo(Tensor(r), full), 0))
    stacked = concat(rows + [array.ExpandDims(idx, 0)], 0)
    desc = (ADV,) * batch_dims + (FULL,) * (a - batch_dims) + (ADV,)
    perm = None
    if a > batch_dims:
        ni = len(full) - batch_dims
        perm = (tuple(range(batch_dims)) + tuple(range(a, a + ni)) + tuple(range(batch_dims, a))
                + tuple(range(a + ni, len(params_shape) - 1 + ni)))
    return desc, stacked, perm


def _elements_check(x, index, axis, what="index"):
    check_dtype(what, index, INTS)
    a = normalize_axis(axis, x.ndim)
    if index.ndim != x.ndim or any(i > s for d, (i, s) in enumerate(zip(index.shape, x.shape))
                                   if d != a):
        raise ValueError(f"{what} shape {index.shape} must have the rank of input shape "
                         f"{x.shape} and no larger size outside axis {a}")
    return a


def _coords(index, axis):
    grid = list(np.ogrid[tuple(slice(n) for n in index.shape)])
    grid[axis] = index
    return tuple(grid)


def _nd_check(shape, indices, updates=None):
    check_dtype("indices", indices, INTS)
    if indices.ndim == 0 or indices.shape[-1] > len(shape):
        raise ValueError(f"indices shape {indices.shape} must end in N <= {len(shape)} (the "
                         f"rank of the indexed shape {tuple(shape)})")
    part = indices.shape[:-1] + tuple(shape[indices.shape[-1]:])
    if updates is not None and updates.shape != part:
        raise ValueError(f"updates shape {updates.shape} must be {part} for indices shape "
                         f"{indices.shape} into shape {tuple(shape)}")
    return part


def _tensor_scatter_infer(x, indices, updates):
    if updates.dtype is not x.dtype:
        raise TypeError(f"updates has dtype {updates.dtype}, expected {x.dtype} like input_x")
    _nd_check(x.shape, indices, updates)
    return TensorSpec(x.shape, x.dtype)


_ND_IDX = Arg("indices", promote=False)


def _nd(indices):
    return tuple(np.moveaxis(indices, -1, 0))


_EMPTY = wrap(EMPTY_INDICES)


def _indices_tensor(stacked):
    return _EMPTY if stacked is EMPTY_INDICES else wrap(stacked)


# Samples for the indexing operators:
# ``x[index]`` and its gradient, ``x[index] = v``, Gather, GatherD, GatherNd and the
# scatters. ``x[index]`` samples are built with ``normalize_index``, as
# ``Tensor.__getitem__`` does: (description, stacked int64 index arrays).
_INDICES = (  # (input shape, index)
    ((3, 4), (slice(1, None), None, [0, 2])),             # slice, new axis, array
    ((3, 4), (1, Ellipsis)),                              # int
    ((3, 2, 4), ([[0, 2], [1, 1]], slice(None), [3, 0])),  # separated arrays, repeats
    ((3, 4), (np.array([True, False, True]), slice(None, None, -2))),  # mask, negative step
)


def _np_index(index):
    return tuple(np.asarray(i) if isinstance(i, list) else i for i in index)


def _getitem_infer(x, indices, index):
    desc = check_desc(index)
    return TensorSpec(_selected("TensorGetItem", x.shape, desc, indices), x.dtype)


TensorGetItem = OpDef("TensorGetItem", (Arg("input"), _IDX, Arg("index", STATIC)),
                      infer=_getitem_infer, nondiff_inputs=("indices",),
                      doc="``input[index]`` with numpy semantics (see ``_index``).")


@TensorGetItem.kernel("CPU", dtypes=ALL)
def getitem_cpu(x, indices, index):
    return x[numpy_index(index, indices)]


@TensorGetItem.bprop
def getitem_bprop(x, indices, index, out, dout):
    return (TensorGetItemGrad(dout, indices, index, x.shape), None, None)


@TensorGetItem.samples
def _getitem_samples(rng):
    for shape, index in _INDICES:
        x = rng.standard_normal(shape)
        desc, indices = normalize_index(index, x.shape)
        yield (x, indices, desc), {}


def _getitem_grad_infer(dout, indices, index, shape):
    desc = check_desc(index)
    want = _selected("TensorGetItemGrad", shape, desc, indices)
    if dout.shape != want:
        raise ValueError(f"dout shape {dout.shape} does not match the indexed shape {want} of "
                         f"input shape {tuple(shape)}")
    return TensorSpec(tuple(shape), dout.dtype)


TensorGetItemGrad = OpDef(
    "TensorGetItemGrad", (Arg("dout"), _IDX, Arg("index", STATIC), Arg("shape", STATIC)),
    infer=_getitem_grad_infer, nondiff_inputs=("indices",),
    doc="Zeros of ``shape`` with ``dout`` added at ``index`` (repeated positions add up).")


@TensorGetItemGrad.kernel("CPU", dtypes=ALL)
def getitem_grad_cpu(dout, indices, index, shape):
    out = np.zeros(shape, dout.dtype)
    where = numpy_index(index, indices)
    if indices.shape[0]:
        np.add.at(out, where, dout)  # repeated positions accumulate
    else:
        out[where] = dout
    return out


@TensorGetItemGrad.bprop
def getitem_grad_bprop(g, indices, index, shape, out, dout):
    return (TensorGetItem(dout, indices, index), None, None, None)


@TensorGetItemGrad.samples
def _getitem_grad(rng):
    for shape, index in _INDICES:
        desc, indices = normalize_index(index, shape)
        picked = np.zeros(shape)[_np_index(index)]
        yield (rng.standard_normal(picked.shape), indices, desc, shape), {}


def _setitem_infer(x, value, indices, index):
    desc = check_desc(index)
    target = _selected("TensorSetItem", x.shape, desc, indices)
    if not assignable(value.shape, target):
        raise ValueError(f"value shape {value.shape} cannot be broadcast to the indexed shape "
                         f"{target} of input shape {x.shape}")
    return TensorSpec(x.shape, x.dtype)


TensorSetItem = OpDef("TensorSetItem",
                      (Arg("input"), Arg("value"), _IDX, Arg("index", STATIC)),
                      infer=_setitem_infer, nondiff_inputs=("indices",),
                      doc="A copy of ``input`` with ``value`` assigned at ``index``.")


@TensorSetItem.kernel("CPU", dtypes=ALL)
def setitem_cpu(x, value, indices, index):
    out = x.copy()
    out[numpy_index(index, indices)] = value
    return out


@TensorSetItem.bprop
def setitem_bprop(x, value, indices, index, out, dout):
    # With repeated positions only the last write lands, yet each copy of value gets
    # the gradient of that position (as MindSpore's rule does).
    dx = TensorSetItem(dout, 0, indices, index)
    return (dx, _to_value(TensorGetItem(dout, indices, index), value), None, None)


@TensorSetItem.samples
def _setitem_samples(rng):
    # Assigned positions are distinct: with repeats only the last write lands.
    for index, value_shape in (((slice(1, None), [0, 2]), (2, 2)),
                               ((1,), (1, 4)),
                               ((slice(None), [3, 1]), (2,)),
                               ((np.array([False, True, True]),), (4,))):
        x = rng.standard_normal((3, 4))
        desc, indices = normalize_index(index, x.shape)
        yield (x, rng.standard_normal(value_shape), indices, desc), {}


def _gather_infer(params, indices, axis, batch_dims=0):
    check_dtype("input_indices", indices, INTS)
    if params.ndim == 0:
        raise ValueError("input_params must have at least 1 dimension, got a 0-d tensor")
    a = normalize_axis(axis, params.ndim)
    b = check_int("batch_dims", batch_dims, minimum=0)
    if b > a or b > indices.ndim:
        raise ValueError(f"batch_dims {b} must not exceed axis {a} or the {indices.ndim} "
                         "dims of input_indices")
    if params.shape[:b] != indices.shape[:b]:
        raise ValueError(f"the first {b} (batch) dims of input_params shape {params.shape} "
                         f"and input_indices shape {indices.shape} differ")
    return TensorSpec(params.shape[:a] + indices.shape[b:] + params.shape[a + 1:], params.dtype)


Gather = OpDef("Gather", (Arg("input_params"), Arg("input_indices", promote=False),
                          Arg("axis", STATIC)), (Attr("batch_dims", 0),),
               infer=_gather_infer, nondiff_inputs=("input_indices",),
               doc="Slices of ``input_params`` along ``axis`` at ``input_indices``.")


@Gather.kernel("CPU", dtypes=ALL)
def gather_cpu(params, indices, axis, batch_dims=0):
    axis = axis % params.ndim
    if batch_dims == 0:
        return np.take(params, indices, axis=axis)
    batch = params.shape[:batch_dims]
    nb = int(np.prod(batch))
    p = params.reshape((nb,) + params.shape[batch_dims:])
    i = indices.reshape((nb,) + indices.shape[batch_dims:])
    a = axis - batch_dims + 1
    rows = np.arange(nb).reshape((nb,) + (1,) * (i.ndim - 1))
    picked = p[(rows,) + (slice(None),) * (a - 1) + (i,)]
    # Separated array indices put their dims first: (nb, I..., P..., Q...) -> (nb, P, I, Q).
    ni = i.ndim - 1
    if a > 1:
        picked = np.moveaxis(picked, tuple(range(1, 1 + ni)), tuple(range(a, a + ni)))
    return picked.reshape(batch + picked.shape[1:])


@Gather.bprop
def gather_bprop(params, indices, axis, out, dout, batch_dims=0):
    desc, stacked, perm = gather_index(params.shape, indices, axis, batch_dims)
    if perm is not None:
        dout = array.Transpose(dout, perm)
    return (TensorGetItemGrad(dout, stacked, desc, params.shape), None, None)


@Gather.samples
def _gather(rng):
    yield (rng.standard_normal((3, 4)), np.array([2, 0, 2]), 0), {}
    yield (rng.standard_normal((3, 4)), np.array([[1, 3], [0, 1]]), 1), {}
    yield (rng.standard_normal((2, 3, 4)), np.array([[2, 0], [1, 1]]), 1), {"batch_dims": 1}


def _gather_d_infer(x, dim, index):
    _elements_check(x, index, dim)
    return TensorSpec(index.shape, x.dtype)


GatherD = OpDef("GatherD", (Arg("x"), Arg("dim", STATIC), Arg("index", promote=False)),
                infer=_gather_d_infer, nondiff_inputs=("index",),
                doc="out[i][j] = x[index[i][j]][j] (dim 0), out[i][j] = x[i][index[i][j]] "
                    "(dim 1), ...")


@GatherD.kernel("CPU", dtypes=ALL)
def gather_d_cpu(x, index, dim):
    return x[_coords(index, dim % x.ndim)]


@GatherD.bprop
def gather_d_bprop(x, dim, index, out, dout):
    from ms_ops.defs.array_create import ZerosLike

    return (TensorScatterElements(ZerosLike(x), index, dout, axis=dim, reduction="add"),
            None, None)


@GatherD.samples
def _gather_d(rng):
    yield (rng.standard_normal((3, 4)), 1, rng.integers(0, 4, (3, 2))), {}
    yield (rng.standard_normal((3, 4)), 0, rng.integers(0, 3, (2, 4))), {}


def _scatter_elements_infer(x, indices, updates, axis=0, reduction="none"):
    _elements_check(x, indices, axis, "indices")
    if updates.shape != indices.shape:
        raise ValueError(f"updates shape {updates.shape} must equal indices shape "
                         f"{indices.shape}")
    if reduction not in ("none", "add"):
        raise ValueError(f"reduction must be 'none' or 'add', got {reduction!r}")
    return TensorSpec(x.shape, x.dtype)


TensorScatterElements = OpDef(
    "TensorScatterElements",
    (Arg("input_x"), Arg("indices", promote=False), Arg("updates")),
    (Attr("axis", 0), Attr("reduction", "none")), infer=_scatter_elements_infer,
    nondiff_inputs=("indices",),
    doc="The inverse of GatherD: ``updates`` written (or added) at ``indices`` along axis.")


@TensorScatterElements.kernel("CPU", dtypes=ALL)
def scatter_elements_cpu(x, indices, updates, axis=0, reduction="none"):
    out = x.copy()
    where = _coords(indices, axis % x.ndim)
    if reduction == "add":
        np.add.at(out, where, updates)
    else:
        out[where] = updates
    return out


@TensorScatterElements.bprop
def scatter_elements_bprop(x, indices, updates, out, dout, axis=0, reduction="none"):
    from ms_ops.defs.array_create import ZerosLike

    dx = dout if reduction == "add" else \
        TensorScatterElements(dout, indices, ZerosLike(updates), axis=axis)
    return (dx, None, GatherD(dout, axis, indices))


@TensorScatterElements.samples
def _scatter_elements(rng):
    # reduction "none" writes distinct positions; "add" accumulates repeats.
    distinct = np.stack([rng.permutation(3)[:2] for _ in range(4)], axis=1)
    yield (rng.standard_normal((3, 4)), distinct, rng.standard_normal((2, 4))), {"axis": 0}
    yield (rng.standard_normal((3, 4)), np.array([[1, 1], [0, 3], [2, 2]]),
           rng.standard_normal((3, 2))), {"axis": 1, "reduction": "add"}


def _gather_nd_infer(x, indices):
    return TensorSpec(_nd_check(x.shape, indices), x.dtype)


GatherNd = OpDef("GatherNd", (Arg("input_x"), _ND_IDX), infer=_gather_nd_infer,
                 nondiff_inputs=("indices",),
                 doc="Elements (or slices) of ``input_x`` at the N-d positions in ``indices``.")


@GatherNd.kernel("CPU", dtypes=ALL)
def gather_nd_cpu(x, indices):
    return x[_nd(indices)]


@GatherNd.bprop
def gather_nd_bprop(x, indices, out, dout):
    return (ScatterNd(indices, dout, x.shape), None)


@GatherNd.samples
def _gather_nd(rng):
    yield (rng.standard_normal((3, 4)), np.array([[0, 1], [2, 3], [0, 1]])), {}
    yield (rng.standard_normal((3, 4)), np.array([[2], [0]])), {}


def _scatter_nd_infer(indices, updates, shape):
    if not isinstance(shape, (tuple, list)) or not shape:
        raise ValueError(f"shape must be a non-empty tuple of ints, got {shape!r}")
    for d in shape:
        check_int("shape", d, minimum=0)
    _nd_check(tuple(shape), indices, updates)
    return TensorSpec(tuple(shape), updates.dtype)


ScatterNd = OpDef("ScatterNd", (_ND_IDX, Arg("updates"), Arg("shape", STATIC)),
                  infer=_scatter_nd_infer, nondiff_inputs=("indices",),
                  doc="Zeros of ``shape`` with ``updates`` added at ``indices`` (repeats add).")


@ScatterNd.kernel("CPU", dtypes=ALL)
def scatter_nd_cpu(indices, updates, shape):
    out = np.zeros(shape, updates.dtype)
    np.add.at(out, _nd(indices), updates)
    return out


@ScatterNd.bprop
def scatter_nd_bprop(indices, updates, shape, out, dout):
    return (None, GatherNd(dout, indices), None)


@ScatterNd.samples
def _scatter_nd(rng):
    yield (np.array([[1], [3], [1]]), rng.standard_normal((3, 4)), (5, 4)), {}
    yield (np.array([[0, 1], [2, 2]]), rng.standard_normal((2,)), (3, 3)), {}


TensorScatterUpdate = OpDef("TensorScatterUpdate", (Arg("input_x"), _ND_IDX, Arg("updates")),
                            infer=_tensor_scatter_infer, nondiff_inputs=("indices",),
                            doc="A copy of ``input_x`` with ``updates`` written at ``indices``.")


@TensorScatterUpdate.kernel("CPU", dtypes=ALL)
def tensor_scatter_update_cpu(x, indices, updates):
    out = x.copy()
    out[_nd(indices)] = updates
    return out


@TensorScatterUpdate.bprop
def tensor_scatter_update_bprop(x, indices, updates, out, dout):
    from ms_ops.defs.array_create import ZerosLike

    return (TensorScatterUpdate(dout, indices, ZerosLike(updates)), None,
            GatherNd(dout, indices))


@TensorScatterUpdate.samples
def _scatter_update(rng):
    yield (rng.standard_normal((4, 3)), np.array([[2], [0]]), rng.standard_normal((2, 3))), {}
    yield (rng.standard_normal((4, 3)), np.array([[1, 2], [3, 0]]),
           rng.standard_normal((2,))), {}


TensorScatterAdd = OpDef("TensorScatterAdd", (Arg("input_x"), _ND_IDX, Arg("updates")),
                         infer=_tensor_scatter_infer, nondiff_inputs=("indices",),
                         doc="A copy of ``input_x`` with ``updates`` added at ``indices``.")


@TensorScatterAdd.kernel("CPU", dtypes=ALL)
def tensor_scatter_add_cpu(x, indices, updates):
    out = x.copy()
    np.add.at(out, _nd(indices), updates)
    return out


@TensorScatterAdd.bprop
def tensor_scatter_add_bprop(x, indices, updates, out, dout):
    return (dout, None, GatherNd(dout, indices))


@TensorScatterAdd.samples
def _scatter_add(rng):
    yield (rng.standard_normal((4, 3)), np.array([[2], [0], [2]]),
           rng.standard_normal((3, 3))), {}
    yield (rng.standard_normal((4, 3)), np.array([[1, 2], [1, 2]]),
           rng.standard_normal((2,))), {}


@functional("gather")
def gather(input_params, input_indices, axis, batch_dims=0):
    """``ops.gather``: slices of ``input_params`` along ``axis`` at ``input_indices``.

    >>> ops.gather(Tensor([[1, 2], [3, 4]]), Tensor([1, 0]), 0).asnumpy()
    array([[3, 4],
           [1, 2]])
    """
    return Gather(input_params, input_indices, axis, batch_dims=batch_dims)


@functional("gather_d", "gather_elements")
def gather_d(x, dim, index):
    """``ops.gather_d``/``ops.gather_elements``: ``x`` read at ``index`` along ``dim``."""
    return GatherD(x, dim, index)


@functional("gather_nd")
def gather_nd(input_x, indices):
    """``ops.gather_nd``: ``input_x`` at the N-d positions in the last axis of ``indices``."""
    return GatherNd(input_x, indices)


@functional("scatter_nd")
def scatter_nd(indices, updates, shape):
    """``ops.scatter_nd``: zeros of ``shape`` with ``updates`` added at ``indices``."""
    return ScatterNd(indices, updates, tuple(shape))


@functional("tensor_scatter_update")
def tensor_scatter_update(input_x, indices, updates):
    """``ops.tensor_scatter_update``: a copy of ``input_x`` with ``updates`` at ``indices``."""
    return TensorScatterUpdate(input_x, indices, updates)


@functional("tensor_scatter_add")
def tensor_scatter_add(input_x, indices, updates):
    """``ops.tensor_scatter_add``: a copy of ``input_x`` with ``updates`` added at ``indices``."""
    return TensorScatterAdd(input_x, indices, updates)


@functional("tensor_scatter_elements")
def tensor_scatter_elements(input_x, indices, updates, axis=0, reduction="none"):
    """``ops.tensor_scatter_elements``: the inverse of ``gather_d``."""
    return TensorScatterElements(input_x, indices, updates, axis=axis, reduction=reduction)


@functional(methods="__getitem__")
def _getitem(self, index):
    desc, stacked = normalize_index(index, self.shape, "TensorGetItem")
    return TensorGetItem(self, _indices_tensor(stacked), desc)


@functional(methods="__setitem__")
def _setitem(self, index, value):
    desc, stacked = normalize_index(index, self.shape, "TensorSetItem")
    if not isinstance(value, Tensor):
        # A Python value takes the tensor's dtype before it meets the data, so
        # ``x[0] = 0.1`` on a float64 tensor stores 0.1, not float32(0.1).
        value = wrap(np.asarray(value, dtype=array_of(self).dtype))
    old = wrap(array_of(self))
    set_node(old, node_of(self))  # the tape sees the write as a new value of ``self``
    out = TensorSetItem(old, value, _indices_tensor(stacked), desc)
    set_array(self, array_of(out))
    set_node(self, node_of(out))


@functional(methods="gather")
def _t_gather(self, input_indices, axis, batch_dims=0):
    return Gather(self, input_indices, axis, batch_dims=batch_dims)


@functional(methods="gather_elements")
def _t_gather_elements(self, dim, index):
    return GatherD(self, dim, index)
