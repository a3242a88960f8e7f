import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import nn_loss as L
from ms_ops.defs import nn_loss_elementwise as LE
from ms_ops.kernels import _loss
from ms_ops.testing import check_against_reference, check_bprop
from ms_tensor import Tensor, float16, float32, float64


def _data(shape, k=0.7, off=0.0, dtype=np.float32):
    """Deterministic inputs that real MindSpore was run on (the *_matches_mindspore tests)."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * k + off) * 2).reshape(shape).astype(dtype)


def _mindspore_case():
    """The inputs of the MindSpore 2.x CPU runs whose outputs the tests below quote."""
    np.random.seed(0)
    x = np.random.randn(3, 4).astype(np.float32)
    probs = np.random.rand(3, 4).astype(np.float32)
    probs /= probs.sum(1, keepdims=True)
    return (x, probs, np.array([1, 0, 3], np.int32), np.array([1.0, 2.0, 0.5, 1.5], np.float32))


def _log_softmax(x):
    x = x.astype(np.float64)
    s = x - x.max(axis=-1, keepdims=True)
    return s - np.log(np.exp(s).sum(axis=-1, keepdims=True))


# -- SoftmaxCrossEntropyWithLogits / SparseSoftmaxCrossEntropyWithLogits --------------------
def test_softmax_cross_entropy_matches_numpy_and_mindspore():
    x, probs, _, _ = _mindspore_case()
    loss, backprop = ops.SoftmaxCrossEntropyWithLogits()(Tensor(x), Tensor(probs))
    assert loss.shape == (3,) and backprop.shape == (3, 4) and loss.dtype == float32
    np.testing.assert_allclose(loss.asnumpy(), [1.9736369, 2.3988843, 1.5868859], rtol=1e-6)
    np.testing.assert_allclose(loss.asnumpy(), -(probs * _log_softmax(x)).sum(1), rtol=1e-6)
    np.testing.assert_allclose(backprop.asnumpy(), np.exp(_log_softmax(x)) - probs, atol=1e-7)


def test_softmax_cross_entropy_is_stable_for_huge_logits():
    x = np.array([[1000.0, 0.0, -1000.0], [-5e4, -5e4, -5e4]], np.float32)
    labels = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 0.0]], np.float32)
    loss, backprop = ops.SoftmaxCrossEntropyWithLogits()(Tensor(x), Tensor(labels))
    np.testing.assert_allclose(loss.asnumpy(), [1000.0, np.log(3)], rtol=1e-6)
    np.testing.assert_allclose(backprop.asnumpy()[0], [1.0, -1.0, 0.0], atol=1e-7)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_cross_entropy_masked_logits_get_zero_probability_and_nan_propagates(dtype):
    x = np.array([[0.0, -np.inf, 1.0], [np.nan, 0.0, 0.0]], dtype)
    labels = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]], dtype)
    loss, backprop = _loss.softmax_cross_entropy(x, labels)
    p = np.exp([0.0, 1.0]) / np.exp([0.0, 1.0]).sum()
    np.testing.assert_allclose(backprop[0], [p[0] - 1.0, 0.0, p[1]], rtol=1e-6)
    # 0 * log(0) is NaN in the dense loss, as in MindSpore 2.x (and in numpy)
    assert np.isnan(loss).all()
    sparse = _loss.sparse_softmax_cross_entropy(x[:1], np.array([0], np.int32), False)
    np.testing.assert_allclose(sparse, -np.log(p[0]), rtol=1e-6)  # MindSpore: 1.3132629


def test_sparse_softmax_cross_entropy_matches_mindspore_and_numpy():
    x, _, t, _ = _mindspore_case()
    loss = ops.SparseSoftmaxCrossEntropyWithLogits()(Tensor(x), Tensor(t))
    assert loss.shape == () and loss.dtype == float32
    np.testing.assert_allclose(loss.asnumpy(), 1.2114677, rtol=1e-6)
    grad = ops.SparseSoftmaxCrossEntropyWithLogits(is_grad=True)(Tensor(x), Tensor(t))
    np.testing.assert_allclose(grad.asnumpy()[0], [0.10032254, -0.3076846, 0.0457447, 0.16161734],
                               rtol=1e-5)
    xs, ts = _data((5, 7), 1.1), np.array([0, 6, 3, 3, 1], np.int64)
    loss = ops.SparseSoftmaxCrossEntropyWithLogits()(Tensor(xs), Tensor(ts))
    np.testing.assert_allclose(loss.asnumpy(), 1.8349237, rtol=1e-6)


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("shape", [(1, 1), (7, 3), (64, 1000)])
def test_softmax_cross_entropy_cython_matches_numpy_reference(shape, dtype, tol):
    rng = np.random.default_rng(0)
    x = (rng.standard_normal(shape) * 5).astype(dtype)
    labels = rng.uniform(0, 1, shape).astype(dtype)
    check_against_reference(_loss.softmax_cross_entropy, L.softmax_cross_entropy_reference,
                            x, labels, rtol=tol, atol=tol)
    for label_dtype in (np.int32, np.int64):
        t = rng.integers(0, shape[1], shape[0]).astype(label_dtype)
        for is_grad in (False, True):
            check_against_reference(_loss.sparse_softmax_cross_entropy,
                                    L.sparse_softmax_cross_entropy_reference, x, t, is_grad,
                                    rtol=tol, atol=tol)
    assert _loss.softmax_cross_entropy(x, labels)[0].dtype == dtype


def test_softmax_cross_entropy_float16_computes_in_float32():
    x, probs, t, _ = _mindspore_case()
    loss, backprop = ops.SoftmaxCrossEntropyWithLogits()(Tensor(x.astype(np.float16)),
                                                         Tensor(probs.astype(np.float16)))
    assert loss.dtype == float16 and backprop.dtype == float16
    np.testing.assert_allclose(loss.asnumpy(), [1.9736369, 2.3988843, 1.5868859], rtol=2e-3)
    sparse = ops.SparseSoftmaxCrossEntropyWithLogits()(Tensor(x.astype(np.float16)), Tensor(t))
    assert sparse.dtype == float16


def test_softmax_cross_entropy_gradient_holds_for_unnormalized_labels():
    rng = np.random.default_rng(1)
    check_bprop(L.SoftmaxCrossEntropyWithLogits, rng.standard_normal((3, 4)),
                rng.uniform(0, 1, (3, 4)))


@pytest.mark.parametrize("is_grad", [False, True])
def test_sparse_softmax_cross_entropy_gradients(is_grad):
    rng = np.random.default_rng(2)
    check_bprop(L.SparseSoftmaxCrossEntropyWithLogits, rng.standard_normal((4, 5)),
                np.array([0, 4, 2, 2]), attrs={"is_grad": is_grad})


def test_softmax_cross_entropy_rejects_label_shape_mismatch():
    x = Tensor(np.ones((3, 4), np.float32))
    with pytest.raises(ValueError, match=r"SoftmaxCrossEntropyWithLogits: labels shape \(3, 5\) "
                                         r"must equal logits shape \(3, 4\)"):
        ops.SoftmaxCrossEntropyWithLogits()(x, Tensor(np.ones((3, 5), np.float32)))
    with pytest.raises(ValueError, match=r"SoftmaxCrossEntropyWithLogits: input 'logits' must be "
                                         r"2-d, got shape \(2, 3, 4\)"):
        ops.SoftmaxCrossEntropyWithLogits()(Tensor(np.ones((2, 3, 4), np.float32)),
                                            Tensor(np.ones((2, 3, 4), np.float32)))
    with pytest.raises(ValueError, match=r"SparseSoftmaxCrossEntropyWithLogits: labels shape "
                                         r"\(4,\) must be \(N,\) = \(3,\) for logits shape "
                                         r"\(3, 4\)"):
        ops.SparseSoftmaxCrossEntropyWithLogits()(x, Tensor(np.zeros(4, np.int32)))


def test_sparse_softmax_cross_entropy_rejects_float_and_out_of_range_labels():
    x = Tensor(np.ones((3, 4), np.float32))
    with pytest.raises(TypeError, match="SparseSoftmaxCrossEntropyWithLogits: input 'labels' has "
                                        "dtype Float32"):
        ops.SparseSoftmaxCrossEntropyWithLogits()(x, Tensor(np.zeros(3, np.float32)))
    with pytest.raises(ValueError, match=r"SparseSoftmaxCrossEntropyWithLogits: .*labels must "
                                          r"lie in \[0, 4\), got 7 at index \(2,\)"):
        ops.SparseSoftmaxCrossEntropyWithLogits()(x, Tensor(np.array([1, 0, 7], np.int32)))
    with pytest.raises(ValueError, match=r"labels must lie in \[0, 4\), got -1"):
        ops.SparseSoftmaxCrossEntropyWithLogits()(x, Tensor(np.array([-1, 0, 1], np.int32)))


# -- NLLLoss ---------------------------------------------------------------------------------
@pytest.mark.parametrize("reduction,ignore,want_loss,want_total", [
    ("mean", -100, -1.07762, 4.5),
    ("sum", 0, -2.98172, 3.5),
    ("none", -100, [-0.800314426, -1.867558, -2.18141031], 4.5),
])
def test_nll_loss_matches_mindspore(reduction, ignore, want_loss, want_total):
    x, _, t, w = _mindspore_case()
    loss, total = ops.NLLLoss(reduction, ignore)(Tensor(x), Tensor(t), Tensor(w))
    np.testing.assert_allclose(loss.asnumpy(), want_loss, rtol=1e-5)
    assert total.shape == () and float(total.asnumpy()) == want_total


def test_nll_loss_takes_extra_dimensions():
    rng = np.random.default_rng(3)
    x = rng.standard_normal((2, 3, 4, 5))
    t = rng.integers(0, 3, (2, 4, 5))
    t[0, 0, 0] = -100
    w = rng.uniform(0.5, 2, 3)
    loss, total = ops.NLLLoss("none")(Tensor(x), Tensor(t), Tensor(w))
    picked = np.take_along_axis(x, np.maximum(t, 0)[:, None], 1)[:, 0]
    want = -w[np.maximum(t, 0)] * picked * (t != -100)
    np.testing.assert_allclose(loss.asnumpy(), want, rtol=1e-12)
    np.testing.assert_allclose(total.asnumpy(), (w[np.maximum(t, 0)] * (t != -100)).sum())


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_nll_loss_and_its_grad_gradients(reduction):
    rng = np.random.default_rng(4)
    t, w = np.array([1, 0, 3, 2]), rng.uniform(0.5, 2, 4)
    attrs = {"reduction": reduction, "ignore_index": 2}
    check_bprop(L.NLLLoss, rng.standard_normal((4, 4)), t, w, attrs=attrs)
    total = L.NLLLoss(Tensor(rng.standard_normal((4, 4))), Tensor(t), Tensor(w), **attrs)[1]
    loss_grad = rng.standard_normal((4,) if reduction == "none" else ())
    check_bprop(L.NLLLossGrad, rng.standard_normal((4, 4)), loss_grad, t, w, total.asnumpy(),
                attrs=attrs)


def test_nll_loss_rejects_mismatched_shapes_and_bad_reduction():
    x = Tensor(np.ones((3, 4), np.float32))
    w = Tensor(np.ones(4, np.float32))
    with pytest.raises(ValueError, match=r"NLLLoss: labels shape \(2,\) must be \(3,\) for logits "
                                         r"shape \(3, 4\)"):
        ops.NLLLoss()(x, Tensor(np.zeros(2, np.int32)), w)
    with pytest.raises(ValueError, match=r"NLLLoss: weight shape \(3,\) must be \(4,\)"):
        ops.NLLLoss()(x, Tensor(np.zeros(3, np.int32)), Tensor(np.ones(3, np.float32)))
    with pytest.raises(ValueError, match="NLLLoss: reduction must be 'none', 'mean' or 'sum', "
                                         "got 'avg'"):
        ops.NLLLoss("avg")(x, Tensor(np.zeros(3, np.int32)), w)


# -- BinaryCrossEntropy, BCEWithLogitsLoss, SmoothL1Loss ---------------------------------------
def test_binary_cross_entropy_matches_mindspore_including_clamped_logs():
    p = Tensor(np.array([0.0, 0.3, 1.0, 0.7], np.float32))
    y = Tensor(np.array([0.0, 1.0, 0.0, 1.0], np.float32))
    loss = ops.BinaryCrossEntropy("none")(p, y, Tensor(np.ones(4, np.float32)))
    np.testing.assert_allclose(loss.asnumpy(), [0.0, 1.2039728, 27.631021, 0.35667497], rtol=1e-6)
    np.testing.assert_allclose(ops.binary_cross_entropy(p, y).asnumpy(), 7.2979174, rtol=1e-6)


def test_bce_with_logits_matches_mindspore_and_survives_large_logits():
    x, probs, _, w = _mindspore_case()
    loss = ops.BCEWithLogitsLoss("none")(Tensor(x), Tensor(probs), Tensor(np.ones((3, 4),
                                                                                  np.float32)),
                                         Tensor(w))
    np.testing.assert_allclose(loss.asnumpy()[0], [1.3155634, 0.9763145, 1.248812, 2.226435],
                               rtol=1e-6)
    big = ops.binary_cross_entropy_with_logits(Tensor(np.array([200.0, -200.0], np.float32)),
                                               Tensor(np.array([0.0, 1.0], np.float32)),
                                               reduction="none")
    np.testing.assert_allclose(big.asnumpy(), [200.0, 200.0], rtol=1e-6)


def test_smooth_l1_loss_matches_mindspore():
    x, probs, _, _ = _mindspore_case()
    loss = ops.SmoothL1Loss(beta=0.5)(Tensor(x), Tensor(probs))
    np.testing.assert_allclose(loss.asnumpy()[0], [1.1701595, 0.025663046, 0.68573296, 1.9381452],
                               rtol=1e-6)
    mean = ops.smooth_l1_loss(Tensor(x), Tensor(probs), reduction="mean")
    np.testing.assert_allclose(mean.asnumpy(), 0.5295933, rtol=1e-6)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_elementwise_loss_gradients(reduction):
    rng = np.random.default_rng(5)
    attrs = {"reduction": reduction}
    check_bprop(LE.BinaryCrossEntropy, rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0, 1, (3, 4)),
                rng.uniform(0.5, 1, (4,)), attrs=attrs)
    check_bprop(LE.BCEWithLogitsLoss, rng.standard_normal((3, 4)), rng.uniform(0, 1, (3, 4)),
                rng.uniform(0.5, 1, (4,)), rng.uniform(0.5, 2, (3, 1)), attrs=attrs)
    check_bprop(LE.SmoothL1Loss, rng.standard_normal((3, 4)), rng.standard_normal((3, 4)),
                attrs=dict(attrs, beta=0.7))


def test_elementwise_losses_reject_mismatched_shapes():
    a, b = Tensor(np.ones((2, 3), np.float32)), Tensor(np.ones((3, 2), np.float32))
    with pytest.raises(ValueError, match=r"BinaryCrossEntropy: labels shape \(3, 2\) must equal "
                                         r"logits shape \(2, 3\)"):
        ops.BinaryCrossEntropy()(a, b, a)
    with pytest.raises(ValueError, match=r"BCEWithLogitsLoss: pos_weight shape \(2,\) and logits "
                                         r"shape \(2, 3\) cannot be broadcast"):
        ops.BCEWithLogitsLoss()(a, a, a, Tensor(np.ones(2, np.float32)))
    with pytest.raises(ValueError, match=r"SmoothL1Loss: labels shape \(3, 2\) must equal"):
        ops.SmoothL1Loss()(a, b)
    with pytest.raises(ValueError, match="SmoothL1Loss: beta must be a number > 0, got 0.0"):
        ops.SmoothL1Loss(beta=0.0)(a, a)


# -- functional losses ------------------------------------------------------------------------
def test_cross_entropy_with_class_indices_matches_mindspore():
    x, _, t, w = _mindspore_case()
    x, t, w = Tensor(x), Tensor(t), Tensor(w)
    cases = [({}, 1.2114674), ({"weight": w, "label_smoothing": 0.1}, 1.451685),
             ({"ignore_index": 0}, 1.5851858),
             ({"weight": w, "ignore_index": 1, "label_smoothing": 0.2}, 0.8157476)]
    for kwargs, want in cases:
        np.testing.assert_allclose(ops.cross_entropy(x, t, **kwargs).asnumpy(), want, rtol=1e-6,
                                   err_msg=str(kwargs))


def test_cross_entropy_with_probabilities_matches_mindspore():
    x, probs, _, w = _mindspore_case()
    np.testing.assert_allclose(ops.cross_entropy(Tensor(x), Tensor(probs)).asnumpy(), 1.9864688,
                               rtol=1e-6)
    loss = ops.cross_entropy(Tensor(x), Tensor(probs), Tensor(w), label_smoothing=0.1,
                             reduction="none")
    np.testing.assert_allclose(loss.asnumpy(), [3.2586446, 3.6330814, 1.9429557], rtol=1e-6)


def test_cross_entropy_over_extra_dimensions_and_single_samples_matches_mindspore():
    x = Tensor(_data((2, 3, 2, 2), 1.3))
    t = Tensor(np.array([[[0, 2], [1, 1]], [[2, 0], [0, 1]]], np.int32))
    np.testing.assert_allclose(ops.cross_entropy(x, t).asnumpy(), 1.7690854, rtol=1e-6)
    loss = ops.cross_entropy(x, t, Tensor(np.array([1.0, 2.0, 0.5], np.float32)),
                             reduction="none", label_smoothing=0.1)
    np.testing.assert_allclose(loss.asnumpy(), [[[0.4593626, 1.839251], [1.0629597, 3.1044688]],
                                                [[0.5767964, 3.574907], [1.2346071, 4.1793685]]],
                               rtol=1e-5)
    one = ops.cross_entropy(Tensor(_data((4,))), Tensor(np.array(2, np.int32)))
    np.testing.assert_allclose(one.asnumpy(), 0.88699067, rtol=1e-6)


def test_nll_loss_label_smoothing_matches_mindspore():
    x, _, t, w = _mindspore_case()
    loss = ops.nll_loss(Tensor(x), Tensor(t), Tensor(w), label_smoothing=0.1)
    np.testing.assert_allclose(loss.asnumpy(), -1.0228982, rtol=1e-6)
    loss = ops.nll_loss(Tensor(x), Tensor(t), ignore_index=3, reduction="none",
                        label_smoothing=0.1)
    np.testing.assert_allclose(loss.asnumpy(), [-0.4947375, -1.7230273, 0.0], rtol=1e-6)


@pytest.mark.parametrize("reduction,ref", [("mean", np.mean), ("sum", np.sum),
                                           ("none", lambda v: v)])
def test_mse_and_l1_loss_match_numpy_with_broadcasting(reduction, ref):
    rng = np.random.default_rng(6)
    a, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(ops.mse_loss(Tensor(a), Tensor(b), reduction).asnumpy(),
                               ref((a - b) ** 2), rtol=1e-6)
    np.testing.assert_allclose(ops.l1_loss(Tensor(a), Tensor(b), reduction).asnumpy(),
                               ref(np.abs(a - b)), rtol=1e-6)


def test_mse_and_l1_match_mindspore():
    x, probs, _, _ = _mindspore_case()
    np.testing.assert_allclose(ops.mse_loss(Tensor(x), Tensor(probs)).asnumpy(), 1.2643095,
                               rtol=1e-6)
    np.testing.assert_allclose(ops.l1_loss(Tensor(x), Tensor(probs), "sum").asnumpy(), 10.789895,
                               rtol=1e-6)


def test_functional_losses_reject_unknown_reduction_naming_the_function():
    a = Tensor(np.ones(3, np.float32))
    for fn in (ops.mse_loss, ops.l1_loss, ops.binary_cross_entropy, ops.smooth_l1_loss):
        with pytest.raises(ValueError, match=f"{fn.__name__}: reduction must be 'none', 'mean' "
                                             "or 'sum', got 'avg'"):
            fn(a, a, reduction="avg")


def test_cross_entropy_rejects_probability_target_of_another_shape():
    with pytest.raises(ValueError, match=r"cross_entropy: class-probability target shape "
                                         r"\(3, 5\) must equal input shape \(3, 4\)"):
        ops.cross_entropy(Tensor(np.ones((3, 4), np.float32)), Tensor(np.ones((3, 5), np.float32)))


def test_losses_keep_float64():
    x, probs, t, w = (a.astype(np.float64) if a.dtype == np.float32 else a.astype(np.int64)
                      for a in _mindspore_case())
    assert ops.SoftmaxCrossEntropyWithLogits()(Tensor(x), Tensor(probs))[0].dtype == float64
    assert ops.cross_entropy(Tensor(x), Tensor(t)).dtype == float64
    assert ops.NLLLoss()(Tensor(x), Tensor(t), Tensor(w))[0].dtype == float64
