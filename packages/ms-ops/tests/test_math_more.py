"""The MindSpore-specific elementwise operators against numpy, with MindSpore 2.10's
answers where its conventions are its own (integer division by zero, MulNoNan of inf)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_tensor import Tensor, bool_, float32, float64, int32, uint8

X = np.array([-7.5, 7.0, 2.5, -3.0, 0.0, 5.5], np.float32)
Y = np.array([2.0, -2.0, 0.0, 4.0, 0.0, 1.5], np.float32)
I = np.array([-7, 7, 9, -3, 0, 5], np.int32)
J = np.array([2, -2, 4, 4, 3, 3], np.int32)
LOWEST = np.iinfo(np.int32).min


def _eq(got, want, dtype=None):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, equal_nan=True)
    if dtype is not None:
        assert got.dtype == dtype


def test_truncating_division_and_remainder():
    with np.errstate(divide="ignore", invalid="ignore"):
        _eq(ops.truncate_div(Tensor(X), Tensor(Y)), np.trunc(X / Y), float32)
        _eq(ops.truncate_mod(Tensor(X), Tensor(Y)), np.fmod(X, Y), float32)
    _eq(ops.truncate_div(Tensor(I), Tensor(J)), [-3, -3, 2, 0, 0, 1], int32)
    _eq(ops.TruncateMod()(Tensor(I), Tensor(J)), np.fmod(I, J), int32)
    _eq(ops.truncate_div(Tensor(I), 0), np.full(6, LOWEST), int32)  # MindSpore's answer
    # broadcasting
    _eq(ops.truncate_div(Tensor(I[:, None]), Tensor(J[:2])), np.fix(I[:, None] / J[:2]))


def test_real_div_keeps_integers_and_div_no_nan_zeroes():
    _eq(ops.RealDiv()(Tensor(I), Tensor(J)), [-3, -3, 2, 0, 0, 1], int32)
    _eq(ops.tensor_div(Tensor(X), Tensor(np.float32(2.0))), X / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        _eq(ops.DivNoNan()(Tensor(X), Tensor(Y)), np.where(Y == 0, 0, X / Y))
    with pytest.raises(TypeError, match="DivNoNan: input 'x' has dtype Int32"):
        ops.DivNoNan()(Tensor(I), Tensor(J))
    inf_nan = Tensor(np.array([np.inf, np.nan, 1.0], np.float32))
    _eq(ops.MulNoNan()(inf_nan, Tensor(np.array([0.0, 0.0, 2.0], np.float32))), [0, 0, 2])


def test_no_nan_gradients_are_zero_where_y_is_zero():
    x, y = Tensor(np.array([1.0, 2.0], np.float32)), Tensor(np.array([0.0, 4.0], np.float32))
    gx, gy = grad(lambda a, b: ops.DivNoNan()(a, b).sum(), (0, 1))(x, y)
    _eq(gx, [0.0, 0.25])
    _eq(gy, [0.0, -2.0 / 16])
    gx, gy = grad(lambda a, b: ops.MulNoNan()(a, b).sum(), (0, 1))(x, y)
    _eq(gx, [0.0, 4.0])
    _eq(gy, [1.0, 2.0])


def test_rint_rounds_half_to_even():
    v = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 0.7], np.float32)
    out = ops.Rint()(Tensor(v)).asnumpy()
    np.testing.assert_array_equal(out, np.rint(v))
    assert np.signbit(out[2])
    with pytest.raises(TypeError, match="Rint"):
        ops.Rint()(Tensor(I))


def test_shifts_population_count_and_invert():
    s = np.array([1, 2, 3, 0, 1, 2], np.int32)
    _eq(ops.LeftShift()(Tensor(I), Tensor(s)), np.left_shift(I, s), int32)
    _eq(ops.bitwise_right_shift(Tensor(I), 1), I >> 1, int32)
    u = np.array([0, 1, 255, 7], np.uint8)
    _eq(ops.bitwise_left_shift(Tensor(u), 1), np.left_shift(u, 1), uint8)
    _eq(ops.population_count(Tensor(I)), [30, 3, 2, 31, 0, 2], uint8)
    _eq(ops.PopulationCount()(Tensor(np.array([-1, 3], np.int16))), [16, 2], uint8)
    _eq(ops.Invert()(Tensor(u)), np.invert(u), uint8)
    for fn in (ops.population_count, ops.Invert()):
        with pytest.raises(TypeError):
            fn(Tensor(X))


def test_nextafter_steps_one_ulp():
    a = np.array([1.0, 0.0], np.float64)
    b = np.array([2.0, -1.0], np.float64)
    out = ops.nextafter(Tensor(a), Tensor(b))
    np.testing.assert_array_equal(out.asnumpy(), np.nextafter(a, b))
    assert out.dtype == float64


def test_cov_matches_numpy_with_weights():
    k = np.array([[1.0, 2.0, 4.0], [2.0, 1.5, 0.5]], np.float32)
    fw, aw = np.array([1, 2, 1], np.int32), np.array([0.5, 1.0, 2.0], np.float32)
    _eq(ops.cov(Tensor(k)), np.cov(k))
    _eq(ops.cov(Tensor(k), correction=0), np.cov(k, ddof=0))
    _eq(ops.cov(Tensor(k), fweights=Tensor(fw)), np.cov(k, fweights=fw))
    _eq(ops.cov(Tensor(k), aweights=Tensor(aw)), np.cov(k, aweights=aw))
    _eq(ops.cov(Tensor(k[0])), np.cov(k[0]))
    with pytest.raises(ValueError, match="fweights must be 1-D with 3 entries"):
        ops.cov(Tensor(k), fweights=Tensor(fw[:2]))


def test_sequence_mask():
    ln = np.array([1, 3, 0], np.int32)
    out = ops.sequence_mask(Tensor(ln), 4)
    assert out.dtype == bool_
    np.testing.assert_array_equal(out.asnumpy(), np.arange(4) < ln[:, None])
    assert ops.sequence_mask(Tensor(ln)).shape == (3, 3)
    with pytest.raises(TypeError, match="sequence_mask: lengths must be an integer"):
        ops.sequence_mask(Tensor(X))


def test_aliases_and_class_forms():
    x, y = Tensor(X), Tensor(np.abs(Y) + 1)
    _eq(ops.tensor_add(x, y), X + np.abs(Y) + 1)
    _eq(ops.tensor_mod(Tensor(I), Tensor(J)), np.mod(I, J))
    _eq(ops.floordiv(Tensor(I), Tensor(J)), I // J)
    _eq(ops.pows(x, 2), X ** 2)
    _eq(ops.Hypot()(x, y), np.hypot(X, np.abs(Y) + 1))
    _eq(ops.CeLU(2.0)(x), np.maximum(X, 0) + np.minimum(0, 2 * (np.exp(X / 2) - 1)))
    _eq(ops.Fmax()(x, y), np.fmax(X, np.abs(Y) + 1))
    _eq(ops.Inv()(Tensor(np.array([1, -1, 2, 0], np.int32))), [1, -1, 0, LOWEST])
    _eq(ops.diff_ext(x), np.diff(X))
    assert ops.float_power_ext(x, 2).dtype == float64
    assert ops.tail((1, 2, 3)) == (2, 3)
    _eq(ops.deepcopy(x), X)
    with pytest.raises(TypeError, match="CeLU: takes at most 1 arguments"):
        ops.CeLU(1.0, 2.0)


def test_sinc_xlogy_xdivy():
    x = np.array([-1.5, 0.0, 0.5, 2.0], np.float32)
    y = np.array([2.0, 3.0, 0.0, 0.5], np.float32)
    _eq(ops.sinc(Tensor(x)), np.sinc(x), float32)
    ints = ops.sinc(Tensor(np.array([0, 1, 2], np.int32)))
    assert ints.dtype == float32
    np.testing.assert_allclose(ints.asnumpy(), [1, 0, 0], atol=1e-7)
    with np.errstate(divide="ignore", invalid="ignore"):
        _eq(ops.xlogy(Tensor(x), Tensor(y)), np.where(x == 0, 0, x * np.log(y)))
        _eq(ops.xdivy(Tensor(x), Tensor(y)), np.where(x == 0, 0, x / y))
    g = grad(lambda t: ops.sinc(t).sum())(Tensor(np.array([0.0, 0.5], np.float32)))
    _eq(g, [0.0, (np.cos(np.pi / 2) - np.sinc(0.5)) / 0.5])
