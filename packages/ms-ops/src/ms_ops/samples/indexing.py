"""Samples for the indexing operators: ``x[index]`` and its gradient, ``x[index] = v``,
Gather, GatherD, GatherNd and the scatters.

``x[index]`` samples are built with ``normalize_index``, as ``Tensor.__getitem__`` does:
(description, stacked int64 index arrays).
"""

import numpy as np

from ms_ops.defs._index import normalize_index

_INDICES = (  # (input shape, index)
    ((3, 4), (slice(1, None), None, [0, 2])),             # slice, new axis, array
    ((3, 4), (1, Ellipsis)),                              # int
    ((3, 2, 4), ([[0, 2], [1, 1]], slice(None), [3, 0])),  # separated arrays, repeats
    ((3, 4), (np.array([True, False, True]), slice(None, None, -2))),  # mask, negative step
)


def _getitem(rng):
    for shape, index in _INDICES:
        x = rng.standard_normal(shape)
        desc, indices = normalize_index(index, x.shape)
        yield (x, indices, desc), {}


def _getitem_grad(rng):
    for shape, index in _INDICES:
        desc, indices = normalize_index(index, shape)
        picked = np.zeros(shape)[_np_index(index)]
        yield (rng.standard_normal(picked.shape), indices, desc, shape), {}


def _np_index(index):
    return tuple(np.asarray(i) if isinstance(i, list) else i for i in index)


def _setitem(rng):
    # Assigned positions are distinct: with repeats only the last write lands.
    for index, value_shape in (((slice(1, None), [0, 2]), (2, 2)),
                               ((1,), (1, 4)),
                               ((slice(None), [3, 1]), (2,)),
                               ((np.array([False, True, True]),), (4,))):
        x = rng.standard_normal((3, 4))
        desc, indices = normalize_index(index, x.shape)
        yield (x, rng.standard_normal(value_shape), indices, desc), {}


def _gather(rng):
    yield (rng.standard_normal((3, 4)), np.array([2, 0, 2]), 0), {}
    yield (rng.standard_normal((3, 4)), np.array([[1, 3], [0, 1]]), 1), {}
    yield (rng.standard_normal((2, 3, 4)), np.array([[2, 0], [1, 1]]), 1), {"batch_dims": 1}


def _gather_d(rng):
    yield (rng.standard_normal((3, 4)), 1, rng.integers(0, 4, (3, 2))), {}
    yield (rng.standard_normal((3, 4)), 0, rng.integers(0, 3, (2, 4))), {}


def _scatter_elements(rng):
    # reduction "none" writes distinct positions; "add" accumulates repeats.
    distinct = np.stack([rng.permutation(3)[:2] for _ in range(4)], axis=1)
    yield (rng.standard_normal((3, 4)), distinct, rng.standard_normal((2, 4))), {"axis": 0}
    yield (rng.standard_normal((3, 4)), np.array([[1, 1], [0, 3], [2, 2]]),
           rng.standard_normal((3, 2))), {"axis": 1, "reduction": "add"}


def _gather_nd(rng):
    yield (rng.standard_normal((3, 4)), np.array([[0, 1], [2, 3], [0, 1]])), {}
    yield (rng.standard_normal((3, 4)), np.array([[2], [0]])), {}


def _scatter_nd(rng):
    yield (np.array([[1], [3], [1]]), rng.standard_normal((3, 4)), (5, 4)), {}
    yield (np.array([[0, 1], [2, 2]]), rng.standard_normal((2,)), (3, 3)), {}


def _scatter_update(rng):
    yield (rng.standard_normal((4, 3)), np.array([[2], [0]]), rng.standard_normal((2, 3))), {}
    yield (rng.standard_normal((4, 3)), np.array([[1, 2], [3, 0]]),
           rng.standard_normal((2,))), {}


def _scatter_add(rng):
    yield (rng.standard_normal((4, 3)), np.array([[2], [0], [2]]),
           rng.standard_normal((3, 3))), {}
    yield (rng.standard_normal((4, 3)), np.array([[1, 2], [1, 2]]),
           rng.standard_normal((2,))), {}


SAMPLES = {
    "TensorGetItem": _getitem, "TensorGetItemGrad": _getitem_grad,
    "TensorSetItem": _setitem, "Gather": _gather, "GatherD": _gather_d,
    "TensorScatterElements": _scatter_elements, "GatherNd": _gather_nd,
    "ScatterNd": _scatter_nd, "TensorScatterUpdate": _scatter_update,
    "TensorScatterAdd": _scatter_add,
}
