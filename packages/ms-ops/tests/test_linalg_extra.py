"""Inverse, determinants, the product family, kron/cross/trace and diagonals against numpy
(MindSpore 2.10 gave the same values on these inputs)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_tensor import Tensor

RNG = np.random.default_rng(0)
A = np.array([[2., 1, 0], [1, 3, 1], [0, 1, 4]], np.float32)
M = np.arange(6, dtype=np.float32).reshape(2, 3)
N = np.arange(12, dtype=np.float32).reshape(3, 4)
V = np.array([1., 2., 3.], np.float32)
W = np.array([4., 5.], np.float32)
B3 = RNG.standard_normal((2, 3, 4)).astype(np.float32)
C3 = RNG.standard_normal((2, 4, 3)).astype(np.float32)


def _eq(got, want, rtol=1e-5):
    np.testing.assert_allclose(np.asarray(got.asnumpy() if hasattr(got, "asnumpy") else got),
                               want, rtol=rtol, atol=1e-5)


def test_inverse_determinants_batched():
    batch = RNG.standard_normal((2, 3, 3)) + 3 * np.eye(3)
    _eq(ops.inverse(Tensor(batch)), np.linalg.inv(batch))
    _eq(ops.det(Tensor(A)), np.linalg.det(A))
    _eq(Tensor(batch).det(), np.linalg.det(batch))
    sign, logabs = ops.slogdet(Tensor(batch))
    want_sign, want_log = np.linalg.slogdet(batch)
    _eq(sign, want_sign)
    _eq(logabs, want_log)
    _eq(ops.logdet(Tensor(A)), np.log(np.linalg.det(A)))


def test_square_matrices_are_required():
    with pytest.raises(ValueError, match="MatrixInverse: input must be square"):
        ops.inverse(Tensor(M))
    with pytest.raises(ValueError, match="MatrixDeterminant: input must be square"):
        ops.det(Tensor(M))
    with pytest.raises(TypeError, match="input"):
        ops.det(Tensor(np.eye(2, dtype=np.int32)))


@pytest.mark.parametrize("n", [-2, -1, 0, 1, 3])
def test_matrix_power(n):
    _eq(ops.matrix_power(Tensor(A), n), np.linalg.matrix_power(A.astype(np.float64), n),
        rtol=1e-4)


def test_products():
    _eq(ops.mm(Tensor(M), Tensor(N)), M @ N)
    _eq(ops.mv(Tensor(N.T), Tensor(V)), N.T @ V)
    _eq(ops.outer(Tensor(V), Tensor(W)), np.outer(V, W))
    _eq(ops.inner(Tensor(M), Tensor(M)), np.inner(M, M))
    _eq(ops.dot(Tensor(M), Tensor(N)), np.dot(M, N))
    _eq(ops.dot(Tensor(B3), Tensor(C3)), np.dot(B3, C3))
    _eq(ops.vecdot(Tensor(M), Tensor(M)), (M * M).sum(-1))
    with pytest.raises(ValueError, match="mm: expected a 2-d tensor"):
        ops.mm(Tensor(V), Tensor(N))


def test_scaled_products():
    ones = np.ones((2, 4), np.float32)
    _eq(ops.addmm(Tensor(ones), Tensor(M), Tensor(N), beta=2, alpha=0.5), 2 * ones + 0.5 * M @ N)
    _eq(ops.addmv(Tensor(W), Tensor(M), Tensor(V)), W + M @ V)
    _eq(ops.addr(Tensor(np.ones((3, 2), np.float32)), Tensor(V), Tensor(W)), 1 + np.outer(V, W))
    base = np.ones((2, 3, 3), np.float32)
    _eq(ops.baddbmm(Tensor(base), Tensor(B3), Tensor(C3)), base + B3 @ C3)
    _eq(ops.addbmm(Tensor(base[0]), Tensor(B3), Tensor(C3)), base[0] + (B3 @ C3).sum(0))


def test_kron_cross_trace():
    k = np.array([[1., -1]], np.float32)
    _eq(ops.kron(Tensor(M), Tensor(k)), np.kron(M, k))
    _eq(ops.kron(Tensor(V), Tensor(M)), np.kron(V, M))
    other = RNG.standard_normal((2, 3)).astype(np.float32)
    _eq(ops.cross(Tensor(M), Tensor(other), 1), np.cross(M, other, axis=1))
    _eq(ops.cross(Tensor(M.T), Tensor(other.T)), np.cross(M.T, other.T, axis=0))
    with pytest.raises(ValueError, match="cross: no axis of size 3"):
        ops.cross(Tensor(N[:2, :2]), Tensor(N[:2, :2]))
    _eq(ops.trace(Tensor(N)), np.trace(N))


@pytest.mark.parametrize("offset", [-2, -1, 0, 1, 3, 5])
def test_diagonal_matches_numpy(offset):
    _eq(ops.diagonal(Tensor(N), offset), np.diagonal(N, offset))
    _eq(ops.diagonal(Tensor(B3), offset, 1, 2), np.diagonal(B3, offset, 1, 2))
    _eq(ops.diagonal(Tensor(B3), offset, 2, 0), np.diagonal(B3, offset, 2, 0))


def test_diag_and_diagflat():
    _eq(ops.diag(Tensor(V)), np.diag(V))
    out = ops.diag(Tensor(M))
    assert out.shape == (2, 3, 2, 3)
    _eq(out.asnumpy().reshape(6, 6), np.diag(M.ravel()))
    for k in (-1, 0, 2):
        _eq(ops.diagflat(Tensor(W), k), np.diagflat(W, k))


def test_gradients_of_the_compositions():
    g = grad(lambda x: ops.trace(x) * 2)(Tensor(N))
    _eq(g, 2 * np.eye(3, 4))
    g = grad(lambda x: ops.diagonal(x, 1).sum())(Tensor(N))
    _eq(g, np.eye(3, 4, 1))
    g = grad(lambda x: ops.det(x))(Tensor(A))
    _eq(g, np.linalg.det(A) * np.linalg.inv(A).T, rtol=1e-4)
