"""The execution plan's own float32 kernels: convolution as column matrix x packed
weights, pooling with a moved activation, Dense with its weight transposed or packed once.

``fast_builder(step, ...)`` returns, for a step these kernels cover, a function that
takes the plan's buffers (name -> array) and returns the step's calls; None for any
other step (the plan runs the registry's kernel). Weights are packed when the builder
runs, once per build.
"""

from __future__ import annotations

from functools import partial

import numpy as np

from ms_lite.runtime.ops_int8 import int8_builder
from ms_tensor import registry as _registry

try:
    from ms_lite.kernels import _f32
except ImportError:  # a source checkout without the built extension: registry kernels
    _f32 = None

__all__ = ["VIEW_OPS", "fast_builder"]

VIEW_OPS = frozenset({"Reshape", "Flatten", "Squeeze", "ExpandDims"})
_ACT = {"NO_ACTIVATION": 0, "RELU": 1, "RELU6": 2}
_CONV = ("Conv2DFusion", "Conv2D")
_POOL = ("MaxPool", "AvgPool")
_F32 = np.dtype(np.float32)


def _is_f32(spec) -> bool:
    return spec is not None and spec.dtype.np == _F32


def _conv_geometry(ex, s):
    """The registry's geometry of a float32, group-1 NCHW convolution with constant
    weights, or None."""
    x, w = s.node.inputs[:2]
    bias = s.node.inputs[2] if len(s.node.inputs) > 2 else ""
    if not (_is_f32(ex.specs[x]) and w in ex.constants and ex.constants[w].dtype == _F32
            and (not bias or (bias in ex.constants and ex.constants[bias].dtype == _F32))):
        return None
    if _ACT.get(s.node.attrs.get("activation_type", "NO_ACTIVATION")) is None:
        return None
    from ms_ops.defs.nn_conv import conv_geometry

    conv = _registry.load().primitive("Conv2D")
    attrs = conv.complete_attrs({k: s.node.attrs[k] for k in conv.attr_names
                                 if k in s.node.attrs})
    g = conv_geometry(ex.specs[x].shape, ex.constants[w].shape, **attrs)
    return g if g.group == 1 else None


def _pool_window(ex, s):
    """kernel and stride of an unpadded float32 NCHW pool, or None."""
    from ms_lite.kernels.windows import valid_window

    x = ex.specs[s.node.inputs[0]]
    if not _is_f32(x):
        return None
    try:
        return valid_window(s.node.op, x.shape, s.node.attrs)
    except (TypeError, ValueError):
        return None


def fast_builder(s, ex, threads: int):
    """The builder of ``s``'s calls, or None where the registry's kernel runs it."""
    if _f32 is None:
        return None
    try:
        if s.node.op in _CONV:
            g = _conv_geometry(ex, s)
            return None if g is None else partial(_build_conv, s, ex, g, None, threads)
        if s.node.op == "Conv2DPoolFusion":
            g = _conv_geometry(ex, s)
            win = None if g is None else _fused_window(ex, s, g)
            return None if win is None else partial(_build_conv, s, ex, g, win, threads)
        if s.node.op in _POOL:
            win = _pool_window(ex, s)
            return None if win is None else partial(_build_pool, s, win, 0, threads)
        if s.node.op == "FullConnection" and _dense_ok(ex, s):
            return partial(_build_dense, s, ex, threads)
        if s.node.op.startswith("Quant"):
            return int8_builder(s, ex, threads)
    except (TypeError, ValueError, KeyError):
        return None  # the executor accepted the node: its registry kernel runs it
    return None


def _fused_window(ex, s, g):
    """The max pool window of a Conv2DPoolFusion (the converter's ``fuse_conv_pool``)."""
    from ms_lite.kernels.windows import valid_window

    shape = (ex.specs[s.node.inputs[0]].shape[0], ex.constants[s.node.inputs[1]].shape[0],
             g.oh, g.ow)
    return valid_window("MaxPool", shape, s.node.attrs["pool"])


def _padded(n: int) -> int:
    """Columns of a column matrix: ``gemm_cols`` reads whole blocks of 16."""
    return -(-n // 16) * 16


def _build_conv(s, ex, g, win, threads, arrays):
    """A convolution's calls; with ``win``, a Conv2DPoolFusion's: the product pooled,
    then activated."""
    x, w = arrays[s.node.inputs[0]], ex.constants[s.node.inputs[1]]
    bias = s.node.inputs[2] if len(s.node.inputs) > 2 else ""
    act = _ACT[s.node.attrs.get("activation_type", "NO_ACTIVATION")]
    n, co, width = x.shape[0], w.shape[0], x.shape[3]
    k = w[0].size
    wide = win is not None and n == 1 and g.sh == g.sw == 1 and not any(
        (g.pt, g.pb, g.pl, g.pr))
    p = g.oh * (width if wide else g.ow)
    wm = np.empty((co, k + bool(bias)), np.float32)
    wm[:, :k] = w.reshape(co, k)
    # wide: the whole (one-image) matrix; else one image's, reused image by image
    cols = np.zeros((k + bool(bias), _padded(p)), np.float32)
    if bias:
        wm[:, k] = ex.constants[bias]
        cols[k] = 1.0  # the bias row: never written by im2col
    out = arrays[s.node.outputs[0]]
    if win is None:
        return _conv_calls(x, wm, cols, out, g, act, threads)
    pool_args = (win.kh, win.kw, win.sh, win.sw, False, act, threads)
    if not wide:  # the convolution's output: the fused node's own scratch
        conv = np.empty((n, co, g.oh, g.ow), np.float32)
        return _conv_calls(x, wm, cols, conv, g, 0, threads) + [partial(
            _f32.pool, conv.reshape(n * co, g.oh, g.ow), out.reshape(n * co, *out.shape[2:]),
            *pool_args)]
    prod = np.empty((co, p), np.float32)
    return [partial(_f32.im2col_wide, x, cols, g.kh, g.kw, g.dh, g.dw, g.oh, threads),
            partial(_f32.gemm_cols, wm, cols, prod, 0, threads),
            partial(_f32.pool, prod.reshape(co, g.oh, width),
                    out.reshape(co, *out.shape[2:]), *pool_args)]


def _conv_calls(x, wm, cols, out, g, act, threads) -> list:
    n, co = out.shape[:2]
    return [partial(_f32.conv, x, wm, cols, out.reshape(n, co, g.oh * g.ow), g.kh, g.kw,
                    g.sh, g.sw, g.dh, g.dw, g.pt, g.pl, g.oh, g.ow, act, threads)]


def _build_pool(s, win, act, threads, arrays):
    x, out = arrays[s.node.inputs[0]], arrays[s.node.outputs[0]]
    n, c = x.shape[:2]
    return [partial(_f32.pool, x.reshape(n * c, *x.shape[2:]),
                    out.reshape(n * c, *out.shape[2:]), win.kh, win.kw, win.sh, win.sw,
                    s.node.op == "AvgPool", act, threads)]


def _dense_ok(ex, s) -> bool:
    x, w = s.node.inputs[:2]
    b = s.node.inputs[2] if len(s.node.inputs) > 2 else ""
    return (_is_f32(ex.specs[x]) and w in ex.constants and ex.constants[w].dtype == _F32
            and ex.constants[w].ndim == 2
            and (not b or (b in ex.constants and ex.constants[b].dtype == _F32))
            and s.node.attrs.get("activation_type", "NO_ACTIVATION") in _ACT)


def _build_dense(s, ex, threads, arrays):
    x, w = arrays[s.node.inputs[0]], ex.constants[s.node.inputs[1]]
    b = s.node.inputs[2] if len(s.node.inputs) > 2 else ""
    bias = ex.constants[b] if b else None
    out = arrays[s.node.outputs[0]]
    flat = out.reshape(-1, w.shape[0])
    act = _ACT[s.node.attrs.get("activation_type", "NO_ACTIVATION")]
    if flat.shape[0] == 1:  # one row: one pass over the weights, bias and activation in it
        return [partial(_f32.dense_vec, x.reshape(-1), np.ascontiguousarray(w.T), bias,
                        flat.reshape(-1), act, threads)]
    # rows: the weights packed once into panels, bias and activation in the product's pass
    return [partial(_f32.dense_packed, x.reshape(-1, w.shape[1]), _f32.pack_dense(w), bias,
                    flat, act, threads)]
