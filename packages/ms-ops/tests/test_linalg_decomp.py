"""Decompositions, solves, einsum and distances against numpy, with gradients against
finite differences (the operators' own rules are checked by the registry suite)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor

RNG = np.random.default_rng(0)
A = RNG.standard_normal((4, 3))
SQ = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
SPD = SQ @ SQ.T + np.eye(3)
B = RNG.standard_normal((3, 2))


def _close(got, want, rtol=1e-6):
    np.testing.assert_allclose(got.asnumpy() if hasattr(got, "asnumpy") else got, want,
                               rtol=rtol, atol=1e-9)


def test_svd_qr_cholesky_reconstruct():
    s, u, v = ops.svd(Tensor(A))
    _close(s, np.linalg.svd(A, compute_uv=False))
    _close(u.asnumpy() @ np.diag(s.asnumpy()) @ v.asnumpy().T, A)
    assert ops.svd(Tensor(A), full_matrices=True)[1].shape == (4, 4)
    q, r = ops.qr(Tensor(A))
    _close(q.asnumpy() @ r.asnumpy(), A)
    assert np.allclose(np.tril(r.asnumpy(), -1), 0)
    assert ops.qr(Tensor(A), "complete")[0].shape == (4, 4)
    low = ops.cholesky(Tensor(SPD))
    _close(low, np.linalg.cholesky(SPD))
    _close(ops.cholesky(Tensor(SPD), upper=True), np.linalg.cholesky(SPD).T)
    with pytest.raises(ValueError, match="Cholesky: input of shape \\(2, 2\\) is not positive"):
        ops.cholesky(Tensor(-np.eye(2)))
    with pytest.raises(ValueError, match="qr: mode must be"):
        ops.qr(Tensor(A), "r")


def test_solves():
    _close(ops.matrix_solve(Tensor(SQ), Tensor(B)), np.linalg.solve(SQ, B))
    _close(ops.matrix_solve(Tensor(SQ), Tensor(B), True), np.linalg.solve(SQ.T, B))
    low = np.tril(SQ)
    _close(ops.MatrixTriangularSolve()(Tensor(SQ), Tensor(B)), np.linalg.solve(low, B))
    factor = ops.cholesky(Tensor(SPD))
    _close(ops.cholesky_solve(Tensor(B), factor), np.linalg.solve(SPD, B), rtol=1e-5)
    _close(ops.cholesky_inverse(factor), np.linalg.inv(SPD), rtol=1e-5)
    _close(ops.pinv(Tensor(A)), np.linalg.pinv(A), rtol=1e-5)
    rhs = RNG.standard_normal((4, 2))
    _close(ops.lstsq(Tensor(A), Tensor(rhs)), np.linalg.lstsq(A, rhs, rcond=None)[0], rtol=1e-5)
    with pytest.raises(ValueError, match="MatrixSolve: matrix of shape \\(2, 2\\) is singular"):
        ops.matrix_solve(Tensor(np.zeros((2, 2))), Tensor(np.ones((2, 1))))
    with pytest.raises(ValueError, match="rhs shape \\(4, 2\\) must be"):
        ops.matrix_solve(Tensor(SQ), Tensor(rhs))


def test_decomposition_gradients_through_compositions():
    check_grad(lambda t: ops.pinv(t), A)
    check_grad(lambda t: ops.norm(t, "nuc"), A)
    check_grad(lambda t: ops.cholesky_solve(Tensor(B), ops.cholesky(t @ t.T)), SQ, rtol=1e-4)
    check_grad(lambda t: ops.qr(t)[0].sum() + ops.qr(t)[1].sum(), A)


@pytest.mark.parametrize("equation,shapes", [
    ("ij,jk->ik", [(4, 3), (3, 2)]), ("bij,bkj->bik", [(2, 4, 3), (2, 5, 3)]),
    ("ii->i", [(3, 3)]), ("ii", [(3, 3)]), ("...j,...j->...", [(2, 4, 3), (2, 4, 3)]),
    ("i,j->ij", [(3,), (2,)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ijk->kji", [(2, 3, 4)]), ("ij,ij->", [(2, 3), (2, 3)]), ("abc,cd", [(2, 3, 4), (4, 5)]),
])
def test_einsum_matches_numpy_and_differentiates(equation, shapes):
    arrays = [RNG.standard_normal(s) for s in shapes]
    _close(ops.einsum(equation, *[Tensor(a) for a in arrays]), np.einsum(equation, *arrays))
    check_grad(lambda *ts: ops.einsum(equation, *ts), *arrays)


def test_einsum_errors_name_the_equation():
    with pytest.raises(ValueError, match="einsum: equation 'ij,jk' names 2 operands, got 1"):
        ops.einsum("ij,jk", Tensor(A))
    with pytest.raises(ValueError, match="subscripts 'ijk' name 3 axes"):
        ops.einsum("ijk->i", Tensor(A))


def test_distances_norms_and_aliases():
    x1, x2 = RNG.standard_normal((2, 4, 3)), RNG.standard_normal((2, 5, 3))
    want = np.linalg.norm(x1[:, :, None] - x2[:, None], axis=-1)
    _close(ops.cdist(Tensor(x1), Tensor(x2)), want)
    _close(ops.Cdist(1.0)(Tensor(x1), Tensor(x2)), np.abs(x1[:, :, None] - x2[:, None]).sum(-1))
    full = np.linalg.norm(A[:, None] - A[None], axis=-1)
    _close(ops.pdist(Tensor(A)), full[np.triu_indices(4, 1)])
    _close(ops.dist(Tensor(A), Tensor(2 * A), 1), np.abs(A).sum())
    _close(ops.LpNorm([0, 1], 1, True)(Tensor(A)), np.abs(A).sum(keepdims=True))
    capped = ops.renorm(Tensor(A), 2, 0, 1.0).asnumpy()
    assert np.all(np.linalg.norm(capped, axis=1) <= 1.0 + 1e-6)
    _close(ops.tensor_dot(Tensor(x1), Tensor(x2), ((0, 2), (0, 2))),
           np.tensordot(x1, x2, ((0, 2), (0, 2))))
    _close(ops.adjoint(Tensor(A)), A.T)
    _close(ops.Trace()(Tensor(SQ)), np.trace(SQ))
    _close(ops.MatrixPower(3)(Tensor(SQ)), np.linalg.matrix_power(SQ, 3), rtol=1e-5)
    check_grad(lambda a, b: ops.cdist(a, b), x1, x2)
