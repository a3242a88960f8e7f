"""Scatter updates into a Parameter, in place: ScatterAdd, ScatterUpdate, ScatterNdAdd,
ScatterNdUpdate, IndexAdd (MindSpore's names and functional forms).

As Assign, they write into their first input and return it, so that an embedding table or
a memory bank is updated through an operator that a graph trace sees and replays; they
take no gradient. Repeated indices accumulate in the ``Add`` forms; for the ``Update``
forms the last write wins, as on MindSpore's CPU.
"""

from __future__ import annotations

import numpy as np

from ms_ops.infer import check_dtype, check_int
from ms_ops.opdef import (
    ALL,
    INTS,
    NUMBERS,
    Arg,
    Attr,
    OpDef,
    TensorSpec,
    functional,
    primitive_class,
)

_ARGS = (Arg("input_x", promote=False), Arg("indices", promote=False),
         Arg("updates", promote=False))


def _index_check(name, x, indices, updates, axis=0):
    check_dtype("indices", indices, INTS)
    want = x.shape[:axis] + indices.shape + x.shape[axis + 1:]
    if updates.shape != want:
        raise ValueError(f"{name}: updates shape {updates.shape} must be {want} (input_x "
                         f"shape {x.shape}, indices shape {indices.shape}, axis {axis})")
    return TensorSpec(x.shape, x.dtype)


def _nd_check(name, x, indices, updates):
    check_dtype("indices", indices, INTS)
    depth = indices.shape[-1] if indices.ndim else 0
    if indices.ndim < 1 or not 1 <= depth <= x.ndim:
        raise ValueError(f"{name}: indices shape {indices.shape} must end in 1..{x.ndim} "
                         f"(the rank of input_x shape {x.shape})")
    want = indices.shape[:-1] + x.shape[depth:]
    if updates.shape != want:
        raise ValueError(f"{name}: updates shape {updates.shape} must be {want} (input_x "
                         f"shape {x.shape}, indices shape {indices.shape})")
    return TensorSpec(x.shape, x.dtype)


def _bounds(name, indices, size):
    if indices.size and (indices.min() < 0 or indices.max() >= size):
        raise IndexError(f"{name}: indices must lie in [0, {size}), got values from "
                         f"{indices.min()} to {indices.max()}")


def _rows(rng):
    yield (rng.standard_normal((4, 3)), np.array([2, 0]), rng.standard_normal((2, 3))), {}
    yield (rng.standard_normal((4, 3)), np.array([[1, 1], [3, 0]]),
           rng.standard_normal((2, 2, 3))), {}


def _points(rng):
    yield (rng.standard_normal((3, 3)), np.array([[0, 1], [2, 2]]), rng.standard_normal((2,))), {}
    yield (rng.standard_normal((4, 3)), np.array([[3], [0]]), rng.standard_normal((2, 3))), {}


ScatterAdd = OpDef("ScatterAdd", _ARGS, infer=lambda x, i, u: _index_check("ScatterAdd", x, i, u),
                   differentiable=False, inplace=0, functional="scatter_add",
                   doc="input_x[indices] += updates along the first axis, in place.")


@ScatterAdd.kernel("CPU", dtypes=NUMBERS)
def scatter_add_cpu(x, indices, updates):
    _bounds("ScatterAdd", indices, x.shape[0])
    np.add.at(x, indices, updates.astype(x.dtype, copy=False))
    return x


ScatterAdd.samples(_rows)


ScatterUpdate = OpDef("ScatterUpdate", _ARGS,
                      infer=lambda x, i, u: _index_check("ScatterUpdate", x, i, u),
                      differentiable=False, inplace=0, functional="scatter_update",
                      doc="input_x[indices] = updates along the first axis, in place.")


@ScatterUpdate.kernel("CPU", dtypes=ALL)
def scatter_update_cpu(x, indices, updates):
    _bounds("ScatterUpdate", indices, x.shape[0])
    x[indices] = updates
    return x


ScatterUpdate.samples(_rows)


ScatterNdAdd = OpDef("ScatterNdAdd", _ARGS,
                     infer=lambda x, i, u: _nd_check("ScatterNdAdd", x, i, u),
                     differentiable=False, inplace=0, functional="scatter_nd_add",
                     doc="input_x[indices[..., :]] += updates (N-d positions), in place.")


def _nd(indices):
    return tuple(np.moveaxis(indices, -1, 0))


@ScatterNdAdd.kernel("CPU", dtypes=NUMBERS)
def scatter_nd_add_cpu(x, indices, updates):
    for k, size in enumerate(x.shape[:indices.shape[-1]]):
        _bounds("ScatterNdAdd", indices[..., k], size)
    np.add.at(x, _nd(indices), updates.astype(x.dtype, copy=False))
    return x


ScatterNdAdd.samples(_points)


ScatterNdUpdate = OpDef("ScatterNdUpdate", _ARGS,
                        infer=lambda x, i, u: _nd_check("ScatterNdUpdate", x, i, u),
                        differentiable=False, inplace=0, functional="scatter_nd_update",
                        doc="input_x[indices[..., :]] = updates (N-d positions), in place.")


@ScatterNdUpdate.kernel("CPU", dtypes=ALL)
def scatter_nd_update_cpu(x, indices, updates):
    for k, size in enumerate(x.shape[:indices.shape[-1]]):
        _bounds("ScatterNdUpdate", indices[..., k], size)
    x[_nd(indices)] = updates
    return x


ScatterNdUpdate.samples(_points)


def _index_add_infer(x, indices, y, axis=0, use_lock=True, check_index_bound=True):
    check_int("axis", axis)
    if indices.ndim != 1:
        raise ValueError(f"IndexAdd: indices must be 1-D, got shape {indices.shape}")
    return _index_check("IndexAdd", x, indices, y, axis % x.ndim)


IndexAdd = OpDef("IndexAdd", (Arg("input_x", promote=False), Arg("indices", promote=False),
                              Arg("y", promote=False)),
                 # use_lock/check_index_bound: MindSpore's; numpy needs no lock and
                 # indices are always checked here
                 (Attr("axis", 0), Attr("use_lock", True), Attr("check_index_bound", True)),
                 infer=_index_add_infer, differentiable=False,
                 inplace=0, doc="input_x[..., indices, ...] += y along ``axis``, in place.")


@IndexAdd.kernel("CPU", dtypes=NUMBERS)
def index_add_cpu(x, indices, y, axis=0, use_lock=True, check_index_bound=True):
    axis %= x.ndim
    _bounds("IndexAdd", indices, x.shape[axis])
    np.add.at(np.moveaxis(x, axis, 0), indices, np.moveaxis(y, axis, 0).astype(x.dtype))
    return x


@IndexAdd.samples
def _index_add(rng):
    yield (rng.standard_normal((4, 3)), np.array([2, 0, 2]), rng.standard_normal((3, 3))), {}
    yield (rng.standard_normal((2, 3)), np.array([1, 1]), rng.standard_normal((2, 2))), \
        {"axis": 1}


@functional("index_add", "inplace_index_add")
def index_add(x, indices, y, axis, use_lock=True, check_index_bound=True):
    """``ops.index_add``: ``x[..., indices, ...] += y`` along ``axis`` in place (x is a
    Parameter); repeated indices accumulate."""
    return IndexAdd(x, indices, y, axis=axis)


def _inplace_index_add_class(var, indices, updates, axis):
    return IndexAdd(var, indices, updates, axis=axis)


InplaceIndexAdd = primitive_class("InplaceIndexAdd", _inplace_index_add_class, ("axis",))
