"""Norms: ``ops.norm`` (and ``Tensor.norm``), ``ops.vector_norm``, ``ops.matrix_norm``.

Built from Abs, Pow, Sqrt and reductions, so gradients come from those rules. Integer
inputs are normed in float32, as MindSpore does. ``ord`` follows MindSpore/PyTorch: on a
vector (``dim`` an int, or a 1-D input) any p-norm, ``inf``/``-inf`` and ``0``; on a
matrix (``dim`` a pair, or a 2-D input with an ``ord``) ``"fro"``, ``1``/``-1`` (column
sums), ``inf``/``-inf`` (row sums), and from the singular values (the Svd operator) the
spectral norms ``2``/``-2`` and the nuclear norm ``"nuc"``.
"""

from __future__ import annotations

import math

from ms_ops.defs import array, math_unary
from ms_ops.defs.arithmetic import Abs, Pow
from ms_ops.defs.comparison import NotEqual
from ms_ops.defs.reduction import ReduceMax, ReduceMin, ReduceSum
from ms_ops.infer import normalize_axis
from ms_ops.opdef import functional
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor

_MATRIX_ORDS = ("fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf)


def _floating(x: Tensor, dtype) -> Tensor:
    if dtype is not None:
        return array.Cast(x, dtype)
    return x if x.dtype in mstype.float_types else array.Cast(x, mstype.float32)


def _vector(x, ord, axes, keepdim):
    if ord is None or ord == 2:
        return math_unary.Sqrt(ReduceSum(Pow(x, 2), axes, keep_dims=keepdim))
    if ord == math.inf:
        return ReduceMax(Abs(x), axes, keep_dims=keepdim)
    if ord == -math.inf:
        return ReduceMin(Abs(x), axes, keep_dims=keepdim)
    if ord == 0:
        return ReduceSum(array.Cast(NotEqual(x, 0), x.dtype), axes, keep_dims=keepdim)
    if ord == 1:
        return ReduceSum(Abs(x), axes, keep_dims=keepdim)
    if isinstance(ord, str) or not isinstance(ord, (int, float)):
        raise ValueError(f"norm: a vector norm's ord must be a number, got {ord!r}")
    return Pow(ReduceSum(Pow(Abs(x), ord), axes, keep_dims=keepdim), 1.0 / ord)


def _matrix(x, ord, dims, keepdim):
    if ord not in _MATRIX_ORDS:
        raise ValueError(f"norm: a matrix norm's ord must be one of {_MATRIX_ORDS}, got {ord!r}")
    if ord in ("nuc", 2, -2):
        from ms_ops.defs.array_compose import movedim
        from ms_ops.defs.linalg_decomp import Svd

        s = Svd(movedim(x, tuple(dims), (-2, -1)))[0]
        out = {"nuc": ReduceSum, 2: ReduceMax, -2: ReduceMin}[ord](s, (-1,))
        if keepdim:
            for d in sorted(dims):
                out = array.ExpandDims(out, d)
        return out
    if ord == "fro":
        return math_unary.Sqrt(ReduceSum(Pow(x, 2), dims, keep_dims=keepdim))
    row, col = dims
    inner, outer = (row, col) if ord in (1, -1) else (col, row)  # 1: column sums
    sums = ReduceSum(Abs(x), inner, keep_dims=True)
    pick = ReduceMax if ord in (1, math.inf) else ReduceMin
    out = pick(sums, outer, keep_dims=True)
    return out if keepdim else array.Squeeze(out, tuple(sorted(dims)))


@functional("norm", methods="norm")
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None):
    """``ops.norm``: a vector or matrix norm of ``A`` over ``dim`` (all entries when None).

    >>> ops.norm(Tensor([[3.0, 4.0]])).asnumpy()
    array(5., dtype=float32)
    >>> ops.norm(Tensor([[1.0, -2.0], [3.0, 4.0]]), float("inf")).asnumpy()
    array(7., dtype=float32)
    """
    x = _floating(A, dtype)
    if isinstance(dim, (tuple, list)) and len(dim) == 2:
        dims = tuple(normalize_axis(d, x.ndim, "dim") for d in dim)
        return _matrix(x, "fro" if ord is None else ord, dims, keepdim)
    if dim is None:
        if ord is not None and x.ndim == 2:
            return _matrix(x, ord, (0, 1), keepdim)
        if ord is not None and x.ndim != 1:
            raise ValueError(f"norm: with ord={ord!r} and dim=None the input must be 1-D or "
                             f"2-D, got shape {x.shape}")
        return _vector(x, ord, (), keepdim)
    if isinstance(dim, (tuple, list)):
        if len(dim) != 1:
            raise ValueError(f"norm: dim must be an int or hold 1 or 2 axes, got {dim!r}")
        dim = dim[0]
    return _vector(x, ord, normalize_axis(dim, x.ndim, "dim"), keepdim)


@functional("vector_norm")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None):
    """``ops.vector_norm``: the ``ord`` vector norm over ``dim`` (every entry when None)."""
    x = _floating(x, dtype)
    axes = () if dim is None else (tuple(normalize_axis(d, x.ndim, "dim") for d in dim)
                                   if isinstance(dim, (tuple, list))
                                   else normalize_axis(dim, x.ndim, "dim"))
    return _vector(x, ord, axes, keepdim)


@functional("matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None):
    """``ops.matrix_norm``: the ``ord`` matrix norm over the two axes ``dim``."""
    x = _floating(A, dtype)
    dims = tuple(normalize_axis(d, x.ndim, "dim") for d in dim)
    return _matrix(x, ord, dims, keepdim)
