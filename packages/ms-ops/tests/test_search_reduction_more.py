"""Searching, counting and order statistics against numpy, with MindSpore 2.10's answers
where its conventions are its own (float32 counts, first-appearance ``unique``, the
lowest finite value for an empty segment, cummin's int32 indices)."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor, float32, int32, int64

X = np.array([[3.0, 1.0, 4.0, 1.0], [5.0, 9.0, 2.0, 6.0], [5.0, 3.0, 5.0, 8.0]], np.float32)
V = np.array([1.0, np.nan, 3.0, 2.0, np.nan, 0.5], np.float32)
RNG = np.random.default_rng(0)


def _eq(got, want, dtype=None):
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-6, equal_nan=True)
    if dtype is not None:
        assert got.dtype == dtype


def test_cummax_cummin_values_indices_and_gradient():
    values, idx = ops.cummax(Tensor(X), 1)
    _eq(values, np.maximum.accumulate(X, 1))
    _eq(idx, [[0, 0, 2, 2], [0, 1, 1, 1], [0, 0, 2, 3]], int64)
    values, idx = ops.Cummin(axis=0)(Tensor(X))
    _eq(values, np.minimum.accumulate(X, 0))
    assert idx.dtype == int32
    check_grad(lambda t: ops.cummax(t, 1)[0], RNG.permutation(12).reshape(3, 4))
    with pytest.raises(ValueError, match="Cummax: axis 2 is out of range"):
        ops.cummax(Tensor(X), 2)


def test_searchsorted_and_bucketize():
    s = np.array([1.0, 3.0, 5.0, 7.0], np.float32)
    _eq(ops.searchsorted(Tensor(s), Tensor(X)), np.searchsorted(s, X), int64)
    _eq(ops.searchsorted(Tensor(s), Tensor(X), side="right", out_int32=True),
        np.searchsorted(s, X, side="right"), int32)
    rows = np.sort(RNG.standard_normal((2, 5)), -1)
    vals = RNG.standard_normal((2, 3))
    _eq(ops.searchsorted(Tensor(rows), Tensor(vals)),
        np.stack([np.searchsorted(r, v) for r, v in zip(rows, vals)]))
    _eq(ops.bucketize(Tensor(X), [1.0, 3.0, 5.0]), np.searchsorted([1, 3, 5], X), int32)
    _eq(ops.Bucketize([1.0, 3.0, 5.0])(Tensor(X)), np.searchsorted([1, 3, 5], X, "right"))
    with pytest.raises(ValueError, match="side must be"):
        ops.searchsorted(Tensor(s), Tensor(X), side="middle")


def test_segment_extremes_and_product():
    ids = np.array([0, 2, 0], np.int32)
    lowest = np.finfo(np.float32).min
    _eq(ops.unsorted_segment_max(Tensor(X), Tensor(ids), 3),
        [np.maximum(X[0], X[2]), np.full(4, lowest), X[1]])
    _eq(ops.unsorted_segment_min(Tensor(X), Tensor(ids), 3),
        [np.minimum(X[0], X[2]), np.full(4, -lowest), X[1]])
    _eq(ops.unsorted_segment_prod(Tensor(X), Tensor(ids), 3), [X[0] * X[2], np.ones(4), X[1]])
    # gradients: ties share, a zero in a product gets the product of the others
    full = Tensor(np.array([0, 1, 0], np.int32))  # no empty segment: finite objective
    check_grad(lambda t: ops.unsorted_segment_max(t, full, 2), RNG.permutation(12).reshape(3, 4))
    with_zero = np.array([[2.0, 0.0], [3.0, 0.0], [4.0, 5.0]])
    got = check_grad(lambda t: ops.unsorted_segment_prod(t, full, 2), with_zero)
    assert got[0].shape == (3, 2)


def test_bincount_histc_unique():
    i = np.array([2, 0, 3, 2, 2, 7], np.int32)
    w = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 3.0], np.float32)
    _eq(ops.bincount(Tensor(i)), np.bincount(i), float32)
    _eq(ops.bincount(Tensor(i), Tensor(w), minlength=10), np.bincount(i, w, minlength=10))
    with pytest.raises(ValueError, match="bincount: input must be non-negative"):
        ops.bincount(Tensor(np.array([-1, 2], np.int32)))
    _eq(ops.histc(Tensor(X), bins=4, min=0.0, max=8.0), [2, 3, 4, 2], float32)
    _eq(ops.histc(Tensor(X), bins=3), np.histogram(X, 3)[0])
    out, inverse = ops.unique(Tensor(np.array([3, 1, 3, 2, 1], np.int32)))
    _eq(out, [3, 1, 2])
    _eq(inverse, [0, 1, 0, 2, 1], int32)
    out, inverse, counts = ops.unique_consecutive(
        Tensor(np.array([1, 1, 2, 2, 3, 1, 1], np.int32)), True, True)
    _eq(out, [1, 2, 3, 1])
    _eq(inverse, [0, 0, 1, 1, 2, 3, 3], int64)
    _eq(counts, [2, 2, 1, 2], int64)
    rows = ops.unique_consecutive(Tensor(np.array([[1, 1], [1, 1], [2, 3]], np.int32)), dim=0)
    _eq(rows, [[1, 1], [2, 3]])


def test_median_quantile_and_their_gradients():
    values, idx = ops.median(Tensor(X))
    _eq(values, [1, 5, 5])
    _eq(idx, [3, 0, 0], int64)  # stable: the second 1 of row 0 is the lower median
    _eq(ops.median(Tensor(X), 0)[0], [5, 3, 4, 6])
    _eq(ops.nanmedian(Tensor(V), 0)[0], 1.0)
    _eq(ops.Median(global_median=True)(Tensor(X))[0], 4.0)
    _eq(ops.quantile(Tensor(X), 0.5), np.quantile(X, 0.5))
    _eq(ops.quantile(Tensor(X), 0.3, axis=1), np.quantile(X, 0.3, axis=1))
    q = np.array([0.25, 0.75], np.float32)
    _eq(ops.quantile(Tensor(X), Tensor(q), axis=0, keepdims=True),
        np.quantile(X, q, axis=0, keepdims=True))
    _eq(ops.nanquantile(Tensor(V), 0.5), np.nanquantile(V, 0.5))
    with pytest.raises(ValueError, match="q must be"):
        ops.quantile(Tensor(X), 1.5)
    check_grad(lambda t: ops.median(t, 1)[0], RNG.standard_normal((3, 5)))
    check_grad(lambda t: ops.quantile(t, 0.3, axis=0), RNG.standard_normal((5, 2)))


def test_nan_reductions_logcumsumexp_and_aliases():
    _eq(ops.nansum(Tensor(V)), np.nansum(V))
    _eq(ops.nanmean(Tensor(V)), np.nanmean(V))
    m = np.array([[1.0, np.nan], [2.0, 4.0]], np.float32)
    _eq(ops.nanmean(Tensor(m), 1), np.nanmean(m, 1))
    _eq(ops.nansum(Tensor(np.array([[1, 2], [3, 4]], np.int32)), 0), [4, 6], int32)
    _eq(ops.logcumsumexp(Tensor(X), 1), np.logaddexp.accumulate(X, 1))
    big = np.array([1000.0, 1000.0], np.float32)
    _eq(ops.logcumsumexp(Tensor(big), 0), [1000.0, 1000.0 + np.log(2)])
    exclusive = ops.CumulativeLogsumexp(exclusive=True)(Tensor(X), Tensor(1)).asnumpy()
    assert (exclusive[:, 0] == np.finfo(np.float32).min).all()
    check_grad(lambda t: ops.logcumsumexp(t, 1), RNG.standard_normal((2, 4)))
    std, mean = ops.std_mean(Tensor(X), 1, 1, True)
    _eq(std, X.std(1, ddof=1, keepdims=True))
    _eq(mean, X.mean(1, keepdims=True))
    _eq(ops.var_mean(Tensor(X), 0)[0], X.var(0))
    _eq(ops.reduce_sum(Tensor(X), 0), X.sum(0))
    _eq(ops.reduce_max(Tensor(X), 1), X.max(1))
    lo, hi = ops.aminmax(Tensor(X), axis=1, keepdims=True)
    _eq(lo, X.min(1, keepdims=True))
    _eq(hi, X.max(1, keepdims=True))
    _eq(ops.EqualCount()(Tensor(np.array([1, 2, 3])), Tensor(np.array([1, 0, 3]))), [2])
    a, b = ops.SquareSumAll()(Tensor(X), Tensor(X))
    _eq(a, (X ** 2).sum())
