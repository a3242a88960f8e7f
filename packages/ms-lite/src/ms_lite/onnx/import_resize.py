"""ONNX Resize (and opset 9's Upsample) -> Gather, Mul and Add of the registry.

A resize is separable: along each resized axis, output ``i`` is a weighted sum of a few
input positions (1 for nearest, 2 for linear, 4 for cubic). The positions and weights
depend only on the sizes and the attributes, so they are computed here, as ONNX's
reference defines them, and the graph holds them as constants: per axis one ``Gather``
per tap, a ``Mul`` by that tap's weights and the ``Add`` of the taps (a nearest resize
is one ``Gather``). This is also how ms-ops' ``interpolate`` computes.
"""

from __future__ import annotations

import math

import numpy as np

from ms_lite.onnx.context import ImportContext, Unsupported, attr

__all__ = ["resize", "upsample", "source_coordinates", "taps"]

_COORDS = ("half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric")


def source_coordinates(mode: str, n_in: int, n_out: int, scale: float) -> np.ndarray:
    """ONNX's ``coordinate_transformation_mode``: the input coordinate of each output."""
    x = np.arange(n_out, dtype=np.float64)
    if mode == "half_pixel":
        return (x + 0.5) / scale - 0.5
    if mode == "pytorch_half_pixel":
        return (x + 0.5) / scale - 0.5 if n_out > 1 else np.zeros(n_out)
    if mode == "align_corners":
        return x * (n_in - 1) / (n_out - 1) if n_out > 1 else np.zeros(n_out)
    if mode == "asymmetric":
        return x / scale
    raise Unsupported(f"coordinate_transformation_mode {mode!r} is not translated (only "
                      f"{', '.join(_COORDS)})")


def _nearest(x: np.ndarray, rule: str, scale: float) -> np.ndarray:
    if rule == "simple":  # opset 9/10 (onnxruntime's): floor when enlarging, else ceil
        return np.ceil(x) if scale < 1 else np.floor(x)
    if rule == "floor":
        return np.floor(x)
    if rule == "ceil":
        return np.ceil(x)
    half = np.isclose(x - np.floor(x), 0.5)
    if rule == "round_prefer_floor":
        return np.where(half, np.floor(x), np.round(x))
    if rule == "round_prefer_ceil":
        return np.where(half, np.ceil(x), np.round(x))
    raise Unsupported(f"nearest_mode {rule!r} is not an ONNX value")


def _cubic(t: np.ndarray, a: float) -> np.ndarray:
    t = np.abs(t)
    return np.where(t <= 1, ((a + 2) * t - (a + 3)) * t * t + 1,
                    np.where(t < 2, ((a * t - 5 * a) * t + 8 * a) * t - 4 * a, 0.0))


def taps(mode: str, coords: str, n_in: int, n_out: int, scale: float, nearest="round_prefer_floor",
         cubic_a=-0.75, exclude_outside=False) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, weights)``, each ``(n_out, taps)``: output ``i`` is
    ``sum_t weights[i, t] * input[indices[i, t]]`` along the axis (edges repeated)."""
    src = source_coordinates(coords, n_in, n_out, scale)
    if mode == "nearest":
        idx = _nearest(src, nearest, scale)[:, None]
        w = np.ones_like(idx)
    elif mode == "linear":
        lo = np.floor(src)
        f = src - lo
        idx = np.stack([lo, lo + 1], 1)
        w = np.stack([1 - f, f], 1)
    elif mode == "cubic":
        lo = np.floor(src)
        f = src - lo
        idx = np.stack([lo - 1, lo, lo + 1, lo + 2], 1)
        w = _cubic(np.stack([f + 1, f, 1 - f, 2 - f], 1), cubic_a)
        if exclude_outside:
            w = np.where((idx < 0) | (idx >= n_in), 0.0, w)
            w = w / w.sum(1, keepdims=True)
    else:
        raise Unsupported(f"mode {mode!r} is not an ONNX Resize mode")
    return np.clip(idx, 0, n_in - 1).astype(np.int64), w


def _out_sizes(ctx: ImportContext, node, shape, scales_i: int, sizes_i: int):
    """The output size and the scale of every axis (``axes`` of opset 18 resolved)."""
    rank = len(shape)
    axes = [a % rank for a in attr(node, "axes", list(range(rank)))]
    if attr(node, "antialias", 0):
        raise Unsupported("antialias=1 is not translated")
    if attr(node, "keep_aspect_ratio_policy", "stretch") != "stretch":
        raise Unsupported("keep_aspect_ratio_policy other than 'stretch' is not translated")
    sizes = ctx.const(sizes_i) if sizes_i >= 0 and ctx.has(sizes_i) else None
    if sizes is not None and sizes.size:
        out = list(shape)
        for a, s in zip(axes, sizes.tolist()):
            out[a] = int(s)
        return out, [o / i for o, i in zip(out, shape)]
    scales = ctx.need_const(scales_i, "scales")
    full = [1.0] * rank
    for a, s in zip(axes, scales.tolist()):
        full[a] = float(s)
    return [int(math.floor(i * s)) for i, s in zip(shape, full)], full


def _emit_axis(ctx: ImportContext, x: str, axis: int, rank: int, idx, w, dtype, out):
    if idx.shape[1] == 1:
        return ctx.emit("Gather", [x, ctx.add_const(idx[:, 0], "resize_index")],
                        {"axis": axis}, out=out)[0]
    total = None
    bshape = (-1,) + (1,) * (rank - axis - 1)
    for t in range(idx.shape[1]):
        g = ctx.emit("Gather", [x, ctx.add_const(idx[:, t], "resize_index")],
                     {"axis": axis})[0]
        wt = ctx.add_const(w[:, t].astype(dtype).reshape(bshape), "resize_weight")
        last = t == idx.shape[1] - 1
        m = ctx.emit("Mul", [g, wt])[0]
        total = m if total is None else ctx.emit("Add", [total, m],
                                                 out=out if last else None)[0]
    return total


def _resize(ctx: ImportContext, node, scales_i: int, sizes_i: int, coords: str,
            nearest: str | None = None) -> None:
    spec = ctx.in_spec(0)
    shape = tuple(spec.shape)
    mode = attr(node, "mode", "nearest")
    out_sizes, scales = _out_sizes(ctx, node, shape, scales_i, sizes_i)
    if np.dtype(spec.dtype).kind != "f" and mode != "nearest":
        raise Unsupported(f"{mode} resize of {spec.dtype} data is not translated")
    axes = [a for a, (i, o, s) in enumerate(zip(shape, out_sizes, scales))
            if not (i == o and s == 1.0)]
    if any(o < 1 for o in out_sizes):
        raise Unsupported(f"output sizes {out_sizes} of input {shape}")
    x = ctx.input(0)
    if not axes:
        ctx.emit("Reshape", [x], {"input_shape": shape}, out=node.output[0])
        return
    for k, a in enumerate(axes):
        idx, w = taps(mode, coords, shape[a], out_sizes[a], scales[a],
                      nearest or attr(node, "nearest_mode", "round_prefer_floor"),
                      attr(node, "cubic_coeff_a", -0.75), bool(attr(node, "exclude_outside", 0)))
        x = _emit_axis(ctx, x, a, len(shape), idx, w, np.dtype(spec.dtype),
                       node.output[0] if k == len(axes) - 1 else None)


def resize(ctx: ImportContext, node) -> None:
    """Resize (opset 10: X, scales; 11+: X, roi, scales, sizes)."""
    if ctx.opset < 11:  # opset 10's only behaviour: asymmetric, "simple" nearest
        _resize(ctx, node, 1, -1, "asymmetric", "simple")
    else:
        _resize(ctx, node, 2, 3, attr(node, "coordinate_transformation_mode", "half_pixel"))


def upsample(ctx: ImportContext, node) -> None:
    """Upsample (opset 9: X, scales; as opset 10's Resize)."""
    _resize(ctx, node, 1, -1, "asymmetric", "simple")
