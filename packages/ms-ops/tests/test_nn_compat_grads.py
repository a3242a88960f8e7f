"""Gradients of the nn group's compositions (3-d convolution/pooling classes, Resize*,
GridSampler3D, box coding, ROIAlign, CropAndResize, CTC) against finite differences, and
the errors they raise for bad input. Their values are compared with MindSpore 2.10 in
``test_nn_compat_vs_mindspore.py``."""

import numpy as np
import pytest

import ms_ops as ops
from ms_autodiff import grad
from ms_autodiff.testing import check_grad
from ms_tensor import Tensor

rng = np.random.default_rng(5)


def _t(a, dtype=np.float32):
    return Tensor(np.asarray(a, dtype))


def test_3d_convolution_and_pooling_classes_differentiate():
    x = rng.standard_normal((1, 2, 3, 4, 3))
    check_grad(lambda a, w: ops.Conv3D(2, 2, pad_mode="same")(a, w), x,
               rng.standard_normal((2, 2, 2, 2, 2)))
    check_grad(lambda a, w: ops.Conv3DTranspose(2, 2, 2, pad_mode="pad", pad=1, stride=2,
                                                output_padding=1)(a, w),
               x, rng.standard_normal((2, 2, 2, 2, 2)))
    check_grad(lambda a: ops.AvgPool3D(2, 2, pad_mode="same", count_include_pad=False)(a), x)
    check_grad(lambda a: ops.MaxPool3D(2, 1, "SAME")(a), x)


def test_3d_classes_reject_bad_arguments():
    x = _t(np.ones((1, 2, 3, 3, 3)))
    with pytest.raises(ValueError, match=r"Conv3D: weight shape \(3, 2, 1, 1, 1\) must be"):
        ops.Conv3D(4, 1)(x, _t(np.ones((3, 2, 1, 1, 1))))
    with pytest.raises(ValueError, match="AvgPool3D: pad_mode"):
        ops.AvgPool3D(2, 2, pad_mode="full")(x)
    with pytest.raises(ValueError, match="MaxPool3D: pad must be 0 unless pad_mode is 'pad'"):
        ops.MaxPool3D(2, 2, "SAME", 1)(x)
    with pytest.raises(ValueError, match="must be a 5-d Tensor"):
        ops.MaxPool3DWithArgmax(2, 2, 0)(_t(np.ones((2, 3, 3))))
    with pytest.raises(TypeError, match="argmax_type must be int32 or int64"):
        ops.MaxPool3DWithArgmax(2, 2, 0, argmax_type="float32")(x)


def test_resize_classes_differentiate_and_check_arguments():
    x = rng.standard_normal((1, 2, 3, 4))
    check_grad(lambda a: ops.ResizeBilinearV2(False, True)(a, (5, 3)), x)
    check_grad(lambda a: ops.ResizeBicubic(True)(a, Tensor([4, 6])), x)
    check_grad(lambda a: ops.ResizeLinear1D("half_pixel")(a, Tensor([7])), x[:, :, 0])
    with pytest.raises(ValueError, match="cannot both be True"):
        ops.ResizeBilinearV2(True, True)(_t(x), (2, 2))
    with pytest.raises(ValueError, match="ResizeNearestNeighborV2: size must hold 2"):
        ops.ResizeNearestNeighborV2()(_t(x), Tensor([3]))
    with pytest.raises(TypeError, match="ResizeBicubic: input must be float"):
        ops.ResizeBicubic()(_t(x, np.int32), (2, 2))
    with pytest.raises(ValueError, match="UpsampleTrilinear3D: exactly one of"):
        ops.UpsampleTrilinear3D()(_t(np.ones((1, 1, 2, 2, 2))), (3, 3, 3), (2.0, 2.0, 2.0))


def test_grid_sampler3d_and_affine_grid_differentiate():
    x = rng.standard_normal((1, 2, 3, 3, 4))
    grid = rng.uniform(-1.1, 1.1, (1, 2, 2, 2, 3))
    check_grad(lambda a, g: ops.GridSampler3D("bilinear", "border")(a, g), x, grid)
    check_grad(lambda th: ops.affine_grid(th, (2, 1, 3, 2), True), rng.standard_normal((2, 2, 3)))
    eye = _t(np.eye(3, 4)[None])
    identity = ops.affine_grid(eye, (1, 1, 2, 3, 2), True)
    sampled = ops.GridSampler3D("bilinear", "zeros", True)(_t(x[:, :, :2, :3, :2]), identity)
    np.testing.assert_allclose(sampled.asnumpy(), x[:, :, :2, :3, :2], rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match=r"AffineGrid: theta shape \(1, 2, 3\) must be"):
        ops.AffineGrid()(_t(np.ones((1, 2, 3))), (1, 1, 2, 2, 2))


def test_box_coding_differentiates_and_round_trips():
    corner = rng.uniform(0, 20, (5, 2))
    anchors = np.concatenate([corner, corner + rng.uniform(2, 8, (5, 2))], 1)
    corner = rng.uniform(0, 20, (5, 2))
    truth = np.concatenate([corner, corner + rng.uniform(2, 8, (5, 2))], 1)
    deltas = ops.bounding_box_encode(_t(anchors), _t(truth), (0.1, 0, 0, 0), (0.1, 0.1, 0.2, 0.2))
    back = ops.bounding_box_decode(_t(anchors), deltas, (100, 100), (0.1, 0, 0, 0),
                                   (0.1, 0.1, 0.2, 0.2))
    np.testing.assert_allclose(back.asnumpy(), truth, rtol=1e-4, atol=1e-3)
    check_grad(lambda a, b: ops.iou(a, b), anchors, truth + 0.5)
    check_grad(lambda a, d: ops.bounding_box_decode(a, d, (100, 100)), anchors,
               rng.standard_normal((5, 4)) * 0.1)
    with pytest.raises(ValueError, match="IOU: mode must be"):
        ops.IOU("giou")(_t(anchors), _t(truth))
    with pytest.raises(ValueError, match="BoundingBoxEncode: anchor_box"):
        ops.bounding_box_encode(_t(anchors[:3]), _t(truth))


def test_nms_with_mask_sorts_and_differentiates_the_boxes():
    boxes = np.array([[0, 0, 10, 10, 0.6], [1, 1, 11, 11, 0.9], [20, 20, 30, 30, 0.5]])
    out, index, mask = ops.NMSWithMask(0.5)(_t(boxes))
    np.testing.assert_allclose(out.asnumpy(), boxes[[1, 0, 2]], rtol=1e-6)
    assert index.asnumpy().tolist() == [0, 1, 2] and mask.asnumpy().tolist() == [True, False, True]
    g = grad(lambda b: ops.sum(ops.NMSWithMask(0.5)(b)[0][0]))(_t(boxes))
    assert g.asnumpy()[1].tolist() == [1.0] * 5 and g.asnumpy()[[0, 2]].sum() == 0
    with pytest.raises(ValueError, match=r"NMSWithMask: bboxes must be \(N, 5\)"):
        ops.NMSWithMask()(_t(np.ones((3, 6))))


def test_roi_align_and_crop_and_resize_differentiate_to_the_features():
    feat = rng.standard_normal((2, 2, 5, 6))
    rois = _t([[0, 0.5, 1.0, 4.2, 3.9], [1, 2.0, 0.0, 5.0, 4.0]])
    check_grad(lambda f: ops.ROIAlign(2, 2, 1.0, 2)(f, rois), feat)
    check_grad(lambda f: ops.ROIAlign(2, 3, 0.5, 0, 0)(f, rois), feat)
    image = rng.standard_normal((2, 5, 6, 2))
    boxes = _t([[0.1, 0.0, 0.9, 0.7], [-0.2, 0.3, 0.8, 1.1]])
    check_grad(lambda im: ops.crop_and_resize(im, boxes, Tensor([1, 0]), (3, 4)), image,
               eps=1e-2, rtol=1e-3, atol=1e-3)
    with pytest.raises(ValueError, match=r"ROIAlign: rois' batch indices must be in \[0, 2\)"):
        ops.ROIAlign(2, 2, 1.0)(_t(feat), _t([[2, 0, 0, 1, 1]]))
    with pytest.raises(ValueError, match="CropAndResize: method must be"):
        ops.CropAndResize("bicubic")(_t(image), boxes, Tensor([0, 0]), (2, 2))


def test_ctc_gradients_are_the_derivatives_of_the_losses():
    logits = rng.standard_normal((5, 2, 4))
    targets, in_len, tg_len = Tensor([[1, 2], [3, 3]]), Tensor([5, 4]), Tensor([2, 2])
    check_grad(lambda z: ops.ctc_loss(ops.log_softmax(z, -1), targets, in_len, tg_len)[0],
               logits)
    index, values = Tensor(np.array([[0, 0], [0, 1], [1, 0]], np.int64)), Tensor([1, 1, 0])
    check_grad(lambda z: ops.CTCLoss()(z, index, values, in_len)[0], logits)
    z = _t(logits, np.float64)
    taped = grad(lambda a: ops.sum(ops.CTCLoss()(a, index, values, in_len)[0]))(z)
    recorded = ops.CTCLoss()(z, index, values, in_len)[1]  # the operator's second output
    np.testing.assert_allclose(recorded.asnumpy(), taped.asnumpy(), rtol=1e-6, atol=1e-9)


def test_ctc_errors_and_impossible_alignments():
    lp = ops.log_softmax(_t(rng.standard_normal((3, 1, 3))), -1)
    loss, _ = ops.ctc_loss(lp, Tensor([[1, 1]]), Tensor([3]), Tensor([2]), reduction="none")
    assert np.isfinite(loss.asnumpy()).all()  # 1, blank, 1 fits in 3 frames
    loss, _ = ops.ctc_loss(lp[:2], Tensor([[1, 1]]), Tensor([2]), Tensor([2]), reduction="none")
    assert np.isinf(loss.asnumpy()).all()
    zero, _ = ops.CTCLossV2(0, "none", True)(lp[:2], Tensor([[1, 1]]), Tensor([2]), Tensor([2]))
    assert zero.asnumpy().tolist() == [0.0]
    with pytest.raises(ValueError, match="at most the input length"):
        ops.ctc_loss(lp, Tensor([[1, 2]]), Tensor([1]), Tensor([2]))
    with pytest.raises(ValueError, match=r"CTCLoss: sample 0 needs at least 3 frames"):
        ops.CTCLoss()(_t(np.zeros((2, 1, 3))), Tensor(np.array([[0, 0], [0, 1]], np.int64)),
                      Tensor([1, 1]), Tensor([2]))
    ignored = ops.CTCLoss(False, True, True)(_t(np.zeros((2, 1, 3))),
                                             Tensor(np.array([[0, 0], [0, 1]], np.int64)),
                                             Tensor([1, 1]), Tensor([2]))
    assert ignored[0].asnumpy().tolist() == [0.0] and not ignored[1].asnumpy().any()
    with pytest.raises(ValueError, match="CTCGreedyDecoder: sequence_length"):
        ops.ctc_greedy_decoder(_t(np.zeros((2, 1, 3))), Tensor([3]))


def test_colour_adjustments_differentiate_and_keep_grey():
    image = rng.uniform(0.1, 0.9, (3, 2, 3))
    check_grad(lambda im: ops.AdjustHue()(im, Tensor(0.3)), image)
    check_grad(lambda im: ops.AdjustSaturation()(im, Tensor(0.6)), image)
    grey = _t(np.full((2, 3), 0.4))
    np.testing.assert_allclose(ops.AdjustHue()(grey, Tensor(0.25)).asnumpy(), 0.4, rtol=1e-6)
    with pytest.raises(ValueError, match="AdjustHue: image must be a float Tensor"):
        ops.AdjustHue()(_t(np.ones((2, 4))), Tensor(0.1))


def test_deformable_conv2d_differentiates_to_input_offsets_and_masks():
    x, w = rng.standard_normal((1, 2, 4, 4)), rng.standard_normal((2, 1, 2, 2))
    offsets = rng.uniform(-0.8, 0.8, (1, 12, 3, 3)) + 0.05
    check_grad(lambda a, wt, off: ops.deformable_conv2d(a, wt, off, 2, (1, 1, 1, 1), (0, 0, 0, 0),
                                                        None, (1, 1, 1, 1), 2), x, w, offsets)
    zero = ops.deformable_conv2d(_t(x), _t(w), Tensor(np.concatenate(
        [np.zeros((1, 8, 3, 3)), np.ones((1, 4, 3, 3))], 1).astype(np.float32)), 2,
        (1, 1, 1, 1), (0, 0, 0, 0), None, (1, 1, 1, 1), 2)
    np.testing.assert_allclose(zero.asnumpy(), ops.conv2d(_t(x), _t(w), groups=2).asnumpy(),
                               rtol=1e-5, atol=1e-6)  # no offset, mask 1: a plain convolution
    with pytest.raises(ValueError, match=r"DeformableOffsets: offsets must be \(N, 3 \*"):
        ops.deformable_conv2d(_t(x), _t(w), _t(offsets[:, :8]), 2, (1, 1, 1, 1), (0, 0, 0, 0))


def test_lstm_primitive_differentiates_every_weight():
    x, h, c = rng.standard_normal((3, 2, 2)), rng.standard_normal((2, 2, 2)), \
        rng.standard_normal((2, 2, 2))
    w = rng.standard_normal(2 * 4 * 2 * 4 + 2 * 16) * 0.5
    check_grad(lambda a, hh, cc, ww: ops.LSTM(2, 2, 1, True, True, 0.0)(a, hh, cc, ww)[:3],
               x, h, c, w)
    with pytest.raises(ValueError, match="LSTM: proj_size must be 0"):
        ops.LSTM(2, 2, 1, True, True, 0.0, 1)(_t(x), _t(h), _t(c), _t(w))
    with pytest.raises(ValueError, match="LSTM: w must hold 96 weights"):
        ops.LSTM(2, 2, 1, True, True, 0.0)(_t(x), _t(h), _t(c), _t(w[:10]))


@pytest.mark.parametrize("call", [
    lambda: ops.RNNTLoss()(_t(np.zeros((1, 2, 2, 3))), Tensor([[1]]), Tensor([2]), Tensor([1])),
    lambda: ops.NMSWithMask()(_t([[0, 0, 1, 1, 0.5]])),
    lambda: ops.ctc_greedy_decoder(_t(np.zeros((2, 1, 3))), Tensor([2])),
    lambda: ops.FractionalMaxPool([1.0, 1.5, 1.5, 1.0])(_t(np.ones((1, 4, 4, 1)))),
])
def test_host_computed_operators_refuse_a_graph_capture(call):
    """ms-graph installs the value-read hook while it captures; these operators would
    bake their inputs' values into the graph, so they raise then (and work otherwise)."""
    from ms_tensor.tensor import set_value_read_hook

    call()
    previous = set_value_read_hook(lambda tensor, what: None)
    try:
        with pytest.raises(RuntimeError, match="call it outside the compiled function"):
            call()
    finally:
        set_value_read_hook(previous)


def test_compiled_functions_equal_eager_or_raise():
    jit = pytest.importorskip("ms_graph").jit
    x = _t(rng.standard_normal((1, 2, 4, 5)))
    resize = jit(lambda t: ops.ResizeBicubic(False, True)(t, (6, 3)) * 2)
    for t in (x, x * 3):  # compositions of graph operators compile and follow their input
        np.testing.assert_allclose(resize(t).asnumpy(),
                                   ops.ResizeBicubic(False, True)(t, (6, 3)).asnumpy() * 2,
                                   rtol=1e-5, atol=1e-6)
    rois = jit(lambda f, r: ops.ROIAlign(2, 2, 1.0)(f, r))  # an operator: recorded
    for r in ([[0, 0, 0, 2, 2]], [[0, 1, 0.5, 4, 3]]):
        np.testing.assert_allclose(rois(x, _t(r)).asnumpy(),
                                   ops.ROIAlign(2, 2, 1.0)(x, _t(r)).asnumpy(), rtol=1e-6)
    ctc = jit(lambda lp, tg, il, tl: ops.ctc_loss(lp, tg, il, tl, reduction="none")[0])
    lengths = (Tensor([4, 3]), Tensor([2, 1]))
    for k in range(2):  # tensor compositions: the graph follows log_probs and targets
        lp = ops.log_softmax(_t(rng.standard_normal((4, 2, 3))), -1)
        targets = Tensor([[1, 2], [2, 0]]) if k else Tensor([[2, 2], [1, 1]])
        np.testing.assert_allclose(ctc(lp, targets, *lengths).asnumpy(), ops.ctc_loss(
            lp, targets, *lengths, reduction="none")[0].asnumpy(), rtol=1e-5)
    margin = jit(lambda a, y: ops.multilabel_margin_loss(a, y, "none"))
    scores = _t(rng.standard_normal((2, 4)))
    for y in ([[3, 0, -1, 1], [2, -1, 0, 0]], [[1, 1, 2, -1], [0, 1, 2, 3]]):
        np.testing.assert_allclose(margin(scores, Tensor(y)).asnumpy(), ops.multilabel_margin_loss(
            scores, Tensor(y), "none").asnumpy(), rtol=1e-6)
    crop = jit(lambda im, b: ops.crop_and_resize(im, b, Tensor([0]), (2, 3)))
    image = ops.transpose(x, (0, 2, 3, 1))
    for box in ([[0, 0, 1, 1]], [[0.2, -0.1, 0.7, 0.9]]):
        np.testing.assert_allclose(crop(image, _t(box)).asnumpy(), ops.crop_and_resize(
            image, _t(box), Tensor([0]), (2, 3)).asnumpy(), rtol=1e-6)
    pool = jit(lambda v: ops.AdaptiveMaxPool3D()(v, (1, 2, 2))[1])
    for v in (rng.standard_normal((1, 1, 2, 3, 4)), rng.standard_normal((1, 1, 2, 3, 4))):
        assert pool(_t(v)).asnumpy().tolist() == ops.AdaptiveMaxPool3D()(
            _t(v), (1, 2, 2))[1].asnumpy().tolist()
    nms = jit(lambda b: ops.NMSWithMask()(b)[2])
    with pytest.raises(RuntimeError, match="NMSWithMask computes on the host"):
        nms(_t([[0, 0, 1, 1, 0.5]]))
