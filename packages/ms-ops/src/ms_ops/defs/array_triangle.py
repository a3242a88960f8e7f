"""Triangles of matrices: Tril and Triu, with ``ops.tril``/``triu``/``fliplr``/``flipud``.

``diagonal`` shifts the kept triangle as in numpy (positive: above the main diagonal).
The gradient keeps the same triangle of the incoming gradient.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs.array_reorder import ReverseV2
from ms_ops.infer import check_int
from ms_ops.opdef import ALL, Arg, Attr, OpDef, TensorSpec, functional


def _triangle_op(name: str, keep, doc: str) -> OpDef:
    def infer(x, diagonal=0):
        if x.ndim < 2:
            raise ValueError(f"{name}: input must be at least 2-d, got shape {x.shape}")
        check_int("diagonal", diagonal)
        return TensorSpec(x.shape, x.dtype)

    op = OpDef(name, (Arg("x"),), (Attr("diagonal", 0),), infer=infer, doc=doc)

    @op.kernel("CPU", dtypes=ALL)
    def kernel(x, diagonal=0):
        return keep(x, diagonal)

    @op.bprop
    def bprop(x, out, dout, diagonal=0):
        return (op(dout, diagonal=diagonal),)

    @op.samples
    def samples(rng):
        yield (rng.standard_normal((3, 4)),), {}
        yield (rng.standard_normal((2, 3, 3)),), {"diagonal": -1}
        yield (rng.standard_normal((4, 3)),), {"diagonal": 2}

    return op


Tril = _triangle_op("Tril", lambda x, k: np.tril(x, k),
                    "The lower triangle (entries on and below ``diagonal``); zeros above.")
Triu = _triangle_op("Triu", lambda x, k: np.triu(x, k),
                    "The upper triangle (entries on and above ``diagonal``); zeros below.")


@functional("tril", methods="tril")
def tril(input, diagonal=0):
    """``ops.tril``: the lower triangle of the last two axes.

    >>> ops.tril(ops.ones((2, 2))).asnumpy()
    array([[1., 0.],
           [1., 1.]], dtype=float32)
    """
    return Tril(input, diagonal=diagonal)


@functional("triu", methods="triu")
def triu(input, diagonal=0):
    """``ops.triu``: the upper triangle of the last two axes."""
    return Triu(input, diagonal=diagonal)


def _flip_axis(input, axis: int, name: str):
    if input.ndim < 2:
        raise ValueError(f"{name}: input must be at least 2-d, got shape {input.shape}")
    return ReverseV2(input, axis=(axis,))


@functional("fliplr", methods="fliplr")
def fliplr(input):
    """``ops.fliplr``: reverse the columns (axis 1)."""
    return _flip_axis(input, 1, "fliplr")


@functional("flipud", methods="flipud")
def flipud(input):
    """``ops.flipud``: reverse the rows (axis 0)."""
    return _flip_axis(input, 0, "flipud")
