"""Matrix decompositions and solves: Svd, Qr, Cholesky, MatrixSolve and
MatrixTriangularSolve (batched over the leading axes, numpy's LAPACK kernels).

Their gradients are the published matrix-backprop rules written with operators (so they
differentiate again): SVD after Townsend (2016), QR as PyTorch derives it, Cholesky's in
the lower triangle its kernel reads, a solve as another solve. Where a rule does not exist
they raise naming it: the extra columns of a full U, V or Q, and QR of wide matrices.
Repeated singular values make the u/v gradient infinite, as in every framework.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.arithmetic import Add, Div, Mul, Sub
from ms_ops.defs.array_slice import Slice
from ms_ops.defs.array_triangle import tril, triu
from ms_ops.defs.linalg import BatchMatMul
from ms_ops.defs.reduction import ReduceSum
from ms_ops.infer import check_bool, check_dtype
from ms_ops.opdef import FLOATS, Arg, Attr, OpDef, TensorSpec
from ms_tensor.tensor import Tensor


def _t(x):
    perm = list(range(x.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return array.Transpose(x, tuple(perm))


def _columns(x, k):
    return Slice(x, (0,) * x.ndim, tuple(x.shape[:-1]) + (k,))


def _diag_embed(v):
    n = v.shape[-1]
    return Mul(array.ExpandDims(v, -1), array.Cast(_eye(n), v.dtype))


def _eye(n):
    return Tensor(np.eye(n, dtype=np.float64))


def _matrices(name, x):
    check_dtype("input", x, FLOATS)
    if x.ndim < 2:
        raise ValueError(f"{name}: input must have at least 2 dimensions (..., M, N), got "
                         f"shape {x.shape}")


def _svd_infer(x, full_matrices=False, compute_uv=True):
    _matrices("Svd", x)
    check_bool("full_matrices", full_matrices)
    m, n = x.shape[-2:]
    k = min(m, n)
    lead = x.shape[:-2]
    u_cols, v_cols = (m, n) if full_matrices else (k, k)
    return (TensorSpec(lead + (k,), x.dtype), TensorSpec(lead + (m, u_cols), x.dtype),
            TensorSpec(lead + (n, v_cols), x.dtype))


Svd = OpDef("Svd", (Arg("input"),), (Attr("full_matrices", False), Attr("compute_uv", True)),
            infer=_svd_infer,
            doc="(s, u, v) with input = u @ diag(s) @ v.T, singular values in descending order.")


@Svd.kernel("CPU", dtypes=FLOATS)
def svd_cpu(x, full_matrices=False, compute_uv=True):
    u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
    return s.astype(x.dtype), u.astype(x.dtype), np.swapaxes(vh, -1, -2).astype(x.dtype)


@Svd.bprop
def svd_bprop(x, out, dout, full_matrices=False, compute_uv=True):
    s, u, v = out
    ds, du, dv = dout
    m, n = x.shape[-2:]
    k = min(m, n)
    if full_matrices and m != n and (du is not None or dv is not None):
        raise NotImplementedError(
            f"Svd: no gradient for u or v with full_matrices=True on a {m}x{n} input (the "
            "extra columns are not unique); use full_matrices=False")
    u, v = _columns(u, k), _columns(v, k)
    du = None if du is None else _columns(du, k)
    dv = None if dv is None else _columns(dv, k)
    s_diag = _diag_embed(s)
    inner = _diag_embed(ds) if ds is not None else Mul(s_diag, 0.0)
    if du is not None or dv is not None:
        s2 = Mul(s, s)
        gap = Sub(array.ExpandDims(s2, -2), array.ExpandDims(s2, -1))  # s_j^2 - s_i^2
        eye = array.Cast(_eye(k), s.dtype)
        f = Div(Sub(1.0, eye), Add(gap, eye))  # 1 / gap off the diagonal, 0 on it
        s_inv = _diag_embed(Div(1.0, s))
    if du is not None:
        ut_du = BatchMatMul(_t(u), du)
        inner = Add(inner, BatchMatMul(Mul(f, Sub(ut_du, _t(ut_du))), s_diag))
    if dv is not None:
        vt_dv = BatchMatMul(_t(v), dv)
        inner = Add(inner, BatchMatMul(s_diag, Mul(f, Sub(vt_dv, _t(vt_dv)))))
    dx = BatchMatMul(BatchMatMul(u, inner), _t(v))
    if du is not None and m > k:
        proj = Sub(du, BatchMatMul(u, BatchMatMul(_t(u), du)))
        dx = Add(dx, BatchMatMul(BatchMatMul(proj, s_inv), _t(v)))
    if dv is not None and n > k:
        proj = Sub(dv, BatchMatMul(v, BatchMatMul(_t(v), dv)))
        dx = Add(dx, BatchMatMul(BatchMatMul(u, s_inv), _t(proj)))
    return (dx,)


@Svd.samples
def _svd(rng):
    # well separated singular values: the rule divides by their gaps
    for shape in ((4, 3), (3, 5), (2, 3, 3)):
        q1, _ = np.linalg.qr(rng.standard_normal(shape[:-2] + (shape[-2],) * 2))
        q2, _ = np.linalg.qr(rng.standard_normal(shape[:-2] + (shape[-1],) * 2))
        k = min(shape[-2:])
        s = np.zeros(shape)
        idx = np.arange(k)
        s[..., idx, idx] = np.linspace(3.0, 1.0, k)
        yield (q1 @ s @ q2,), {}


def _qr_infer(x, full_matrices=False):
    _matrices("Qr", x)
    m, n = x.shape[-2:]
    k = m if full_matrices else min(m, n)
    lead = x.shape[:-2]
    return TensorSpec(lead + (m, k), x.dtype), TensorSpec(lead + (k, n), x.dtype)


Qr = OpDef("Qr", (Arg("x"),), (Attr("full_matrices", False),), infer=_qr_infer,
           doc="(q, r): orthonormal columns q and upper triangular r with x = q @ r.")


@Qr.kernel("CPU", dtypes=FLOATS)
def qr_cpu(x, full_matrices=False):
    q, r = np.linalg.qr(x, mode="complete" if full_matrices else "reduced")
    return q.astype(x.dtype), r.astype(x.dtype)


def _copy_lower(m):
    return Add(tril(m), _t(tril(m, -1)))


@Qr.bprop
def qr_bprop(x, out, dout, full_matrices=False):
    q, r = out
    dq, dr = dout
    m, n = x.shape[-2:]
    if m < n or (full_matrices and m != n):
        raise NotImplementedError(f"Qr: gradient defined for tall or square inputs with "
                                  f"reduced q only, got {m}x{n} (full_matrices="
                                  f"{full_matrices})")
    dq = Mul(q, 0.0) if dq is None else dq
    dr = Mul(r, 0.0) if dr is None else dr
    mid = Sub(BatchMatMul(r, _t(dr)), BatchMatMul(_t(dq), q))
    b = Add(dq, BatchMatMul(q, _copy_lower(mid)))
    # b @ inv(r).T, as a triangular solve: r @ dx.T = b.T
    return (_t(MatrixTriangularSolve(r, _t(b), lower=False)),)


@Qr.samples
def _qr(rng):
    yield (rng.standard_normal((4, 3)),), {}
    yield (rng.standard_normal((2, 3, 3)) + 3 * np.eye(3),), {}


def _square(name, x):
    _matrices(name, x)
    if x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name}: input must be square matrices (..., N, N), got shape "
                         f"{x.shape}")


def _cholesky_infer(x, upper=False):
    _square("Cholesky", x)
    check_bool("upper", upper)
    return TensorSpec(x.shape, x.dtype)


Cholesky = OpDef("Cholesky", (Arg("input_x"),), (Attr("upper", False),), infer=_cholesky_infer,
                 doc="The triangular factor L with x = L @ L.T (U.T @ U when ``upper``) of "
                     "symmetric positive-definite matrices.")


@Cholesky.kernel("CPU", dtypes=FLOATS)
def cholesky_cpu(x, upper=False):
    try:
        low = np.linalg.cholesky(x)
    except np.linalg.LinAlgError:
        raise ValueError(f"Cholesky: input of shape {x.shape} is not positive definite") \
            from None
    return np.swapaxes(low, -1, -2).copy() if upper else low


@Cholesky.bprop
def cholesky_bprop(x, out, dout, upper=False):
    low, dlow = (_t(out), _t(dout)) if upper else (out, dout)
    phi = BatchMatMul(_t(low), dlow)
    phi = Sub(tril(phi), Mul(_diag_embed(_diagonal(phi)), 0.5))
    # inv(L).T @ phi @ inv(L), symmetrised
    left = MatrixTriangularSolve(low, phi, lower=True, adjoint=True)
    s = _t(MatrixTriangularSolve(low, _t(left), lower=True, adjoint=True))
    # the kernel reads the lower triangle only: its gradient lives there (for a symmetric
    # input built from other tensors this equals the symmetric convention's)
    both = Add(s, _t(s))
    return (Sub(tril(both), Mul(_diag_embed(_diagonal(both)), 0.5)),)


def _diagonal(x):
    return ReduceSum(Mul(x, array.Cast(_eye(x.shape[-1]), x.dtype)), (-1,))


@Cholesky.samples
def _cholesky(rng):
    a = rng.standard_normal((3, 3))
    yield (a @ a.T + 3 * np.eye(3),), {}
    b = rng.standard_normal((2, 3, 3))
    yield (b @ np.swapaxes(b, -1, -2) + 3 * np.eye(3),), {"upper": True}


def _solve_infer(matrix, rhs, adjoint=False, lower=True):
    _square("MatrixSolve", matrix)
    check_dtype("rhs", rhs, FLOATS)
    if rhs.ndim < 2 or rhs.shape[-2] != matrix.shape[-1]:
        raise ValueError(f"MatrixSolve: rhs shape {rhs.shape} must be (..., {matrix.shape[-1]}"
                         f", K) for matrix shape {matrix.shape}")
    return TensorSpec(rhs.shape, rhs.dtype)


MatrixSolve = OpDef("MatrixSolve", (Arg("matrix"), Arg("rhs")), (Attr("adjoint", False),),
                    infer=_solve_infer, promote="common",
                    doc="x with matrix @ x = rhs (matrix.T @ x = rhs when ``adjoint``).")


@MatrixSolve.kernel("CPU", dtypes=FLOATS)
def matrix_solve_cpu(matrix, rhs, adjoint=False):
    a = np.swapaxes(matrix, -1, -2) if adjoint else matrix
    try:
        return np.linalg.solve(a, rhs).astype(rhs.dtype)
    except np.linalg.LinAlgError:
        raise ValueError(f"MatrixSolve: matrix of shape {matrix.shape} is singular") from None


@MatrixSolve.bprop
def matrix_solve_bprop(matrix, rhs, out, dout, adjoint=False):
    drhs = MatrixSolve(matrix, dout, adjoint=not adjoint)
    dmat = Mul(BatchMatMul(drhs, _t(out)), -1.0)
    return (_t(dmat) if adjoint else dmat, drhs)


@MatrixSolve.samples
def _matrix_solve(rng):
    yield (rng.standard_normal((3, 3)) + 3 * np.eye(3), rng.standard_normal((3, 2))), {}
    yield (rng.standard_normal((2, 3, 3)) + 3 * np.eye(3), rng.standard_normal((2, 3, 1))), \
        {"adjoint": True}


MatrixTriangularSolve = OpDef(
    "MatrixTriangularSolve", (Arg("matrix"), Arg("rhs")),
    (Attr("lower", True), Attr("adjoint", False)), infer=_solve_infer, promote="common",
    doc="x with tri(matrix) @ x = rhs, reading only the lower (or upper) triangle.")


@MatrixTriangularSolve.kernel("CPU", dtypes=FLOATS)
def triangular_solve_cpu(matrix, rhs, lower=True, adjoint=False):
    a = np.tril(matrix) if lower else np.triu(matrix)
    if adjoint:
        a = np.swapaxes(a, -1, -2)
    try:
        return np.linalg.solve(a, rhs).astype(rhs.dtype)
    except np.linalg.LinAlgError:
        raise ValueError(f"MatrixTriangularSolve: matrix of shape {matrix.shape} has a zero "
                         "on its diagonal") from None


@MatrixTriangularSolve.bprop
def triangular_solve_bprop(matrix, rhs, out, dout, lower=True, adjoint=False):
    drhs = MatrixTriangularSolve(matrix, dout, lower=lower, adjoint=not adjoint)
    dmat = Mul(BatchMatMul(drhs, _t(out)), -1.0)
    if adjoint:
        dmat = _t(dmat)
    return (tril(dmat) if lower else triu(dmat), drhs)


@MatrixTriangularSolve.samples
def _triangular_solve(rng):
    a = np.tril(rng.standard_normal((3, 3))) + 3 * np.eye(3)
    yield (a, rng.standard_normal((3, 2))), {}
    yield (a.T, rng.standard_normal((3, 2))), {"lower": False, "adjoint": True}
