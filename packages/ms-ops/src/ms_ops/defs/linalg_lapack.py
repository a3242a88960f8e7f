"""LAPACK-shaped factorizations: ``lu_unpack``/``lu_solve`` (pivots 1-based, as
``lu_factor`` and MindSpore give them), ``eig``/``eigvals`` (complex results), and
``orgqr``/``ormqr`` over LAPACK's Householder reflectors.

``lu_unpack``, ``lu_solve``, ``orgqr`` and ``ormqr`` are compositions (triangles,
triangular solves, products of reflectors), so gradients reach their inputs. Eig gives
values only (complex outputs take no gradient here).
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.arithmetic import Add, Mul, Sub
from ms_ops.defs.array_slice import Slice
from ms_ops.defs.array_triangle import tril, triu
from ms_ops.defs.linalg import BatchMatMul
from ms_ops.defs.linalg_decomp import MatrixTriangularSolve
from ms_ops.infer import check_dtype
from ms_ops.opdef import FLOATS, Arg, Attr, OpDef, TensorSpec, functional, primitive_class
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


def _permutation(pivots: np.ndarray, n: int) -> np.ndarray:
    """The row order ``perm`` with ``(P.T @ A)[k] = A[perm[k]]`` for LAPACK's pivots."""
    perm = np.arange(n)
    for i, p in enumerate(pivots.reshape(-1).astype(np.int64) - 1):
        if not 0 <= p < n:
            raise ValueError(f"lu: pivot {p + 1} at {i} is outside 1..{n}")
        perm[[i, p]] = perm[[p, i]]
    return perm


def _perm_matrices(lu, pivots):
    n = lu.shape[-2]
    piv = pivots.asnumpy().reshape(lu.shape[:-2] + (-1,)) if lu.ndim > 2 else \
        pivots.asnumpy().reshape(1, -1)
    mats = []
    for row in piv.reshape(-1, piv.shape[-1]):
        perm = _permutation(row, n)
        p = np.zeros((n, n), lu.dtype.np)
        p[perm, np.arange(n)] = 1
        mats.append(p)
    return Tensor(np.stack(mats).reshape(tuple(lu.shape[:-2]) + (n, n)))


@functional("lu_unpack")
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True):
    """``ops.lu_unpack``: (P, L, U) with A = P @ L @ U from LU_data and 1-based pivots."""
    check_dtype("LU_data", LU_data, FLOATS)
    m, n = LU_data.shape[-2:]
    k = min(m, n)
    p = _perm_matrices(LU_data, LU_pivots) if unpack_pivots else None
    if not unpack_data:
        return p, None, None
    eye = Tensor(np.eye(m, k, dtype=LU_data.dtype.np))
    low = Add(tril(_first(LU_data, -1, k), -1), eye)  # unit lower triangle, m x k
    upper = triu(_first(LU_data, -2, k))  # k x n
    return p, low, upper


def _first(x, axis, k):
    """The first ``k`` entries of ``x`` along ``axis``."""
    if x.shape[axis] == k:
        return x
    size = list(x.shape)
    size[axis] = k
    return Slice(x, (0,) * x.ndim, tuple(size))


LuUnpack = primitive_class("LuUnpack", lu_unpack, ("unpack_data", "unpack_pivots"))


@functional("lu_solve", methods="lu_solve")
def lu_solve(b, LU_data, LU_pivots):
    """``ops.lu_solve``: y with A @ y = b, A given by LU_data and 1-based pivots."""
    p, low, upper = lu_unpack(LU_data, LU_pivots)
    pb = BatchMatMul(array.Transpose(p, tuple(range(p.ndim - 2)) + (p.ndim - 1, p.ndim - 2)),
                     b)
    half = MatrixTriangularSolve(low, pb, lower=True)
    return MatrixTriangularSolve(upper, half, lower=False)


LuSolve = primitive_class("LuSolve", lu_solve)


def _eig_infer(x, compute_v=False):
    check_dtype("x", x, FLOATS | {mstype.complex64, mstype.complex128})
    if x.ndim < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"Eig: input must be square matrices (..., N, N), got shape {x.shape}")
    out = mstype.complex128 if x.dtype in (mstype.float64, mstype.complex128) \
        else mstype.complex64
    return TensorSpec(x.shape[:-1], out), TensorSpec(x.shape if compute_v else (), out)


Eig = OpDef("Eig", (Arg("x"),), (Attr("compute_v", False),), infer=_eig_infer,
            differentiable=False,
            doc="(eigenvalues, eigenvectors as columns) of square matrices, complex.")


@Eig.kernel("CPU", dtypes=FLOATS | {mstype.complex64, mstype.complex128})
def eig_cpu(x, compute_v=False):
    out = np.complex128 if x.dtype in (np.float64, np.complex128) else np.complex64
    values, vectors = np.linalg.eig(x)
    if not compute_v:
        return values.astype(out), np.zeros((), out)
    return values.astype(out), vectors.astype(out)


@Eig.samples
def _eig(rng):
    yield (rng.standard_normal((3, 3)),), {"compute_v": True}


@functional("eig")
def eig(A):
    """``ops.eig``: (eigenvalues, eigenvectors) of square matrices (complex)."""
    return Eig(A, compute_v=True)


@functional("eigvals", methods="eigvals")
def eigvals(A):
    """``ops.eigvals``: the eigenvalues of square matrices (complex)."""
    return Eig(A)[0]


def _householder_q(y, tau, full: bool):
    """Q = H_0 H_1 ... from the reflectors below the diagonal of ``y``, built with
    operators so gradients reach ``y`` and ``tau`` (all m columns, or the first n)."""
    m, n = y.shape[-2:]
    lead = tuple(y.shape[:-2])
    eye = Tensor(np.eye(m, dtype=y.dtype.np))
    q = array.BroadcastTo(eye, lead + (m, m))
    for i in range(tau.shape[-1]):
        column = Slice(y, (0,) * len(lead) + (0, i), lead + (m, 1))
        below = Tensor((np.arange(m) > i).astype(y.dtype.np).reshape(m, 1))
        unit = Tensor((np.arange(m) == i).astype(y.dtype.np).reshape(m, 1))
        v = Add(Mul(column, below), unit)
        t = array.Reshape(Slice(tau, (0,) * len(lead) + (i,), lead + (1,)), lead + (1, 1))
        h = Sub(eye, Mul(t, BatchMatMul(v, array.Transpose(v, tuple(range(v.ndim - 2)) +
                                                           (v.ndim - 1, v.ndim - 2)))))
        q = BatchMatMul(q, h)
    return q if full else _first(q, -1, n)


def _check_reflectors(name, x, tau):
    check_dtype("input", x, FLOATS)
    if tau.shape[:-1] != x.shape[:-2] or tau.shape[-1] > min(x.shape[-2:]):
        raise ValueError(f"{name}: tau shape {tau.shape} does not fit input shape {x.shape}")


@functional("orgqr", methods="orgqr")
def orgqr(input, input2):
    """``ops.orgqr``: the first N columns of Q from geqrf's reflectors ``input`` and
    scales ``input2`` (tau)."""
    _check_reflectors("orgqr", input, input2)
    return _householder_q(input, input2, full=False)


@functional("ormqr", methods="ormqr")
def ormqr(input, tau, other, left=True, transpose=False):
    """``ops.ormqr``: Q @ other (other @ Q when not ``left``; Q.T with ``transpose``), Q
    from geqrf's reflectors."""
    _check_reflectors("ormqr", input, tau)
    q = _householder_q(input, tau, full=True)
    if transpose:
        q = array.Transpose(q, tuple(range(q.ndim - 2)) + (q.ndim - 1, q.ndim - 2))
    return BatchMatMul(q, other) if left else BatchMatMul(other, q)
