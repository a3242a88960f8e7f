"""The int8 scheme, in integers only (TFLite's / CMSIS-NN's), as the reference that the
Cython kernels and ms-lite's C code generator reproduce bit for bit.

- Weights: symmetric int8 per output channel (axis 0), zero point 0, values in
  [-127, 127], ``scale_c = max|w_c| / 127``.
- Activations: asymmetric int8 per tensor from the calibrated [min, max] (widened to
  hold 0, so 0.0 is exact): ``scale = (max - min) / 255``, ``zp = round(-128 - min/scale)``.
- Bias: int32, ``round(b / (in_scale * w_scale_c))``.
- Accumulation in int32: ``acc = sum((x - in_zp) * w) + bias``.
- Requantization with the per-channel real multiplier ``M = in_scale * w_scale_c /
  out_scale`` written as a Q31 ``multiplier`` and a power-of-two ``shift``
  (``M = multiplier * 2**(shift - 31)``):
  ``out = clamp(rdbpot(srdhm(acc << max(shift, 0), multiplier), max(-shift, 0)) + out_zp,
  act_min, act_max)`` where the left shift saturates to int32,
  ``srdhm`` is SaturatingRoundingDoublingHighMul and ``rdbpot`` RoundingDivideByPOT.

>>> m, s = quantize_multiplier(0.0123)
>>> m, s, round(m * 2.0 ** (s - 31), 9)
(1690499128, -6, 0.0123)
>>> int(multiply_by_quantized_multiplier(np.int32(1000), m, s))
12
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["quantize_multiplier", "srdhm", "rounding_divide_by_pot",
           "multiply_by_quantized_multiplier", "requantize", "weight_params",
           "activation_params", "quantize", "dequantize", "QMIN", "QMAX"]

QMIN, QMAX = -128, 127
_I32_MIN, _I32_MAX = -(2 ** 31), 2 ** 31 - 1


def quantize_multiplier(real: float) -> tuple[int, int]:
    """``(multiplier, shift)`` with ``real == multiplier * 2**(shift - 31)`` to 31 bits,
    ``multiplier`` in [2**30, 2**31) (TFLite's QuantizeMultiplier)."""
    if real <= 0:
        if real == 0:
            return 0, 0
        raise ValueError(f"a requantization multiplier must be >= 0, got {real}")
    mant, exp = math.frexp(real)  # real = mant * 2**exp, mant in [0.5, 1)
    q = round(mant * (1 << 31))
    if q == 1 << 31:
        q //= 2
        exp += 1
    if exp < -31:  # too small to matter: the product rounds to zero
        return 0, 0
    return int(q), int(exp)


def srdhm(a, b):
    """SaturatingRoundingDoublingHighMul of int32 arrays: ``round(a * b / 2**31)`` with
    C's truncating division after a +-2**30 nudge; saturates the one overflow."""
    a = np.asarray(a, np.int64)
    b = np.asarray(b, np.int64)
    ab = a * b
    nudge = np.where(ab >= 0, 1 << 30, 1 - (1 << 30))
    t = ab + nudge
    q = np.where(t >= 0, t >> 31, -((-t) >> 31))  # C division truncates toward zero
    overflow = (a == _I32_MIN) & (b == _I32_MIN)
    return np.where(overflow, _I32_MAX, q).astype(np.int32)


def rounding_divide_by_pot(x, exponent):
    """RoundingDivideByPOT: ``x / 2**exponent`` rounded half away from zero."""
    # int64, so that exponent 31 (a multiplier below 2**-31 of the accumulator) is exact
    x = np.asarray(x, np.int64)
    exponent = np.asarray(exponent, np.int64)
    mask = (np.int64(1) << exponent) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (x < 0)
    return ((x >> exponent) + (remainder > threshold)).astype(np.int32)


def multiply_by_quantized_multiplier(x, multiplier, shift):
    """``x * multiplier * 2**(shift - 31)`` in integers (TFLite's
    MultiplyByQuantizedMultiplier; the left shift saturates to int32)."""
    shift = np.asarray(shift, np.int64)
    left = np.maximum(shift, 0)
    right = np.maximum(-shift, 0).astype(np.int32)
    shifted = np.clip(np.asarray(x, np.int64) << left, _I32_MIN, _I32_MAX)
    return rounding_divide_by_pot(srdhm(shifted, multiplier), right)


def requantize(acc, multiplier, shift, out_zp: int, act_min: int = QMIN, act_max: int = QMAX,
               axis: int = -1):
    """int32 accumulators -> int8 outputs. ``multiplier``/``shift`` are scalars or per
    channel along ``axis`` of ``acc``."""
    acc = np.asarray(acc, np.int32)
    m = np.asarray(multiplier, np.int32)
    s = np.asarray(shift, np.int32)
    if m.ndim:
        shape = [1] * acc.ndim
        shape[axis] = -1
        m, s = m.reshape(shape), s.reshape(shape)
    out = multiply_by_quantized_multiplier(acc, m, s).astype(np.int64) + out_zp
    return np.clip(out, act_min, act_max).astype(np.int8)


def weight_params(w: np.ndarray, axis: int = 0) -> np.ndarray:
    """Per-channel symmetric scales (float64) of a weight along ``axis``."""
    moved = np.moveaxis(np.asarray(w, np.float64), axis, 0).reshape(w.shape[axis], -1)
    amax = np.abs(moved).max(axis=1) if moved.size else np.zeros(w.shape[axis])
    return np.where(amax > 0, amax / 127.0, 1.0)


def activation_params(lo: float, hi: float) -> tuple[float, int]:
    """``(scale, zero_point)`` of an int8 tensor holding [lo, hi] (widened to hold 0)."""
    lo, hi = min(float(lo), 0.0), max(float(hi), 0.0)
    if hi == lo:
        return 1.0, 0
    scale = (hi - lo) / 255.0
    zp = int(round(QMIN - lo / scale))
    return scale, int(np.clip(zp, QMIN, QMAX))


def quantize(x, scale, zero_point, axis: int = -1, qmin: int = QMIN, qmax: int = QMAX):
    """Real -> int8: ``clamp(round_half_even(x / scale) + zp)``, per channel on ``axis``
    when ``scale`` has several entries."""
    x = np.asarray(x, np.float64)
    scale = np.asarray(scale, np.float64)
    zp = np.asarray(zero_point, np.int64)
    if scale.size > 1:
        shape = [1] * x.ndim
        shape[axis] = -1
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    return np.clip(np.rint(x / scale) + zp, qmin, qmax).astype(np.int8)


def dequantize(q, scale, zero_point, axis: int = -1, dtype=np.float32):
    q = np.asarray(q, np.int64)
    scale = np.asarray(scale, np.float64)
    zp = np.asarray(zero_point, np.int64)
    if scale.size > 1:
        shape = [1] * q.ndim
        shape[axis] = -1
        scale, zp = scale.reshape(shape), zp.reshape(shape)
    return ((q - zp) * scale).astype(dtype)
