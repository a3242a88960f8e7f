"""More of MindSpore's nn-group Primitives: ``ops.FractionalMaxPoolWithFixedKsize``,
``ops.FractionalMaxPool3DWithFixedKsize`` (PyTorch-style fractional pooling with given
samples), ``ops.FractionalMaxPool`` (TensorFlow's, over NHWC with pooling ratios),
``ops.NonMaxSuppressionWithOverlaps`` and the colour operators
``ops.AdjustHue``/``ops.AdjustSaturation``.

FractionalMaxPool draws its row and column boundaries as TensorFlow does (a shuffled mix
of floor/ceil(ratio) steps, or Graham's pseudo-random sequence), from this framework's
generator: the boundaries it returns are valid but not MindSpore's draws.

The colour operators follow TensorFlow's kernels (which MindSpore's copy): RGB -> (hue,
min, max) with hue in [0, 1), the change, and back through the six hue sectors; they are
elementwise selections, so they differentiate almost everywhere.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.defs._host import host_values, outside_graph
from ms_ops.defs.nn_detection import _scalar
from ms_ops.opdef import primitive_class
from ms_tensor.seed import next_generator
from ms_tensor.tensor import Tensor


def _fixed_ksize(name, nd):
    def call(input_x, random_samples, ksize, output_shape, data_format=None):
        if not isinstance(random_samples, Tensor) or random_samples.ndim != 3 or \
                random_samples.shape[-1] != nd:
            raise ValueError(f"{name}: random_samples must be (N, C, {nd}) in [0, 1), got "
                             f"{getattr(random_samples, 'shape', None)}")
        pool = ops.fractional_max_pool2d if nd == 2 else ops.fractional_max_pool3d
        out, index = pool(input_x, ksize, output_shape, None, True, random_samples)
        return out, index.astype("int64")
    return primitive_class(name, call, ("ksize", "output_shape", "data_format"))


FractionalMaxPoolWithFixedKsize = _fixed_ksize("FractionalMaxPoolWithFixedKsize", 2)
FractionalMaxPool3DWithFixedKsize = _fixed_ksize("FractionalMaxPool3DWithFixedKsize", 3)


def _sequence(n_in, n_out, rng, pseudo_random):
    """TensorFlow's GeneratePoolingSequence: n_out + 1 boundaries from 0 to n_in."""
    if pseudo_random:
        alpha = n_in / n_out
        k = n_in // n_out
        u = rng.random() * min((k + 2) / alpha - 1, (n_in + 1 - k) / alpha - (n_out - 1))
        inner = [int(np.ceil(alpha * (i + u))) - 1 for i in range(1, n_out)]
        return np.asarray([0] + inner + [n_in], np.int64)
    steps = np.full(n_out, n_in // n_out, np.int64)
    steps[:n_in % n_out] += 1
    rng.shuffle(steps)
    return np.concatenate([[0], np.cumsum(steps)]).astype(np.int64)


def _pool_axis(x, axis, seq, overlapping):
    """Max over the windows [seq[i], seq[i + 1]) (or ] when overlapping) along ``axis``."""
    n = x.shape[axis]
    parts = []
    for lo, hi in zip(seq[:-1], seq[1:]):
        hi = min(hi + 1, n) if overlapping else hi
        index = (slice(None),) * axis + (slice(int(lo), int(hi)),)
        parts.append(ops.amax(x[index], axis))
    return ops.stack(parts, axis)


def _fractional_max_pool(x, pooling_ratio, pseudo_random=False, overlapping=False,
                         deterministic=False, seed=0, seed2=0):
    name = "FractionalMaxPool"
    if not isinstance(x, Tensor) or x.ndim != 4:
        raise ValueError(f"{name}: x must be a 4-d (N, H, W, C) Tensor, got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    ratio = tuple(float(r) for r in pooling_ratio)
    if len(ratio) != 4 or ratio[0] != 1 or ratio[3] != 1 or min(ratio[1:3]) < 1:
        raise ValueError(f"{name}: pooling_ratio must be [1, row >= 1, col >= 1, 1], got "
                         f"{pooling_ratio!r}")
    rows, cols = (int(n // r) for n, r in zip(x.shape[1:3], ratio[1:3]))
    if min(rows, cols) < 1:
        raise ValueError(f"{name}: pooling_ratio {pooling_ratio!r} leaves no output for "
                         f"input shape {x.shape}")
    outside_graph(name, "random draws")
    rng = next_generator(seed, seed2)
    row_seq = _sequence(x.shape[1], rows, rng, pseudo_random)
    col_seq = _sequence(x.shape[2], cols, rng, pseudo_random)
    y = _pool_axis(_pool_axis(x, 1, row_seq, overlapping), 2, col_seq, overlapping)
    return y, Tensor(row_seq), Tensor(col_seq)


FractionalMaxPool = primitive_class("FractionalMaxPool", _fractional_max_pool,
                                    ("pooling_ratio", "pseudo_random", "overlapping",
                                     "deterministic", "seed", "seed2"))


def _nms_overlaps(overlaps, scores, max_output_size, overlap_threshold, score_threshold):
    name = "NonMaxSuppressionWithOverlaps"
    if not isinstance(overlaps, Tensor) or overlaps.ndim != 2 or \
            overlaps.shape[0] != overlaps.shape[1]:
        raise ValueError(f"{name}: overlaps must be a square (N, N) Tensor, got "
                         f"{getattr(overlaps, 'shape', type(overlaps).__name__)}")
    if not isinstance(scores, Tensor) or scores.shape != (overlaps.shape[0],):
        raise ValueError(f"{name}: scores must be ({overlaps.shape[0]},), got "
                         f"{getattr(scores, 'shape', type(scores).__name__)}")
    limit = int(_scalar(name, "max_output_size", max_output_size))
    if limit < 0:
        raise ValueError(f"{name}: max_output_size must be >= 0, got {limit}")
    threshold = float(_scalar(name, "overlap_threshold", overlap_threshold))
    floor = float(_scalar(name, "score_threshold", score_threshold))
    ov, sc = host_values(name, overlaps), host_values(name, scores)
    keep = []
    for i in np.argsort(-sc, kind="stable"):
        if len(keep) >= limit or sc[i] <= floor:
            break
        if not keep or (ov[i, keep] <= threshold).all():
            keep.append(int(i))
    return Tensor(np.asarray(keep, np.int32))


NonMaxSuppressionWithOverlaps = primitive_class("NonMaxSuppressionWithOverlaps",
                                                _nms_overlaps)


def _rgb(name, image):
    if not isinstance(image, Tensor) or image.ndim < 1 or image.shape[-1] != 3 or \
            not image.is_floating_point():
        raise ValueError(f"{name}: image must be a float Tensor whose last axis holds 3 "
                         f"(RGB) channels, got {getattr(image, 'dtype', '')} "
                         f"{getattr(image, 'shape', type(image).__name__)}")
    return image[..., 0], image[..., 1], image[..., 2]


def _hue_min_max(r, g, b):
    vmax = ops.maximum(r, ops.maximum(g, b))
    vmin = ops.minimum(r, ops.minimum(g, b))
    span = vmax - vmin
    safe = ops.where(span > 0, span, ops.ones_like(span)) * 6
    h = ops.where(r == vmax, (g - b) / safe,
                  ops.where(g == vmax, (b - r) / safe + 1 / 3, (r - g) / safe + 2 / 3))
    h = ops.where(span > 0, h, ops.zeros_like(h))
    return h - ops.floor(h), vmin, vmax


def _to_rgb(h, vmin, vmax):
    dh = h * 6
    sector = ops.clamp(ops.floor(dh), 0, 5)
    ratio = dh - sector
    odd = (sector == 1) | (sector == 3) | (sector == 5)
    vmid = vmin + ops.where(odd, 1 - ratio, ratio) * (vmax - vmin)

    def pick(*by_sector):
        out = by_sector[5]
        for k in range(4, -1, -1):
            out = ops.where(sector == k, by_sector[k], out)
        return out

    r = pick(vmax, vmid, vmin, vmin, vmid, vmax)
    g = pick(vmid, vmax, vmax, vmid, vmin, vmin)
    b = pick(vmin, vmin, vmid, vmax, vmax, vmid)
    return ops.stack([r, g, b], -1)


def _adjust_hue(image, delta):
    h, vmin, vmax = _hue_min_max(*_rgb("AdjustHue", image))
    h = h + float(_scalar("AdjustHue", "delta", delta))
    return _to_rgb(h - ops.floor(h), vmin, vmax)


def _adjust_saturation(image, scale):
    h, vmin, vmax = _hue_min_max(*_rgb("AdjustSaturation", image))
    s = ops.where(vmax > 0, (vmax - vmin) / ops.where(vmax > 0, vmax, ops.ones_like(vmax)),
                  ops.zeros_like(vmax))
    s = ops.clamp(s * float(_scalar("AdjustSaturation", "scale", scale)), 0.0, 1.0)
    return _to_rgb(h, vmax * (1 - s), vmax)


AdjustHue = primitive_class("AdjustHue", _adjust_hue)
AdjustSaturation = primitive_class("AdjustSaturation", _adjust_saturation)
