"""2-d convolution: Conv2D, its two gradients (Conv2DBackpropInput/Filter), ``ops.conv2d``.

Layout is NCHW (MindSpore's CPU accepts nothing else). The fast kernels turn a chunk of
images into column matrices (``kernels/_conv.pyx``) and multiply them with numpy's
matmul (OpenBLAS): ``weight @ col`` comes out in NCHW, ``weight.T @ dout`` is the column
gradient, ``col @ dout.T`` the filter gradient, so no large buffer is transposed. Chunks
keep the column buffer in cache. The ``*_ref`` functions are the numpy references.

Conv2D's gradient is Conv2DBackpropInput and Conv2DBackpropFilter; those two are
differentiated with Conv2D and each other, so gradients of any order exist.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs._grad_util import wanted
from ms_ops.infer import check_dtype, check_rank
from ms_ops.kernels import _conv
from ms_ops.kernels.threads import num_threads
from ms_ops.opdef import FLOATS, STATIC, Arg, Attr, OpDef, TensorSpec, functional

_PAD_MODES = ("valid", "same", "pad")
_COL_BYTES = 1 << 25  # column buffer per chunk: few, large GEMMs run fastest
# C_in * C_out from which im2col + GEMM computes the filter gradient faster than the direct
# kernel (measured on 2 cores: direct 1.4 vs 3.1 ms at 16x32 channels, 12.4 vs 10.8 ms at
# 64x64, 31 vs 21 ms at 128x128); the forward and input-gradient kernels win throughout.
_DIRECT_FILTER_MAX = 64 * 64


def _pair(name, v, allow_four=False) -> tuple:
    """An int or (h, w) (or MindSpore's (1, 1, h, w)) as a pair of positive ints."""
    if isinstance(v, int) and not isinstance(v, bool):
        v = (v, v)
    v = tuple(v) if isinstance(v, (tuple, list)) else v
    if allow_four and isinstance(v, tuple) and len(v) == 4:
        v = v[2:]
    if not (isinstance(v, tuple) and len(v) == 2
            and all(isinstance(d, int) and not isinstance(d, bool) and d > 0 for d in v)):
        four = " or 4" if allow_four else ""
        raise ValueError(f"{name} must be a positive int or a tuple of 2{four} positive ints, "
                         f"got {v!r}")
    return v


def _pad4(pad) -> tuple:
    if isinstance(pad, int) and not isinstance(pad, bool):
        pad = (pad,) * 4
    pad = tuple(pad) if isinstance(pad, (tuple, list)) else pad
    if not (isinstance(pad, tuple) and len(pad) == 4
            and all(isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in pad)):
        raise ValueError(f"pad must be a non-negative int or a tuple of 4 (top, bottom, left, "
                         f"right), got {pad!r}")
    return pad


class _Geom:
    """Everything a kernel needs to know about one convolution, derived from the attrs."""

    __slots__ = ("kh", "kw", "sh", "sw", "dh", "dw", "pt", "pb", "pl", "pr", "oh", "ow",
                 "group")

    def __init__(self, in_hw, kernel, pad_mode, pad, stride, dilation, group, pad_list=None):
        self.kh, self.kw = kernel
        self.sh, self.sw = _pair("stride", stride, allow_four=True)
        self.dh, self.dw = _pair("dilation", dilation, allow_four=True)
        self.group = group
        mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
        if mode not in _PAD_MODES:
            raise ValueError(f"pad_mode must be one of 'valid', 'same', 'pad', got {pad_mode!r}")
        pads = _pad4(pad)
        if mode != "pad" and any(pads):
            raise ValueError(f"pad must be 0 unless pad_mode is 'pad', got pad {pad!r} with "
                             f"pad_mode {pad_mode!r}")
        if pad_list is not None and any(_pad4(pad_list)):
            mode, pads = "pad", _pad4(pad_list)
        h, w = in_hw
        ekh, ekw = (self.kh - 1) * self.dh + 1, (self.kw - 1) * self.dw + 1
        if mode == "same":
            self.oh, self.ow = -(-h // self.sh), -(-w // self.sw)
            ph = max(0, (self.oh - 1) * self.sh + ekh - h)
            pw = max(0, (self.ow - 1) * self.sw + ekw - w)
            pads = (ph // 2, ph - ph // 2, pw // 2, pw - pw // 2)
        self.pt, self.pb, self.pl, self.pr = pads
        hp, wp = h + self.pt + self.pb, w + self.pl + self.pr
        if hp < ekh or wp < ekw:
            raise ValueError(f"the kernel {(self.kh, self.kw)} (dilated to {(ekh, ekw)}) is "
                             f"larger than the padded input {(hp, wp)}")
        if mode != "same":
            self.oh, self.ow = (hp - ekh) // self.sh + 1, (wp - ekw) // self.sw + 1


def conv_geometry(x_shape, w_shape, out_channel, kernel_size, mode, pad_mode, pad, stride,
                  dilation, group, data_format, pad_list=None) -> _Geom:
    """Check one convolution's shapes and attributes (the message names both shapes) and
    return its geometry; other engines' convolution kernels (int8, emulated fp16) use it."""
    if data_format != "NCHW":
        raise ValueError(f"data_format {data_format!r} is not supported on CPU, only 'NCHW'")
    if mode != 1:
        raise ValueError(f"mode must be 1, got {mode!r}")
    shapes = f"x shape {tuple(x_shape)} and weight shape {tuple(w_shape)}"
    kernel = _pair("kernel_size", kernel_size)
    if not isinstance(group, int) or isinstance(group, bool) or group < 1:
        raise ValueError(f"group must be a positive int, got {group!r}")
    if x_shape[1] % group or out_channel % group:
        raise ValueError(f"group {group} must divide the input channels {x_shape[1]} and "
                         f"out_channel {out_channel} ({shapes})")
    if w_shape[0] != out_channel:
        raise ValueError(f"{shapes}: weight has {w_shape[0]} output channels, out_channel "
                         f"is {out_channel}")
    if w_shape[1] * group != x_shape[1]:
        raise ValueError(f"{shapes} do not match: x has {x_shape[1]} channels, weight expects "
                         f"{w_shape[1]} x group {group} = {w_shape[1] * group}")
    if tuple(w_shape[2:]) != kernel:
        raise ValueError(f"{shapes}: weight's kernel {tuple(w_shape[2:])} is not kernel_size "
                         f"{kernel}")
    try:
        return _Geom(x_shape[2:], kernel, pad_mode, pad, stride, dilation, group, pad_list)
    except ValueError as e:
        raise ValueError(f"{shapes}: {e}") from None


def _check_specs(a_name, a, b_name, b):
    for name, s in ((a_name, a), (b_name, b)):
        check_dtype(name, s, FLOATS)
        check_rank(name, s, 4)


def _size(name, value) -> tuple:
    if not (isinstance(value, (tuple, list)) and len(value) == 4
            and all(isinstance(d, int) and d > 0 for d in value)):
        raise ValueError(f"{name} must be a tuple of 4 positive ints, got {value!r}")
    return tuple(value)


def _check_dout(dout, x_shape, w_shape, g):
    want = (x_shape[0], w_shape[0], g.oh, g.ow)
    if tuple(dout.shape) != want:
        raise ValueError(f"out_backprop shape {dout.shape} does not match the convolution of "
                         f"x shape {tuple(x_shape)} with weight shape {tuple(w_shape)}, which "
                         f"gives {want}")


_CONV_ATTRS = (Attr("out_channel"), Attr("kernel_size"), Attr("mode", 1),
               Attr("pad_mode", "valid"), Attr("pad", 0), Attr("stride", 1),
               Attr("dilation", 1), Attr("group", 1), Attr("data_format", "NCHW"))
_GRAD_ATTRS = (Attr("out_channel"), Attr("kernel_size"), Attr("pad_mode", "valid"),
               Attr("pad", 0), Attr("pad_list", None), Attr("mode", 1), Attr("stride", 1),
               Attr("dilation", 1), Attr("group", 1), Attr("data_format", "NCHW"))


def conv_windows(xp, g):
    """``(N, C, kh*kw, oh, ow)``: what each kernel tap sees in the padded input ``xp``."""
    taps = [xp[:, :, i * g.dh: i * g.dh + (g.oh - 1) * g.sh + 1: g.sh,
               j * g.dw: j * g.dw + (g.ow - 1) * g.sw + 1: g.sw]
            for i in range(g.kh) for j in range(g.kw)]
    return np.stack(taps, axis=2)


def pad_input(x, g):
    """``x`` zero-padded as the geometry ``g`` says (before ``conv_windows``)."""
    return np.pad(x, ((0, 0), (0, 0), (g.pt, g.pb), (g.pl, g.pr)))


def conv2d_ref(x, weight, **attrs):
    g = conv_geometry(x.shape, weight.shape, **attrs)
    n, c = x.shape[:2]
    cols = conv_windows(pad_input(x, g), g).reshape(n, g.group, -1, g.oh * g.ow)
    w = weight.reshape(g.group, weight.shape[0] // g.group, -1)
    out = np.einsum("gok,ngkp->ngop", w, cols)
    return out.reshape(n, weight.shape[0], g.oh, g.ow)


def conv2d_backprop_input_ref(dout, weight, input_size, **attrs):
    g = conv_geometry(input_size, weight.shape, **attrs)
    n, c, h, w_ = input_size
    co = weight.shape[0]
    wt = weight.reshape(g.group, co // g.group, -1)
    d = dout.reshape(n, g.group, co // g.group, g.oh * g.ow)
    dcol = np.einsum("gok,ngop->ngkp", wt, d).reshape(n, c, g.kh, g.kw, g.oh, g.ow)
    dxp = np.zeros((n, c, h + g.pt + g.pb, w_ + g.pl + g.pr), dout.dtype)
    for i in range(g.kh):
        for j in range(g.kw):
            dxp[:, :, i * g.dh: i * g.dh + (g.oh - 1) * g.sh + 1: g.sh,
                j * g.dw: j * g.dw + (g.ow - 1) * g.sw + 1: g.sw] += dcol[:, :, i, j]
    return dxp[:, :, g.pt: g.pt + h, g.pl: g.pl + w_]


def conv2d_backprop_filter_ref(dout, x, filter_size, **attrs):
    g = conv_geometry(x.shape, filter_size, **attrs)
    n = x.shape[0]
    co = filter_size[0]
    cols = conv_windows(pad_input(x, g), g).reshape(n, g.group, -1, g.oh * g.ow)
    d = dout.reshape(n, g.group, co // g.group, g.oh * g.ow)
    return np.einsum("ngop,ngkp->gok", d, cols).reshape(filter_size)


def _compute(*arrays):
    """Contiguous float32/float64 copies only where needed; half precisions run in float32."""
    dt = arrays[0].dtype if arrays[0].dtype in (np.float32, np.float64) else np.float32
    return dt, [np.ascontiguousarray(a, dtype=dt) for a in arrays]


def _chunk(n, c, g, itemsize) -> int:
    per_image = c * g.kh * g.kw * g.oh * g.ow * itemsize
    return max(1, min(n, _COL_BYTES // max(per_image, 1)))


def _args(g):
    return (g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl, g.oh, g.ow)


def _is_pointwise(g):
    return g.kh == g.kw == g.sh == g.sw == 1 and not (g.pt or g.pb or g.pl or g.pr)


def _chunks(n, c, g, dt):
    """``(n0, b, col)``: image ranges and a column buffer ``(C*kh*kw, b*oh*ow)`` for each."""
    nb = _chunk(n, c, g, np.dtype(dt).itemsize)
    buf = np.empty(c * g.kh * g.kw * nb * g.oh * g.ow, dt)
    for n0 in range(0, n, nb):
        b = min(nb, n - n0)
        yield n0, b, buf[:c * g.kh * g.kw * b * g.oh * g.ow].reshape(c * g.kh * g.kw, -1)


def _channel_major(a, dt):
    """``(N, C, H, W)`` as ``(C, N, H*W)`` (a contiguous copy, rows moved by memcpy)."""
    n, c = a.shape[:2]
    out = np.empty((c, n, a.shape[2] * a.shape[3]), dt)
    _conv.swap01(a.reshape(n, c, -1), out)
    return out


def _is_direct(g, dt):
    """Whether the direct kernels (``_conv.direct_*``) apply: no column matrix, no BLAS."""
    return (dt == np.float32 and g.group == 1 and g.sh == g.sw == g.dh == g.dw == 1
            and not _is_pointwise(g))


def _pack(weight):
    """``(Cout, C, kh, kw)`` as ``(ceil(Cout/8), C, kh, kw, 8)``: 8 output channels a block."""
    co, c, kh, kw = weight.shape
    cb = -(-co // 8)
    wp = np.zeros((cb * 8, c, kh, kw), np.float32)
    wp[:co] = weight
    return np.ascontiguousarray(wp.reshape(cb, 8, c, kh, kw).transpose(0, 2, 3, 4, 1))


def _buffers(c, oh, ow, kh, kw):
    """One zero-padded input image per thread (the thread policy's count), as the direct
    kernels read it."""
    return np.empty((num_threads(), c * (oh + kh - 1) * (-(-ow // 16) * 16 + kw - 1)),
                    np.float32)


def _direct_conv(x, weight, out, top, left):
    kh, kw = weight.shape[2:]
    _conv.direct_conv(x, _pack(weight), out, _buffers(x.shape[1], *out.shape[2:], kh, kw),
                      top, left)
    return out


def _direct_filter_grad(dout, x, g):
    n, co, oh, ow = dout.shape
    cb, ldd = -(-co // 8), -(-ow // 16) * 16
    if co != cb * 8 or ow != ldd:  # the kernel reads whole blocks: zero-fill the rest
        d = np.zeros((n, cb * 8, oh, ldd), np.float32)
        d[:, :co, :, :ow] = dout
    else:
        d = dout
    c = x.shape[1]
    bufs = _buffers(c, oh, ow, g.kh, g.kw)
    acc = np.zeros((bufs.shape[0], cb * c * g.kh * g.kw * 8 * 16), np.float32)
    dw = np.empty((co, c, g.kh, g.kw), np.float32)
    _conv.direct_filter_grad(x, d, dw, acc, bufs, g.pt, g.pl, ow)
    return dw


def _conv_attrs(attrs) -> dict:
    """Conv2D's attributes from a gradient op's, with an explicit pad_list made 'pad'."""
    a = dict(attrs)
    pad_list = a.pop("pad_list", None)
    if pad_list is not None and any(_pad4(pad_list)):
        a["pad_mode"], a["pad"] = "pad", tuple(pad_list)
    return a


def _add_bias(out, bias, name):
    from ms_ops.defs import arithmetic, array

    if bias is None:
        return out
    if tuple(bias.shape) != (out.shape[1],):
        raise ValueError(f"{name}: bias shape {tuple(bias.shape)} must be ({out.shape[1]},), "
                         f"one value per output channel (output shape {out.shape})")
    return arithmetic.Add(out, array.Reshape(bias, (1, out.shape[1], 1, 1)))


# Samples for Conv2D and its two gradient operators: padding modes, stride, dilation and
# groups on small NCHW inputs. (x shape, weight shape, attrs)
_CASES = (
    ((1, 2, 4, 3), (2, 2, 2, 2), {}),
    ((1, 2, 4, 4), (2, 2, 3, 3), {"pad_mode": "same", "stride": 2}),
    ((1, 1, 5, 4), (2, 1, 2, 2), {"pad_mode": "pad", "pad": (1, 0, 0, 1), "dilation": 2}),
    ((2, 2, 3, 3), (2, 1, 2, 2), {"group": 2}),
)


def _conv_samples(rng):
    """(x, weight, attrs, output shape) per case, the output shape from Conv2D itself."""
    from ms_ops.defs.nn_conv import Conv2D
    from ms_tensor.tensor import Tensor

    for xs, ws, extra in _CASES:
        attrs = {"out_channel": ws[0], "kernel_size": ws[2:], **extra}
        x, w = rng.standard_normal(xs), rng.standard_normal(ws)
        yield x, w, attrs, Conv2D(Tensor(x), Tensor(w), **attrs).shape


def _conv2d_infer(x, weight, **attrs):
    _check_specs("x", x, "weight", weight)
    g = conv_geometry(x.shape, weight.shape, **attrs)
    return TensorSpec((x.shape[0], weight.shape[0], g.oh, g.ow), x.dtype)


Conv2D = OpDef(
    "Conv2D", (Arg("x"), Arg("weight")), _CONV_ATTRS, infer=_conv2d_infer, promote="common",
    doc="2-d cross-correlation of NCHW ``x`` with ``weight`` (Cout, Cin/group, kh, kw).")


@Conv2D.kernel("CPU", dtypes=FLOATS)
def conv2d_cpu(x, weight, **attrs):
    g = conv_geometry(x.shape, weight.shape, **attrs)
    dt, (x, weight) = _compute(x, weight)
    n, c = x.shape[:2]
    if _is_direct(g, dt):
        return _direct_conv(x, weight, np.empty((n, weight.shape[0], g.oh, g.ow), dt), g.pt,
                            g.pl)
    co, cog, p = weight.shape[0], weight.shape[0] // g.group, g.oh * g.ow
    w = weight.reshape(g.group, cog, -1)
    out = np.empty((n, co, g.oh, g.ow), dt)
    if _is_pointwise(g):  # 1x1 convolution: the input already is the column matrix
        np.matmul(w, x.reshape(n, g.group, -1, p), out=out.reshape(n, g.group, cog, p))
        return out
    res = np.empty(co * _chunk(n, c, g, x.itemsize) * p, dt)
    for n0, b, col in _chunks(n, c, g, dt):
        _conv.im2col(x[n0:n0 + b], col, *_args(g))
        r = res[:co * b * p].reshape(co, b * p)
        np.matmul(w, col.reshape(g.group, -1, b * p), out=r.reshape(g.group, cog, b * p))
        _conv.swap01(r.reshape(co, b, p), out[n0:n0 + b].reshape(b, co, p))
    return out


@Conv2D.bprop
def conv2d_bprop(x, weight, out, dout, **attrs):
    dx = Conv2DBackpropInput(dout, weight, x.shape, **attrs) if wanted(0) else None
    dw = Conv2DBackpropFilter(dout, x, weight.shape, **attrs) if wanted(1) else None
    return dx, dw


@Conv2D.samples
def _conv2d(rng):
    for x, w, attrs, _ in _conv_samples(rng):
        yield (x, w), attrs


def _backprop_input_infer(dout, weight, input_size, **attrs):
    _check_specs("out_backprop", dout, "filter", weight)
    x_shape = _size("input_size", input_size)
    _check_dout(dout, x_shape, weight.shape, conv_geometry(x_shape, weight.shape, **attrs))
    return TensorSpec(x_shape, dout.dtype)


Conv2DBackpropInput = OpDef(
    "Conv2DBackpropInput", (Arg("out_backprop"), Arg("filter"), Arg("input_size", STATIC)),
    _GRAD_ATTRS, infer=_backprop_input_infer, promote="common", aliases=("Conv2DTranspose",),
    doc="Gradient of Conv2D with respect to its input (a transposed convolution).")


@Conv2DBackpropInput.kernel("CPU", dtypes=FLOATS)
def conv2d_backprop_input_cpu(dout, weight, input_size, **attrs):
    g = conv_geometry(input_size, weight.shape, **attrs)
    dt, (dout, weight) = _compute(dout, weight)
    n, c = input_size[:2]
    cog, p = weight.shape[0] // g.group, g.oh * g.ow
    if _is_direct(g, dt):  # a stride-1 correlation of dout with the flipped, transposed weight
        wf = weight.transpose(1, 0, 2, 3)[:, :, ::-1, ::-1]
        return _direct_conv(dout, wf, np.empty(input_size, dt), g.kh - 1 - g.pt,
                            g.kw - 1 - g.pl)
    wt = weight.reshape(g.group, cog, -1).transpose(0, 2, 1)
    if _is_pointwise(g):
        out = np.matmul(wt, dout.reshape(n, g.group, cog, p))
        return out.reshape(input_size)
    dx = np.empty(input_size, dt)
    d = _channel_major(dout, dt)
    for n0, b, col in _chunks(n, c, g, dt):
        db = d[:, n0:n0 + b].reshape(g.group, cog, b * p)
        np.matmul(wt, db, out=col.reshape(g.group, -1, b * p))
        _conv.col2im(col, dx[n0:n0 + b], *_args(g))
    return dx


@Conv2DBackpropInput.bprop
def conv2d_backprop_input_bprop(g, weight, input_size, out, dout, **attrs):
    a = _conv_attrs(attrs)
    return Conv2D(dout, weight, **a), Conv2DBackpropFilter(g, dout, weight.shape, **a), None


@Conv2DBackpropInput.samples
def _backprop_input(rng):
    for x, w, attrs, out in _conv_samples(rng):
        yield (rng.standard_normal(out), w, x.shape), attrs


def _backprop_filter_infer(dout, x, filter_size, **attrs):
    _check_specs("out_backprop", dout, "input", x)
    w_shape = _size("filter_size", filter_size)
    _check_dout(dout, x.shape, w_shape, conv_geometry(x.shape, w_shape, **attrs))
    return TensorSpec(w_shape, dout.dtype)


Conv2DBackpropFilter = OpDef(
    "Conv2DBackpropFilter", (Arg("out_backprop"), Arg("input"), Arg("filter_size", STATIC)),
    _GRAD_ATTRS, infer=_backprop_filter_infer, promote="common",
    doc="Gradient of Conv2D with respect to its weight.")


@Conv2DBackpropFilter.kernel("CPU", dtypes=FLOATS)
def conv2d_backprop_filter_cpu(dout, x, filter_size, **attrs):
    g = conv_geometry(x.shape, filter_size, **attrs)
    dt, (dout, x) = _compute(dout, x)
    n, c = x.shape[:2]
    cog, p = filter_size[0] // g.group, g.oh * g.ow
    if _is_direct(g, dt) and c * filter_size[0] < _DIRECT_FILTER_MAX:
        return _direct_filter_grad(dout, x, g)
    if _is_pointwise(g):
        d = dout.reshape(n, g.group, cog, p).transpose(0, 1, 3, 2)
        dwt = np.matmul(x.reshape(n, g.group, -1, p), d).sum(axis=0)
    else:
        d = dout.reshape(n, g.group, cog, p).transpose(0, 1, 3, 2)
        dwt = np.zeros((g.group, c // g.group * g.kh * g.kw, cog), dt)
        for n0, b, col in _chunks(n, c, g, dt):
            _conv.im2col(x[n0:n0 + b], col, *_args(g))
            cols = col.reshape(g.group, -1, b, p)
            for k in range(b):  # one GEMM per image reads dout in place (no transposed copy)
                dwt += np.matmul(cols[:, :, k], d[n0 + k])
    return dwt.transpose(0, 2, 1).reshape(filter_size)


@Conv2DBackpropFilter.bprop
def conv2d_backprop_filter_bprop(g, x, filter_size, out, dout, **attrs):
    a = _conv_attrs(attrs)
    return Conv2D(x, dout, **a), Conv2DBackpropInput(g, dout, x.shape, **a), None


@Conv2DBackpropFilter.samples
def _backprop_filter(rng):
    for x, w, attrs, out in _conv_samples(rng):
        yield (rng.standard_normal(out), x, w.shape), attrs


@functional("conv2d")
def conv2d(input, weight, bias=None, stride=1, pad_mode="valid", padding=0, dilation=1,
           groups=1):
    """2-d convolution of NCHW ``input`` with ``weight`` ``(Cout, Cin/groups, kh, kw)``.

    ``padding`` is an int or ``(ph, pw)`` (used with ``pad_mode='pad'``); the strings
    ``'same'``/``'valid'`` are accepted in ``padding`` too, as shorthand for ``pad_mode``.

    >>> conv2d(ops.ones((1, 2, 5, 5)), ops.ones((3, 2, 3, 3)), pad_mode="pad", padding=1).shape
    (1, 3, 5, 5)
    """
    if isinstance(padding, str):
        pad_mode, padding = padding, 0
    if isinstance(padding, (tuple, list)):
        if len(padding) != 2:
            raise ValueError(f"conv2d: padding must be an int or a tuple of 2 ints, got "
                             f"{padding!r}")
        padding = (padding[0], padding[0], padding[1], padding[1])
    out = Conv2D(input, weight, out_channel=weight.shape[0], kernel_size=weight.shape[2:],
                 pad_mode=pad_mode, pad=padding, stride=stride, dilation=dilation,
                 group=groups)
    return _add_bias(out, bias, "conv2d")


@functional("conv_transpose2d")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0,
                     groups=1, dilation=1):
    """Transposed 2-d convolution; ``weight`` is ``(Cin, Cout/groups, kh, kw)``.

    The output size is ``(H - 1) * stride - 2 * padding + dilation * (k - 1) +
    output_padding + 1`` in each spatial dimension.

    >>> conv_transpose2d(ops.ones((1, 4, 3, 3)), ops.ones((4, 2, 3, 3)), stride=2).shape
    (1, 2, 7, 7)
    """
    if len(input.shape) != 4 or len(weight.shape) != 4:
        raise ValueError(f"conv_transpose2d: input shape {input.shape} and weight shape "
                         f"{weight.shape} must both be 4-d")
    sh, sw = _pair("conv_transpose2d: stride", stride)
    dh, dw = _pair("conv_transpose2d: dilation", dilation)
    ph, pw = (padding, padding) if isinstance(padding, int) else tuple(padding)
    oph, opw = (output_padding,) * 2 if isinstance(output_padding, int) else output_padding
    if not (0 <= oph < max(sh, dh) and 0 <= opw < max(sw, dw)):
        raise ValueError(f"conv_transpose2d: output_padding {output_padding!r} must be smaller "
                         f"than stride {stride!r} or dilation {dilation!r}")
    n, _, h, w = input.shape
    kh, kw = weight.shape[2:]
    size = (n, weight.shape[1] * groups, (h - 1) * sh - 2 * ph + dh * (kh - 1) + oph + 1,
            (w - 1) * sw - 2 * pw + dw * (kw - 1) + opw + 1)
    out = Conv2DBackpropInput(input, weight, size, out_channel=weight.shape[0],
                              kernel_size=(kh, kw), pad_mode="pad", pad=(ph, ph, pw, pw),
                              stride=(sh, sw), dilation=(dh, dw), group=groups)
    return _add_bias(out, bias, "conv_transpose2d")

