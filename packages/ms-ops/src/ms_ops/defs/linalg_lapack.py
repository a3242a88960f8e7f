"""LAPACK-shaped factorizations: ``lu_unpack``/``lu_solve`` (pivots 1-based, as
``lu_factor`` and MindSpore give them), ``eig``/``eigvals`` (complex results), and the
Householder form of QR: ``geqrf``, ``orgqr``, ``ormqr``.

``lu_unpack`` and ``lu_solve`` are compositions (triangles of LU_data, triangular
solves), so gradients reach LU_data and b. Eig and the Householder operators give values
only, as MindSpore's CPU rules do: they declare no differentiable input.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.arithmetic import Add
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


def _geqrf_infer(x):
    check_dtype("input", x, FLOATS)
    if x.ndim < 2:
        raise ValueError(f"Geqrf: input must have at least 2 dimensions, got {x.shape}")
    return TensorSpec(x.shape, x.dtype), TensorSpec(x.shape[:-2] + (min(x.shape[-2:]),),
                                                    x.dtype)


Geqrf = OpDef("Geqrf", (Arg("input"),), infer=_geqrf_infer, nondiff_inputs=("input",),
              functional="geqrf", methods="geqrf",
              doc="QR in LAPACK's form: R on and above the diagonal, Householder vectors "
                  "below it, and their scales tau.")


@Geqrf.kernel("CPU", dtypes=FLOATS)
def geqrf_cpu(x):
    flat = x.reshape((-1,) + x.shape[-2:])
    ys, taus = [], []
    for a in flat:
        h, tau = np.linalg.qr(a, mode="raw")
        ys.append(h.T)
        taus.append(tau)
    return (np.stack(ys).reshape(x.shape).astype(x.dtype),
            np.stack(taus).reshape(x.shape[:-2] + (-1,)).astype(x.dtype))


@Geqrf.bprop
def geqrf_bprop(x, out, dout):
    return (None,)


@Geqrf.samples
def _geqrf(rng):
    yield (rng.standard_normal((3, 2)),), {}


def _householder_q(y: np.ndarray, tau: np.ndarray) -> np.ndarray:
    """The full m x m Q = H_0 H_1 ... of the reflectors in ``y`` (below the diagonal)."""
    m = y.shape[0]
    q = np.eye(m, dtype=y.dtype)
    for i in range(len(tau)):
        v = np.zeros(m, y.dtype)
        v[i] = 1
        v[i + 1:] = y[i + 1:, i]
        q = q @ (np.eye(m, dtype=y.dtype) - tau[i] * np.outer(v, v))
    return q


def _batched(fn, y, *rest):
    lead = y.shape[:-2]
    flat = [r.reshape((-1,) + r.shape[len(lead):]) for r in (y,) + rest]
    outs = [fn(*parts) for parts in zip(*flat)]
    return np.stack(outs).reshape(lead + outs[0].shape)


def _householder_infer(name):
    def infer(x, tau, *other, **attrs):
        check_dtype("input", x, FLOATS)
        if tau.shape != x.shape[:-2] + (tau.shape[-1],) or tau.shape[-1] > x.shape[-1]:
            raise ValueError(f"{name}: tau shape {tau.shape} does not fit input shape "
                             f"{x.shape}")
        return TensorSpec(other[0].shape if other else x.shape, x.dtype)
    return infer


Orgqr = OpDef("Orgqr", (Arg("x"), Arg("tau")), infer=_householder_infer("Orgqr"),
              nondiff_inputs=("x", "tau"), functional="orgqr", methods="orgqr",
              doc="The first N columns of Q from geqrf's reflectors.")


@Orgqr.kernel("CPU", dtypes=FLOATS)
def orgqr_cpu(x, tau):
    n = x.shape[-1]
    return _batched(lambda y, t: _householder_q(y, t)[:, :n], x, tau).astype(x.dtype)


Orgqr.bprop(lambda x, tau, out, dout: (None, None))


@Orgqr.samples
def _orgqr(rng):
    y, tau = geqrf_cpu(rng.standard_normal((3, 2)))
    yield (y, tau), {}


Ormqr = OpDef("Ormqr", (Arg("input"), Arg("tau"), Arg("other")),
              (Attr("left", True), Attr("transpose", False)), infer=_householder_infer("Ormqr"),
              nondiff_inputs=("input", "tau", "other"), functional="ormqr", methods="ormqr",
              doc="Q @ other (other @ Q when not ``left``; Q.T with ``transpose``), Q from "
                  "geqrf's reflectors.")


@Ormqr.kernel("CPU", dtypes=FLOATS)
def ormqr_cpu(x, tau, other, left=True, transpose=False):
    def one(y, t, c):
        q = _householder_q(y, t)
        q = q.T if transpose else q
        return q @ c if left else c @ q
    return _batched(one, x, tau, other).astype(other.dtype)


Ormqr.bprop(lambda x, tau, other, out, dout, left=True, transpose=False: (None, None, None))


@Ormqr.samples
def _ormqr(rng):
    y, tau = geqrf_cpu(rng.standard_normal((3, 2)))
    yield (y, tau, rng.standard_normal((3, 2))), {}
