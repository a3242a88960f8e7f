"""Records nn_compat_mindspore210.npz: run with MindSpore 2.10 installed (``python this.py``).

``cases(ops, T, ms)`` is written against MindSpore's API; ``test_nn_compat_vs_mindspore.py``
runs the very same calls on microspore and compares values, dtypes, shapes and error types
with what MindSpore 2.10 (CPU) gave here. Names MindSpore 2.10 has no CPU kernel for
(RmsNorm, NonMaxSuppressionV3, ExtractImagePatches, ...) are tested against numpy instead.
"""

import os

import numpy as np

rng = np.random.default_rng(0)
X2 = np.arange(6, dtype=np.float32).reshape(2, 3)
XM = np.array([[0.1, 0.2, 0.4, 0.8], [0.3, 0.5, 0.2, 0.1]], np.float32)
X4 = rng.standard_normal((1, 2, 4, 4)).astype(np.float32)
X4B = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
X5 = rng.standard_normal((1, 2, 4, 5, 5)).astype(np.float32)
X5B = rng.standard_normal((1, 2, 2, 3, 4)).astype(np.float32)
W5 = rng.standard_normal((3, 2, 2, 3, 3)).astype(np.float32)
W5T = rng.standard_normal((2, 3, 2, 2, 2)).astype(np.float32)
COLS = rng.standard_normal((1, 2, 4, 9)).astype(np.float32)
GRID = rng.uniform(-1.2, 1.2, (1, 3, 2, 2)).astype(np.float32)
GRID3 = rng.uniform(-1.2, 1.2, (1, 2, 3, 2, 3)).astype(np.float32)
THETA = rng.standard_normal((2, 2, 3)).astype(np.float32)
THETA3 = rng.standard_normal((1, 3, 4)).astype(np.float32)
X3 = rng.standard_normal((1, 2, 5)).astype(np.float32)


def _boxes(n):
    xy = rng.uniform(0, 10, (n, 2))
    return np.concatenate([xy, xy + rng.uniform(1, 6, (n, 2))], 1).astype(np.float32)


ANCHOR, GT, AN, GT2 = _boxes(3), _boxes(4), _boxes(4), _boxes(4)
DELTA = (rng.standard_normal((4, 4)) * 0.5).astype(np.float32)
NMS = np.array([[0, 0, 10, 10, 0.6], [1, 1, 11, 11, 0.9], [20, 20, 30, 30, 0.5],
                [0, 0, 9, 10, 0.95], [21, 20, 30, 31, 0.7], [50, 50, 51, 51, 0.1]], np.float32)
CB = rng.uniform(0, 1, (2, 5, 1, 4)).astype(np.float32)
CB[..., 2:] += CB[..., :2]
CS = rng.uniform(0, 1, (2, 5, 3)).astype(np.float32)
FEAT = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
ROIS = np.array([[0, 1.2, 0.5, 6.3, 5.1], [1, 0, 0, 7, 7], [0, 2.5, 3.1, 4.0, 7.9]], np.float32)
IMG = rng.standard_normal((2, 6, 7, 3)).astype(np.float32)
BX = np.array([[0.1, 0.2, 0.8, 0.9], [0.5, -0.1, 1.2, 0.6], [0.0, 0.0, 1.0, 1.0]], np.float32)
LOGITS = rng.standard_normal((6, 2, 4)).astype(np.float32)
LP = LOGITS - np.log(np.exp(LOGITS).sum(-1, keepdims=True))
TG = np.array([[1, 2, 2], [3, 1, 0]], np.int32)
IL, TL = np.array([6, 5], np.int32), np.array([3, 2], np.int32)
IDX = np.array([[0, 0], [0, 1], [0, 2], [1, 0], [1, 1]], np.int64)
VALS = np.array([1, 2, 2, 0, 1], np.int32)
DEC = rng.standard_normal((5, 2, 3)).astype(np.float32)
DEC[:, 0, :] = [[3, 0, 0], [3, 0, 0], [0, 3, 0], [0, 0, 3], [0, 3, 0]]
RGB = rng.uniform(0, 1, (2, 3, 3)).astype(np.float32)
RGB[0, 0] = [0.5, 0.5, 0.5]  # grey: no hue
OV, SC = rng.uniform(0, 1, (5, 5)).astype(np.float32), rng.uniform(0, 1, 5).astype(np.float32)
FX, FS = rng.standard_normal((1, 2, 7, 6)).astype(np.float32), rng.uniform(0, 1, (1, 2, 2))
FX3, FS3 = rng.standard_normal((1, 1, 5, 6, 5)).astype(np.float32), rng.uniform(0, 1, (1, 1, 3))
DX, DW = rng.standard_normal((1, 4, 5, 6)).astype(np.float32), rng.standard_normal((4, 2, 2, 3))
DOFF, DOFF2 = rng.standard_normal((1, 36, 3, 3)), rng.standard_normal((1, 12, 5, 3))


def _lstm_args(i, h, layers, directions, bias):
    sizes = [i if k == 0 else h * directions for k in range(layers) for _ in range(directions)]
    n = sum(4 * h * (s + h) for s in sizes) + (8 * h * len(sizes) if bias else 0)
    return [(rng.standard_normal(shape) * 0.5).astype(np.float32) for shape in
            ((3, 2, i), (layers * directions, 2, h), (layers * directions, 2, h), (n, 1, 1))]


LSTM1, LSTM_BI, LSTM3 = _lstm_args(3, 2, 1, 1, True), _lstm_args(3, 2, 1, 2, True), \
    _lstm_args(2, 2, 3, 1, False)


def cases(ops, T, ms):  # noqa: C901 - one table of calls
    def i32(a):
        return T(np.asarray(a, np.int32))

    c = {
        "bias_add": lambda: ops.bias_add(T(X2), T(np.array([1., 2., 3.], np.float32))),
        "BiasAdd_NHWC": lambda: ops.BiasAdd("NHWC")(T(np.zeros((1, 2, 2, 3), np.float32)),
                                                    T(np.array([1., 2., 3.], np.float32))),
        "bias_add_bad": lambda: ops.bias_add(T(X2), T(np.ones(2, np.float32))),
        "bias_add_int": lambda: ops.bias_add(i32(np.ones((2, 3))), i32(np.ones(3))),
        "lrn": lambda: ops.lrn(T(np.arange(12, dtype=np.float32).reshape(1, 3, 2, 2)), 1, 1.0,
                               0.1, 0.75),
        "LRN": lambda: ops.LRN(2, 2.0, 0.5, 0.5)(T(X4)),
        "GLU": lambda: ops.GLU()(T(XM)),
        "GLU0": lambda: ops.GLU(0)(T(XM)),
        "mirror_pad": lambda: ops.mirror_pad(T(X2), T(np.array([[1, 1], [2, 1]])), "REFLECT"),
        "MirrorPad": lambda: ops.MirrorPad("SYMMETRIC")(T(X2), T(np.array([[1, 1], [2, 1]]))),
        "channel_shuffle": lambda: ops.channel_shuffle(
            T(np.arange(8, dtype=np.float32).reshape(1, 4, 2, 1)), 2),
        "ChannelShuffle": lambda: ops.ChannelShuffle(2)(T(X4)),
        "L2Loss": lambda: ops.L2Loss()(T(X2)),
        "huber": lambda: ops.huber_loss(T(X2), T(np.ones((2, 3), np.float32)), "none", 1.5),
        "huber_mean": lambda: ops.huber_loss(T(X2), T(np.ones((2, 3), np.float32))),
        "clip_by_norm": lambda: ops.clip_by_norm(T(X2), 2.0),
        "clip_by_norm_inf": lambda: ops.clip_by_norm(T(X2), 2.0, float("inf")),
        "clip_by_norm_big": lambda: ops.clip_by_norm(T(X2), 100.0),
        "clip_by_norm_list": lambda: ops.clip_by_norm([T(X2), T(XM)], 2.0),
        "clip_by_global": lambda: ops.clip_by_global_norm((T(X2), T(XM)), 2.0),
        "diag_embed": lambda: ops.diag_embed(T(np.array([[1., 2.], [3., 4.]], np.float32)), 1),
        "diag_embed2": lambda: ops.diag_embed(T(np.array([[1., 2.], [3., 4.]], np.float32)),
                                              -1, 0, 2),
        "sigce": lambda: ops.SigmoidCrossEntropyWithLogits()(
            T(X2), T(np.full((2, 3), 0.3, np.float32))),
        "kldiv": lambda: ops.KLDivLoss("batchmean")(T(XM), T(np.full((2, 4), 0.25, np.float32))),
        "kldiv_mean": lambda: ops.KLDivLoss()(T(XM), T(np.full((2, 4), 0.25, np.float32))),
        "multimargin": lambda: ops.MultiMarginLoss()(T(XM), T(np.array([1, 2], np.int64)), None),
        "bidense": lambda: ops.bidense(T(X2), T(XM), T(np.ones((2, 3, 4), np.float32)),
                                       T(np.ones(2, np.float32))),
        "Conv3D": lambda: ops.Conv3D(3, (2, 3, 3))(T(X5), T(W5)),
        "Conv3D_pad": lambda: ops.Conv3D(3, (2, 3, 3), pad_mode="pad", pad=(1, 0, 1, 1, 0, 2),
                                         stride=(1, 2, 1))(T(X5), T(W5)),
        "Conv3D_same": lambda: ops.Conv3D(3, 2, pad_mode="same", stride=2)(
            T(X5), T(W5[:, :, :2, :2, :2].copy())),
        "Conv3DTranspose": lambda: ops.Conv3DTranspose(2, 3, 2, stride=2)(T(X5), T(W5T)),
        "Conv3DTranspose_pad": lambda: ops.Conv3DTranspose(
            2, 3, 2, pad_mode="pad", pad=1, stride=2, output_padding=1)(T(X5), T(W5T)),
        "Conv3DTranspose_same": lambda: ops.Conv3DTranspose(2, 3, 2, pad_mode="same", stride=2)(
            T(X5), T(W5T)),
        "conv3d_transpose": lambda: ops.conv3d_transpose(T(X5), T(W5T), stride=(1, 2, 1)),
        "AvgPool3D": lambda: ops.AvgPool3D(2, 2)(T(X5)),
        "AvgPool3D_same": lambda: ops.AvgPool3D(3, 2, pad_mode="same")(T(X5)),
        "AvgPool3D_pad": lambda: ops.AvgPool3D(2, 1, pad_mode="pad", pad=1,
                                               count_include_pad=False)(T(X5)),
        "AvgPool3D_ceil": lambda: ops.AvgPool3D(2, 2, pad_mode="pad", pad=1, ceil_mode=True)(
            T(X5)),
        "MaxPool3D": lambda: ops.MaxPool3D(2, 2)(T(X5)),
        "MaxPool3D_same": lambda: ops.MaxPool3D(3, 2, "SAME")(T(X5)),
        "MaxPool3D_pad": lambda: ops.MaxPool3D(2, 1, "PAD", 1)(T(X5)),
        "MaxPool3DWithArgmax": lambda: ops.MaxPool3DWithArgmax(2, 2, 0)(T(X5)),
        "MaxPool3DWithArgmax_p": lambda: ops.MaxPool3DWithArgmax(
            (2, 2, 2), (1, 1, 1), (1, 1, 1), argmax_type=ms.int32)(T(X5)),
        "AdaptiveAvgPool3D": lambda: ops.AdaptiveAvgPool3D((2, 3, None))(T(X5)),
        "AdaptiveMaxPool3D": lambda: ops.AdaptiveMaxPool3D()(T(X5), i32([2, 2, 3])),
        "MaxUnpool2D": lambda: ops.MaxUnpool2D(2, 2)(
            *ops.MaxPoolWithArgmaxV2((2, 2), (2, 2))(T(X4))),
        "MaxUnpool2D_os": lambda: ops.MaxUnpool2D(2, 2, output_shape=(1, 2, 5, 5))(
            *ops.MaxPoolWithArgmaxV2((2, 2), (2, 2))(T(X4))),
        "Im2Col": lambda: ops.Im2Col(2, 2, 1, 1)(T(X4)),
        "Im2Col2": lambda: ops.Im2Col((2, 3), (1, 2), 1, (1, 0))(T(X4)),
        "Col2Im": lambda: ops.Col2Im(2, 1, 0, 1)(T(COLS), i32([4, 4])),
        "col2im": lambda: ops.col2im(T(COLS), i32([4, 4]), 2, 1, 0, 1),
        "col2im_3d": lambda: ops.col2im(T(COLS[0]), i32([4, 4]), 2, 1, 0, 1),
        "linear1d_ac": lambda: ops.ResizeLinear1D("align_corners")(T(X3), T(np.array([8]))),
        "linear1d_hp": lambda: ops.ResizeLinear1D("half_pixel")(T(X3), T(np.array([8]))),
        "upnear3d": lambda: ops.UpsampleNearest3D()(T(X5B), (3, 5, 6)),
        "upnear3d_s": lambda: ops.UpsampleNearest3D()(T(X5B), None, (1.5, 2.0, 1.7)),
        "uptri3d": lambda: ops.UpsampleTrilinear3D()(T(X5B), (3, 5, 6)),
        "uptri3d_ac": lambda: ops.UpsampleTrilinear3D(True)(T(X5B), (3, 5, 6)),
        "uptri3d_s": lambda: ops.UpsampleTrilinear3D()(T(X5B), None, (1.5, 2.0, 1.7)),
        "grid2d": lambda: ops.GridSampler2D()(T(X4B), T(GRID)),
        "grid2d_n": lambda: ops.GridSampler2D("nearest", "border", True)(T(X4B), T(GRID)),
        "grid2d_r": lambda: ops.GridSampler2D("bilinear", "reflection", False)(T(X4B), T(GRID)),
        "grid3d": lambda: ops.GridSampler3D()(T(X5B), T(GRID3)),
        "grid3d_n": lambda: ops.GridSampler3D("nearest", "border", True)(T(X5B), T(GRID3)),
        "grid3d_r": lambda: ops.GridSampler3D("bilinear", "reflection", True)(T(X5B), T(GRID3)),
        "affine": lambda: ops.AffineGrid(False)(T(THETA), (2, 1, 3, 4)),
        "affine_ac": lambda: ops.affine_grid(T(THETA), (2, 1, 3, 4), True),
        "affine3d": lambda: ops.affine_grid(T(THETA3), (1, 1, 2, 3, 4), False),
        "iou": lambda: ops.iou(T(ANCHOR), T(GT)),
        "iof": lambda: ops.IOU("iof")(T(ANCHOR), T(GT)),
        "iou16": lambda: ops.iou(T(ANCHOR.astype(np.float16)), T(GT.astype(np.float16))),
        "enc": lambda: ops.BoundingBoxEncode((0., 0., 0., 0.), (0.1, 0.1, 0.2, 0.2))(
            T(AN), T(GT2)),
        "enc_f": lambda: ops.bounding_box_encode(T(AN), T(GT2)),
        "dec": lambda: ops.BoundingBoxDecode((12, 14), (0., 0., 0., 0.), (0.1, 0.1, 0.2, 0.2))(
            T(AN), T(DELTA)),
        "dec_f": lambda: ops.bounding_box_decode(T(AN), T(DELTA), (12, 14)),
        "nmsmask": lambda: ops.NMSWithMask(0.5)(T(NMS)),
        "nmsmask2": lambda: ops.NMSWithMask(0.05)(T(NMS)),
        "combined": lambda: ops.CombinedNonMaxSuppression()(
            T(CB), T(CS), i32(3), i32(4), T(np.float32(0.5)), T(np.float32(0.2))),
        "combined_pad": lambda: ops.CombinedNonMaxSuppression(True, False)(
            T(CB), T(CS), i32(2), i32(5), T(np.float32(0.3)), T(np.float32(0.1))),
        "roialign": lambda: ops.ROIAlign(2, 2, 0.5, 2)(T(FEAT), T(ROIS)),
        "roialign1": lambda: ops.ROIAlign(3, 2, 1.0, 2, 0)(T(FEAT), T(ROIS)),
        "roialign_auto": lambda: ops.ROIAlign(2, 3, 0.5, 0)(T(FEAT), T(ROIS[:2].copy())),
        "crop": lambda: ops.CropAndResize()(T(IMG), T(BX), i32([0, 1, 1]), (4, 5)),
        "crop_n": lambda: ops.crop_and_resize(T(IMG), T(BX), i32([0, 1, 1]), (4, 5), "nearest",
                                              0.5),
        "crop_1": lambda: ops.crop_and_resize(T(IMG), T(BX), i32([0, 1, 1]), (1, 1)),
        "ctc_loss": lambda: ops.ctc_loss(T(LP), T(TG), T(IL), T(TL)),
        "ctc_loss_sum": lambda: ops.ctc_loss(T(LP), T(TG), T(IL), T(TL), reduction="sum"),
        "ctc_loss_b3": lambda: ops.ctc_loss(T(LP), T(TG % 3), T(IL), T(TL), 3, "none"),
        "ctc_v2": lambda: ops.CTCLossV2()(T(LP), T(TG), T(IL), T(TL)),
        "CTCLoss": lambda: ops.CTCLoss()(T(LOGITS), T(IDX), T(VALS), T(IL)),
        "CTCLoss_c": lambda: ops.CTCLoss(True, True, False)(T(LOGITS), T(IDX), T(VALS), T(IL)),
        "CTCLoss_nm": lambda: ops.CTCLoss(False, False, False)(T(LOGITS), T(IDX), T(VALS),
                                                                T(IL)),
        "greedy": lambda: ops.CTCGreedyDecoder()(T(DEC), i32([5, 3])),
        "greedy_nm": lambda: ops.ctc_greedy_decoder(T(DEC), i32([5, 3]), False),
        "hue": lambda: ops.AdjustHue()(T(RGB), T(np.float32(0.2))),
        "hue_neg": lambda: ops.AdjustHue()(T(RGB), T(np.float32(-0.45))),
        "saturation": lambda: ops.AdjustSaturation()(T(RGB), T(np.float32(1.5))),
        "saturation_low": lambda: ops.AdjustSaturation()(T(RGB), T(np.float32(0.3))),
        "nms_overlaps": lambda: ops.NonMaxSuppressionWithOverlaps()(
            T(OV), T(SC), i32(3), T(np.float32(0.5)), T(np.float32(0.1))),
        "frac2d": lambda: ops.FractionalMaxPoolWithFixedKsize(2, (3, 4))(
            T(FX), T(FS.astype(np.float32))),
        "frac3d": lambda: ops.FractionalMaxPool3DWithFixedKsize(2, (2, 3, 3))(
            T(FX3), T(FS3.astype(np.float32))),
        "deformable_conv2d": lambda: ops.deformable_conv2d(
            T(DX), T(DW.astype(np.float32)), T(DOFF.astype(np.float32)), (2, 3), (1, 1, 2, 2),
            (1, 0, 1, 1), T(np.arange(4, dtype=np.float32)), (1, 1, 1, 1), 2, 2),
        "lstm": lambda: ops.LSTM(3, 2, 1, True, False, 0.0)(*map(T, LSTM1))[:3],
        "lstm_bi": lambda: ops.LSTM(3, 2, 1, True, True, 0.0)(*map(T, LSTM_BI))[:3],
        "lstm_3layers": lambda: ops.LSTM(2, 2, 3, False, False, 0.0)(*map(T, LSTM3))[:3],
        "DeformableOffsets": lambda: ops.DeformableOffsets(
            (1, 1, 1, 2), (0, 1, 1, 0), (2, 2), (1, 1, 1, 2))(T(DX), T(DOFF2.astype(np.float32))),
    }
    for ac, hp in ((False, False), (True, False), (False, True)):
        for size in ((5, 7), (2, 3)):
            tag = f"{int(ac)}{int(hp)}_{size[0]}x{size[1]}"
            c["bilinear" + tag] = lambda ac=ac, hp=hp, size=size: ops.ResizeBilinearV2(ac, hp)(
                T(X4B), size)
            c["nearest" + tag] = lambda ac=ac, hp=hp, size=size: ops.ResizeNearestNeighbor(
                size, ac, hp)(T(X4B))
            c["nearestV2" + tag] = lambda ac=ac, hp=hp, size=size: ops.ResizeNearestNeighborV2(
                ac, hp)(T(X4B), i32(size))
            c["bicubic" + tag] = lambda ac=ac, hp=hp, size=size: ops.ResizeBicubic(ac, hp)(
                T(X4B), i32(size))
    return c


def run(ops, T, ms):
    """``{key: ("ok", array, dtype name) or ("err", error type name, message)}``; a tuple
    result is recorded as ``key.0``, ``key.1`` ..."""
    out = {}
    for k, f in cases(ops, T, ms).items():
        try:
            r = f()
        except Exception as e:  # noqa: BLE001 - the error type is what is recorded
            out[k] = ("err", type(e).__name__, str(e).split("\n")[0][:160])
            continue
        for i, t in enumerate(r if isinstance(r, (tuple, list)) else [r]):
            out[f"{k}.{i}"] = ("ok", t.asnumpy(), str(t.dtype).replace("mindspore.", "").lower())
    return out


if __name__ == "__main__":
    import mindspore
    from mindspore import Tensor, ops

    flat = {}
    for key, (status, value, dtype) in run(ops, Tensor, mindspore).items():
        if status == "ok":
            flat[key] = value
            flat[key + ".dtype"] = np.array(dtype)
        else:
            flat[key + ".error"] = np.array(value)
    np.savez_compressed(os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                     "nn_compat_mindspore210.npz"), **flat)
