"""Per-pixel arithmetic and layout: Rescale, Normalize, ToTensor, HWC2CHW, and their fusion.

The numerics are MindSpore's, bit for bit: Rescale computes ``x * rescale + shift`` in
double from float32 parameters and rounds to float32; Normalize computes
``(x - mean) / std`` in float32; ToTensor multiplies by float32 ``1/255``. Each operation
is a list of *steps* (kind, per-channel a, per-channel b); :class:`FusedPointwise` runs
several operations' steps in one Cython pass (``ms_data.kernels._pointwise``), rounding
after every step as the operations would one by one, so fusion never changes a result.
"""

from __future__ import annotations

import numbers

import numpy as np

from ms_data.kernels import load
from ms_data.transforms.base import TensorOperation
from ms_data.vision import _checks

_kernel = load("_pointwise")

RESCALE, NORMALIZE, SCALE_F32 = 0, 1, 2  # step kinds, as in _pointwise.pyx


def _apply_step(v: np.ndarray, kind: int, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """numpy reference of one step on float32 ``v`` (..., C) with per-channel a, b."""
    if kind == RESCALE:
        return (v.astype(np.float64) * a + b).astype(np.float32)
    if kind == NORMALIZE:
        return (v - a.astype(np.float32)) / b.astype(np.float32)
    return v * a.astype(np.float32)


class _Pointwise(TensorOperation):
    """An operation made of per-channel steps, on (H, W) or (H, W, C) images."""

    chw_out = False  # HWC2CHW-like layout change after the arithmetic

    def steps(self, channels: int) -> list[tuple[int, np.ndarray, np.ndarray]]:
        raise NotImplementedError

    def _row(self, x, rng):
        _checks.image(type(self).__name__, x)
        return self.batch_call(x[None])[0]

    def batch_call(self, x, rng=None):
        return run_fused(type(self).__name__, x, [self], None)


def run_fused(op: str, x: np.ndarray, ops: list, cast) -> np.ndarray:
    """Apply pointwise ``ops`` in order to a batch, then cast to ``cast`` (numpy dtype or None)."""
    _checks.image(op, x, batched=True)
    xb, added = _checks.as_nhwc(x)
    n, h, w, c = xb.shape
    steps = [s for o in ops if not isinstance(o, HWC2CHW) for s in o.steps(c)]
    chw = any(o.chw_out for o in ops)
    if not steps:
        out = xb
    elif _kernel is not None and xb.dtype in (np.uint8, np.float32):
        kinds = np.array([k for k, _, _ in steps], dtype=np.int32)
        a = np.ascontiguousarray([s[1] for s in steps], dtype=np.float64)
        b = np.ascontiguousarray([s[2] for s in steps], dtype=np.float64)
        src = np.ascontiguousarray(xb).reshape(n, h * w, c)
        out = np.empty((n, c, h * w) if chw else (n, h * w, c), dtype=np.float32)
        _kernel.chain(src, out, kinds, a, b, chw)
        out = out.reshape((n, c, h, w) if chw else (n, h, w, c))
        chw = False
    else:
        out = pointwise_ref(xb, steps)
    if added:  # no channel axis: both layouts are (N, H, W)
        out = out.reshape(n, h, w)
    elif chw:
        out = np.ascontiguousarray(out.transpose(0, 3, 1, 2))
    if cast is not None and out.dtype != cast:
        out = out.astype(cast)
    return out


def pointwise_ref(x: np.ndarray, steps) -> np.ndarray:
    """numpy reference for the Cython chain: float32 (N, H, W, C) result."""
    v = x.astype(np.float32)
    for kind, a, b in steps:
        v = _apply_step(v, kind, np.asarray(a), np.asarray(b))
    return v


def _number(op: str, name: str, v) -> float:
    if not isinstance(v, numbers.Real) or isinstance(v, bool):
        raise TypeError(f"{op}: {name} must be a number, got {v!r}")
    return float(v)


class Rescale(_Pointwise):
    """``output = image * rescale + shift`` as float32 (MindSpore's ``vision.Rescale``)."""

    def __init__(self, rescale, shift):
        self.rescale = _number("Rescale", "rescale", rescale)
        self.shift = _number("Rescale", "shift", shift)

    def steps(self, channels):
        a = np.full(channels, np.float32(self.rescale), dtype=np.float64)
        b = np.full(channels, np.float32(self.shift), dtype=np.float64)
        return [(RESCALE, a, b)]


class Normalize(_Pointwise):
    """``output[c] = (image[c] - mean[c]) / std[c]`` as float32; ``is_hwc=False`` for CHW."""

    def __init__(self, mean, std, is_hwc=True):
        for name, vals in (("mean", mean), ("std", std)):
            if not isinstance(vals, (list, tuple)) or not vals:
                raise TypeError(f"Normalize: {name} must be a non-empty list or tuple, "
                                f"got {vals!r}")
        if len(mean) != len(std):
            raise ValueError(f"Normalize: mean has {len(mean)} values, std {len(std)}")
        if any(s <= 0 for s in std):
            raise ValueError(f"Normalize: std values must be positive, got {list(std)}")
        self.mean = [_number("Normalize", "mean", m) for m in mean]
        self.std = [_number("Normalize", "std", s) for s in std]
        self.is_hwc = bool(is_hwc)

    def steps(self, channels):
        _checks.channels_match("Normalize", "mean", self.mean, channels)
        a = np.asarray(self.mean, np.float32).astype(np.float64)
        b = np.asarray(self.std, np.float32).astype(np.float64)
        return [(NORMALIZE, a, b)]

    def batch_call(self, x, rng=None):
        if self.is_hwc:
            return super().batch_call(x, rng)
        # CHW input: move channels last, normalize, move back.
        _checks.image("Normalize", x, batched=True)
        if x.ndim == 3:
            return run_fused("Normalize", x, [self], None)
        out = run_fused("Normalize", np.moveaxis(x, 1, -1), [self], None)
        return np.ascontiguousarray(np.moveaxis(out, -1, 1))


class HWC2CHW(_Pointwise):
    """Transpose (H, W, C) to (C, H, W); an (H, W) image is returned unchanged."""

    chw_out = True

    def steps(self, channels):
        return []

    def batch_call(self, x, rng=None):
        _checks.image("HWC2CHW", x, batched=True)
        if x.ndim == 3:
            return x.copy()
        return np.ascontiguousarray(x.transpose(0, 3, 1, 2))


class ToTensor(_Pointwise):
    """(H, W, C) image to (C, H, W) ``output_type`` (float32) scaled by 1/255."""

    chw_out = True

    def __init__(self, output_type=np.float32):
        from ms_data.transforms.ops import numpy_dtype

        self.output_type = numpy_dtype("ToTensor", output_type)

    def steps(self, channels):
        return [(SCALE_F32, np.full(channels, np.float32(1 / 255), np.float64),
                 np.zeros(channels))]

    def batch_call(self, x, rng=None):
        _checks.image("ToTensor", x, batched=True)
        if x.ndim == 3:
            x = x[..., None]
        return run_fused("ToTensor", x, [self], self.output_type)


class FusedPointwise(TensorOperation):
    """Consecutive Rescale / Normalize / ToTensor / HWC2CHW / TypeCast in one pass.

    Made by :func:`fuse`; gives exactly what the operations give one after another.
    """

    def __init__(self, ops, cast=None):
        self.ops = list(ops)
        self.cast = cast

    def _row(self, x, rng):
        _checks.image("FusedPointwise", x)
        return self.batch_call(x[None])[0]

    def batch_call(self, x, rng=None):
        if (x.ndim == 3 and any(isinstance(o, ToTensor) for o in self.ops)):
            x = x[..., None]
        return run_fused("FusedPointwise", x, self.ops, self.cast)


def fuse(ops: list) -> list:
    """Merge runs of pointwise image operations into :class:`FusedPointwise` operations.

    ``map`` calls this on its operation list before running batches. A run is a sequence
    of Rescale / Normalize(is_hwc=True) / ToTensor / HWC2CHW, optionally closed by one
    TypeCast; arithmetic after a layout change is not fused (its channel axis moved), so a
    run ends at its first HWC2CHW or ToTensor. Runs of one operation are left as they are.
    Other operations (and callables) pass through unchanged, in order.
    """
    from ms_data.transforms.ops import TypeCast

    out: list = []
    run: list = []

    def close(cast_op=None):
        if len(run) + (cast_op is not None) > 1:
            out.append(FusedPointwise(run, cast_op.np_dtype if cast_op else None))
        else:
            out.extend(run)
            if cast_op is not None:
                out.append(cast_op)
        run.clear()

    for op in ops:
        pointwise = isinstance(op, _Pointwise) and not (
            isinstance(op, Normalize) and not op.is_hwc)
        if pointwise and not any(o.chw_out for o in run):
            run.append(op)
        elif pointwise:
            close()
            run.append(op)
        elif isinstance(op, TypeCast) and run:
            close(op)
        else:
            close()
            out.append(op)
    close()
    return out
