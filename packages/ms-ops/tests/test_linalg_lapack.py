"""LU unpack/solve with LAPACK pivots, eig, and the Householder QR operators against
numpy (MindSpore 2.10 gives the same P, L, U, solutions, geqrf and orgqr)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor, complex64

A = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 10.0]])
LU = np.array([[7.0, 8.0, 10.0], [1 / 7, 6 / 7, 11 / 7], [4 / 7, 0.5, -0.5]])
PIV = np.array([3, 3, 3], np.int32)


def test_lu_unpack_reconstructs_and_lu_solve_solves():
    p, low, upper = ops.lu_unpack(Tensor(LU), Tensor(PIV))
    np.testing.assert_allclose(p.asnumpy() @ low.asnumpy() @ upper.asnumpy(), A, atol=1e-12)
    np.testing.assert_array_equal(p.asnumpy(), [[0, 1, 0], [0, 0, 1], [1, 0, 0]])
    b = np.array([[1.0], [2.0], [3.0]])
    np.testing.assert_allclose(ops.lu_solve(Tensor(b), Tensor(LU), Tensor(PIV)).asnumpy(),
                               np.linalg.solve(A, b), atol=1e-12)
    check_grad(lambda t: ops.lu_solve(t, Tensor(LU), Tensor(PIV)), b)
    with pytest.raises(ValueError, match="lu: pivot 5 at 0 is outside 1..3"):
        ops.lu_unpack(Tensor(LU), Tensor(np.array([5, 3, 3], np.int32)))


def test_eig_and_householder_qr():
    m = np.array([[1.0, 2.0], [-3.0, 1.0]], np.float32)
    values = ops.eigvals(Tensor(m))
    assert values.dtype == complex64
    np.testing.assert_allclose(np.sort_complex(values.asnumpy()),
                               np.sort_complex(np.linalg.eigvals(m)), rtol=1e-6)
    vals, vecs = ops.eig(Tensor(m))
    np.testing.assert_allclose(m @ vecs.asnumpy(), vecs.asnumpy() * vals.asnumpy(), atol=1e-5)
    tall = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
    h, t = np.linalg.qr(tall, mode="raw")  # LAPACK's geqrf: reflectors and tau
    y, tau = Tensor(h.T.copy()), Tensor(t)
    q = ops.orgqr(y, tau).asnumpy()
    np.testing.assert_allclose(q @ np.triu(h.T)[:2], tall, atol=1e-12)
    check_grad(lambda a, b: ops.orgqr(a, b), h.T.copy(), t)
    full = ops.ormqr(y, tau, Tensor(np.eye(3)))
    np.testing.assert_allclose(full.asnumpy()[:, :2], q, atol=1e-12)
    np.testing.assert_allclose(full.asnumpy().T @ full.asnumpy(), np.eye(3), atol=1e-12)
