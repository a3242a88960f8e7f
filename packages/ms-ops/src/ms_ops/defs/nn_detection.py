"""Object-detection operators: ``iou``, ``bounding_box_encode/decode``, ``ops.NMSWithMask``,
``ops.NonMaxSuppressionV3``, ``ops.CombinedNonMaxSuppression`` and their class forms.

Box arithmetic (IOU, encode, decode) is elementwise, so it differentiates like any
composition; MindSpore counts a box's width as ``x2 - x1 + 1`` (pixel boxes) there. The
suppressions are greedy and data dependent: they run on the host over the box values
(TensorFlow's rules for V3/Combined: IoU over corner-normalized boxes without the +1,
scores strictly above ``score_threshold``) and return indices, which take no gradient;
NMSWithMask's sorted boxes are a Gather of the input, so they do.
"""

from __future__ import annotations

import math

import numpy as np

import ms_ops as ops
from ms_ops.defs._host import host_values
from ms_ops.opdef import functional, primitive_class
from ms_tensor.tensor import Tensor


def _boxes(name, what, t, cols=4):
    if not isinstance(t, Tensor) or t.ndim != 2 or t.shape[1] < cols:
        raise ValueError(f"{name}: {what} must be a (N, {cols}) Tensor, got "
                         f"{getattr(t, 'shape', type(t).__name__)}")
    if not t.is_floating_point():
        raise TypeError(f"{name}: {what} must be float16/32, got {t.dtype}")


@functional("iou")
def iou(anchor_boxes, gt_boxes, mode="iou"):
    """Overlap of every ground-truth box with every anchor, (N_gt, N_anchor): intersection
    over union (``'iou'``) or over the ground-truth box's area (``'iof'``); boxes are
    (x1, y1, x2, y2) pixel boxes, their sides counted ``x2 - x1 + 1``.

    >>> iou(Tensor([[0.0, 0.0, 1.0, 1.0]]), Tensor([[0.0, 0.0, 1.0, 3.0]])).tolist()
    [[0.5]]
    """
    _boxes("IOU", "anchor_boxes", anchor_boxes)
    _boxes("IOU", "gt_boxes", gt_boxes)
    if mode not in ("iou", "iof"):
        raise ValueError(f"IOU: mode must be 'iou' or 'iof', got {mode!r}")
    a = ops.expand_dims(anchor_boxes[:, :4], 0)
    g = ops.expand_dims(gt_boxes[:, :4], 1)
    w = ops.relu(ops.minimum(a[..., 2], g[..., 2]) - ops.maximum(a[..., 0], g[..., 0]) + 1)
    h = ops.relu(ops.minimum(a[..., 3], g[..., 3]) - ops.maximum(a[..., 1], g[..., 1]) + 1)
    inter = w * h
    area_g = (g[..., 2] - g[..., 0] + 1) * (g[..., 3] - g[..., 1] + 1)
    if mode == "iof":
        return inter / area_g
    area_a = (a[..., 2] - a[..., 0] + 1) * (a[..., 3] - a[..., 1] + 1)
    return inter / (area_a + area_g - inter)


IOU = primitive_class("IOU", lambda anchor_boxes, gt_boxes, mode="iou": iou(
    anchor_boxes, gt_boxes, mode), ("mode",))


def _centres(b):
    w = b[:, 2] - b[:, 0] + 1.0
    h = b[:, 3] - b[:, 1] + 1.0
    return (b[:, 0] + b[:, 2]) * 0.5, (b[:, 1] + b[:, 3]) * 0.5, w, h


def _four(name, what, v):
    if not isinstance(v, (tuple, list)) or len(v) != 4:
        raise ValueError(f"{name}: {what} must be a tuple of 4 floats, got {v!r}")
    return Tensor(np.asarray(v, np.float32))


@functional("bounding_box_encode")
def bounding_box_encode(anchor_box, groundtruth_box, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0)):
    """The (dx, dy, dw, dh) deltas that move each anchor onto its ground-truth box,
    normalized by ``means`` and ``stds``.

    >>> bounding_box_encode(Tensor([[0.0, 0, 1, 1]]), Tensor([[1.0, 0, 2, 1]])).tolist()
    [[0.5, 0.0, 0.0, 0.0]]
    """
    _boxes("BoundingBoxEncode", "anchor_box", anchor_box)
    _boxes("BoundingBoxEncode", "groundtruth_box", groundtruth_box)
    if anchor_box.shape[0] != groundtruth_box.shape[0]:
        raise ValueError(f"BoundingBoxEncode: anchor_box {anchor_box.shape} and "
                         f"groundtruth_box {groundtruth_box.shape} need the same N")
    px, py, pw, ph = _centres(anchor_box)
    gx, gy, gw, gh = _centres(groundtruth_box)
    delta = ops.stack([(gx - px) / pw, (gy - py) / ph, ops.log(gw / pw), ops.log(gh / ph)], 1)
    mean = _four("BoundingBoxEncode", "means", means).astype(delta.dtype)
    std = _four("BoundingBoxEncode", "stds", stds).astype(delta.dtype)
    return (delta - mean) / std


@functional("bounding_box_decode")
def bounding_box_decode(anchor_box, deltas, max_shape, means=(0.0, 0.0, 0.0, 0.0),
                        stds=(1.0, 1.0, 1.0, 1.0), wh_ratio_clip=0.016):
    """Apply the (dx, dy, dw, dh) ``deltas`` to the anchors; log-ratios are clipped to
    |log(wh_ratio_clip)| and the coordinates to [0, width] and [0, height] of ``max_shape``
    (MindSpore's kernel clips to the size itself, not size - 1).

    >>> bounding_box_decode(Tensor([[0.0, 0, 1, 1]]), Tensor([[0.5, 0, 0, 0]]), (4, 4)).tolist()
    [[1.0, 0.0, 2.0, 1.0]]
    """
    _boxes("BoundingBoxDecode", "anchor_box", anchor_box)
    _boxes("BoundingBoxDecode", "deltas", deltas)
    if not isinstance(max_shape, (tuple, list)) or len(max_shape) != 2:
        raise ValueError(f"BoundingBoxDecode: max_shape must be (height, width), got "
                         f"{max_shape!r}")
    d = deltas * _four("BoundingBoxDecode", "stds", stds).astype(deltas.dtype) + \
        _four("BoundingBoxDecode", "means", means).astype(deltas.dtype)
    limit = abs(math.log(wh_ratio_clip))
    dw, dh = ops.clamp(d[:, 2], -limit, limit), ops.clamp(d[:, 3], -limit, limit)
    px, py, pw, ph = _centres(anchor_box)
    gx, gy = px + pw * d[:, 0], py + ph * d[:, 1]
    gw, gh = pw * ops.exp(dw), ph * ops.exp(dh)
    h, w = max_shape
    x1 = ops.clamp(gx - 0.5 * gw + 0.5, 0, w)
    y1 = ops.clamp(gy - 0.5 * gh + 0.5, 0, h)
    x2 = ops.clamp(gx + 0.5 * gw - 0.5, 0, w)
    y2 = ops.clamp(gy + 0.5 * gh - 0.5, 0, h)
    return ops.stack([x1, y1, x2, y2], 1)


BoundingBoxEncode = primitive_class(
    "BoundingBoxEncode", lambda anchor_box, groundtruth_box, means=(0.0,) * 4, stds=(1.0,) * 4:
    bounding_box_encode(anchor_box, groundtruth_box, means, stds), ("means", "stds"))
BoundingBoxDecode = primitive_class(
    "BoundingBoxDecode", lambda anchor_box, deltas, max_shape, means=(0.0,) * 4,
    stds=(1.0,) * 4, wh_ratio_clip=0.016: bounding_box_decode(anchor_box, deltas, max_shape,
                                                                means, stds, wh_ratio_clip),
    ("max_shape", "means", "stds", "wh_ratio_clip"))


def _pair_iou(box, others, plus_one):
    """IoU of one (4,) box with (M, 4) others; corners normalized first."""
    one = 1.0 if plus_one else 0.0
    b = np.concatenate([np.minimum(box[:2], box[2:]), np.maximum(box[:2], box[2:])])
    o = np.concatenate([np.minimum(others[:, :2], others[:, 2:]),
                        np.maximum(others[:, :2], others[:, 2:])], 1)
    w = np.maximum(np.minimum(b[2], o[:, 2]) - np.maximum(b[0], o[:, 0]) + one, 0)
    h = np.maximum(np.minimum(b[3], o[:, 3]) - np.maximum(b[1], o[:, 1]) + one, 0)
    inter = w * h
    area_b = (b[2] - b[0] + one) * (b[3] - b[1] + one)
    area_o = (o[:, 2] - o[:, 0] + one) * (o[:, 3] - o[:, 1] + one)
    union = area_b + area_o - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def _greedy(boxes, scores, iou_threshold, score_threshold=-np.inf, limit=None,
            plus_one=False):
    """Indices kept by greedy NMS, best score first (ties: the lower index first)."""
    order = np.argsort(-scores, kind="stable")
    order = order[scores[order] > score_threshold]
    keep = []
    for i in order:
        if limit is not None and len(keep) >= limit:
            break
        if not keep or (_pair_iou(boxes[i], boxes[keep], plus_one) <= iou_threshold).all():
            keep.append(int(i))
    return keep


def _nms_with_mask(bboxes, iou_threshold=0.5):
    _boxes("NMSWithMask", "bboxes", bboxes, 5)
    if bboxes.shape[1] != 5:
        raise ValueError(f"NMSWithMask: bboxes must be (N, 5) (x1, y1, x2, y2, score), got "
                         f"{bboxes.shape}")
    data = host_values("NMSWithMask", bboxes).astype(np.float64)
    order = np.argsort(-data[:, 4], kind="stable")
    sorted_boxes = data[order]
    mask = np.zeros(len(order), bool)
    mask[_greedy(sorted_boxes[:, :4], sorted_boxes[:, 4], iou_threshold)] = True
    selected = ops.gather(bboxes, Tensor(order.astype(np.int32)), 0)
    # MindSpore's selected_idx counts positions in the sorted output, not input indices
    return selected, Tensor(np.arange(len(order), dtype=np.int32)), Tensor(mask)


NMSWithMask = primitive_class("NMSWithMask", _nms_with_mask, ("iou_threshold",))


def _scalar(name, what, v):
    value = v.asnumpy().reshape(-1) if isinstance(v, Tensor) else np.asarray(v).reshape(-1)
    if value.size != 1:
        raise ValueError(f"{name}: {what} must be a scalar, got shape {value.shape}")
    return value[0].item()


def _nms_v3(boxes, scores, max_output_size, iou_threshold, score_threshold):
    name = "NonMaxSuppressionV3"
    _boxes(name, "boxes", boxes)
    if not isinstance(scores, Tensor) or scores.shape != (boxes.shape[0],):
        raise ValueError(f"{name}: scores must be a (N,) Tensor for boxes {boxes.shape}, got "
                         f"{getattr(scores, 'shape', type(scores).__name__)}")
    limit = int(_scalar(name, "max_output_size", max_output_size))
    threshold = float(_scalar(name, "iou_threshold", iou_threshold))
    if limit < 0 or not 0 <= threshold <= 1:
        raise ValueError(f"{name}: max_output_size must be >= 0 and iou_threshold in [0, 1], "
                         f"got {limit}, {threshold}")
    keep = _greedy(host_values(name, boxes).astype(np.float64),
                   host_values(name, scores).astype(np.float64),
                   threshold, float(_scalar(name, "score_threshold", score_threshold)), limit)
    return Tensor(np.asarray(keep, np.int32))


NonMaxSuppressionV3 = primitive_class("NonMaxSuppressionV3", _nms_v3)


def _combined_nms(boxes, scores, max_output_size_per_class, max_total_size, iou_threshold,
                  score_threshold, pad_per_class=False, clip_boxes=True):
    name = "CombinedNonMaxSuppression"
    if not isinstance(boxes, Tensor) or boxes.ndim != 4 or boxes.shape[-1] != 4 or \
            not isinstance(scores, Tensor) or scores.ndim != 3 or \
            scores.shape[:2] != boxes.shape[:2] or boxes.shape[2] not in (1, scores.shape[2]):
        raise ValueError(f"{name}: boxes must be (B, N, q, 4) and scores (B, N, classes) with "
                         f"q 1 or classes, got {getattr(boxes, 'shape', None)} and "
                         f"{getattr(scores, 'shape', None)}")
    per_class = int(_scalar(name, "max_output_size_per_class", max_output_size_per_class))
    total = int(_scalar(name, "max_total_size", max_total_size))
    threshold = float(_scalar(name, "iou_threshold", iou_threshold))
    min_score = float(_scalar(name, "score_threshold", score_threshold))
    if per_class <= 0 or total <= 0 or not 0 <= threshold <= 1:
        raise ValueError(f"{name}: the output sizes must be positive and iou_threshold in "
                         f"[0, 1], got {per_class}, {total}, {threshold}")
    b = host_values(name, boxes).astype(np.float64)
    s = host_values(name, scores).astype(np.float64)
    batch, _, q, _ = b.shape
    classes = s.shape[2]
    size = min(total, per_class * classes) if pad_per_class else total
    out_boxes = np.zeros((batch, size, 4), np.float32)
    out_scores = np.zeros((batch, size), np.float32)
    out_classes = np.zeros((batch, size), np.float32)
    valid = np.zeros(batch, np.int32)
    for i in range(batch):
        found = []  # (score, class, box)
        for c in range(classes):
            cb = b[i, :, 0 if q == 1 else c]
            for k in _greedy(cb, s[i, :, c], threshold, min_score, per_class):
                found.append((s[i, k, c], c, cb[k]))
        found.sort(key=lambda t: -t[0])  # stable: class order among equal scores
        found = found[:size]
        valid[i] = len(found)
        for j, (score, c, box) in enumerate(found):
            out_boxes[i, j] = np.clip(box, 0, 1) if clip_boxes else box
            out_scores[i, j], out_classes[i, j] = score, c
    return Tensor(out_boxes), Tensor(out_scores), Tensor(out_classes), Tensor(valid)


CombinedNonMaxSuppression = primitive_class("CombinedNonMaxSuppression", _combined_nms,
                                            ("pad_per_class", "clip_boxes"))
