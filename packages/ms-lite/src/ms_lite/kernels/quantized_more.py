"""int8 Add, Mul, Concat and AvgPool (TFLite's integer arithmetic, ``ms_lite.quant.scheme``),
so that residual networks stay int8 between their convolutions.

Each operator has a numpy reference (``*_reference``), the oracle the Cython kernels in
``_int8`` are held to bit for bit; the lite operator calls the Cython kernel where the
extension is built. Operands are broadcast (numpy's rules) before the loops.

- Add: ``x_i = MBQM((q_i - zp_i) << 20, M_i)`` with ``M_i = s_i / (2 max(s_1, s_2))``,
  ``out = MBQM(x_1 + x_2, 2 max(s_1, s_2) / (2**20 s_out)) + zp_out`` (TFLite's
  left shift of 20 keeps 20 bits of the rescaled inputs).
- Mul: ``out = MBQM((q_1 - zp_1)(q_2 - zp_2), s_1 s_2 / s_out) + zp_out``.
- Concat: each input rescaled to the output's scale: ``MBQM(q - zp_i, s_i / s_out) +
  zp_out`` (a plain copy where the parameters are the output's).
- AvgPool (unpadded): the window sum divided by its size, rounded half away from zero,
  in the input's scale and zero point.

``MBQM`` is ``scheme.multiply_by_quantized_multiplier``; every result is clamped to
``[act_min, act_max]`` (int8's range, narrowed by a fused ReLU).
"""

from __future__ import annotations

import numpy as np

from ms_lite.quant import scheme
from ms_lite.runtime.ops import LiteOp, spec

try:
    from ms_lite.kernels import _int8
except ImportError:  # a source checkout without the built extension
    _int8 = None

__all__ = ["QUANT_ADD", "QUANT_MUL", "QUANT_CONCAT", "QUANT_AVG_POOL", "LEFT_SHIFT",
           "add_params", "add_reference", "mul_reference", "rescale_reference",
           "avg_pool_reference"]

LEFT_SHIFT = 20


def _mbqm(x, m, s):
    return scheme.multiply_by_quantized_multiplier(np.asarray(x, np.int32), m, s)


def _clip(v, lo, hi):
    return np.clip(np.asarray(v, np.int64), lo, hi).astype(np.int8)


def add_params(s1: float, s2: float, s_out: float) -> dict:
    """The integer attributes of an int8 Add of scales ``s1 + s2 -> s_out``."""
    twice = 2.0 * max(s1, s2)
    m1, sh1 = scheme.quantize_multiplier(s1 / twice)
    m2, sh2 = scheme.quantize_multiplier(s2 / twice)
    m, sh = scheme.quantize_multiplier(twice / ((1 << LEFT_SHIFT) * s_out))
    return {"left_shift": LEFT_SHIFT, "multiplier1": m1, "shift1": sh1, "multiplier2": m2,
            "shift2": sh2, "multiplier": m, "shift": sh}


def add_reference(a, b, a_zp, b_zp, out_zp, left_shift, multiplier1, shift1, multiplier2,
                  shift2, multiplier, shift, act_min=-128, act_max=127):
    x = _mbqm((a.astype(np.int32) - a_zp) * (1 << left_shift), multiplier1, shift1)
    y = _mbqm((b.astype(np.int32) - b_zp) * (1 << left_shift), multiplier2, shift2)
    return _clip(_mbqm(x.astype(np.int32) + y, multiplier, shift) + np.int64(out_zp),
                 act_min, act_max)


def mul_reference(a, b, a_zp, b_zp, out_zp, multiplier, shift, act_min=-128, act_max=127):
    acc = (a.astype(np.int32) - a_zp) * (b.astype(np.int32) - b_zp)
    return _clip(_mbqm(acc, multiplier, shift) + np.int64(out_zp), act_min, act_max)


def rescale_reference(a, zp_in, multiplier, shift, out_zp):
    return _clip(_mbqm(a.astype(np.int32) - zp_in, multiplier, shift) + np.int64(out_zp),
                 -128, 127)


def avg_pool_reference(x, kh, kw, sh, sw, act_min=-128, act_max=127):
    """``x`` (..., H, W) int8 -> unpadded window means, rounded half away from zero."""
    h, w = x.shape[-2:]
    oh, ow = (h - kh) // sh + 1, (w - kw) // sw + 1
    acc = sum(x[..., i:i + (oh - 1) * sh + 1:sh, j:j + (ow - 1) * sw + 1:sw].astype(np.int64)
              for i in range(kh) for j in range(kw))
    n = kh * kw
    q = np.where(acc > 0, (acc + n // 2) // n, -((-acc + n // 2) // n))
    return _clip(q, act_min, act_max)


def _pair_infer(name):
    def infer(a, b, **attrs):
        if a.dtype.np != np.int8 or b.dtype.np != np.int8:
            raise TypeError(f"{name}: inputs must be int8, got {a.dtype} and {b.dtype}")
        try:
            shape = np.broadcast_shapes(a.shape, b.shape)
        except ValueError:
            raise ValueError(f"{name}: shapes {a.shape} and {b.shape} do not broadcast") \
                from None
        return spec(shape, np.int8)
    return infer


def _flat_pair(a, b):
    shape = np.broadcast_shapes(a.shape, b.shape)
    return (np.ascontiguousarray(np.broadcast_to(a, shape)).reshape(-1),
            np.ascontiguousarray(np.broadcast_to(b, shape)).reshape(-1), shape)


_ADD_KEYS = ("left_shift", "multiplier1", "shift1", "multiplier2", "shift2", "multiplier",
             "shift")


def _qadd(a, b, input1_zero_point, input2_zero_point, output_zero_point, act_min=-128,
          act_max=127, **attrs):
    if _int8 is None:
        return add_reference(a, b, input1_zero_point, input2_zero_point, output_zero_point,
                             *(attrs[k] for k in _ADD_KEYS), act_min, act_max)
    x, y, shape = _flat_pair(a, b)
    out = np.empty(x.size, np.int8)
    _int8.add(x, y, input1_zero_point, input2_zero_point, attrs["left_shift"],
              attrs["multiplier1"], attrs["shift1"], attrs["multiplier2"], attrs["shift2"],
              attrs["multiplier"], attrs["shift"], output_zero_point, act_min, act_max, out)
    return out.reshape(shape)


QUANT_ADD = LiteOp("QuantAdd", _pair_infer("QuantAdd"), _qadd,
                   doc="int8 a + b (broadcasting), TFLite's rescale-and-sum, requantized")


def _qmul(a, b, input1_zero_point, input2_zero_point, output_zero_point, multiplier, shift,
          act_min=-128, act_max=127):
    if _int8 is None:
        return mul_reference(a, b, input1_zero_point, input2_zero_point, output_zero_point,
                             multiplier, shift, act_min, act_max)
    x, y, shape = _flat_pair(a, b)
    out = np.empty(x.size, np.int8)
    _int8.mul(x, y, input1_zero_point, input2_zero_point, multiplier, shift,
              output_zero_point, act_min, act_max, out)
    return out.reshape(shape)


QUANT_MUL = LiteOp("QuantMul", _pair_infer("QuantMul"), _qmul,
                   doc="int8 a * b (broadcasting), the centred product requantized")


def _concat_infer(a, b, axis=0, **attrs):
    if a.dtype.np != np.int8 or b.dtype.np != np.int8:
        raise TypeError(f"QuantConcat: inputs must be int8, got {a.dtype} and {b.dtype}")
    if len(a.shape) != len(b.shape) or not -len(a.shape) <= axis < len(a.shape):
        raise ValueError(f"QuantConcat: shapes {a.shape} and {b.shape}, axis {axis}")
    ax = axis % len(a.shape)
    if a.shape[:ax] + a.shape[ax + 1:] != b.shape[:ax] + b.shape[ax + 1:]:
        raise ValueError(f"QuantConcat: shapes {a.shape} and {b.shape} differ off axis {axis}")
    return spec(a.shape[:ax] + (a.shape[ax] + b.shape[ax],) + a.shape[ax + 1:], np.int8)


def _rescale(a, zp, m, s, out_zp):
    if m == 1 << 30 and s == 1 and zp == out_zp:  # the output's own parameters
        return a
    if _int8 is None:
        return rescale_reference(a, zp, m, s, out_zp)
    out = np.empty(a.size, np.int8)
    _int8.rescale(np.ascontiguousarray(a).reshape(-1), zp, m, s, out_zp, out)
    return out.reshape(a.shape)


def _qconcat(a, b, input1_zero_point, input2_zero_point, output_zero_point, multiplier1,
             shift1, multiplier2, shift2, axis=0):
    return np.concatenate([_rescale(a, input1_zero_point, multiplier1, shift1,
                                    output_zero_point),
                           _rescale(b, input2_zero_point, multiplier2, shift2,
                                    output_zero_point)], axis=axis)


QUANT_CONCAT = LiteOp("QuantConcat", _concat_infer, _qconcat,
                      doc="int8 concatenation, each input rescaled to the output's scale")


def _window(x_shape, attrs):
    from ms_lite.kernels.windows import valid_window

    try:
        return valid_window("AvgPool", x_shape, {k: v for k, v in attrs.items()
                                                 if k not in ("act_min", "act_max")})
    except ValueError as e:
        raise ValueError(f"QuantAvgPool: {e}") from None


def _avg_infer(x, **attrs):
    if x.dtype.np != np.int8 or len(x.shape) != 4:
        raise TypeError(f"QuantAvgPool: x must be 4-d int8, got {x.dtype} {x.shape}")
    w = _window(x.shape, attrs)
    return spec(x.shape[:2] + (w.oh, w.ow), np.int8)


def _qavg(x, act_min=-128, act_max=127, **attrs):
    w = _window(x.shape, attrs)
    if _int8 is None:
        return avg_pool_reference(x, w.kh, w.kw, w.sh, w.sw, act_min, act_max)
    n, c, h, wd = x.shape
    out = np.empty((n * c, w.oh, w.ow), np.int8)
    _int8.avg_pool(np.ascontiguousarray(x).reshape(n * c, h, wd), out, w.kh, w.kw, w.sh, w.sw,
                   act_min, act_max)
    return out.reshape(n, c, w.oh, w.ow)


QUANT_AVG_POOL = LiteOp("QuantAvgPool", _avg_infer, _qavg,
                        doc="unpadded AvgPool on int8 (scale and zero point pass through)")
