"""Gradients of gradients: closed-form second and third derivatives."""

import numpy as np
import pytest

import ms_autodiff as ad
import ms_ops as ops
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor


def nth_derivative(f, n):
    """The n-th derivative of an elementwise ``f``, elementwise (gradient of a sum)."""
    for _ in range(n):
        f = ad.grad(lambda x, g=f: g(x).sum())
    return f


def _sig(x):
    return 1 / (1 + np.exp(-x))


X = np.array([[-1.3, -0.4, 0.2], [0.7, 1.1, 1.9]])
POS = np.array([[0.3, 0.8, 1.2], [1.7, 2.5, 3.1]])

# name, function, input, second derivative, third derivative
CASES = [
    ("sin", ops.sin, X, lambda x: -np.sin(x), lambda x: -np.cos(x)),
    ("exp", ops.exp, X, np.exp, np.exp),
    ("tanh", ops.tanh, X, lambda x: -2 * np.tanh(x) * (1 - np.tanh(x) ** 2),
     lambda x: (6 * np.tanh(x) ** 2 - 2) * (1 - np.tanh(x) ** 2)),
    ("cube", lambda x: x ** 3, X, lambda x: 6 * x, lambda x: 6 + 0 * x),
    ("log", ops.log, POS, lambda x: -1 / x ** 2, lambda x: 2 / x ** 3),
    ("sigmoid", ops.sigmoid, X, lambda x: _sig(x) * (1 - _sig(x)) * (1 - 2 * _sig(x)),
     lambda x: _sig(x) * (1 - _sig(x)) * (1 - 6 * _sig(x) + 6 * _sig(x) ** 2)),
]


@pytest.mark.parametrize("name,f,x,d2,d3", CASES, ids=[c[0] for c in CASES])
def test_second_and_third_derivatives(name, f, x, d2, d3):
    t = Tensor(x)
    np.testing.assert_allclose(nth_derivative(f, 2)(t).asnumpy(), d2(x), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(nth_derivative(f, 3)(t).asnumpy(), d3(x), rtol=1e-10, atol=1e-12)


def test_cube_matches_mindspore():
    x = Tensor(np.array([1.0, 2.0], np.float32))
    np.testing.assert_allclose(nth_derivative(lambda a: a ** 3, 2)(x).asnumpy(), [6, 12])
    np.testing.assert_allclose(nth_derivative(lambda a: a ** 3, 3)(x).asnumpy(), [6, 6])


def test_fourth_derivative_of_sin():
    np.testing.assert_allclose(nth_derivative(ops.sin, 4)(Tensor(X)).asnumpy(), np.sin(X),
                               rtol=1e-10, atol=1e-12)


# softmax: L = <c, softmax(x)>; grad g = y * (c - <c, y>); Hessian-vector product closed form.
C = np.array([0.5, -1.2, 2.0, 0.3])
V = np.array([1.0, 0.4, -0.7, 0.2])
XS = np.array([0.1, -0.6, 0.9, 0.4])


def _softmax(x):
    e = np.exp(x - x.max())
    return e / e.sum()


def _softmax_hvp(x, c, v):
    y = _softmax(x)
    cy = c @ y
    hess = (np.diag(y) - np.outer(y, y)) * (c - cy)[:, None] - np.outer(y, y * (c - cy))
    return hess @ v


def _softmax_grad_dot(x):
    """d/dx <grad L(x), v>, through the tape (the second derivative along v)."""
    def first(t):
        g = ad.grad(lambda a: (ops.softmax(a, axis=-1) * Tensor(C)).sum())(t)
        return (g * Tensor(V)).sum()
    return ad.grad(first)(x)


def test_softmax_second_derivative():
    got = _softmax_grad_dot(Tensor(XS)).asnumpy()
    np.testing.assert_allclose(got, _softmax_hvp(XS, C, V), rtol=1e-10, atol=1e-12)


def test_softmax_third_derivative():
    u = np.array([0.3, -0.5, 0.8, 1.0])
    got = ad.grad(lambda t: (_softmax_grad_dot(t) * Tensor(u)).sum())(Tensor(XS)).asnumpy()
    eps = 1e-5
    want = np.array([(u @ _softmax_hvp(XS + eps * e, C, V) - u @ _softmax_hvp(XS - eps * e, C, V))
                     / (2 * eps) for e in np.eye(4)])
    np.testing.assert_allclose(got, want, rtol=1e-7, atol=1e-9)


def test_gradient_of_gradient_against_finite_differences():
    check_grad(lambda x: ad.grad(lambda a: (ops.tanh(a) * ops.exp(a)).sum())(x), X)


def test_grad_of_grad_with_respect_to_two_inputs():
    x = np.array([0.5, -1.5])
    y = np.array([2.0, 0.7])
    first = ad.grad(lambda a, b: (a * a * b ** 3).sum(), grad_position=(0, 1))
    gxx, gxy = ad.grad(lambda a, b: first(a, b)[0].sum(), grad_position=(0, 1))(Tensor(x),
                                                                                Tensor(y))
    np.testing.assert_allclose(gxx.asnumpy(), 2 * y ** 3)
    np.testing.assert_allclose(gxy.asnumpy(), 6 * x * y ** 2)
    gyx, gyy = ad.grad(lambda a, b: first(a, b)[1].sum(), grad_position=(0, 1))(Tensor(x),
                                                                                Tensor(y))
    np.testing.assert_allclose(gyx.asnumpy(), 6 * x * y ** 2)
    np.testing.assert_allclose(gyy.asnumpy(), 6 * x ** 2 * y)


def test_value_and_grad_inside_grad():
    x = Tensor(np.array([0.5, 2.0]))

    def outer(a):
        value, g = ad.value_and_grad(lambda b: (b ** 4).sum())(a)
        return value + g.sum()

    np.testing.assert_allclose(ad.grad(outer)(x).asnumpy(),
                               4 * x.asnumpy() ** 3 + 12 * x.asnumpy() ** 2)


def test_jvp_of_grad():
    x = Tensor(np.array([0.5, 2.0]))
    _, t = ad.jvp(ad.grad(lambda a: (a ** 3).sum()), x, Tensor(np.array([1.0, 1.0])))
    np.testing.assert_allclose(t.asnumpy(), 6 * x.asnumpy())
