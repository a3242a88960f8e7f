"""A lookup in a table whose gathered axis is cut (a vocab-parallel embedding, Megatron style).

Each rank holds rows ``[lo, hi)`` of the table along the gathered axis. It looks up
``clip(indices - lo, 0, rows - 1)`` in its slice and zeroes the lookups of indices outside
its rows, so the ranks' outputs are summands of the true output (the planner marks it
partial and all-reduces it where the next layout needs it). The mask and the clipped
indices are ms-ops operators, so autodiff gives the table slice its gradient (the lookups'
scatter-add into the local rows, nothing for indices outside them) and a compiled step
computes them from each call's indices. Negative indices count from the end of the whole
axis, as in the unsharded lookup; an index outside the whole axis gives zeros here, where
the unsharded operator raises.
"""

from __future__ import annotations

from ms_ops import functional as F

__all__ = ["local_lookup", "masked_gather"]


def masked_gather(table, indices, axis: int, lo: int, total: int, lookup=None):
    """``Gather(table, indices, axis)`` where ``table`` holds rows ``[lo, lo + rows)`` of an
    axis of ``total`` rows: rows outside the slice give zeros. ``lookup(table, local)``
    replaces the plain Gather (Embedding's options).

    >>> import numpy as np
    >>> from ms_tensor import Tensor
    >>> rows = Tensor(np.array([[2.0, 2.0], [3.0, 3.0]]))  # rows 2 and 3 of 4
    >>> masked_gather(rows, Tensor(np.array([0, 3, 2, -1])), 0, 2, 4).asnumpy().tolist()
    [[0.0, 0.0], [3.0, 3.0], [2.0, 2.0], [3.0, 3.0]]
    """
    ndim = len(table.shape)
    axis %= ndim
    rows = table.shape[axis]
    negative = F.cast(F.less(indices, 0), indices.dtype)
    local = F.sub(F.add(indices, F.mul(negative, total)), lo)
    inside = F.logical_and(F.greater_equal(local, 0), F.less(local, rows))
    local = F.minimum(F.maximum(local, 0), rows - 1)
    out = F.gather(table, local, axis) if lookup is None else lookup(table, local)
    mask = F.reshape(F.cast(inside, table.dtype),
                     (1,) * axis + tuple(indices.shape) + (1,) * (ndim - axis - 1))
    return F.mul(out, mask)


def local_lookup(node, args, ins, rank):
    """Gather/Embedding ``node`` on this rank's slices when its table's gathered axis is cut
    under the input layouts ``ins``; None when the plain operator applies."""
    p, axis = (0, args[2]) if node.spec.op == "Gather" else (1, 0)
    layout, shape = ins[p], node.spec.in_shapes[p]
    axis %= len(shape)
    if layout is None or not layout.tensor_map[axis]:
        return None
    rows = layout.slice_shape(shape)[axis]
    lo = layout.block(rank)[axis] * rows
    if node.spec.op == "Gather":
        return masked_gather(args[0], args[1], axis, lo, shape[axis])
    indices, table, *options = args
    padding_idx = options.pop(0) if options else None
    pad = None if padding_idx is None else padding_idx % shape[0] - lo
    pad = pad if pad is not None and 0 <= pad < rows else None

    def lookup(t, local):
        return node.op(local, t, pad, *options, **node.attrs)
    return masked_gather(table, indices, 0, lo, shape[0], lookup)
