"""Every operator of the package: registered, its gradient rule against finite
differences on its samples, and values against SciPy/numpy on inputs MindSpore 2.10 gave
the same answers for (its CPU build refuses integer inputs and matrix_exp)."""

import numpy as np
import pytest
import scipy.linalg
import scipy.special as sp
from ms_ops_scipy import bessel, gamma, matrix

import ms_ops as ops
from ms_autodiff.testing import check_grad, check_op_gradients
from ms_ops.defs import operators
from ms_tensor import Tensor, float32, registry

OPS = [op for module in (bessel, gamma, matrix) for op in operators(module)]
X = np.array([0.5, 1.0, 2.5, 4.0], np.float32)
N = np.array([-0.5, 0.0, 0.3, 0.9], np.float32)


@pytest.mark.parametrize("op", OPS, ids=lambda op: op.name)
def test_registered_with_a_checked_gradient(op):
    assert registry.load().lookup("primitive", op.name) is op
    check_op_gradients(op, op.samples_fn)


@pytest.mark.parametrize("name,ref,x", [
    ("bessel_i0", sp.i0, N), ("bessel_i0e", sp.i0e, N), ("bessel_i1", sp.i1, N),
    ("bessel_i1e", sp.i1e, N), ("bessel_j0", sp.j0, X), ("bessel_j1", sp.j1, X),
    ("bessel_k0", sp.k0, X), ("bessel_k0e", sp.k0e, X), ("bessel_k1", sp.k1, X),
    ("bessel_k1e", sp.k1e, X), ("bessel_y0", sp.y0, X), ("bessel_y1", sp.y1, X),
    ("i0", sp.i0, N), ("lgamma", sp.gammaln, X), ("digamma", sp.psi, X), ("erfinv", sp.erfinv, N),
])
def test_unary_values(name, ref, x):
    out = getattr(ops, name)(Tensor(x))
    assert out.dtype == float32
    np.testing.assert_allclose(out.asnumpy(), ref(x), rtol=2e-6)


def test_integer_inputs_are_computed_in_float32():
    out = ops.lgamma(Tensor(np.array([1, 2, 3], np.int32)))
    assert out.dtype == float32
    np.testing.assert_allclose(out.asnumpy(), sp.gammaln([1, 2, 3]), atol=1e-7)


def test_binary_and_parametrised_values():
    a = np.array([0.5, 1.0, 2.0, 3.0], np.float32)
    np.testing.assert_allclose(ops.igamma(Tensor(a), Tensor(X)).asnumpy(), sp.gammainc(a, X),
                               rtol=1e-6)
    np.testing.assert_allclose(ops.igammac(Tensor(a), Tensor(X)).asnumpy(),
                               sp.gammaincc(a, X), rtol=1e-6)
    np.testing.assert_allclose(ops.zeta(Tensor(a + 1.5), Tensor(X)).asnumpy(),
                               sp.zeta(a + 1.5, X), rtol=1e-6)
    np.testing.assert_allclose(ops.polygamma(2, Tensor(X)).asnumpy(), sp.polygamma(2, X),
                               rtol=1e-6)
    v = np.array([2.5, 3.0], np.float32)
    want = sum(sp.gammaln(v - j / 2) for j in range(3)) + 3 * 2 / 4 * np.log(np.pi)
    np.testing.assert_allclose(ops.mvlgamma(Tensor(v), 3).asnumpy(), want, rtol=1e-6)
    np.testing.assert_allclose(ops.Mvlgamma(3)(Tensor(v)).asnumpy(), want, rtol=1e-6)
    check_grad(lambda t: ops.mvlgamma(t, 2), v.astype(np.float64))
    with pytest.raises(ValueError, match="mvlgamma: p must be a positive int"):
        ops.mvlgamma(Tensor(v), 0)
    with pytest.raises(TypeError, match="Polygamma: input 'a' has dtype Float32"):
        ops.Polygamma()(Tensor(np.float32(1.0)), Tensor(X))


def test_matrix_exp_values_batch_and_errors():
    m = np.random.default_rng(0).standard_normal((2, 3, 3))
    np.testing.assert_allclose(ops.matrix_exp(Tensor(m)).asnumpy(),
                               np.stack([scipy.linalg.expm(a) for a in m]), rtol=1e-10)
    with pytest.raises(ValueError, match="MatrixExp: input must be square"):
        ops.matrix_exp(Tensor(np.ones((2, 3))))


def test_tensor_methods():
    t = Tensor(X)
    np.testing.assert_allclose(t.lgamma().asnumpy(), sp.gammaln(X), rtol=1e-6)
    np.testing.assert_allclose(Tensor(N).erfinv().asnumpy(), sp.erfinv(N), rtol=1e-6)
    np.testing.assert_allclose(Tensor(N).i0().asnumpy(), sp.i0(N), rtol=1e-6)


def test_incomplete_gamma_differentiates_in_its_order():
    """MindSpore 2.10 gives these gradients too (-0.38984, -0.19743 at a = 0.5, 2)."""
    from ms_autodiff import grad

    a, x = np.array([0.5, 2.0, 30.0]), np.array([1.0, 3.0, 25.0])
    h = 1e-6
    want = (sp.gammainc(a + h, x) - sp.gammainc(a - h, x)) / (2 * h)
    got = grad(lambda u, v: ops.igamma(u, v).sum())(Tensor(a), Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6)
    got = grad(lambda u, v: ops.igammac(u, v).sum())(Tensor(a), Tensor(x))
    np.testing.assert_allclose(got.asnumpy(), -want, rtol=1e-6)
