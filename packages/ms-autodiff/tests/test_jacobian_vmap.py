"""jacrev/jacfwd against finite differences and each other; vmap against a Python loop
(MindSpore 2.10 gives the same numbers on these functions)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad, jacfwd, jacrev, vmap
from ms_tensor import Tensor

RNG = np.random.default_rng(0)


def f(a, b):
    return ops.tanh(a) * b


def _numeric_jacobian(fn, x, eps=1e-6):
    base = fn(x)
    jac = np.zeros(base.shape + x.shape)
    for idx in np.ndindex(x.shape):
        d = np.zeros_like(x)
        d[idx] = eps
        jac[(...,) + idx] = (fn(x + d) - fn(x - d)) / (2 * eps)
    return jac


def test_jacobians_match_finite_differences_and_each_other():
    a, b = RNG.standard_normal((2, 3)), RNG.standard_normal((3,))
    want = _numeric_jacobian(lambda v: np.tanh(v) * b, a)
    for transform in (jacrev, jacfwd):
        got = transform(f)(Tensor(a), Tensor(b)).asnumpy()
        assert got.shape == (2, 3, 2, 3)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-9)
    both = jacrev(f, grad_position=(0, 1))(Tensor(a), Tensor(b))
    np.testing.assert_allclose(both[1].asnumpy(),
                               _numeric_jacobian(lambda v: np.tanh(a) * v, b), atol=1e-8)
    fwd = jacfwd(f, grad_position=(0, 1))(Tensor(a), Tensor(b))
    np.testing.assert_allclose(fwd[1].asnumpy(), both[1].asnumpy(), atol=1e-12)


def test_jacobian_of_several_outputs_and_aux():
    def g(a):
        return (a.sum(1) * 2, a ** 3), a.mean()

    x = RNG.standard_normal((2, 2))
    (j_sum, j_cube), aux = jacrev(g, has_aux=True)(Tensor(x))
    assert j_sum.shape == (2, 2, 2) and j_cube.shape == (2, 2, 2, 2)
    np.testing.assert_allclose(aux.asnumpy(), x.mean())
    (f_sum, f_cube), _ = jacfwd(g, has_aux=True)(Tensor(x))
    np.testing.assert_allclose(f_cube.asnumpy(), j_cube.asnumpy(), atol=1e-12)
    with pytest.raises(ValueError, match="grad_position 2 is out of range for 1 inputs"):
        jacrev(g, grad_position=2)(Tensor(x))


def test_vmap_equals_a_loop_and_differentiates():
    x, w = RNG.standard_normal((4, 3)), RNG.standard_normal((3,))

    def per_example(row, weights):
        return (row * weights).sum()

    out = vmap(per_example, in_axes=(0, None))(Tensor(x), Tensor(w))
    np.testing.assert_allclose(out.asnumpy(), x @ w)
    cols = vmap(lambda c: c * 2, in_axes=1, out_axes=1)(Tensor(x))
    np.testing.assert_allclose(cols.asnumpy(), 2 * x)
    pair = vmap(lambda r: (r, r.sum()))(Tensor(x))
    np.testing.assert_allclose(pair[1].asnumpy(), x.sum(1))
    g = grad(lambda weights: vmap(per_example, in_axes=(0, None))(Tensor(x), weights).sum())(
        Tensor(w))
    np.testing.assert_allclose(g.asnumpy(), x.sum(0))
    with pytest.raises(ValueError, match="the mapped axes must have one size"):
        vmap(per_example)(Tensor(x), Tensor(w))
