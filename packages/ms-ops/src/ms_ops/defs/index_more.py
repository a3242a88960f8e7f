"""Index-based writes that return a new tensor: ``index_fill``, ``masked_scatter``,
``diagonal_scatter``/``select_scatter``/``slice_scatter``, ``IndexPut``, ``FillDiagonal``,
``InplaceAdd``/``InplaceSub``/``InplaceUpdateV2`` (out of place, as MindSpore's PyNative
runs them on a Tensor), the triangle index helpers and ``UnravelIndex``.

The positions a write touches follow from shapes and attributes alone, so they are built
with numpy as constants and the write is one TensorScatterUpdate/Add or Select: gradients
flow to both the input and the values, and a compiled graph reads no tensor values (only
``masked_scatter``, whose positions are the mask's, reads the mask).
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.array_create import Fill
from ms_ops.defs.array_reorder import Select
from ms_ops.defs.array_slice import Slice
from ms_ops.defs.indexing import TensorScatterAdd, TensorScatterElements, TensorScatterUpdate
from ms_ops.defs.masked import count_nonzero, masked_select, nonzero
from ms_ops.opdef import functional, primitive_class
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _positions(shape, keep) -> Tensor:
    """int64 N-d indices (rows) of the positions of ``shape`` where ``keep(grid)`` holds, in
    row-major order; ``keep`` gets one coordinate array per axis."""
    grid = np.indices(shape)
    mask = keep(*grid)
    return Tensor(np.stack([g[mask] for g in grid], axis=-1).astype(np.int64))


def _axis(x, axis, name) -> int:
    if not isinstance(axis, int) or not -x.ndim <= axis < x.ndim:
        raise ValueError(f"{name}: axis {axis!r} is out of range for shape {x.shape}")
    return axis % x.ndim


@functional("index_fill", methods="index_fill")
def index_fill(x, axis, index, value):
    """``ops.index_fill``: a copy of ``x`` with the slices ``index`` along ``axis`` set to
    ``value`` (a number or a 0-d tensor)."""
    axis = _axis(x, axis, "index_fill")
    chosen = np.zeros(x.shape[axis], bool)
    chosen[np.asarray(index.asnumpy() if isinstance(index, Tensor) else index)] = True
    shape = [1] * x.ndim
    shape[axis] = x.shape[axis]
    value = array.Cast(value, x.dtype) if isinstance(value, Tensor) else value
    return Select(Tensor(chosen.reshape(shape)), value, x)


IndexFill = primitive_class("IndexFill", index_fill)


@functional(methods="masked_scatter")
def masked_scatter(input, mask, source):
    """``Tensor.masked_scatter``: ``input`` with the positions where ``mask`` (broadcast) is
    True filled from ``source`` in row-major order."""
    full = np.broadcast_to(mask.asnumpy().astype(bool), input.shape)
    count = int(full.sum())
    if source.size < count:
        raise ValueError(f"masked_scatter: source has {source.size} elements, the mask "
                         f"selects {count}")
    where = Tensor(np.argwhere(full).astype(np.int64))
    picked = Slice(array.Reshape(source, (-1,)), (0,), (count,))
    return TensorScatterUpdate(input, where, array.Cast(picked, input.dtype))


MaskedScatter = primitive_class("MaskedScatter", masked_scatter)
MaskedSelect = primitive_class("MaskedSelect", masked_select)
NonZero = primitive_class("NonZero", nonzero)
CountNonZero = primitive_class(
    "CountNonZero", lambda x, dims=None: count_nonzero(x, () if dims is None else tuple(dims)),
    ("dims",))


def _diagonal_positions(shape, offset, dim1, dim2):
    n1, n2 = shape[dim1], shape[dim2]
    length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
    rest = [d for i, d in enumerate(shape) if i not in (dim1, dim2)]
    k = np.arange(length)
    grid = np.indices(rest + [length]).reshape(len(rest) + 1, -1)
    cols = []
    it = iter(grid[:-1])
    diag = grid[-1]
    for axis in range(len(shape)):
        if axis == dim1:
            cols.append(k[diag] - min(offset, 0))
        elif axis == dim2:
            cols.append(k[diag] + max(offset, 0))
        else:
            cols.append(next(it))
    return Tensor(np.stack(cols, -1).astype(np.int64)), tuple(rest) + (length,)


@functional("diagonal_scatter", methods="diagonal_scatter")
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``ops.diagonal_scatter``: a copy of ``input`` with its ``offset`` diagonal (over
    ``dim1``, ``dim2``) replaced by ``src``."""
    dim1, dim2 = _axis(input, dim1, "diagonal_scatter"), _axis(input, dim2, "diagonal_scatter")
    if dim1 == dim2:
        raise ValueError(f"diagonal_scatter: dim1 and dim2 must differ, both are {dim1}")
    where, want = _diagonal_positions(input.shape, offset, dim1, dim2)
    if tuple(src.shape) != want:
        raise ValueError(f"diagonal_scatter: src shape {src.shape} must be {want} for input "
                         f"shape {input.shape}, offset {offset}")
    return TensorScatterUpdate(input, where, array.Reshape(array.Cast(src, input.dtype), (-1,)))


@functional("slice_scatter", methods="slice_scatter")
def slice_scatter(input, src, axis=0, start=None, end=None, step=1):
    """``ops.slice_scatter``: a copy of ``input`` with ``input[start:end:step]`` along
    ``axis`` replaced by ``src``."""
    axis = _axis(input, axis, "slice_scatter")
    picked = np.zeros(input.shape[axis], bool)
    picked[slice(start, end, step)] = True
    want = input.shape[:axis] + (int(picked.sum()),) + input.shape[axis + 1:]
    if tuple(src.shape) != want:
        raise ValueError(f"slice_scatter: src shape {src.shape} must be {want}")
    where = _positions(input.shape, lambda *g: picked[g[axis]])
    return TensorScatterUpdate(input, where, array.Reshape(array.Cast(src, input.dtype), (-1,)))


@functional("select_scatter", methods="select_scatter")
def select_scatter(input, src, axis, index):
    """``ops.select_scatter``: a copy of ``input`` with ``input.select(axis, index)``
    replaced by ``src``."""
    axis = _axis(input, axis, "select_scatter")
    index %= input.shape[axis]
    return slice_scatter(input, array.ExpandDims(src, axis), axis, index, index + 1)


def _index_put(x1, x2, indices, accumulate=0):
    idx = np.broadcast_arrays(*(i.asnumpy() if isinstance(i, Tensor) else np.asarray(i)
                                for i in indices))
    where = Tensor(np.stack(idx, -1).reshape(-1, len(idx)).astype(np.int64))
    count = where.shape[0]
    rest = x1.shape[len(idx):]
    values = array.BroadcastTo(array.Cast(x2, x1.dtype), (count,) + tuple(rest))
    return (TensorScatterAdd if accumulate else TensorScatterUpdate)(x1, where, values)


IndexPut = primitive_class("IndexPut", _index_put, ("accumulate",))


def _fill_diagonal(input_x, fill_value, wrap=False):
    shape = input_x.shape
    if input_x.ndim < 2 or (input_x.ndim > 2 and len(set(shape)) != 1):
        raise ValueError(f"FillDiagonal: input must be 2-D or have equal dimensions, got "
                         f"shape {shape}")
    mask = np.zeros(shape, bool)
    np.fill_diagonal(mask, True, wrap=wrap)
    return Select(Tensor(mask), float(fill_value), input_x)


FillDiagonal = primitive_class("FillDiagonal", _fill_diagonal, ("fill_value", "wrap"))


def _rows_of(x, indices):
    rows = np.atleast_1d(np.asarray(indices.asnumpy() if isinstance(indices, Tensor)
                                    else indices)).astype(np.int64)
    return Tensor(rows.reshape(-1, 1))


@functional("inplace_add")
def inplace_add(x, v, indices):
    """``ops.inplace_add``: x with v added to the rows ``indices`` (a new tensor)."""
    return TensorScatterAdd(x, _rows_of(x, indices), array.Cast(v, x.dtype))


@functional("inplace_sub")
def inplace_sub(x, v, indices):
    """``ops.inplace_sub``: x with v subtracted from the rows ``indices`` (a new tensor)."""
    from ms_ops.defs.arithmetic import Neg

    return TensorScatterAdd(x, _rows_of(x, indices), Neg(array.Cast(v, x.dtype)))


@functional("inplace_update")
def inplace_update(x, v, indices):
    """``ops.inplace_update``: x with the rows ``indices`` replaced by v (a new tensor)."""
    return TensorScatterUpdate(x, _rows_of(x, indices), array.Cast(v, x.dtype))


InplaceAdd = primitive_class("InplaceAdd", lambda x, v, indices: inplace_add(x, v, indices),
                             ("indices",))
InplaceSub = primitive_class("InplaceSub", lambda x, v, indices: inplace_sub(x, v, indices),
                             ("indices",))
InplaceUpdateV2 = primitive_class("InplaceUpdateV2", lambda x, indices, v: inplace_update(
    x, v, indices))


def _triangle(fn, row, col, offset, dtype):
    if not all(isinstance(v, int) and v >= 0 for v in (row, col)):
        raise ValueError(f"row and col must be non-negative ints, got {row!r}, {col!r}")
    return Tensor(np.stack(fn(row, offset, col)).astype(dtype.np))


@functional("tril_indices")
def tril_indices(row, col, offset=0, *, dtype=mstype.int64):
    """``ops.tril_indices``: the (2, N) coordinates of the lower triangle of a row x col
    matrix (``offset`` diagonals above the main one included)."""
    return _triangle(np.tril_indices, row, col, offset, dtype)


@functional("triu_indices")
def triu_indices(row, col, offset=0, *, dtype=mstype.int64):
    """``ops.triu_indices``: the (2, N) coordinates of the upper triangle."""
    return _triangle(np.triu_indices, row, col, offset, dtype)


TrilIndices = primitive_class("TrilIndices", lambda row, col, offset=0, dtype=mstype.int32:
                              tril_indices(row, col, offset, dtype=dtype),
                              ("row", "col", "offset", "dtype"))
TriuIndices = primitive_class("TriuIndices", lambda row, col, offset=0, dtype=mstype.int32:
                              triu_indices(row, col, offset, dtype=dtype),
                              ("row", "col", "offset", "dtype"))


def _unravel_index(indices, dims):
    flat, shape = indices.asnumpy(), tuple(int(d) for d in dims.asnumpy())
    if flat.size and (flat.min() < 0 or flat.max() >= int(np.prod(shape))):
        raise ValueError(f"UnravelIndex: indices must lie in [0, {int(np.prod(shape))}) for "
                         f"dims {shape}")
    return Tensor(np.stack(np.unravel_index(flat, shape)).astype(indices.dtype.np))


UnravelIndex = primitive_class("UnravelIndex", _unravel_index)


@functional("is_nonzero", methods="is_nonzero")
def is_nonzero(input):
    """``ops.is_nonzero``: the truth of a one-element tensor, as a Python bool."""
    if input.size != 1:
        raise ValueError(f"is_nonzero: input must have exactly one element, got shape "
                         f"{input.shape}")
    return bool(input.asnumpy().reshape(()) != 0)


@functional("scatter", methods="scatter")
def scatter(input, axis, index, src):
    """``ops.scatter``: a copy of ``input`` with ``src`` written at ``index`` along
    ``axis`` (the inverse of ``gather_elements``); ``src`` may be a number."""
    if not isinstance(src, Tensor):
        src = Fill(input.dtype, tuple(index.shape), src)
    return TensorScatterElements(input, index, array.Cast(src, input.dtype), axis=axis)


@functional("tensor_slice")
def tensor_slice(input_x, begin, size):
    """``ops.tensor_slice``: MindSpore 1.x's name of ``Slice()``."""
    return Slice(input_x, begin, size)

