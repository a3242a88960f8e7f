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

from ms_data.kernels import load, threads_for
from ms_data.transforms.base import TensorOperation
from ms_data.vision import _checks
from ms_data.vision.enums import Inter
from ms_data.vision.resize import Resize, output_size
from ms_data.vision.resize_tables import linear_table

_kernel = load("_pointwise")
_lut_kernel = load("_lut")

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
        return run_fused(type(self).__name__, x, [self], None, self._plans())

    def _plans(self) -> dict:
        """Step tables per channel count, built on first use (not pickled with the op)."""
        plans = self.__dict__.get("_plan_cache")
        if plans is None:
            plans = self._plan_cache = {}
        return plans

    def __getstate__(self):
        return {k: v for k, v in self.__dict__.items() if k != "_plan_cache"}


def _plan(ops: list, c: int, cache: dict | None):
    """``(kinds, a, b, chw, lut)`` for ``ops`` on ``c`` channels, kept in ``cache`` per ``c``.

    ``lut`` (C, 256) float32 holds the chain's result for every uint8 value of each channel,
    computed by the numpy reference: a uint8 batch then needs only lookups.
    """
    plan = cache.get(c) if cache is not None else None
    if plan is not None:
        return plan
    steps = [s for o in ops if not isinstance(o, HWC2CHW) for s in o.steps(c)]
    chw = any(o.chw_out for o in ops)
    if steps:
        kinds = np.array([k for k, _, _ in steps], dtype=np.int32)
        a = np.ascontiguousarray([s[1] for s in steps], dtype=np.float64)
        b = np.ascontiguousarray([s[2] for s in steps], dtype=np.float64)
        values = np.broadcast_to(np.arange(256, dtype=np.uint8)[:, None], (256, c))
        lut = np.ascontiguousarray(pointwise_ref(values[None, None], steps)[0, 0].T)
        plan = (kinds, a, b, chw, lut)
    else:
        plan = (None, None, None, chw, None)
    if cache is not None:
        cache[c] = plan
    return plan


def run_fused(op: str, x: np.ndarray, ops: list, cast, cache: dict | None = None) -> np.ndarray:
    """Apply pointwise ``ops`` in order to a batch, then cast to ``cast`` (numpy dtype or None).

    ``cache`` (a dict owned by the calling operation) keeps the step tables between batches.
    """
    _checks.image(op, x, batched=True)
    xb, added = _checks.as_nhwc(x)
    n, h, w, c = xb.shape
    kinds, a, b, chw, lut = _plan(ops, c, cache)
    if kinds is None:
        out = xb
    elif _lut_kernel is not None and xb.dtype == np.uint8:
        src = np.ascontiguousarray(xb).reshape(n, h * w, c)
        out = np.empty((n, h * w * c), dtype=np.float32)
        _lut_kernel.lookup(src, out, lut, chw, threads_for(out.size))
        out = out.reshape((n, c, h, w) if chw else (n, h, w, c))
        chw = False
    elif _kernel is not None and xb.dtype == np.float32:
        src = np.ascontiguousarray(xb).reshape(n, h * w, c)
        out = np.empty((n, c, h * w) if chw else (n, h * w, c), dtype=np.float32)
        _kernel.chain(src, out, kinds, a, b, chw, threads_for(out.size))
        out = out.reshape((n, c, h, w) if chw else (n, h, w, c))
        chw = False
    else:
        out = pointwise_ref(xb, [(k, a[i], b[i]) for i, k in enumerate(kinds)])
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
            return run_fused("Normalize", x, [self], None, self._plans())
        out = run_fused("Normalize", np.moveaxis(x, 1, -1), [self], None, self._plans())
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
        return run_fused("ToTensor", x, [self], self.output_type, self._plans())


class FusedPointwise(_Pointwise):
    """A bilinear Resize (optional), then consecutive Rescale / Normalize / ToTensor /
    HWC2CHW, then a TypeCast (optional), in one pass.

    Made by :func:`fuse`; gives exactly what the operations give one after another. A uint8
    batch goes through one kernel that resizes, looks each value's chain result up, and
    writes the final (CHW) float32 tensor once.
    """

    def __init__(self, ops, cast=None, resize=None):
        self.ops = list(ops)
        self.cast = cast
        self.resize = resize

    def _row(self, x, rng):
        _checks.image("FusedPointwise", x)
        return self.batch_call(x[None])[0]

    def batch_call(self, x, rng=None):
        if x.ndim == 3 and any(isinstance(o, ToTensor) for o in self.ops):
            x = x[..., None]
        if self.resize is not None:
            out = self._resize_lookup(x)
            if out is not None:
                return out
            x = self.resize.batch_call(x)
        return run_fused("FusedPointwise", x, self.ops, self.cast, self._plans())

    def _resize_lookup(self, x: np.ndarray) -> np.ndarray | None:
        """The one-kernel path for uint8 batches; ``None`` where it does not apply."""
        if _lut_kernel is None or x.dtype != np.uint8:
            return None
        _checks.image("FusedPointwise", x, batched=True)
        xb, added = _checks.as_nhwc(x)
        n, h, w, c = xb.shape
        oh, ow = output_size(self.resize.size, h, w)
        kinds, _, _, chw, lut = _plan(self.ops, c, self._plans())
        if kinds is None or (oh, ow) == (h, w):
            return None
        xi, _, xiw = linear_table(w, ow)
        yi, _, yiw = linear_table(h, oh, vertical=True)
        out = np.empty((n, oh * ow * c), dtype=np.float32)
        _lut_kernel.resize_lut(np.ascontiguousarray(xb), out, xi.reshape(-1), xiw.reshape(-1),
                               yi.reshape(-1), yiw.reshape(-1), lut, chw,
                               threads_for(out.size))
        shape = (n, oh, ow) if added else ((n, c, oh, ow) if chw else (n, oh, ow, c))
        out = out.reshape(shape)
        if self.cast is not None and out.dtype != self.cast:
            out = out.astype(self.cast)
        return out


def fuse(ops: list) -> list:
    """Merge runs of pointwise image operations into :class:`FusedPointwise` operations.

    A run is a sequence of Rescale / Normalize(is_hwc=True) / ToTensor / HWC2CHW, optionally
    led by one bilinear Resize and closed by one TypeCast; arithmetic after a layout change
    is not fused (its channel axis moved), so a run ends at its first HWC2CHW or ToTensor.
    Runs of one operation are left as they are. Other operations (and callables) pass
    through unchanged, in order.
    """
    from ms_data.transforms.ops import TypeCast

    out: list = []
    run: list = []
    lead: list = []  # a bilinear Resize waiting to lead the next run

    def close(cast_op=None):
        if run and len(lead) + len(run) + (cast_op is not None) > 1:
            out.append(FusedPointwise(run, cast_op.np_dtype if cast_op else None,
                                      lead[0] if lead else None))
        else:
            out.extend(lead)
            out.extend(run)
            if cast_op is not None:
                out.append(cast_op)
        run.clear()
        lead.clear()

    for op in ops:
        pointwise = isinstance(op, _Pointwise) and not isinstance(op, FusedPointwise) and not (
            isinstance(op, Normalize) and not op.is_hwc)
        if pointwise and not any(o.chw_out for o in run):
            run.append(op)
        elif pointwise:
            close()
            run.append(op)
        elif isinstance(op, TypeCast) and run:
            close(op)
        elif isinstance(op, Resize) and op.interpolation == Inter.BILINEAR:
            close()
            lead.append(op)
        else:
            close()
            out.append(op)
    close()
    return out
