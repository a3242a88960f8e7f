"""Tensor-method spellings against numpy, with MindSpore 2.10's conventions where they are
its own (argmax_with_value's (value, index) order, index_add updating the tensor)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_tensor import Tensor, int64

X = np.array([[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]], np.float32)
Y = np.array([[0.5, 0.5, 2.0], [1.0, 2.0, 3.0]], np.float32)


def test_spellings_of_existing_operators():
    x = Tensor(X)
    np.testing.assert_array_equal(x.multiply(Tensor(Y)).asnumpy(), X * Y)
    np.testing.assert_array_equal(x.subtract(Tensor(Y), alpha=2).asnumpy(), X - 2 * Y)
    np.testing.assert_array_equal(x.negative().asnumpy(), -X)
    cond = X > 0
    np.testing.assert_array_equal(x.where(Tensor(cond), Tensor(Y)).asnumpy(), np.where(cond, X, Y))
    np.testing.assert_array_equal(x.select(1, -1).asnumpy(), X[:, -1])
    np.testing.assert_array_equal(Tensor(X[0]).expand(2, -1).asnumpy(),
                                  np.broadcast_to(X[0], (2, 3)))
    np.testing.assert_array_equal(x.sum_to_size(1, 3).asnumpy(), X.sum(0, keepdims=True))
    np.testing.assert_array_equal(x.clone().asnumpy(), X)
    assert x.allclose(Tensor(X + 1e-9)) is True and x.allclose(Tensor(Y)) is False
    with pytest.raises(ValueError, match=r"sum_to_size: size \(4,\) must broadcast"):
        x.sum_to_size(4)


def test_index_writes_and_choose():
    x = Tensor(X.copy())
    assert x.index_add(Tensor(np.array([0, 2])), Tensor(np.ones((2, 2), np.float32)), 1) is x
    np.testing.assert_array_equal(x.asnumpy(), X + np.array([1, 0, 1]))
    got = Tensor(X).index_put((Tensor(np.array([0, 1])), Tensor(np.array([1, 2]))),
                              Tensor(np.array([7.0, 8.0], np.float32)))
    want = X.copy()
    want[[0, 1], [1, 2]] = [7, 8]
    np.testing.assert_array_equal(got.asnumpy(), want)
    choices = [np.array([1, 2, 3]), np.array([4, 5, 6]), np.array([7, 8, 9])]
    idx = np.array([2, 0, 5])
    got = Tensor(idx).choose([Tensor(c) for c in choices])
    np.testing.assert_array_equal(got.asnumpy(), np.choose(idx, choices, mode="clip"))
    with pytest.raises(ValueError, match=r"choose: indices must lie in \[0, 3\)"):
        Tensor(idx).choose([Tensor(c) for c in choices], mode="raise")


def test_kthvalue_arg_with_value_logit_soft_shrink():
    values, idx = Tensor(X).kthvalue(2)
    np.testing.assert_array_equal(values.asnumpy(), np.sort(X, 1)[:, 1])
    assert idx.dtype == int64
    value, index = Tensor(X).argmax_with_value(1)
    np.testing.assert_array_equal(value.asnumpy(), X.max(1))
    np.testing.assert_array_equal(index.asnumpy(), X.argmax(1))
    p = np.array([0.2, 0.5, 0.9], np.float32)
    np.testing.assert_allclose(ops.logit(Tensor(p)).asnumpy(), np.log(p / (1 - p)), rtol=1e-6)
    q = np.clip(p, 0.3, 0.7)
    np.testing.assert_allclose(ops.Logit(eps=0.3)(Tensor(p)).asnumpy(), np.log(q / (1 - q)),
                               rtol=1e-6)
    np.testing.assert_array_equal(ops.soft_shrink(Tensor(X), 1.0).asnumpy(),
                                  np.sign(X) * np.maximum(np.abs(X) - 1.0, 0))
    with pytest.raises(ValueError, match=r"kthvalue: k must lie in \[1, 3\]"):
        Tensor(X).kthvalue(4)


def test_triangular_solve_and_random_methods():
    a = np.array([[2.0, 1.0], [0.0, 4.0]], np.float32)
    x, same = Tensor(Y).triangular_solve(Tensor(a))
    np.testing.assert_allclose(x.asnumpy(), np.linalg.solve(a, Y), rtol=1e-6)
    x, _ = Tensor(Y).triangular_solve(Tensor(a), upper=True, unitriangular=True)
    np.testing.assert_allclose(x.asnumpy(), np.linalg.solve(np.triu(a, 1) + np.eye(2), Y),
                               rtol=1e-6)
    u = Tensor(np.zeros((2000,), np.float32)).uniform(1.0, 2.0).asnumpy()
    assert 1.0 <= u.min() and u.max() < 2.0
    b = Tensor(np.full((2000,), 0.3, np.float32)).bernoulli().asnumpy()
    assert abs(b.mean() - 0.3) < 0.05
    c = Tensor(np.zeros((4001,), np.float32)).cauchy(1.0, 2.0).asnumpy()
    assert abs(np.median(c) - 1.0) < 0.25
    g = Tensor(np.zeros((4000,), np.float32)).log_normal(0.0, 0.5).asnumpy()
    assert g.min() > 0 and abs(np.log(g).std() - 0.5) < 0.05
