"""int8 lite operators (the scheme: ``ms_lite.quant.scheme``).

``QuantConv2D``/``QuantFullConnection`` run an int8 GEMM with int32 accumulation and
integer requantization: in the Cython module ``_int8`` (OpenMP over output rows,
``threads`` from ``Context.cpu.thread_num``), or in numpy (``*_reference``, the oracle the
tests compare the Cython kernels with, bit for bit) where the extension is not built.
"""

from __future__ import annotations

import numpy as np

from ms_lite.quant import scheme
from ms_lite.runtime.ops import LiteOp, spec

__all__ = ["QUANT_DTYPE_CAST", "QUANT_CONV2D", "QUANT_FULL_CONNECTION", "QUANT_MAX_POOL",
           "QUANT_RELU", "qgemm_reference", "qgemm", "im2col"]

try:
    from ms_lite.kernels import _int8
except ImportError:  # a source checkout without the built extension
    _int8 = None


def qgemm_reference(a, w, bias, mult, shift, in_zp, out_zp, act_min, act_max):
    """``a`` (M, K) int8, ``w`` (N, K) int8 -> (M, N) int8, per-column requantization."""
    acc = (a.astype(np.int32) - np.int32(in_zp)) @ w.astype(np.int32).T
    acc = acc.astype(np.int32) + bias.astype(np.int32)
    return scheme.requantize(acc, mult, shift, out_zp, act_min, act_max, axis=-1)


def qgemm(a, w, bias, mult, shift, in_zp, out_zp, act_min, act_max, threads: int = 0):
    if _int8 is None:
        return qgemm_reference(a, w, bias, mult, shift, in_zp, out_zp, act_min, act_max)
    out = np.empty((a.shape[0], w.shape[0]), np.int8)
    _int8.qgemm(np.ascontiguousarray(a), np.ascontiguousarray(w), bias, mult, shift,
                int(in_zp), int(out_zp), int(act_min), int(act_max), out, int(threads))
    return out


def _geometry(x_shape, w_shape, attrs):
    from ms_ops.defs.nn_conv import conv_geometry  # the one conv geometry
    from ms_tensor import registry

    conv = registry.load().primitive("Conv2D")
    given = {k: attrs[k] for k in conv.attr_names if k in attrs}
    return conv_geometry(x_shape, w_shape, **conv.complete_attrs(given))


def im2col(x, g, pad_value: int):
    """(N*OH*OW, C*KH*KW) int8 columns of NCHW ``x``, padded with ``pad_value`` (the input
    zero point, so padding contributes exactly 0 after ``x - zp``)."""
    n, c, h, w = x.shape
    if _int8 is not None:
        rows = np.empty((n * g.oh * g.ow, c * g.kh * g.kw), np.int8)
        _int8.im2row(np.ascontiguousarray(x), rows, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt,
                     g.pl, g.oh, g.ow, pad_value)
        return rows
    return im2col_reference(x, g, pad_value)


def im2col_reference(x, g, pad_value: int):
    """``im2col`` in numpy (the Cython ``im2row``'s oracle)."""
    n, c, h, w = x.shape
    xp = np.full((n, c, h + g.pt + g.pb, w + g.pl + g.pr), pad_value, np.int8)
    xp[:, :, g.pt:g.pt + h, g.pl:g.pl + w] = x
    taps = [xp[:, :, i * g.dh: i * g.dh + (g.oh - 1) * g.sh + 1: g.sh,
               j * g.dw: j * g.dw + (g.ow - 1) * g.sw + 1: g.sw]
            for i in range(g.kh) for j in range(g.kw)]
    cols = np.stack(taps, axis=2)  # (N, C, KH*KW, OH, OW)
    return np.ascontiguousarray(cols.transpose(0, 3, 4, 1, 2)).reshape(n * g.oh * g.ow, -1)


_CONV_KEYS = ("input_zero_point", "output_zero_point", "act_min", "act_max")


def _qconv_infer(x, w, bias, mult, shift, **attrs):
    if x.dtype.np != np.int8 or w.dtype.np != np.int8:
        raise TypeError(f"QuantConv2D: x and w must be int8, got {x.dtype} and {w.dtype}")
    g = _geometry(x.shape, w.shape, attrs)
    return spec((x.shape[0], w.shape[0], g.oh, g.ow), np.int8)


def _qconv(x, w, bias, mult, shift, threads=0, **attrs):
    g = _geometry(x.shape, w.shape, attrs)
    cg, ocg = x.shape[1] // g.group, w.shape[0] // g.group
    outs = []
    for gi in range(g.group):  # a grouped (depthwise) convolution: one GEMM per group
        cols = im2col(x[:, gi * cg:(gi + 1) * cg], g, attrs["input_zero_point"])
        o = slice(gi * ocg, (gi + 1) * ocg)
        outs.append(qgemm(cols, w[o].reshape(ocg, -1), bias[o], mult[o], shift[o],
                          *(attrs[k] for k in _CONV_KEYS), threads=threads))
    out = outs[0] if g.group == 1 else np.concatenate(outs, axis=1)
    n = x.shape[0]
    return np.ascontiguousarray(out.reshape(n, g.oh, g.ow, -1).transpose(0, 3, 1, 2))


QUANT_CONV2D = LiteOp("QuantConv2D", _qconv_infer, _qconv, threaded=True,
                      doc="int8 Conv2D (+bias, +activation as act_min/act_max), requantized")


def _qfc_infer(x, w, bias, mult, shift, **attrs):
    if x.dtype.np != np.int8 or w.dtype.np != np.int8:
        raise TypeError(f"QuantFullConnection: x and w must be int8, got {x.dtype} and "
                        f"{w.dtype}")
    if x.shape[-1] != w.shape[1]:
        raise ValueError(f"QuantFullConnection: x shape {x.shape} and w shape {w.shape} "
                         "cannot be multiplied")
    return spec(tuple(x.shape[:-1]) + (w.shape[0],), np.int8)


def _qfc(x, w, bias, mult, shift, threads=0, **attrs):
    a = x.reshape(-1, x.shape[-1])
    out = qgemm(a, w, bias, mult, shift, *(attrs[k] for k in _CONV_KEYS), threads=threads)
    return out.reshape(tuple(x.shape[:-1]) + (w.shape[0],))


QUANT_FULL_CONNECTION = LiteOp("QuantFullConnection", _qfc_infer, _qfc, threaded=True,
                               doc="int8 x @ w.T + bias (+activation), requantized")


def _cast_infer(x, dst_t, scale, zero_point, axis=-1):
    return spec(x.shape, dst_t)


def _cast(x, dst_t, scale, zero_point, axis=-1):
    dst = np.dtype(dst_t)
    if _int8 is not None and np.size(scale) == 1 and np.size(zero_point) == 1 and (
            (dst == np.int8 and x.dtype == np.float32) or
            (dst == np.float32 and x.dtype == np.int8)):  # per tensor: the Cython loops
        out = np.empty(x.shape, dst)
        fn = _int8.quantize_f32 if dst == np.int8 else _int8.dequantize_f32
        fn(np.ascontiguousarray(x).reshape(-1), float(np.ravel(scale)[0]),
           int(np.ravel(zero_point)[0]), out.reshape(-1))
        return out
    if dst == np.int8:
        return scheme.quantize(x, scale, zero_point, axis)
    return scheme.dequantize(x, scale, zero_point, axis, dst)


QUANT_DTYPE_CAST = LiteOp("QuantDTypeCast", _cast_infer, _cast,
                          doc="float <-> int8 with scale and zero_point (per tensor or axis)")


def _pool_infer(x, **attrs):
    from ms_tensor import registry

    out = registry.load().primitive("MaxPool").abstract_eval(spec(x.shape, np.float32),
                                                             **attrs)
    return spec(out.shape, np.int8)


def _qmax_pool(x, **attrs):
    from ms_tensor import registry

    # max commutes with the monotone int8 mapping: pool the values as float32 (exact for
    # int8) with the registry's kernel, and come back.
    reg = registry.load()
    attrs = reg.primitive("MaxPool").complete_attrs(attrs)
    out = reg.kernel("MaxPool", "CPU")(x.astype(np.float32), **attrs)
    return out.astype(np.int8)


QUANT_MAX_POOL = LiteOp("QuantMaxPool", _pool_infer, _qmax_pool,
                        doc="MaxPool on int8 (scale and zero point pass through)")


def _relu_infer(x, zero_point=0):
    return spec(x.shape, np.int8)


def _qrelu(x, zero_point=0):
    return np.maximum(x, np.int8(zero_point))


QUANT_RELU = LiteOp("QuantReLU", _relu_infer, _qrelu,
                    doc="ReLU on int8: max(x, zero_point)")
