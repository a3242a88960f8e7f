"""Complex numbers: the parts, conjugate, modulus and angle, polar form, complex arithmetic,
and the complex gradient convention (dL/dRe + i dL/dIm, as MindSpore and PyTorch)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_autodiff.testing import check_grad, numeric_grad
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

RNG = np.random.default_rng(1)
Z = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))
W = RNG.standard_normal((2, 3)) + 1j * RNG.standard_normal((2, 3))


@pytest.mark.parametrize("name,want", [
    ("real", np.real), ("imag", np.imag), ("conj", np.conj), ("angle", np.angle),
])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_parts_match_numpy(name, want, dtype):
    got = getattr(ops, name)(Tensor(Z.astype(dtype)))
    expected = want(Z.astype(dtype))
    assert got.asnumpy().dtype == expected.dtype
    np.testing.assert_allclose(got.asnumpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(getattr(Tensor(Z.astype(dtype)), name)().asnumpy(), expected,
                               rtol=1e-6)


def test_complex_abs_polar_and_view_as_real():
    x = Tensor(Z.astype(np.complex64))
    assert ops.ComplexAbs()(x).dtype is mstype.float32
    np.testing.assert_allclose(ops.ComplexAbs()(x).asnumpy(), np.abs(Z), rtol=1e-6)
    r, t = Tensor(np.abs(Z)), Tensor(np.angle(Z))
    np.testing.assert_allclose(ops.polar(r, t).asnumpy(), Z, rtol=1e-12)
    np.testing.assert_allclose(ops.Polar()(r, t).asnumpy(), Z, rtol=1e-12)
    np.testing.assert_array_equal(ops.view_as_real(Tensor(Z)).asnumpy(),
                                  np.stack([Z.real, Z.imag], -1))
    made = ops.Complex()(Tensor(Z.real.astype(np.float32)), Tensor(np.float32([1, 2, 3])))
    assert made.dtype is mstype.complex64
    np.testing.assert_allclose(made.asnumpy(), Z.real + 1j * np.float32([1, 2, 3]), rtol=1e-6)


def test_real_inputs_where_mindspore_takes_them():
    x = Tensor(np.float32([1.5, -2.0]))
    np.testing.assert_array_equal(ops.real(x).asnumpy(), x.asnumpy())
    np.testing.assert_array_equal(ops.imag(x).asnumpy(), np.zeros(2, np.float32))
    assert ops.conj(Tensor(np.arange(3))).dtype is mstype.int64


@pytest.mark.parametrize("call,error", [
    (lambda: ops.angle(Tensor(np.float32([1.0]))), TypeError),
    (lambda: ops.ComplexAbs()(Tensor(np.float32([1.0]))), TypeError),
    (lambda: ops.view_as_real(Tensor(np.float32([1.0]))), TypeError),
    (lambda: ops.Complex()(Tensor(np.float32([1.0])), Tensor(np.float64([1.0]))), TypeError),
    (lambda: ops.Complex()(Tensor(np.int32([1])), Tensor(np.int32([1]))), TypeError),
    (lambda: ops.Complex()(Tensor(np.ones(2)), Tensor(np.ones(3))), ValueError),
    (lambda: ops.polar(Tensor(np.float32([1.0])), Tensor(np.float64([1.0]))), TypeError),
])
def test_complex_functions_reject_bad_inputs(call, error):
    with pytest.raises(error):
        call()


def test_complex_arithmetic_matches_numpy():
    a, b = Tensor(Z), Tensor(W)
    for got, want in [(a - b, Z - W), (-a, -Z), (a / b, Z / W), (a * b, Z * W),
                      (a + b, Z + W), (a / Tensor(W.real), Z / W.real)]:
        assert got.dtype is mstype.complex128
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-12)
    assert (Tensor(Z.astype(np.complex64)) - Tensor(np.float32([1, 2, 3]))).dtype \
        is mstype.complex64


@pytest.mark.parametrize("fn", [
    lambda x, y: x * y, lambda x, y: x / y, lambda x, y: x - y, lambda x, y: -x + y,
    lambda x, y: ops.ComplexAbs()(x * y), lambda x, y: ops.angle(x / y),
    lambda x, y: ops.view_as_real(ops.conj(x) * y), lambda x, y: ops.imag(x) * ops.real(y),
    lambda x, y: ops.matmul(x, y.T), lambda x, y: ops.bmm(x[None], y.T[None]),
    lambda x, y: ops.MatMul(transpose_a=True)(x, y), lambda x, y: ops.exp(x) * ops.square(y),
    lambda x, y: ops.mean(x * y, 1), lambda x, y: ops.sqrt(x) * ops.log(y),
], ids=["mul", "div", "sub", "neg", "abs", "angle", "view_as_real", "parts", "matmul", "bmm",
        "matmul_ta", "exp_square", "mean", "sqrt_log"])
def test_complex_gradients_match_finite_differences(fn):
    check_grad(fn, Z, W, rtol=1e-6, atol=1e-8)


def test_complex_matmul_exp_square_mean_match_numpy():
    a, b = Tensor(Z), Tensor(W)
    np.testing.assert_allclose(ops.matmul(a, b.T).asnumpy(), Z @ W.T, rtol=1e-12)
    np.testing.assert_allclose(ops.exp(a).asnumpy(), np.exp(Z), rtol=1e-12)
    np.testing.assert_allclose(ops.sqrt(a).asnumpy(), np.sqrt(Z), rtol=1e-12)
    np.testing.assert_allclose(ops.log(a).asnumpy(), np.log(Z), rtol=1e-12)
    np.testing.assert_allclose(ops.square(a).asnumpy(), Z * Z, rtol=1e-12)
    np.testing.assert_allclose(ops.mean(a, 0).asnumpy(), Z.mean(0), rtol=1e-12)


def test_mint_complex_names():
    from ms_ops import mint

    np.testing.assert_array_equal(mint.real(Tensor(Z)).asnumpy(), Z.real)
    np.testing.assert_array_equal(mint.imag(Tensor(Z)).asnumpy(), Z.imag)
    assert mint.polar(Tensor(np.abs(Z)), Tensor(np.angle(Z))).dtype is mstype.complex128


def test_gradient_mixing_real_and_complex_inputs():
    r = RNG.standard_normal((2, 3))
    got = check_grad(lambda x, z: ops.polar(x, ops.real(z)) * z, r, W, rtol=1e-6)
    assert got[0].dtype == np.float64 and got[1].dtype == np.complex128


def test_numeric_gradient_follows_the_convention():
    # L = Re(sum(z * conj(w))) = sum(Re z Re w + Im z Im w): dL/dRe + i dL/dIm = w.
    (g,) = numeric_grad(lambda z: z, [Z], [W])
    np.testing.assert_allclose(g, W, rtol=1e-7)


def test_conj_is_what_products_differentiate_with():
    # |z w|^2 = z w conj(z w): the gradient in the convention is 2 z |w|^2; a product rule
    # without the conjugate gives a different value here.
    g = grad(lambda z: ops.real((z * Tensor(W)) * ops.conj(z * Tensor(W))).sum())(Tensor(Z))
    np.testing.assert_allclose(g.asnumpy(), 2 * Z * np.abs(W) ** 2, rtol=1e-12)
