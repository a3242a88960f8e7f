"""Diagonals: ``ops.diagonal``, ``ops.diag`` and ``ops.diagflat``.

They are compositions (a transpose, a mask from ``np.eye``, a sum, a slice, a pad), so
their gradients and graph forms come from those operators: the gradient of a diagonal
lands on the diagonal and nowhere else.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.arithmetic import Mul
from ms_ops.defs.array_slice import Pad, Slice
from ms_ops.defs.reduction import ReduceSum
from ms_ops.infer import check_int, normalize_axis
from ms_ops.opdef import functional
from ms_tensor.tensor import Tensor


def _eye(n: int, m: int, k: int, like) -> Tensor:
    return Tensor(np.eye(n, m, k), like.dtype)


@functional("diagonal", methods="diagonal")
def diagonal(input, offset=0, dim1=0, dim2=1):
    """``ops.diagonal``: the diagonal of the (``dim1``, ``dim2``) planes, shifted by
    ``offset``, as the last axis of the result (numpy's order).

    >>> ops.diagonal(Tensor(np.arange(9.0).reshape(3, 3)), 1).asnumpy()
    array([1., 5.])
    """
    check_int("offset", offset)
    if input.ndim < 2:
        raise ValueError(f"diagonal: input must be at least 2-d, got shape {input.shape}")
    d1, d2 = normalize_axis(dim1, input.ndim, "dim1"), normalize_axis(dim2, input.ndim, "dim2")
    if d1 == d2:
        raise ValueError(f"diagonal: dim1 and dim2 must differ, both are {d1}")
    rest = [i for i in range(input.ndim) if i not in (d1, d2)]
    x = array.Transpose(input, (*rest, d1, d2))
    n1, n2 = input.shape[d1], input.shape[d2]
    along = ReduceSum(Mul(x, _eye(n1, n2, offset, input)), -1)  # (..., n1)
    start, stop = max(0, -offset), max(0, min(n1, n2 - offset))
    size = tuple(x.shape[:-2]) + (max(stop - start, 0),)
    return Slice(along, (0,) * len(rest) + (min(start, n1),), size)


@functional("diag", methods="diag")
def diag(input):
    """``ops.diag``: a 1-d tensor as the diagonal of a square matrix; an n-d tensor of
    shape S gives shape S + S with the entries on the joint diagonal."""
    n = int(np.prod(input.shape))
    flat = array.Reshape(input, (n,))
    square = Mul(array.Reshape(flat, (1, n)), _eye(n, n, 0, input))
    return array.Reshape(square, tuple(input.shape) * 2)


@functional("diagflat", methods="diagflat")
def diagflat(input, offset=0):
    """``ops.diagflat``: the flattened input on the ``offset`` diagonal of a square matrix."""
    check_int("offset", offset)
    n = int(np.prod(input.shape))
    flat = array.Reshape(input, (1, n))
    square = Mul(flat, _eye(n, n, 0, input))
    k = abs(offset)
    if not k:
        return square
    pads = ((0, k), (k, 0)) if offset > 0 else ((k, 0), (0, k))
    return Pad(square, paddings=pads)
