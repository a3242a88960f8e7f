"""The extra elementwise functions against numpy, with MindSpore 2.10's answers where its
conventions differ from numpy's (heaviside of NaN, rad2deg's rounding)."""

import math

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_tensor import Tensor, bool_, float32, float64, int32

X = np.array([-1.5, 0.0, 2.0, np.inf, -np.inf, np.nan], np.float32)
Y = np.array([2.0, -1.0, 0.5, 1.0, 1.0, 1.0], np.float32)
I = np.array([12, -18, 7, 0], np.int32)
J = np.array([8, 12, 0, 0], np.int32)


def _eq(got, want):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, equal_nan=True)


@pytest.mark.parametrize("fn,ref", [(ops.gcd, np.gcd), (ops.lcm, np.lcm)])
def test_gcd_lcm(fn, ref):
    out = fn(Tensor(I), Tensor(J))
    assert out.dtype == int32
    np.testing.assert_array_equal(out.asnumpy(), ref(I, J))
    np.testing.assert_array_equal(fn(Tensor(I[:, None]), Tensor(J)).asnumpy(), ref(I[:, None], J))
    with pytest.raises(TypeError, match="x"):
        fn(Tensor(X), Tensor(Y))


@pytest.mark.parametrize("fn,ref", [
    (ops.hypot, np.hypot), (ops.logaddexp, np.logaddexp), (ops.logaddexp2, np.logaddexp2),
    (ops.copysign, np.copysign), (ops.fmax, np.fmax), (ops.fmin, np.fmin)])
def test_binary_float_functions(fn, ref):
    with np.errstate(invalid="ignore"):
        _eq(fn(Tensor(X), Tensor(Y)), ref(X, Y))
    a, b = np.random.default_rng(0).standard_normal((2, 3, 1)), np.linspace(-2, 2, 4)
    _eq(fn(Tensor(a), Tensor(b)), ref(a, b))


def test_float_only_functions_refuse_integers():
    for fn in (ops.hypot, ops.logaddexp, ops.logaddexp2):
        with pytest.raises(TypeError, match=f"{fn.__name__}: inputs must be float"):
            fn(Tensor(I), Tensor(J))
    with pytest.raises(TypeError, match="deg2rad"):
        ops.deg2rad(Tensor(I))


def test_heaviside_takes_values_at_zero_and_zero_at_nan():
    _eq(ops.heaviside(Tensor(X), Tensor(Y)), [0, -1, 1, 1, 0, 0])


def test_unary_functions():
    _eq(ops.deg2rad(Tensor(X)), np.deg2rad(X))
    assert ops.rad2deg(Tensor(X)).asnumpy()[2] == np.float32(114.59155)  # MindSpore's rounding
    with np.errstate(invalid="ignore"):
        _eq(ops.frac(Tensor(X)), X - np.trunc(X))
    np.testing.assert_array_equal(ops.signbit(Tensor(X)).asnumpy(), np.signbit(X))
    np.testing.assert_array_equal(ops.isposinf(Tensor(X)).asnumpy(), np.isposinf(X))
    np.testing.assert_array_equal(ops.isneginf(Tensor(X)).asnumpy(), np.isneginf(X))
    assert ops.isreal(Tensor(X)).dtype == bool_ and ops.isreal(Tensor(X)).asnumpy().all()
    _eq(ops.sgn(Tensor(X)), [-1, 0, 1, 1, -1, 0])
    assert ops.positive(Tensor(X)) is not None
    _eq(ops.inv(Tensor(Y)), 1 / Y)
    np.testing.assert_array_equal(ops.invert(Tensor(I)).asnumpy(), np.invert(I))
    with pytest.raises(TypeError, match="invert: input must be an integer"):
        ops.invert(Tensor(Y))


def test_nan_to_num():
    big = np.finfo(np.float32).max
    _eq(ops.nan_to_num(Tensor(X)), [-1.5, 0, 2, big, -big, 0])
    _eq(ops.nan_to_num(Tensor(X), 0.0, 9.0, -9.0), [-1.5, 0, 2, 9, -9, 0])
    g = grad(lambda v: (ops.nan_to_num(v, 0.0, 9.0, -9.0) * 2).sum())(Tensor(X))
    _eq(g, [2, 2, 2, 0, 0, 0])


def test_float_power_ldexp():
    out = ops.float_power(Tensor(I), 2)
    assert out.dtype == float64
    np.testing.assert_array_equal(out.asnumpy(), I.astype(np.float64) ** 2)
    _eq(ops.ldexp(Tensor(Y), Tensor(np.array([1, 2, 3, 1, 1, 1], np.int32))),
        np.ldexp(Y, [1, 2, 3, 1, 1, 1]))


@pytest.mark.parametrize("n,axis", [(1, -1), (2, 1), (1, 0)])
def test_diff_matches_numpy(n, axis):
    x = np.random.default_rng(1).standard_normal((3, 5)).astype(np.float32)
    _eq(ops.diff(Tensor(x), n, axis), np.diff(x, n, axis))
    pre = np.zeros((3, 1) if axis != 0 else (1, 5), np.float32)
    _eq(ops.diff(Tensor(x), 1, axis, prepend=Tensor(pre)), np.diff(x, 1, axis, prepend=pre))


def test_trapz_matches_numpy():
    y = np.random.default_rng(2).standard_normal((2, 6)).astype(np.float32)
    x = np.cumsum(np.abs(y[0])).astype(np.float32)
    _eq(ops.trapz(Tensor(y)), np.trapezoid(y))
    _eq(ops.trapz(Tensor(y), dx=0.5), np.trapezoid(y, dx=0.5))
    _eq(ops.trapz(Tensor(y), Tensor(x)), np.trapezoid(y, x))
    assert ops.trapz(Tensor(Y[:3])).dtype == float32


def test_compositions_differentiate():
    a, b = Tensor(np.array([3.0, -1.0], np.float32)), Tensor(np.array([4.0, 2.0], np.float32))
    ga, gb = grad(lambda p, q: ops.hypot(p, q).sum(), grad_position=(0, 1))(a, b)
    r = np.hypot([3.0, -1.0], [4.0, 2.0])
    _eq(ga, np.array([3.0, -1.0]) / r)
    _eq(gb, np.array([4.0, 2.0]) / r)
    g = grad(lambda p: ops.logaddexp(p, b).sum())(a)
    _eq(g, 1 / (1 + np.exp(np.array([4.0, 2.0]) - [3.0, -1.0])))
    assert math.isclose(float(grad(lambda p: ops.deg2rad(p).sum())(a).asnumpy()[0]),
                        math.pi / 180, rel_tol=1e-6)
