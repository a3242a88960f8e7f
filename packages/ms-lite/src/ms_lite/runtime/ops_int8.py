"""The execution plan's int8 kernels: the quantized operators bound at build time like
the float32 ones (``ops_f32``), their buffers planned, their constants prepared once.

- ``QuantConv2D`` (one group): a column matrix (``_int8.im2col``, padded with the input
  zero point) and, per output channel, an int32 row accumulated over contiguous pixels
  and requantized straight into NCHW (``_int8.qconv``; a batch image by image in one
  call, ``_int8.qconv_images``); the input zero point's share, ``in_zp * sum(w[n])``, is
  folded into the bias once.
- ``QuantFullConnection``: the weight transposed once, each output row's int32 sums
  accumulated along contiguous columns (``_int8.qdense``), the same bias folding.
- ``QuantMaxPool`` (unpadded): ``_int8.max_pool``. ``QuantReLU``: ``max(x, zp)`` in place.
- ``QuantDTypeCast`` per tensor between float32 and int8: ``_int8.(de)quantize_f32``.

All are the kernels the registry's lite operators (``ms_lite.kernels.quantized``) use or
are held to, bit for bit; ``int8_builder`` returns None for any other form (grouped
convolutions, per-axis casts, padded pools), which then run those operators' kernels.
"""

from __future__ import annotations

from functools import partial

import numpy as np

try:
    from ms_lite.kernels import _int8
except ImportError:  # a source checkout without the built extension
    _int8 = None

__all__ = ["int8_builder"]

_I8 = np.dtype(np.int8)
_KEYS = ("input_zero_point", "output_zero_point", "act_min", "act_max")


def int8_builder(s, ex, threads: int):
    """The builder of an int8 step's calls (``builder(arrays) -> calls``), or None."""
    if _int8 is None:
        return None
    op = s.node.op
    if op == "QuantConv2D":
        return _conv(s, ex, threads)
    if op == "QuantFullConnection":
        return _dense(s, ex, threads)
    if op == "QuantMaxPool":
        return _pool(s, ex)
    if op == "QuantReLU":
        return partial(_relu, s)
    if op == "QuantDTypeCast":
        return _cast(s, ex)
    return None


def _constants(s, ex, first: int):
    names = s.node.inputs[first:]
    if not all(n in ex.constants for n in names):
        return None
    return [ex.constants[n] for n in names]


def _conv(s, ex, threads):
    from ms_lite.kernels.quantized import _geometry

    x = ex.specs[s.node.inputs[0]]
    consts = _constants(s, ex, 1)
    if consts is None or x.dtype.np != _I8:
        return None
    w, bias, mult, shift = consts
    g = _geometry(x.shape, w.shape, s.node.attrs)
    if g.group != 1 or w.dtype != _I8:
        return None
    in_zp, out_zp, lo, hi = (int(s.node.attrs[k]) for k in _KEYS)
    wm = np.ascontiguousarray(w.reshape(w.shape[0], -1))
    zw = (bias.astype(np.int64) - in_zp * wm.astype(np.int64).sum(1)).astype(np.int32)
    tables = [np.ascontiguousarray(t, np.int32) for t in (mult, shift)]

    def build(arrays):
        xa, out = arrays[s.node.inputs[0]], arrays[s.node.outputs[0]]
        n, co = out.shape[:2]
        p = g.oh * g.ow
        args = (zw, *tables, out_zp, lo, hi)
        if n > 1:  # image by image: one image's column matrix stays in L2
            cols = np.empty((wm.shape[1], p), np.int8)
            return [partial(_int8.qconv_images, xa, wm, cols, *args, out.reshape(n, co, p),
                            g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl, g.oh, g.ow,
                            in_zp)]
        cols = np.empty((wm.shape[1], p), np.int8)
        return [partial(_int8.im2col, xa, cols, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt,
                        g.pl, g.oh, g.ow, in_zp),
                partial(_int8.qconv, wm, cols, *args, out.reshape(co, p), threads)]
    return build


def _dense(s, ex, threads):
    consts = _constants(s, ex, 1)
    if consts is None or ex.specs[s.node.inputs[0]].dtype.np != _I8 or consts[0].ndim != 2 \
            or consts[0].dtype != _I8 or consts[0].shape[1] == 0:
        return None
    w, bias, mult, shift = consts
    in_zp, out_zp, lo, hi = (int(s.node.attrs[k]) for k in _KEYS)
    wt = np.ascontiguousarray(w.T)
    zw = (bias.astype(np.int64) - in_zp * w.astype(np.int64).sum(1)).astype(np.int32)
    tables = [np.ascontiguousarray(t, np.int32) for t in (mult, shift)]

    def build(arrays):
        xa, out = arrays[s.node.inputs[0]], arrays[s.node.outputs[0]]
        return [partial(_int8.qdense, xa.reshape(-1, w.shape[1]), wt, zw, *tables, out_zp,
                        lo, hi, out.reshape(-1, w.shape[0]), threads)]
    return build


def _pool(s, ex):
    from ms_lite.kernels.windows import valid_window

    x = ex.specs[s.node.inputs[0]]
    try:
        win = valid_window("MaxPool", x.shape, s.node.attrs)
    except (TypeError, ValueError):
        return None

    def build(arrays):
        xa, out = arrays[s.node.inputs[0]], arrays[s.node.outputs[0]]
        n, c = xa.shape[:2]
        return [partial(_int8.max_pool, xa.reshape(n * c, *xa.shape[2:]),
                        out.reshape(n * c, *out.shape[2:]), win.kh, win.kw, win.sh, win.sw)]
    return build


def _relu(s, arrays):
    zp = np.int8(s.node.attrs.get("zero_point", 0))
    return [partial(np.maximum, arrays[s.node.inputs[0]], zp, out=arrays[s.node.outputs[0]])]


def _cast(s, ex):
    a = s.node.attrs
    src, dst = ex.specs[s.node.inputs[0]].dtype.np, np.dtype(a["dst_t"])
    if np.size(a["scale"]) != 1 or np.size(a["zero_point"]) != 1:
        return None
    if (src, dst) == (np.dtype(np.float32), _I8):
        fn = _int8.quantize_f32
    elif (src, dst) == (_I8, np.dtype(np.float32)):
        fn = _int8.dequantize_f32
    else:
        return None
    scale, zp = float(np.ravel(a["scale"])[0]), int(np.ravel(a["zero_point"])[0])

    def build(arrays):
        return [partial(fn, arrays[s.node.inputs[0]].reshape(-1), scale, zp,
                        arrays[s.node.outputs[0]].reshape(-1))]
    return build
