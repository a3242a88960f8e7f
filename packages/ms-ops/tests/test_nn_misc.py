import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import nn_misc as M
from ms_ops.testing import check_bprop
from ms_tensor import Tensor, bfloat16, float16, float32, int32, registry, seed


@pytest.fixture
def fixed_masks(monkeypatch):
    """Every unseeded Dropout call draws the same mask, so finite differences see one function."""
    monkeypatch.setattr(seed, "next_generator", lambda *_: np.random.default_rng(7))


# -- Dropout ------------------------------------------------------------------------------
@pytest.mark.parametrize("keep_prob", [0.3, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.float16])
def test_dropout_scales_kept_elements_and_returns_the_mask(keep_prob, dtype):
    x = np.random.default_rng(0).uniform(0.5, 2.0, (50, 40)).astype(dtype)
    out, mask = ops.Dropout(keep_prob=keep_prob)(Tensor(x))
    assert out.dtype == mask.dtype == Tensor(x).dtype and out.shape == mask.shape == x.shape
    m = mask.asnumpy()
    assert set(np.unique(m).tolist()) <= {0.0, 1.0}
    rtol = 1e-3 if dtype is np.float16 else 1e-6
    np.testing.assert_allclose(out.asnumpy(), x * m / dtype(keep_prob), rtol=rtol)
    assert abs(m.mean() - keep_prob) < 0.05


def test_dropout_keeps_bfloat16():
    out, mask = ops.Dropout(0.5)(Tensor(np.ones(8), bfloat16))
    assert out.dtype == mask.dtype == bfloat16
    np.testing.assert_array_equal(out.asnumpy().astype(np.float32), 2 * mask.asnumpy())


def test_dropout_keep_fraction_on_a_large_sample():
    _, mask = ops.Dropout(keep_prob=0.8)(Tensor(np.ones(200_000, np.float32)))
    assert abs(mask.asnumpy().mean() - 0.8) < 0.005


def test_dropout_gradient_uses_the_drawn_mask(fixed_masks):
    x = np.random.default_rng(1).standard_normal((4, 5))
    check_bprop(M.Dropout, x, attrs={"keep_prob": 0.6})


def test_dropout_bprop_reads_the_mask_output():
    x = Tensor(np.ones((6, 7)))
    out = ops.Dropout(keep_prob=0.5)(x)
    dy = Tensor(np.random.default_rng(2).standard_normal((6, 7)))
    (dx,) = registry.load().bprop(M.Dropout)(x, out=out, dout=(dy, Tensor(np.zeros((6, 7)))),
                                             keep_prob=0.5)
    np.testing.assert_allclose(dx.asnumpy(), dy.asnumpy() * out[1].asnumpy() * 2)


def test_functional_dropout_scales_by_one_over_one_minus_p():
    x = Tensor(np.ones((100, 100), np.float32))
    out = ops.dropout(x, p=0.25, seed=3).asnumpy()
    assert np.all((out == 0) | np.isclose(out, 1 / 0.75, rtol=1e-6))
    assert abs((out == 0).mean() - 0.25) < 0.02
    np.testing.assert_array_equal(ops.dropout(x, p=0.25, seed=3).asnumpy(), out)
    assert not np.array_equal(ops.dropout(x, p=0.25, seed=4).asnumpy(), out)


def test_functional_dropout_outside_training_and_at_p_zero():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    assert ops.dropout(x, p=0.9, training=False) is x
    np.testing.assert_array_equal(ops.dropout(x, p=0.0).asnumpy(), x.asnumpy())


@pytest.mark.parametrize("call,exc,pattern", [
    (lambda x: ops.Dropout(keep_prob=0.0)(x), ValueError,
     r"Dropout: 'keep_prob' must be in \(0.0, 1.0\], got 0.0"),
    (lambda x: ops.Dropout(keep_prob=1.5)(x), ValueError, r"Dropout: 'keep_prob' must be in"),
    (lambda x: ops.Dropout(keep_prob="a")(x), TypeError, r"Dropout: 'keep_prob' must be a number"),
    (lambda x: ops.Dropout()(Tensor(np.ones(3, np.int32))), TypeError,
     r"Dropout: input 'x' has dtype Int32"),
    (lambda x: ops.dropout(x, p=1.0), ValueError, r"dropout: p must be a number in \[0, 1\)"),
    (lambda x: ops.dropout(x, p=-0.1), ValueError, r"dropout: p must be a number in \[0, 1\)"),
    (lambda x: ops.dropout(x, seed=-1), ValueError, r"dropout: seed must be None or"),
])
def test_dropout_errors_name_the_operator(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call(Tensor(np.ones((2, 2), np.float32)))


# -- UnsortedSegmentSum ---------------------------------------------------------------------
def _segment_sum(x, ids, num):
    out = np.zeros((num,) + x.shape[ids.ndim:], x.dtype)
    for i, s in np.ndenumerate(ids):
        if 0 <= s < num:
            out[s] += x[i]
    return out


SEGMENTS = [
    ((6,), [0, 2, 2, 1, 0, 2], 3),
    ((5, 3), [4, 0, 0, 1, 4], 5),
    ((2, 3, 4), [[0, 1, 1], [2, 0, 1]], 3),
    ((4, 2), [0, -1, 7, 1], 3),  # ids outside [0, num_segments) are dropped
]


@pytest.mark.parametrize("shape,ids,num", SEGMENTS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int32])
def test_unsorted_segment_sum_matches_numpy(shape, ids, num, dtype):
    x = np.random.default_rng(0).uniform(-5, 5, shape).astype(dtype)
    ids = np.array(ids, np.int32)
    out = ops.unsorted_segment_sum(Tensor(x), Tensor(ids), num)
    assert out.asnumpy().dtype == dtype
    np.testing.assert_allclose(out.asnumpy(), _segment_sum(x, ids, num), rtol=1e-6)


@pytest.mark.parametrize("shape,ids,num", SEGMENTS)
def test_unsorted_segment_sum_gradient(shape, ids, num):
    x = np.random.default_rng(1).standard_normal(shape)
    check_bprop(M.UnsortedSegmentSum, x, Tensor(np.array(ids, np.int64)), num)


def test_unsorted_segment_sum_agrees_with_mindspore():
    out = ops.UnsortedSegmentSum()(Tensor(np.array([1.0, 2.0, 3.0, 4.0], np.float32)),
                                   Tensor(np.array([0, -1, 1, 2], np.int32)), 3)
    np.testing.assert_array_equal(out.asnumpy(), [1.0, 3.0, 4.0])
    out = ops.unsorted_segment_sum(Tensor(np.arange(6.0, dtype=np.float32).reshape(3, 2)),
                                   Tensor(np.array([2, 0, 2], np.int32)), Tensor(3, int32))
    np.testing.assert_array_equal(out.asnumpy(), [[2.0, 3.0], [0.0, 0.0], [4.0, 6.0]])


# -- EmbeddingLookup -----------------------------------------------------------------------
def _lookup(params, indices, offset):
    idx = indices - offset
    inside = (idx >= 0) & (idx < params.shape[0])
    return np.where(inside[..., None], params[np.clip(idx, 0, params.shape[0] - 1)], 0)


@pytest.mark.parametrize("indices,offset", [([[0, 2], [1, 5]], 1), ([3, 0, 3], 0),
                                            ([[-1, 0, 1]], 0), ([[4, 5], [6, 7]], 4)])
def test_embedding_lookup_matches_numpy_and_gradient(indices, offset):
    params = np.random.default_rng(2).standard_normal((4, 3))
    idx = np.array(indices, np.int32)
    out = ops.EmbeddingLookup()(Tensor(params), Tensor(idx), offset)
    np.testing.assert_allclose(out.asnumpy(), _lookup(params, idx, offset))
    check_bprop(M.EmbeddingLookup, params, Tensor(idx), offset)


def test_embedding_lookup_agrees_with_mindspore():
    params = Tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    out = ops.EmbeddingLookup()(params, Tensor(np.array([[0, 2], [1, 5]], np.int32)), 1)
    np.testing.assert_array_equal(out.asnumpy(), [[[0, 0, 0, 0], [4, 5, 6, 7]],
                                                  [[0, 1, 2, 3], [0, 0, 0, 0]]])


# -- Embedding -----------------------------------------------------------------------------
def test_embedding_looks_up_rows():
    w = np.random.default_rng(3).standard_normal((5, 3)).astype(np.float32)
    idx = np.array([[0, 4, 4], [2, 1, 0]], np.int64)
    out = ops.embedding(Tensor(idx), Tensor(w))
    assert out.dtype == float32
    np.testing.assert_array_equal(out.asnumpy(), w[idx])
    check_bprop(M.Embedding, Tensor(idx), w.astype(np.float64), None, None, 2.0, False)


def _embedding_grad(idx, w, dout, padding_idx=None, scale=False):
    grad = np.zeros_like(w)
    counts = np.bincount(idx.reshape(-1), minlength=w.shape[0])
    for pos, i in np.ndenumerate(idx):
        grad[i] += dout[pos] / (counts[i] if scale else 1)
    if padding_idx is not None:
        grad[padding_idx] = 0
    return grad


@pytest.mark.parametrize("padding_idx,scale", [(None, False), (0, False), (-1, False),
                                               (None, True), (2, True)])
def test_embedding_gradient_honours_padding_idx_and_frequency_scaling(padding_idx, scale):
    rng = np.random.default_rng(4)
    w = rng.standard_normal((5, 3))
    idx = np.array([[0, 4, 4], [2, 0, 0]], np.int32)
    out = ops.embedding(Tensor(idx), Tensor(w), padding_idx, None, 2.0, scale)
    np.testing.assert_array_equal(out.asnumpy(), w[idx])  # forward is unchanged
    dout = rng.standard_normal(out.shape)
    grads = registry.load().bprop(M.Embedding)(Tensor(idx), Tensor(w), padding_idx, None, 2.0,
                                                scale, out=out, dout=Tensor(dout))
    assert grads[0] is None
    np.testing.assert_allclose(grads[1].asnumpy(), _embedding_grad(idx, w, dout, padding_idx,
                                                                   scale))


@pytest.mark.parametrize("norm_type", [1.0, 2.0, 3.0])
def test_embedding_max_norm_caps_row_norms(norm_type):
    w = np.array([[3.0, 4.0], [0.3, 0.4], [-6.0, 8.0]])
    out = ops.embedding(Tensor(np.array([0, 1, 2])), Tensor(w), max_norm=2.0,
                        norm_type=norm_type).asnumpy()
    norms = np.sum(np.abs(w) ** norm_type, axis=1) ** (1 / norm_type)
    want = w * np.where(norms > 2.0, 2.0 / (norms + 1e-7), 1.0)[:, None]
    np.testing.assert_allclose(out, want, rtol=1e-12)
    np.testing.assert_array_equal(w[1], out[1])


@pytest.mark.parametrize("call,exc,pattern", [
    (lambda w: ops.embedding(Tensor(np.array([0, 5])), w), ValueError,
     r"Embedding: .*input values must lie in \[0, 4\)"),
    (lambda w: ops.embedding(Tensor(np.array([0.0])), w), TypeError,
     r"Embedding: input 'input' has dtype Float64"),
    (lambda w: ops.embedding(Tensor(np.array([0])), Tensor(np.ones(4))), ValueError,
     r"Embedding: input 'weight' must be 2-d, got shape \(4,\)"),
    (lambda w: ops.embedding(Tensor(np.array([0])), w, padding_idx=4), ValueError,
     r"Embedding: padding_idx 4 is out of range for weight shape \(4, 3\)"),
    (lambda w: ops.embedding(Tensor(np.array([0])), w, max_norm=-1.0), ValueError,
     r"Embedding: 'max_norm' must be in \(0.0"),
    (lambda w: ops.embedding(Tensor(np.array([0])), w, scale_grad_by_freq=1), TypeError,
     r"Embedding: 'scale_grad_by_freq' must be a bool"),
    (lambda w: ops.EmbeddingLookup()(w, Tensor(np.array([0.5])), 0), TypeError,
     r"EmbeddingLookup: input 'input_indices' has dtype Float64"),
    (lambda w: ops.EmbeddingLookup()(w, Tensor(np.array([0])), 1.5), TypeError,
     r"EmbeddingLookup: 'offset' must be an int"),
    (lambda w: ops.unsorted_segment_sum(w, Tensor(np.array([0, 1])), 2), ValueError,
     r"UnsortedSegmentSum: segment_ids shape \(2,\) must be a prefix of input_x shape \(4, 3\)"),
    (lambda w: ops.unsorted_segment_sum(w, Tensor(np.zeros(4)), 2), TypeError,
     r"UnsortedSegmentSum: input 'segment_ids' has dtype Float64"),
    (lambda w: ops.unsorted_segment_sum(w, Tensor(np.zeros(4, np.int32)), 0), ValueError,
     r"UnsortedSegmentSum: 'num_segments' must be >= 1"),
])
def test_embedding_family_errors_name_the_operator(call, exc, pattern):
    with pytest.raises(exc, match=pattern):
        call(Tensor(np.ones((4, 3))))


def test_embedding_keeps_half_precision_weights():
    w = Tensor(np.ones((3, 2), np.float16))
    assert ops.embedding(Tensor(np.array([1, 2])), w).dtype == float16
