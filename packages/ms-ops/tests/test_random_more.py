"""The extra random operators: shapes, seeds, and their distributions' moments."""

import numpy as np
import pytest

import ms_ops as ops
from ms_tensor import Tensor, bool_, int32, int64
from ms_tensor.seed import set_seed


def test_laplace_poisson_cauchy_moments_and_seeds():
    set_seed(5)
    a = ops.standard_laplace((20000,), seed=3).asnumpy()
    assert abs(a.mean()) < 0.05 and abs(a.var() - 2.0) < 0.15  # Laplace(0, 1): var 2
    np.testing.assert_array_equal(a, ops.standard_laplace((20000,), seed=3).asnumpy())
    b = ops.laplace((20000,), Tensor(np.float32(1.0)), Tensor(np.float32(0.5))).asnumpy()
    assert abs(b.mean() - 1.0) < 0.05
    p = ops.poisson((20000,), Tensor(np.array([4.0], np.float32))).asnumpy()
    assert abs(p.mean() - 4.0) < 0.1 and np.all(p == np.round(p))
    c = ops.Cauchy([4001], 2.0, 0.5)().asnumpy()
    assert abs(np.median(c) - 2.0) < 0.1
    with pytest.raises(ValueError, match="Poisson: mean must be non-negative"):
        ops.poisson((2,), Tensor(np.array([-1.0], np.float32)))


def test_choice_with_mask_picks_true_entries():
    x = np.array([[True, False, True], [False, True, True]])
    index, mask = ops.RandomChoiceWithMask(6, seed=1)(Tensor(x))
    assert index.dtype == int32 and mask.dtype == bool_ and index.shape == (6, 2)
    got = index.asnumpy()[mask.asnumpy()]
    assert sorted(map(tuple, got)) == sorted(map(tuple, np.argwhere(x)))
    assert not mask.asnumpy()[4:].any()


def test_multinomial_randperm_bernoulli_ext():
    w = Tensor(np.array([[0.0, 1.0, 3.0], [2.0, 0.0, 0.0]], np.float32))
    draws = ops.multinomial_with_replacement(w, Tensor(1), Tensor(0), 50, True)
    assert draws.dtype == int64 and draws.shape == (2, 50)
    assert set(draws.asnumpy()[0]) <= {1, 2} and set(draws.asnumpy()[1]) == {0}
    perm = ops.Randperm(6)(Tensor(np.array([4], np.int32))).asnumpy()
    assert sorted(perm[:4]) == [0, 1, 2, 3] and list(perm[4:]) == [-1, -1]
    with pytest.raises(ValueError, match="Randperm: n 7 must not exceed max_length 6"):
        ops.Randperm(6)(Tensor(np.array([7], np.int32)))
    np.testing.assert_array_equal(
        ops.bernoulli_ext(Tensor(np.array([0.0, 1.0], np.float32))).asnumpy(), [0, 1])
