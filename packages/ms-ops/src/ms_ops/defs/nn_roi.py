"""Region sampling: ``ops.ROIAlign`` (Mask R-CNN's pooling of each region of interest; an
operator with its gradient operator ROIAlignGrad, so graphs record it) and
``ops.CropAndResize``/``crop_and_resize`` (TensorFlow's box crops, a tensor composition).

ROIAlign's sampling taps depend only on the boxes; its kernels work them out in numpy and
take the weighted sum (or spread the gradient back). CropAndResize computes its sample
positions from the box tensor and gathers with them, so the gradient reaches the image
and the boxes. ROIAlign's ``sample_num=0`` takes floor(bin size) samples per bin axis as
MindSpore's kernel does, but at least one: MindSpore divides by zero (NaN) for bins under
a pixel.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.infer import check_dtype, shape_text
from ms_ops.opdef import FLOATS, STATIC, Arg, Attr, OpDef, TensorSpec, functional, primitive_class
from ms_tensor.tensor import Tensor, value_read_hook


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
    """(R, crop) sample positions along one image axis, from (R,) box edges (tensors)."""
    lo, hi = ops.expand_dims(lo, 1), ops.expand_dims(hi, 1)
    if crop > 1:
        steps = Tensor(np.arange(crop, dtype=np.float32)[None, :])
        return lo * (n - 1) + steps * ((hi - lo) * ((n - 1) / (crop - 1)))
    return 0.5 * (lo + hi) * (n - 1)


def _bilinear_sample(rows, base, ys, xs, height, width, nearest):
    """(R, ch, cw, C) samples of ``rows`` (B*H*W, C) at positions ys (R, ch), xs (R, cw)."""
    ys, xs = ops.expand_dims(ys, 2), ops.expand_dims(xs, 1)

    def tap(yi, xi):
        index = base + ops.clamp(yi, 0, height - 1) * width + ops.clamp(xi, 0, width - 1)
        index = ops.broadcast_to(index, (ys.shape[0], ys.shape[1], xs.shape[2])).astype(
            "int32")
        picked = ops.gather(rows, ops.reshape(index, (-1,)), 0)
        return ops.reshape(picked, index.shape + (rows.shape[1],))

    if nearest:  # roundf: halves away from zero
        return tap(ops.floor(ys + 0.5), ops.floor(xs + 0.5))
    top, left = ops.floor(ys), ops.floor(xs)
    ly, lx = ops.expand_dims(ys - top, 3), ops.expand_dims(xs - left, 3)
    bottom, right = ops.ceil(ys), ops.ceil(xs)
    upper = tap(top, left) * (1 - lx) + tap(top, right) * lx
    lower = tap(bottom, left) * (1 - lx) + tap(bottom, right) * lx
    return upper * (1 - ly) + lower * ly


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
    if value_read_hook() is None:  # eager: check the indices' values (a graph cannot)
        which = box_indices.asnumpy()
        if ((which < 0) | (which >= b)).any():
            raise ValueError(f"{name}: box_indices must be in [0, {b}), got {which.tolist()}")
    ch, cw = crop_size
    edges = boxes.astype("float32")
    ys = _axis_positions(edges[:, 0], edges[:, 2], height, ch)
    xs = _axis_positions(edges[:, 1], edges[:, 3], width, cw)
    base = ops.reshape(box_indices.astype("float32") * (height * width), (-1, 1, 1))
    rows = ops.reshape(image.astype("float32"), (-1, c))
    out = _bilinear_sample(rows, base, ys, xs, height, width, method == "nearest")
    outside = ops.expand_dims((ys < 0) | (ys > height - 1), 2) | \
        ops.expand_dims((xs < 0) | (xs > width - 1), 1)
    return ops.where(ops.expand_dims(outside, 3), ops.full_like(out, float(extrapolation_value)),
                     out)


CropAndResize = primitive_class(
    "CropAndResize", lambda image, boxes, box_indices, crop_size, method="bilinear",
    extrapolation_value=0.0: crop_and_resize(image, boxes, box_indices, crop_size, method,
                                             extrapolation_value),
    ("method", "extrapolation_value"))
