"""The nn group's names that MindSpore 2.10 has no CPU kernel for (RmsNorm, mse_loss_ext,
MultilabelMarginLoss, SoftMarginLoss, LogSoftmaxExt, NonMaxSuppressionV3,
ExtractImagePatches, DepthwiseConv2dNative ...) against numpy references, the gradients
of the compositions against finite differences, and their errors."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor

rng = np.random.default_rng(3)


def _t(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


def test_rms_norm_matches_numpy_and_differentiates():
    x, g = rng.standard_normal((2, 3, 4)), rng.standard_normal((3, 4))
    y, rstd = ops.RmsNorm(1e-5)(_t(x), _t(g))
    want_rstd = 1 / np.sqrt((x * x).mean((1, 2), keepdims=True) + 1e-5)
    np.testing.assert_allclose(rstd.asnumpy(), want_rstd, rtol=1e-5)
    np.testing.assert_allclose(y.asnumpy(), x * want_rstd * g, rtol=1e-5, atol=1e-6)
    check_grad(lambda a, b: ops.rms_norm(a, b)[0], x, g)
    with pytest.raises(ValueError, match="RmsNorm: gamma shape"):
        ops.rms_norm(_t(x), _t(np.ones(3)))


def test_mse_loss_ext_broadcasts_and_huber_differentiates():
    a, b = rng.standard_normal((2, 3)), rng.standard_normal(3)
    np.testing.assert_allclose(ops.mse_loss_ext(_t(a), _t(b), "none").asnumpy(), (a - b) ** 2,
                               rtol=1e-5)
    assert float(ops.mse_loss_ext(_t(a), _t(b))) == pytest.approx(((a - b) ** 2).mean(), 1e-5)
    check_grad(lambda u, v: ops.huber_loss(u, v, "sum", 0.7), a, a + rng.standard_normal((2, 3)))
    with pytest.raises(TypeError, match="mse_loss_ext: input must be float"):
        ops.mse_loss_ext(_t([1, 2], np.int32), _t([1.0, 2.0]))
    with pytest.raises(ValueError, match="huber_loss: delta"):
        ops.huber_loss(_t(a), _t(a), delta=0)


def _multilabel_ref(x, y):
    out = []
    for row, labels in zip(x, y):
        stop = np.flatnonzero(labels < 0)
        targets = labels[:stop[0] if stop.size else len(labels)]
        others = [i for i in range(len(row)) if i not in set(targets)]
        out.append(sum(max(0.0, 1 - (row[j] - row[i])) for j in targets for i in others)
                   / len(row))
    return np.array(out)


def test_multilabel_margin_loss_matches_its_definition():
    x = rng.standard_normal((3, 5))
    y = np.array([[3, 0, -1, 1, 2], [4, 4, 1, -1, 0], [0, 1, 2, 3, 4]], np.int32)
    got = ops.MultilabelMarginLoss("none")(_t(x), _t(y, np.int32))
    np.testing.assert_allclose(got.asnumpy(), _multilabel_ref(x, y), rtol=1e-5)
    assert float(ops.multilabel_margin_loss(_t(x), _t(y, np.int32))) == pytest.approx(
        _multilabel_ref(x, y).mean(), 1e-5)
    check_grad(lambda a: ops.multilabel_margin_loss(a, _t(y, np.int32), "sum"), x)
    with pytest.raises(ValueError, match=r"target values must be in \[-1, 5\)"):
        ops.multilabel_margin_loss(_t(x), _t(y + 3, np.int32))
    with pytest.raises(TypeError, match="target must be an int tensor"):
        ops.multilabel_margin_loss(_t(x), _t(y))


def test_class_forms_equal_the_functional_losses():
    a, b, c = (rng.standard_normal((2, 4)) for _ in range(3))
    sign = np.sign(rng.standard_normal((2, 4)))
    assert float(ops.SoftMarginLoss("sum")(_t(a), _t(sign))) == pytest.approx(
        np.log1p(np.exp(-sign * a)).sum(), 1e-5)
    got = ops.TripletMarginLoss(reduction="none")(_t(a), _t(b), _t(c), _t(0.5))
    want = np.maximum(np.linalg.norm(a - b + 1e-6, axis=1) -
                      np.linalg.norm(a - c + 1e-6, axis=1) + 0.5, 0)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)
    assert float(ops.L2Loss()(_t(a))) == pytest.approx((a * a).sum() / 2, 1e-5)


def test_log_softmax_ext_and_inplace_sigmoid():
    x = rng.standard_normal((2, 3))
    want = x - np.log(np.exp(x).sum(0, keepdims=True))
    np.testing.assert_allclose(ops.LogSoftmaxExt()(_t(x), 0).asnumpy(), want, rtol=1e-5)
    got = ops.LogSoftmaxExt()(_t(x), None, "float64")  # the call takes no keywords
    assert str(got.dtype) == "Float64"
    t = _t(x)
    assert ops.inplace_sigmoid(t) is t
    np.testing.assert_allclose(t.asnumpy(), 1 / (1 + np.exp(-x)), rtol=1e-6)


def test_channel_dropout_masks_whole_channels():
    x = np.ones((4, 6, 3, 3), np.float32)
    out, mask = ops.Dropout2D(0.5)(_t(x))
    m = mask.asnumpy()
    assert m.dtype == bool and m.shape == x.shape
    assert (m == m[:, :, :1, :1]).all()  # one draw per (sample, channel)
    np.testing.assert_allclose(out.asnumpy(), m * 2.0)
    out3, mask3 = ops.Dropout3D(1.0)(_t(np.ones((1, 2, 2, 2, 2))))
    assert mask3.asnumpy().all() and (out3.asnumpy() == 1).all()
    with pytest.raises(ValueError, match="Dropout2D: keep_prob"):
        ops.Dropout2D(1.5)(_t(x))
    with pytest.raises(ValueError, match="Dropout3D: x must be 5-d"):
        ops.Dropout3D()(_t(x))


def test_gumbel_softmax_rows_and_gradient():
    logits = rng.standard_normal((5, 4))
    soft = ops.gumbel_softmax(_t(logits), 0.5).asnumpy()
    np.testing.assert_allclose(soft.sum(-1), 1, rtol=1e-5)
    hard = ops.gumbel_softmax(_t(logits), hard=True, dim=0).asnumpy()
    assert ((hard == 0) | (hard == 1)).all() and (hard.sum(0) == 1).all()
    with pytest.raises(ValueError, match="gumbel_softmax: tau"):
        ops.gumbel_softmax(_t(logits), 0)
    with pytest.raises(TypeError, match="gumbel_softmax: logits must be float"):
        ops.gumbel_softmax(_t([1, 2], np.int32))


def test_clip_norms_match_numpy():
    a, b = rng.standard_normal((3, 4)) * 5, rng.standard_normal(6) * 5
    total = np.sqrt((a * a).sum() + (b * b).sum())
    got = ops.clip_by_norm([_t(a), _t(b)], 1.5)
    np.testing.assert_allclose(got[1].asnumpy(), b * 1.5 / (total + 1e-6), rtol=1e-5)
    l1 = ops.clip_by_norm(_t(a), 2.0, 1)
    np.testing.assert_allclose(l1.asnumpy(), a * 2.0 / (np.abs(a).sum() + 1e-6), rtol=1e-5)
    g = ops.clip_by_global_norm([_t(a), _t(b)], 2.0, use_norm=_t(4.0))
    np.testing.assert_allclose(g[0].asnumpy(), a * 0.5, rtol=1e-6)
    with pytest.raises(RuntimeError, match="not finite"):
        ops.clip_by_norm(_t([np.inf, 1.0]), 1.0, error_if_nonfinite=True)
    with pytest.raises(TypeError, match="clip_by_norm: x must be a Tensor"):
        ops.clip_by_norm(3.0, 1.0)


@pytest.mark.parametrize("offset,dim1,dim2", [(0, -2, -1), (2, 0, 2), (-1, 2, 0)])
def test_diag_embed_matches_numpy(offset, dim1, dim2):
    x = rng.standard_normal((2, 3))
    m = 3 + abs(offset)
    ref = np.zeros((2, m, m))
    for b in range(2):
        ref[b] = np.diag(x[b], offset)
    ref = np.moveaxis(ref, (1, 2), (dim1 % 3, dim2 % 3))
    np.testing.assert_allclose(ops.diag_embed(_t(x), offset, dim1, dim2).asnumpy(), ref,
                               rtol=1e-6)
    check_grad(lambda t: ops.diag_embed(t, offset, dim1, dim2), x)


def test_bias_lrn_mirror_shuffle_bidense_gradients():
    x = rng.standard_normal((2, 3, 2, 2))
    check_grad(lambda a, b: ops.BiasAdd()(a, b), x, rng.standard_normal(3))
    check_grad(lambda a: ops.lrn(a, 1, 1.0, 0.3, 0.75), x)
    check_grad(lambda a: ops.MirrorPad("SYMMETRIC")(a, Tensor([[0, 0], [0, 0], [1, 2], [2, 0]])),
               x)
    check_grad(lambda a: ops.channel_shuffle(a, 3), x)
    check_grad(lambda a, b, w: ops.bidense(a, b, w), rng.standard_normal((2, 3)),
               rng.standard_normal((2, 2)), rng.standard_normal((4, 3, 2)))
    with pytest.raises(ValueError, match="MirrorPad: paddings must be integers of shape"):
        ops.mirror_pad(_t(x), Tensor([[1, 1]]), "REFLECT")
    with pytest.raises(ValueError, match="ChannelShuffle: x must have rank >= 3"):
        ops.ChannelShuffle(2)(_t(x[:, :, 0]))
    with pytest.raises(ValueError, match="LRN: x must be 4-d"):
        ops.LRN()(_t(x[0]))


def _patches_ref(x, k, s, r):
    """TensorFlow's ExtractImagePatches (VALID), depth ordered (row, column, channel)."""
    n, c, h, w = x.shape
    oh, ow = (h - r[0] * (k[0] - 1) - 1) // s[0] + 1, (w - r[1] * (k[1] - 1) - 1) // s[1] + 1
    out = np.zeros((n, k[0] * k[1] * c, oh, ow))
    for i in range(k[0]):
        for j in range(k[1]):
            for ch in range(c):
                rows = slice(i * r[0], i * r[0] + s[0] * (oh - 1) + 1, s[0])
                cols = slice(j * r[1], j * r[1] + s[1] * (ow - 1) + 1, s[1])
                out[:, (i * k[1] + j) * c + ch] = x[:, ch, rows, cols]
    return out


def test_extract_image_patches_and_depthwise_conv_match_numpy():
    x = rng.standard_normal((2, 3, 7, 6))
    got = ops.ExtractImagePatches((1, 1, 2, 3), (1, 1, 2, 1), (1, 1, 2, 1), "VALID")(_t(x))
    np.testing.assert_allclose(got.asnumpy(), _patches_ref(x, (2, 3), (2, 1), (2, 1)),
                               rtol=1e-6)
    same = ops.ExtractImagePatches(3, 2, 1, "SAME")(_t(x))
    assert same.shape == (2, 27, 4, 3)
    w = rng.standard_normal((2, 3, 3, 3))
    out = ops.DepthwiseConv2dNative(2, 3, pad_mode="pad", pad=1)(_t(x), _t(w))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((2, 6, 7, 6))
    for c in range(3):
        for m in range(2):
            for i in range(7):
                for j in range(6):
                    ref[:, c * 2 + m, i, j] = (xp[:, c, i:i + 3, j:j + 3] * w[m, c]).sum((1, 2))
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-4, atol=1e-5)
    with pytest.raises(ValueError, match="DepthwiseConv2dNative: weight shape"):
        ops.DepthwiseConv2dNative(1, 3)(_t(x), _t(w))
    pooled = ops.adaptive_avg_pool2d_ext(_t(x), (1, 2)).asnumpy()
    np.testing.assert_allclose(pooled[..., 0, 0], x[..., :3].mean((2, 3)), rtol=1e-5)


def _greedy_ref(boxes, scores, limit, iou_thr, score_thr):
    keep = []
    for i in sorted(range(len(scores)), key=lambda k: (-scores[k], k)):
        if scores[i] <= score_thr or len(keep) == limit:
            continue
        ok = True
        for j in keep:
            y1, x1 = max(boxes[i, 0], boxes[j, 0]), max(boxes[i, 1], boxes[j, 1])
            y2, x2 = min(boxes[i, 2], boxes[j, 2]), min(boxes[i, 3], boxes[j, 3])
            inter = max(y2 - y1, 0) * max(x2 - x1, 0)
            area = [(b[2] - b[0]) * (b[3] - b[1]) for b in (boxes[i], boxes[j])]
            ok &= inter / (area[0] + area[1] - inter) <= iou_thr
        if ok:
            keep.append(i)
    return keep


def test_non_max_suppression_v3_matches_greedy_reference():
    corner = rng.uniform(0, 8, (12, 2))
    boxes = np.concatenate([corner, corner + rng.uniform(1, 4, (12, 2))], 1)
    scores = rng.uniform(0, 1, 12)
    for limit, thr, smin in ((5, 0.3, 0.0), (12, 0.6, 0.4), (0, 0.5, 0.0)):
        got = ops.NonMaxSuppressionV3()(_t(boxes), _t(scores), Tensor(limit), _t(thr), _t(smin))
        assert str(got.dtype) == "Int32"
        assert got.asnumpy().tolist() == _greedy_ref(boxes, scores, limit, thr, smin)
    flipped = boxes[:, [2, 3, 0, 1]]  # corners in either order
    assert ops.NonMaxSuppressionV3()(_t(flipped), _t(scores), Tensor(5), _t(0.3), _t(0.0)
                                     ).asnumpy().tolist() == _greedy_ref(boxes, scores, 5, 0.3, 0)
    with pytest.raises(ValueError, match="NonMaxSuppressionV3: scores must be a"):
        ops.NonMaxSuppressionV3()(_t(boxes), _t(scores[:3]), Tensor(2), _t(0.5), _t(0.0))


def test_tensor_patch_methods_equal_the_functions():
    x = _t(rng.standard_normal((1, 2, 4, 6)))
    cols = x.unfold((2, 3), stride=(2, 3))
    np.testing.assert_array_equal(cols.asnumpy(), ops.unfold(x, (2, 3), stride=(2, 3)).asnumpy())
    back = cols.fold(Tensor([4, 6]), (2, 3), stride=(2, 3))  # non-overlapping: the identity
    np.testing.assert_array_equal(back.asnumpy(), x.asnumpy())
    four = ops.reshape(cols, (1, 2, 6, 4))
    np.testing.assert_array_equal(four.col2im(Tensor([4, 6]), (2, 3), 1, 0, (2, 3)).asnumpy(),
                                  x.asnumpy())


@pytest.mark.parametrize("pseudo,overlap", [(False, False), (True, False), (True, True)])
def test_fractional_max_pool_pools_over_the_sequences_it_returns(pseudo, overlap):
    x = rng.standard_normal((2, 9, 7, 3))
    y, rows, cols = ops.FractionalMaxPool([1.0, 1.7, 1.4, 1.0], pseudo, overlap, False, 5)(_t(x))
    r, c = rows.asnumpy(), cols.asnumpy()
    assert y.shape == (2, 5, 5, 3) and r[0] == 0 and r[-1] == 9 and c[-1] == 7
    assert set(np.diff(r)) <= {1, 2} and set(np.diff(c)) <= {1, 2}
    extra = 1 if overlap else 0
    for i in range(5):
        for j in range(5):
            box = x[:, r[i]:min(r[i + 1] + extra, 9), c[j]:min(c[j + 1] + extra, 7)]
            np.testing.assert_allclose(y.asnumpy()[:, i, j], box.max((1, 2)), rtol=1e-6)
    check_grad(lambda a: ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0], pseudo, overlap, False,
                                               3)(a)[0], rng.standard_normal((1, 4, 4, 1)))
    with pytest.raises(ValueError, match="FractionalMaxPool: pooling_ratio must be"):
        ops.FractionalMaxPool([2.0, 1.5, 1.5, 1.0])(_t(x))
