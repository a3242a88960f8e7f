"""Region sampling: ``ops.ROIAlign`` (Mask R-CNN's pooling of each region of interest; an
operator with its gradient operator ROIAlignGrad, so graphs record it) and
``ops.CropAndResize``/``crop_and_resize`` (TensorFlow's box crops).

The sampling positions depend only on the boxes, so they are worked out on the host as
(input index, weight) taps; the result is a weighted sum of gathered feature rows, and
the gradient reaches the features (the boxes take none, as in MindSpore).
ROIAlign's ``sample_num=0`` takes floor(bin size) samples per bin axis as MindSpore's
kernel does, but at least one: MindSpore divides by zero (NaN) for bins under a pixel.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.defs._host import host_values
from ms_ops.infer import check_dtype, shape_text
from ms_ops.opdef import FLOATS, STATIC, Arg, Attr, OpDef, TensorSpec, functional, primitive_class
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


def _roi_taps(boxes, shape, pooled_height, pooled_width, spatial_scale, sample_num,
              roi_end_mode):
    """(index, weight), each (R * ph * pw, T): the flat (n, h, w) input positions each
    pooled cell averages, Caffe2's sampling grid."""
    n, _, height, width = shape
    if ((boxes[:, 0] < 0) | (boxes[:, 0] >= n)).any():
        raise ValueError(f"ROIAlign: rois' batch indices must be in [0, {n}), got "
                         f"{boxes[:, 0].tolist()}")
    cells = []
    for b, x1, y1, x2, y2 in boxes.astype(np.float64):
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
    taps = max((len(i) for i, _ in cells), default=1)
    index = np.zeros((len(cells), taps), np.int64)
    weight = np.zeros((len(cells), taps))
    for row, (i, w) in enumerate(cells):
        index[row, :len(i)], weight[row, :len(w)] = i, w
    return index, weight


def _roi_infer(features, rois, pooled_height, pooled_width, spatial_scale, sample_num=2,
               roi_end_mode=1):
    check_dtype("features", features, FLOATS)
    check_dtype("rois", rois, FLOATS)
    if features.ndim != 4 or rois.ndim != 2 or rois.shape[1] != 5:
        raise ValueError(f"features must be (N, C, H, W) and rois (R, 5) (batch index, x1, y1, "
                         f"x2, y2), got {shape_text(features.shape)} and "
                         f"{shape_text(rois.shape)}")
    if roi_end_mode not in (0, 1) or pooled_height <= 0 or pooled_width <= 0 or \
            sample_num < 0:
        raise ValueError(f"pooled sizes must be positive, sample_num >= 0 and roi_end_mode 0 "
                         f"or 1, got {pooled_height}, {pooled_width}, {sample_num}, "
                         f"{roi_end_mode}")
    return TensorSpec((rois.shape[0], features.shape[1], pooled_height, pooled_width),
                      features.dtype)


ROIAlign = OpDef(
    "ROIAlign", (Arg("features"), Arg("rois")),
    (Attr("pooled_height"), Attr("pooled_width"), Attr("spatial_scale"), Attr("sample_num", 2),
     Attr("roi_end_mode", 1)), infer=_roi_infer, nondiff_inputs=("rois",),
    doc="""Mask R-CNN's RoIAlign: each (batch, x1, y1, x2, y2) region of ``rois`` (scaled by
    ``spatial_scale``, ends + ``roi_end_mode``) split into pooled_height x pooled_width bins,
    each the mean of ``sample_num``^2 bilinear samples of ``features``.""")


def _rows(x):
    """(N * H * W, C) rows of an (N, C, H, W) array."""
    return np.ascontiguousarray(x.transpose(0, 2, 3, 1)).reshape(-1, x.shape[1])


@ROIAlign.kernel("CPU", dtypes=FLOATS)
def roi_align_cpu(features, rois, pooled_height, pooled_width, spatial_scale, sample_num=2,
                  roi_end_mode=1):
    index, weight = _roi_taps(rois, features.shape, pooled_height, pooled_width,
                              spatial_scale, sample_num, roi_end_mode)
    rows = _rows(features.astype(np.float64))
    out = np.einsum("kt,ktc->kc", weight, rows[index])
    out = out.reshape(rois.shape[0], pooled_height, pooled_width, -1).transpose(0, 3, 1, 2)
    return np.ascontiguousarray(out).astype(features.dtype)


@ROIAlign.bprop
def roi_align_bprop(features, rois, out, dout, **attrs):
    return ROIAlignGrad(dout, rois, tuple(features.shape), **attrs), None


_ROI_SAMPLES = (np.array([[0, 0.5, 1.0, 4.2, 3.9], [1, 2.0, 0.0, 5.0, 4.0]]),
                np.array([[1, 1.2, 0.4, 3.3, 2.9]]))


@ROIAlign.samples
def _roi_align_samples(rng):
    yield (rng.standard_normal((2, 3, 5, 6)), _ROI_SAMPLES[0]), {
        "pooled_height": 2, "pooled_width": 3, "spatial_scale": 1.0}
    yield (rng.standard_normal((2, 1, 6, 6)), _ROI_SAMPLES[1]), {
        "pooled_height": 3, "pooled_width": 2, "spatial_scale": 1.5, "sample_num": 0,
        "roi_end_mode": 0}


def _roi_grad_infer(dy, rois, xdiff_shape, pooled_height, pooled_width, spatial_scale,
                    sample_num=2, roi_end_mode=1):
    check_dtype("dy", dy, FLOATS)
    shape = tuple(xdiff_shape)
    if len(shape) != 4 or dy.shape != (rois.shape[0], shape[1], pooled_height, pooled_width):
        raise ValueError(f"dy shape {shape_text(dy.shape)} does not fit rois "
                         f"{shape_text(rois.shape)} and xdiff_shape {shape}")
    return TensorSpec(shape, dy.dtype)


ROIAlignGrad = OpDef(
    "ROIAlignGrad", (Arg("dy"), Arg("rois"), Arg("xdiff_shape", STATIC)),
    (Attr("pooled_height"), Attr("pooled_width"), Attr("spatial_scale"), Attr("sample_num", 2),
     Attr("roi_end_mode", 1)), infer=_roi_grad_infer, nondiff_inputs=("rois",),
    doc="ROIAlign's features gradient: each pooled cell's gradient spread back over its taps.")


@ROIAlignGrad.kernel("CPU", dtypes=FLOATS)
def roi_align_grad_cpu(dy, rois, xdiff_shape, pooled_height, pooled_width, spatial_scale,
                       sample_num=2, roi_end_mode=1):
    shape = tuple(xdiff_shape)
    index, weight = _roi_taps(rois, shape, pooled_height, pooled_width, spatial_scale,
                              sample_num, roi_end_mode)
    cells = _rows(dy.astype(np.float64))  # (R * ph * pw, C)
    dx = np.zeros((shape[0] * shape[2] * shape[3], shape[1]))
    np.add.at(dx, index.reshape(-1), (weight[..., None] * cells[:, None, :]).reshape(
        -1, shape[1]))
    dx = dx.reshape(shape[0], shape[2], shape[3], shape[1]).transpose(0, 3, 1, 2)
    return np.ascontiguousarray(dx).astype(dy.dtype)


@ROIAlignGrad.bprop
def roi_align_grad_bprop(dy, rois, xdiff_shape, out, dout, **attrs):
    return ROIAlign(dout, rois, **attrs), None, None


@ROIAlignGrad.samples
def _roi_align_grad_samples(rng):
    yield (rng.standard_normal((2, 3, 2, 3)), _ROI_SAMPLES[0], (2, 3, 5, 6)), {
        "pooled_height": 2, "pooled_width": 3, "spatial_scale": 1.0}


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
