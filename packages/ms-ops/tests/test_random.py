import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import operators
from ms_ops.defs import random as R
from ms_tensor import Tensor, float16, float32, float64, int16, int32, int64, seed

_P = np.array([[0.1, 0.6, 0.0, 0.3], [0.25, 0.25, 0.25, 0.25]], np.float32)


@pytest.fixture
def global_seed(monkeypatch):
    """Let a test call set_seed without leaking the global seed into other tests."""
    monkeypatch.setattr(seed, "_global_seed", None)
    monkeypatch.setattr(seed, "_counter", 0)
    return seed.set_seed


# name, call(seed) -> Tensor, shape, dtype
SAMPLERS = [
    ("standard_normal", lambda s: ops.standard_normal((3, 4), seed=s), (3, 4), float32),
    ("randn", lambda s: ops.randn(3, 4, seed=s), (3, 4), float32),
    ("randn_f64", lambda s: ops.randn((5,), dtype=float64, seed=s), (5,), float64),
    ("rand", lambda s: ops.rand(2, 6, seed=s), (2, 6), float32),
    ("rand_f16", lambda s: ops.rand((7,), dtype=float16, seed=s), (7,), float16),
    ("randint", lambda s: ops.randint(0, 1000, (3, 5), seed=s), (3, 5), int64),
    ("randint_i16", lambda s: ops.randint(-5, 5, (9,), seed=s, dtype=int16), (9,), int16),
    ("uniform", lambda s: ops.uniform((4, 3), Tensor(2.0), Tensor(5.0), seed=s), (4, 3), float32),
    ("uniform_int", lambda s: ops.uniform((8,), Tensor(0, int32), Tensor(100, int32), seed=s,
                                          dtype=int32), (8,), int32),
    ("normal", lambda s: ops.normal((6,), 1.0, 3.0, seed=s), (6,), float32),
    ("rand_like", lambda s: ops.rand_like(Tensor(np.zeros((2, 3))), seed=s), (2, 3), float64),
    ("randn_like", lambda s: ops.randn_like(Tensor(np.zeros(4, np.float32)), seed=s), (4,),
     float32),
    ("randint_like", lambda s: ops.randint_like(Tensor(np.zeros(6, np.int32)), 0, 99, seed=s),
     (6,), int32),
    ("bernoulli", lambda s: ops.bernoulli(Tensor(np.zeros((4, 8), np.float32)), 0.5, seed=s),
     (4, 8), float32),
    ("multinomial", lambda s: ops.multinomial(Tensor(_P), 6, seed=s), (2, 6), int32),
    ("multinomial_noreplace", lambda s: ops.multinomial(Tensor(_P), 3, replacement=False, seed=s),
     (2, 3), int32),
    ("random_categorical", lambda s: ops.random_categorical(Tensor(np.zeros((3, 10), np.float32)),
                                                            6, seed=s), (3, 6), int64),
    ("shuffle", lambda s: ops.shuffle(Tensor(np.arange(20.0)), seed=s), (20,), float64),
    ("randperm", lambda s: ops.randperm(20, seed=s), (20,), int64),
]
SAMPLER_IDS = [r[0] for r in SAMPLERS]


@pytest.mark.parametrize("name,call,shape,dtype", SAMPLERS, ids=SAMPLER_IDS)
def test_same_seed_gives_same_numbers(name, call, shape, dtype):
    a, b = call(7), call(7)
    assert a.shape == shape and a.dtype == dtype
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


@pytest.mark.parametrize("name,call,shape,dtype", SAMPLERS, ids=SAMPLER_IDS)
def test_different_seeds_give_different_numbers(name, call, shape, dtype):
    draws = [call(s).asnumpy() for s in (1, 2, 3)]
    assert not (np.array_equal(draws[0], draws[1]) and np.array_equal(draws[1], draws[2]))


@pytest.mark.parametrize("name,call,shape,dtype", SAMPLERS, ids=SAMPLER_IDS)
def test_global_seed_makes_unseeded_calls_reproducible(name, call, shape, dtype, global_seed):
    global_seed(11)
    first = [call(None).asnumpy() for _ in range(3)]
    global_seed(11)
    again = [call(None).asnumpy() for _ in range(3)]
    for f, a in zip(first, again):
        np.testing.assert_array_equal(f, a)
    assert not (np.array_equal(first[0], first[1]) and np.array_equal(first[1], first[2]))


def test_a_primitive_instance_advances_and_two_instances_agree():
    a, b = ops.StandardNormal(seed=2, seed2=3), ops.StandardNormal(seed=2, seed2=3)
    a1, a2 = a((100,)).asnumpy(), a((100,)).asnumpy()
    assert not np.array_equal(a1, a2)
    np.testing.assert_array_equal(b((100,)).asnumpy(), a1)
    np.testing.assert_array_equal(b((100,)).asnumpy(), a2)
    c = ops.StandardNormal(seed=2, seed2=4)
    assert not np.array_equal(c((100,)).asnumpy(), a1)


def test_primitive_classes_take_mindspore_arguments():
    assert ops.UniformReal(seed=1)((2, 3)).dtype == float32
    ui = ops.UniformInt(seed=5)((4, 4), Tensor(1, int32), Tensor(5, int32)).asnumpy()
    assert ui.dtype == np.int32 and ui.min() >= 1 and ui.max() < 5
    b = ops.Bernoulli(seed=1)(Tensor(np.zeros((3,), np.int32)), Tensor(np.full(3, 0.5)))
    assert b.dtype == int32
    m = ops.Multinomial(seed=1, dtype=int64)(Tensor(_P), 4)
    assert m.dtype == int64 and m.shape == (2, 4)
    rc = ops.RandomCategorical(int16)(Tensor(np.zeros((2, 3), np.float32)), 5, 3)
    assert rc.dtype == int16 and rc.shape == (2, 5)
    assert sorted(ops.RandpermV2(seed=1, dtype=int32)(6).asnumpy().tolist()) == list(range(6))
    sh = ops.RandomShuffle(seed=4)(Tensor(np.arange(12).reshape(6, 2))).asnumpy()
    assert sorted(sh[:, 0].tolist()) == list(range(0, 12, 2))
    np.testing.assert_array_equal(sh[:, 1], sh[:, 0] + 1)  # rows move whole


N = 200_000


@pytest.mark.parametrize("call,mean,var", [
    (lambda: ops.randn(N, seed=1), 0.0, 1.0),
    (lambda: ops.standard_normal((N,), seed=2), 0.0, 1.0),
    (lambda: ops.rand(N, seed=3), 0.5, 1 / 12),
    (lambda: ops.uniform((N,), Tensor(2.0), Tensor(5.0), seed=4), 3.5, 0.75),
    (lambda: ops.normal((N,), 1.0, 3.0, seed=5), 1.0, 9.0),
    (lambda: ops.randint(0, 10, (N,), seed=6), 4.5, 99 / 12),
    (lambda: ops.bernoulli(Tensor(np.zeros(N, np.float32)), 0.3, seed=7), 0.3, 0.21),
], ids=["randn", "standard_normal", "rand", "uniform", "normal", "randint", "bernoulli"])
def test_sample_statistics(call, mean, var):
    x = call().asnumpy().astype(np.float64)
    assert abs(x.mean() - mean) < 0.01 * max(1.0, var ** 0.5)
    assert abs(x.var() - var) < 0.02 * var


def test_uniform_bounds_are_half_open():
    u = ops.rand(N, seed=8).asnumpy()
    assert u.min() >= 0 and u.max() < 1
    v = ops.uniform((N,), Tensor(-1.0), Tensor(1.0), seed=9).asnumpy()
    assert v.min() >= -1 and v.max() < 1
    r = ops.randint(-3, 4, (N,), seed=10).asnumpy()
    assert set(np.unique(r).tolist()) == set(range(-3, 4))


def test_bernoulli_with_tensor_p_follows_each_probability():
    p = np.tile(np.array([0.0, 0.2, 0.9, 1.0]), (50_000, 1))
    out = ops.bernoulli(Tensor(np.zeros(p.shape, np.float32)), Tensor(p), seed=3).asnumpy()
    np.testing.assert_allclose(out.mean(axis=0), [0.0, 0.2, 0.9, 1.0], atol=0.01)


@pytest.mark.parametrize("replacement", [True, False])
def test_multinomial_frequencies_follow_weights(replacement):
    w = np.array([1.0, 0.0, 3.0, 6.0], np.float32)
    probs = w / w.sum()
    if replacement:
        draws = ops.multinomial(Tensor(w), 100_000, seed=1).asnumpy()
        freq = np.bincount(draws, minlength=4) / draws.size
    else:
        first = ops.multinomial(Tensor(np.tile(w, (50_000, 1))), 1, replacement=False, seed=1)
        freq = np.bincount(first.asnumpy()[:, 0], minlength=4) / 50_000
    np.testing.assert_allclose(freq, probs, atol=0.01)
    assert freq[1] == 0


def test_multinomial_without_replacement_never_repeats_a_category():
    out = ops.multinomial(Tensor(np.tile(_P[1], (500, 1))), 4, replacement=False, seed=2)
    rows = np.sort(out.asnumpy(), axis=1)
    np.testing.assert_array_equal(rows, np.tile(np.arange(4), (500, 1)))


def test_multinomial_accepts_unnormalized_weights_per_row():
    out = ops.multinomial(Tensor(np.array([[0.0, 5.0], [7.0, 0.0]])), 50, seed=1).asnumpy()
    np.testing.assert_array_equal(out, [[1] * 50, [0] * 50])


def test_random_categorical_follows_softmax_of_logits():
    logits = np.log(np.array([[0.2, 0.5, 0.3]], np.float32))
    out = ops.random_categorical(Tensor(logits), 100_000, seed=4).asnumpy()
    np.testing.assert_allclose(np.bincount(out[0], minlength=3) / 100_000, [0.2, 0.5, 0.3],
                               atol=0.01)
    method = Tensor(logits).random_categorical(10, 4)
    np.testing.assert_array_equal(method.asnumpy(), out[:, :10])


def test_shuffle_and_randperm_are_permutations():
    x = np.arange(30.0).reshape(10, 3)
    out = ops.shuffle(Tensor(x), seed=3).asnumpy()
    assert sorted(map(tuple, out.tolist())) == sorted(map(tuple, x.tolist()))
    assert not np.array_equal(out, x)
    assert sorted(ops.randperm(50, seed=2).asnumpy().tolist()) == list(range(50))
    np.testing.assert_array_equal(ops.shuffle(Tensor(np.float32(3.0))).asnumpy(), 3.0)


def test_multinomial_tensor_method():
    out = Tensor(_P).multinomial(3, seed=5)
    np.testing.assert_array_equal(out.asnumpy(), ops.multinomial(Tensor(_P), 3, seed=5).asnumpy())


@pytest.mark.parametrize("call,exc,pattern", [
    (lambda: ops.StandardNormal()((2, -1)), ValueError,
     r"StandardNormal: shape \(2, -1\) must have positive dimensions"),
    (lambda: ops.standard_normal((2, 1.5)), TypeError, r"StandardNormal: shape must be a tuple"),
    (lambda: R.UniformReal((2,), seed=-1), ValueError, r"UniformReal: 'seed' must be >= 0"),
    (lambda: ops.UniformInt()((2,), Tensor(1.0), Tensor(3, int32)), TypeError,
     r"UniformInt: input 'minval' has dtype Float32"),
    (lambda: ops.UniformInt()((2,), Tensor(np.array([1, 2], np.int32)), Tensor(3, int32)),
     ValueError, r"UniformInt: minval must be a scalar"),
    (lambda: ops.UniformInt()((2,), Tensor(5, int32), Tensor(1, int32)), ValueError,
     r"UniformInt: .*minval 5 must be less than maxval 1"),
    (lambda: ops.randint(10, 1, (2,)), ValueError, r"randint: low 10 must be less than high 1"),
    (lambda: ops.randint(0, 2 ** 40, (2,)), ValueError, r"randint: .*int32 range"),
    (lambda: ops.randint(0.5, 3, (2,)), TypeError, r"randint: low must be an int"),
    (lambda: ops.randint(0, 3, (2,), dtype=float32), TypeError, r"randint: dtype must be an int"),
    (lambda: ops.randn(2, dtype=int32), TypeError, r"randn: dtype must be a float type"),
    (lambda: ops.randn(2, "a"), TypeError, r"randn: size must be ints"),
    (lambda: ops.rand(3, seed=-2), ValueError, r"rand: seed must be None or a non-negative"),
    (lambda: ops.uniform((2,), Tensor(0.0), Tensor(1.0), dtype=int64), TypeError,
     r"uniform: dtype must be a float type or Int32"),
    (lambda: ops.bernoulli(Tensor(np.zeros(3)), 1.5), ValueError, r"Bernoulli: .*p must lie in"),
    (lambda: ops.bernoulli(Tensor(np.zeros(3)), Tensor(np.zeros(4))), ValueError,
     r"Bernoulli: input shape \(3,\) and p shape \(4,\) cannot be broadcast"),
    (lambda: ops.bernoulli(Tensor(np.zeros(3)), Tensor(np.zeros((2, 3)))), ValueError,
     r"Bernoulli: p shape \(2, 3\) must broadcast to input shape \(3,\)"),
    (lambda: ops.multinomial(Tensor(np.ones((2, 2, 2))), 1), ValueError,
     r"Multinomial: x must be 1-d or 2-d"),
    (lambda: ops.multinomial(Tensor(_P), 5, replacement=False), ValueError,
     r"Multinomial: num_samples 5 must not exceed the 4 categories"),
    (lambda: ops.multinomial(Tensor(_P), 0), ValueError, r"Multinomial: 'num_samples' must be"),
    (lambda: ops.multinomial(Tensor(np.array([1, 2], np.int32)), 1), TypeError,
     r"Multinomial: input 'x' has dtype Int32"),
    (lambda: ops.multinomial(Tensor(np.array([1.0, -2.0])), 1), ValueError,
     r"Multinomial: .*non-negative"),
    (lambda: ops.multinomial(Tensor(np.zeros((2, 3))), 1), ValueError, r"positive sum"),
    (lambda: ops.random_categorical(Tensor(np.zeros(3)), 2), ValueError,
     r"RandomCategorical: logits must be 2-d"),
    (lambda: ops.random_categorical(Tensor(np.zeros((1, 3))), 2, dtype=float32), TypeError,
     r"RandomCategorical: dtype must be one of"),
    (lambda: ops.randperm(0), ValueError, r"RandpermV2: 'n' must be >= 1"),
    (lambda: ops.randperm(3, dtype="int32"), TypeError, r"RandpermV2: dtype must be one of"),
])
def test_random_errors_name_the_operator(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call()


def test_randperm_rejects_a_dtype_too_small_for_n():
    from ms_tensor import int8

    with pytest.raises(ValueError, match=r"RandpermV2: n 300 does not fit in dtype Int8"):
        ops.randperm(300, dtype=int8)


def test_random_operators_are_stateful_and_not_differentiable():
    for op in operators(R):
        assert op.stateful and not op.differentiable and op.bprop_fn is None
