"""Region sampling: ``ops.ROIAlign`` (Mask R-CNN's pooling of each region of interest) and
``ops.CropAndResize``/``crop_and_resize`` (TensorFlow's box crops).

The sampling positions depend only on the boxes, so they are worked out on the host as
(input index, weight) taps; the result is one Gather of the feature rows and a weighted
sum, so the gradient reaches the features (the boxes take none, as in MindSpore).
ROIAlign's ``sample_num=0`` takes floor(bin size) samples per bin axis as MindSpore's
kernel does, but at least one: MindSpore divides by zero (NaN) for bins under a pixel.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.defs._host import host_values
from ms_ops.opdef import functional, primitive_class
from ms_tensor.tensor import Tensor


def _weighted_gather(rows, index, weight):
    """rows (M, C), index/weight (K, T) -> (K, C): sum_t weight[k, t] * rows[index[k, t]]."""
    k, t = index.shape
    picked = ops.gather(rows, Tensor(index.reshape(-1).astype(np.int32)), 0)
    picked = ops.reshape(picked, (k, t, rows.shape[1]))
    w = Tensor(weight.astype(np.float32)).astype(rows.dtype)
    return ops.sum(picked * ops.expand_dims(w, 2), 1)


def _bilinear_taps(y, x, height, width):
    """Caffe2's RoIAlign interpolation: (4,) index and weight arrays per sample point."""
    if y < -1.0 or y > height or x < -1.0 or x > width:
        return [0] * 4, [0.0] * 4
    y, x = max(y, 0.0), max(x, 0.0)
    y0, x0 = int(y), int(x)
    if y0 >= height - 1:
        y0 = y1 = height - 1
        y = float(y0)
    else:
        y1 = y0 + 1
    if x0 >= width - 1:
        x0 = x1 = width - 1
        x = float(x0)
    else:
        x1 = x0 + 1
    ly, lx = y - y0, x - x0
    hy, hx = 1.0 - ly, 1.0 - lx
    return ([y0 * width + x0, y0 * width + x1, y1 * width + x0, y1 * width + x1],
            [hy * hx, hy * lx, ly * hx, ly * lx])


def _roi_align(features, rois, pooled_height, pooled_width, spatial_scale, sample_num=2,
               roi_end_mode=1):
    name = "ROIAlign"
    if not isinstance(features, Tensor) or features.ndim != 4 or not \
            features.is_floating_point():
        raise ValueError(f"{name}: features must be a float (N, C, H, W) Tensor, got "
                         f"{getattr(features, 'shape', type(features).__name__)}")
    if not isinstance(rois, Tensor) or rois.ndim != 2 or rois.shape[1] != 5:
        raise ValueError(f"{name}: rois must be (R, 5) (batch index, x1, y1, x2, y2), got "
                         f"{getattr(rois, 'shape', type(rois).__name__)}")
    if roi_end_mode not in (0, 1) or pooled_height <= 0 or pooled_width <= 0:
        raise ValueError(f"{name}: pooled sizes must be positive and roi_end_mode 0 or 1, got "
                         f"{pooled_height}, {pooled_width}, {roi_end_mode}")
    n, c, height, width = features.shape
    boxes = host_values(name, rois).astype(np.float64)
    if ((boxes[:, 0] < 0) | (boxes[:, 0] >= n)).any():
        raise ValueError(f"{name}: rois' batch indices must be in [0, {n}), got "
                         f"{boxes[:, 0].tolist()}")
    cells = []
    for b, x1, y1, x2, y2 in boxes:
        sw, sh = x1 * spatial_scale, y1 * spatial_scale
        rw = max((x2 + roi_end_mode) * spatial_scale - sw, 1.0)
        rh = max((y2 + roi_end_mode) * spatial_scale - sh, 1.0)
        bh, bw = rh / pooled_height, rw / pooled_width
        gh = sample_num if sample_num > 0 else max(int(rh // pooled_height), 1)
        gw = sample_num if sample_num > 0 else max(int(rw // pooled_width), 1)
        base = int(b) * height * width
        for ph in range(pooled_height):
            for pw in range(pooled_width):
                index, weight = [], []
                for iy in range(gh):
                    y = sh + ph * bh + (iy + 0.5) * bh / gh
                    for ix in range(gw):
                        i, w = _bilinear_taps(y, sw + pw * bw + (ix + 0.5) * bw / gw, height,
                                              width)
                        index += [base + v for v in i]
                        weight += [v / (gh * gw) for v in w]
                cells.append((index, weight))
    taps = max(len(i) for i, _ in cells)
    index = np.zeros((len(cells), taps), np.int64)
    weight = np.zeros((len(cells), taps))
    for row, (i, w) in enumerate(cells):
        index[row, :len(i)], weight[row, :len(w)] = i, w
    rows = ops.reshape(ops.transpose(features, (0, 2, 3, 1)), (-1, c))
    out = ops.reshape(_weighted_gather(rows, index, weight),
                      (boxes.shape[0], pooled_height, pooled_width, c))
    return ops.transpose(out, (0, 3, 1, 2))


ROIAlign = primitive_class("ROIAlign", _roi_align, ("pooled_height", "pooled_width",
                                                    "spatial_scale", "sample_num",
                                                    "roi_end_mode"))


def _axis_positions(lo, hi, n, crop):
    if crop > 1:
        return lo * (n - 1) + np.arange(crop) * ((hi - lo) * (n - 1) / (crop - 1))
    return np.array([0.5 * (lo + hi) * (n - 1)])


@functional("crop_and_resize")
def crop_and_resize(image, boxes, box_indices, crop_size, method="bilinear",
                    extrapolation_value=0.0):
    """Crops of the (B, H, W, C) ``image`` at the normalized (y1, x1, y2, x2) ``boxes`` of
    images ``box_indices``, each resized to ``crop_size`` (h, w); positions outside the
    image read ``extrapolation_value``. Returns float32 (R, h, w, C).

    >>> crop_and_resize(ops.ones((1, 4, 4, 1)), Tensor([[0.0, 0, 1, 1]]), Tensor([0]),
    ...                 (2, 2)).shape
    (1, 2, 2, 1)
    """
    name = "CropAndResize"
    if not isinstance(image, Tensor) or image.ndim != 4:
        raise ValueError(f"{name}: image must be a (B, H, W, C) Tensor, got "
                         f"{getattr(image, 'shape', type(image).__name__)}")
    if not isinstance(boxes, Tensor) or boxes.ndim != 2 or boxes.shape[1] != 4 or \
            not isinstance(box_indices, Tensor) or box_indices.shape != (boxes.shape[0],):
        raise ValueError(f"{name}: boxes must be (R, 4) and box_indices (R,), got "
                         f"{getattr(boxes, 'shape', None)} and "
                         f"{getattr(box_indices, 'shape', None)}")
    if method not in ("bilinear", "nearest", "bilinear_v2"):
        raise ValueError(f"{name}: method must be 'bilinear', 'nearest' or 'bilinear_v2', got "
                         f"{method!r}")
    if not isinstance(crop_size, (tuple, list)) or len(crop_size) != 2 or min(crop_size) <= 0:
        raise ValueError(f"{name}: crop_size must be 2 positive ints, got {crop_size!r}")
    b, height, width, c = image.shape
    which = host_values(name, box_indices).astype(np.int64)
    if ((which < 0) | (which >= b)).any():
        raise ValueError(f"{name}: box_indices must be in [0, {b}), got {which.tolist()}")
    ch, cw = crop_size
    index = np.zeros((len(which), ch, cw, 4), np.int64)
    weight = np.zeros((len(which), ch, cw, 4))
    outside = np.zeros((len(which), ch, cw), bool)
    for r, (y1, x1, y2, x2) in enumerate(host_values(name, boxes).astype(np.float64)):
        ys = _axis_positions(y1, y2, height, ch)
        xs = _axis_positions(x1, x2, width, cw)
        out_y = (ys < 0) | (ys > height - 1)
        out_x = (xs < 0) | (xs > width - 1)
        outside[r] = out_y[:, None] | out_x[None, :]
        base = which[r] * height * width
        if method == "nearest":
            yi = np.clip(np.floor(ys + 0.5), 0, height - 1).astype(np.int64)  # roundf
            xi = np.clip(np.floor(xs + 0.5), 0, width - 1).astype(np.int64)
            index[r, :, :, 0] = base + yi[:, None] * width + xi[None, :]
            weight[r, :, :, 0] = 1.0
            continue
        top, left = np.floor(ys), np.floor(xs)
        ly, lx = (ys - top)[:, None], (xs - left)[None, :]
        t, bt = np.clip(top, 0, height - 1), np.clip(np.ceil(ys), 0, height - 1)
        lf, rt = np.clip(left, 0, width - 1), np.clip(np.ceil(xs), 0, width - 1)
        for k, (yy, xx, w) in enumerate(((t, lf, (1 - ly) * (1 - lx)), (t, rt, (1 - ly) * lx),
                                         (bt, lf, ly * (1 - lx)), (bt, rt, ly * lx))):
            index[r, :, :, k] = base + (yy[:, None] * width + xx[None, :]).astype(np.int64)
            weight[r, :, :, k] = w
    weight[outside] = 0.0
    rows = ops.reshape(image.astype("float32"), (-1, c))
    out = _weighted_gather(rows, index.reshape(-1, 4), weight.reshape(-1, 4))
    out = ops.reshape(out, (len(which), ch, cw, c))
    if outside.any():
        fill = Tensor(outside[..., None])
        out = ops.where(fill, ops.full_like(out, float(extrapolation_value)), out)
    return out


CropAndResize = primitive_class(
    "CropAndResize", lambda image, boxes, box_indices, crop_size, method="bilinear",
    extrapolation_value=0.0: crop_and_resize(image, boxes, box_indices, crop_size, method,
                                             extrapolation_value),
    ("method", "extrapolation_value"))
