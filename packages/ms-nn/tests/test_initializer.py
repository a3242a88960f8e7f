"""Initializers: distributions, fan computation, names, seeding, errors."""

import math

import numpy as np
import pytest

from ms_nn import initializer as init_mod
from ms_nn.initializer import (
    Constant,
    HeNormal,
    HeUniform,
    Identity,
    Initializer,
    Normal,
    One,
    Orthogonal,
    TruncatedNormal,
    Uniform,
    VarianceScaling,
    XavierNormal,
    XavierUniform,
    Zero,
    calculate_fan_in_and_fan_out,
    calculate_gain,
    initializer,
)
from ms_tensor import Tensor, float16, float32, float64, int32
from ms_tensor.seed import set_seed

N = 200_000  # samples for the statistics: standard error of a std estimate ~ 0.16%


def sample(init, shape=(N,), dtype=float64):
    return initializer(init, shape, dtype).asnumpy()


# -- fans and gains --------------------------------------------------------------------


@pytest.mark.parametrize("shape, fans", [
    ((3, 5), (5, 3)),                 # Dense (out, in)
    ((8, 4, 3, 3), (36, 72)),         # Conv2d (out, in, kh, kw)
    ((6, 2, 5), (10, 30)),            # Conv1d
    ((2, 3, 1, 1), (3, 2)),
])
def test_fan_in_and_fan_out(shape, fans):
    assert calculate_fan_in_and_fan_out(shape) == fans


def test_fan_needs_two_dims():
    with pytest.raises(ValueError, match=r"fewer than 2 dimensions, got shape \(4,\)"):
        calculate_fan_in_and_fan_out((4,))
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        initializer(XavierUniform(), 4)


@pytest.mark.parametrize("nonlinearity, param, gain", [
    ("linear", None, 1.0), ("conv2d", None, 1.0), ("sigmoid", None, 1.0),
    ("tanh", None, 5 / 3), ("relu", None, math.sqrt(2)),
    ("leaky_relu", None, math.sqrt(2 / (1 + 0.01 ** 2))),
    ("leaky_relu", 0, math.sqrt(2)), ("leaky_relu", math.sqrt(5), math.sqrt(1 / 3)),
])
def test_gain(nonlinearity, param, gain):
    assert calculate_gain(nonlinearity, param) == pytest.approx(gain)


def test_gain_errors():
    with pytest.raises(ValueError, match="nonlinearity must be one of .* got 'swish'"):
        calculate_gain("swish")
    with pytest.raises(ValueError, match="negative_slope must be an int or float, got True"):
        calculate_gain("leaky_relu", True)


# -- distributions -----------------------------------------------------------------------


def test_constant_initializers():
    assert np.all(sample(Zero(), (3, 4)) == 0)
    assert np.all(sample(One(), (3, 4)) == 1)
    assert np.all(sample(Constant(2.5), (3,)) == 2.5)
    assert np.all(sample(7, (2,)) == 7)
    np.testing.assert_array_equal(sample(Identity(), (2, 3)), np.eye(2, 3))


@pytest.mark.parametrize("init, mean, std", [
    (Normal(), 0.0, 0.01),
    (Normal(sigma=2.0, mean=3.0), 3.0, 2.0),
    (Uniform(), 0.0, 0.07 / math.sqrt(3)),
    (Uniform(scale=3.0), 0.0, math.sqrt(3.0)),
    # [-2, 2] is 200 sigmas wide at sigma=0.01: an untruncated normal in practice.
    (TruncatedNormal(), 0.0, 0.01),
])
def test_location_scale_distributions(init, mean, std):
    x = sample(init)
    assert x.mean() == pytest.approx(mean, abs=5 * std / math.sqrt(N))
    assert x.std() == pytest.approx(std, rel=0.01)


def test_uniform_bounds():
    x = sample(Uniform(scale=0.5))
    assert x.min() >= -0.5 and x.max() <= 0.5
    assert x.min() < -0.49 and x.max() > 0.49


def test_truncated_normal_uses_absolute_bounds():
    # MindSpore 2.10 draws from N(5, 1) cut to [-2, 2]: everything piles up just below 2.
    x = sample(TruncatedNormal(sigma=1.0, mean=5.0))
    assert x.min() >= -2.0 and x.max() <= 2.0
    # Mean of N(5, 1) cut to [-2, 2]: 5 + (phi(-7) - phi(-3)) / (Phi(-3) - Phi(-7)) = 1.7169
    # (MindSpore 2.10 gives 1.715 on 20000 draws).
    assert x.mean() == pytest.approx(1.7169, abs=0.005)
    # Symmetric cut at one sigma: std of N(0,1) truncated to [-1, 1] is 0.5378.
    y = sample(TruncatedNormal(sigma=1.0, a=-1.0, b=1.0))
    assert y.min() >= -1 and y.max() <= 1
    assert y.std() == pytest.approx(0.5378, rel=0.01)
    assert y.mean() == pytest.approx(0.0, abs=0.01)


@pytest.mark.parametrize("shape", [(64, 32), (16, 8, 3, 3)])
def test_xavier(shape):
    big = (shape[0] * 50,) + shape[1:]  # enough samples for the statistics
    fan_in, fan_out = calculate_fan_in_and_fan_out(big)
    bound = math.sqrt(6 / (fan_in + fan_out))
    u = sample(XavierUniform(), big)
    assert u.min() >= -bound and u.max() <= bound
    assert u.std() == pytest.approx(bound / math.sqrt(3), rel=0.02)
    g = sample(XavierUniform(gain=2.0), big)
    assert g.std() == pytest.approx(2 * bound / math.sqrt(3), rel=0.02)
    n = sample(XavierNormal(), big)
    assert n.std() == pytest.approx(math.sqrt(2 / (fan_in + fan_out)), rel=0.02)


@pytest.mark.parametrize("kwargs, gain", [
    ({}, math.sqrt(2)),                                          # leaky_relu, slope 0
    ({"nonlinearity": "relu"}, math.sqrt(2)),
    ({"negative_slope": math.sqrt(5)}, math.sqrt(1 / 3)),        # MindSpore's Dense/Conv default
    ({"nonlinearity": "tanh"}, 5 / 3),
])
@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
def test_he(kwargs, gain, mode):
    shape = (500, 40, 3, 3)
    fan_in, fan_out = calculate_fan_in_and_fan_out(shape)
    std = gain / math.sqrt(fan_in if mode == "fan_in" else fan_out)
    u = sample(HeUniform(mode=mode, **kwargs), shape)
    assert u.max() <= std * math.sqrt(3) and u.min() >= -std * math.sqrt(3)
    assert u.std() == pytest.approx(std, rel=0.01)
    assert sample(HeNormal(mode=mode, **kwargs), shape).std() == pytest.approx(std, rel=0.01)


def test_he_errors():
    with pytest.raises(ValueError, match="mode must be 'fan_in' or 'fan_out', got 'fan_x'"):
        HeUniform(mode="fan_x")
    with pytest.raises(ValueError, match="nonlinearity must be one of"):
        HeNormal(nonlinearity="swish")


def test_orthogonal():
    for shape in [(4, 6), (6, 4), (3, 2, 2)]:
        q = sample(Orthogonal(gain=2.0), shape).reshape(shape[0], -1)
        small = q @ q.T if q.shape[0] <= q.shape[1] else q.T @ q
        np.testing.assert_allclose(small, 4 * np.eye(min(q.shape)), atol=1e-10)


@pytest.mark.parametrize("distribution", ["uniform", "truncated_normal", "untruncated_normal"])
def test_variance_scaling(distribution):
    shape = (1000, 50, 2, 2)  # fan_in 200
    x = sample(VarianceScaling(scale=2.0, distribution=distribution), shape)
    assert x.std() == pytest.approx(math.sqrt(2.0 / 200), rel=0.01)


# -- the initializer() function -----------------------------------------------------------


@pytest.mark.parametrize("name, cls", [
    ("normal", Normal), ("Normal", Normal), ("zeros", Zero), ("zero", Zero), ("ones", One),
    ("one", One), ("uniform", Uniform), ("truncatedNormal", TruncatedNormal),
    ("xavier_uniform", XavierUniform), ("XavierUniform", XavierUniform),
    ("xavier_normal", XavierNormal), ("he_uniform", HeUniform), ("HeUniform", HeUniform),
    ("he_normal", HeNormal), ("identity", Identity), ("orthogonal", Orthogonal),
    ("variancescaling", VarianceScaling),
])
def test_names(name, cls, monkeypatch):
    made = []
    original = cls._initialize
    monkeypatch.setattr(cls, "_initialize", lambda self, arr: (made.append(type(self)),
                                                                original(self, arr)))
    t = initializer(name, [4, 4], float32)
    assert made == [cls] and t.shape == (4, 4) and t.dtype == float32


def test_shapes_and_dtypes():
    assert initializer(One(), 3).shape == (3,)
    assert initializer("ones", [2, 3]).shape == (2, 3)
    assert initializer("ones", (2,), float16).dtype == float16
    t = initializer(2, [2], int32)
    assert t.dtype == int32 and t.asnumpy().tolist() == [2, 2]
    assert initializer("normal", (3, 3)).dtype == float32  # the default dtype


def test_tensor_and_array_inits_are_checked_not_copied():
    t = Tensor(np.zeros((1, 2, 3), np.float32))
    assert initializer(t, [1, 2, 3], float32) is t
    a = initializer(np.ones((2, 2)), (2, 2))
    assert isinstance(a, Tensor) and a.shape == (2, 2)
    with pytest.raises(ValueError, match=r"init has shape \(1, 2, 3\) but shape is \(2, 3\)"):
        initializer(t, (2, 3))


def test_initializer_errors():
    with pytest.raises(ValueError, match="unknown initializer name 'foo'; known names: "):
        initializer("foo", [2])
    with pytest.raises(TypeError, match="init must be a Tensor, number, str or Initializer, "
                                        "got list"):
        initializer([1, 2], [2])
    with pytest.raises(ValueError, match=r"shape must be a positive int, got \(0, 2\)"):
        initializer("ones", [0, 2])
    with pytest.raises(TypeError, match="shape must be an int, list or tuple, got str"):
        initializer("ones", "2")
    with pytest.raises(ValueError, match="shape is needed"):
        initializer("ones")
    with pytest.raises(TypeError, match="value must be a number, got str"):
        Constant("1")
    with pytest.raises(ValueError, match="sigma must be >= 0"):
        Normal(sigma=-1)
    with pytest.raises(ValueError, match="a must be less than b"):
        TruncatedNormal(a=1, b=0)
    with pytest.raises(NotImplementedError, match="Initializer must implement _initialize"):
        initializer(Initializer(), (2,))
    with pytest.raises(TypeError, match="Normal: expected a numpy array to fill, got list"):
        Normal()([1.0])


# -- seeding and Tensor(init=...) ---------------------------------------------------------


def test_seeded_runs_are_reproducible():
    def weights():
        set_seed(7)
        return [initializer(cls(), (8, 4)).asnumpy() for cls in
                (Normal, Uniform, TruncatedNormal, XavierUniform, HeNormal)]

    first, second = weights(), weights()
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    set_seed(8)
    assert not np.array_equal(initializer(Normal(), (8, 4)).asnumpy(), first[0])
    # Each initialization draws fresh numbers: two weights after one seed differ.
    set_seed(7)
    assert not np.array_equal(initializer(Normal(), (8, 4)).asnumpy(),
                              initializer(Normal(), (8, 4)).asnumpy())


def test_tensor_constructor_accepts_an_initializer():
    t = Tensor(shape=(2, 3), dtype=float32, init=One())
    np.testing.assert_array_equal(t.asnumpy(), np.ones((2, 3)))
    arr = np.empty((3, 2), np.float32)
    assert XavierUniform()(arr) is arr  # fills in place and returns the array
    assert np.abs(arr).max() <= math.sqrt(6 / 5)


def test_public_names():
    for name in init_mod.__all__:
        assert hasattr(init_mod, name)
    assert repr(HeUniform()) == "HeUniform(negative_slope=0, mode='fan_in', " \
                                "nonlinearity='leaky_relu')"
