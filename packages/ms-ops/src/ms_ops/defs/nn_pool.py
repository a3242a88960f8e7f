"""2-d pooling: MaxPool, AvgPool, MaxPoolWithArgmax, AdaptiveAvgPool2D/AdaptiveMaxPool2D.

Layout is NCHW. ``pad_mode`` is MindSpore's: VALID drops incomplete windows; SAME gives
``ceil(H / stride)`` outputs, padding ``pad // 2`` before and the rest after, where the
padding never wins a max and is not counted in a mean. The gradient operators
(MaxPoolGrad, AvgPoolGrad, ...) have gradients of their own, written with operators.
Kernels are Cython (``kernels/_pool.pyx``); the ``*_ref`` functions are numpy references.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs.nn_conv import _pair
from ms_ops.infer import check_dtype, check_rank
from ms_ops.kernels import _pool
from ms_ops.opdef import FLOATS, STATIC, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor import dtype as mstype


class _Window:
    """Kernel, stride, leading padding and output size of one fixed-window pooling, and
    what a mean divides by: the input plus ``count`` (top, bottom, left, right) padding,
    or ``divisor`` when positive."""

    __slots__ = ("kh", "kw", "sh", "sw", "pt", "pl", "oh", "ow", "count", "divisor")

    def __init__(self, kernel, stride, pads, out, count=(0, 0, 0, 0), divisor=0.0):
        (self.kh, self.kw), (self.sh, self.sw) = kernel, stride
        (self.pt, self.pl), (self.oh, self.ow) = pads, out
        self.count, self.divisor = count, float(divisor)

    @property
    def max_args(self) -> tuple:
        return self.kh, self.kw, self.sh, self.sw, self.pt, self.pl

    @property
    def avg_args(self) -> tuple:
        return self.max_args + tuple(self.count) + (self.divisor,)


def _mode_window(x_shape, kernel_size, strides, pad_mode, data_format) -> _Window:
    """MaxPool/AvgPool's window: ``pad_mode`` VALID or SAME."""
    if data_format != "NCHW":
        raise ValueError(f"data_format {data_format!r} is not supported on CPU, only 'NCHW'")
    kernel, stride = _pair("kernel_size", kernel_size), _pair("strides", strides)
    mode = pad_mode.upper() if isinstance(pad_mode, str) else pad_mode
    h, w = x_shape[-2:]
    if mode == "VALID":
        if h < kernel[0] or w < kernel[1]:
            raise ValueError(f"kernel_size {kernel} is larger than the input {(h, w)} of x "
                             f"shape {tuple(x_shape)} (pad_mode 'VALID')")
        out = ((h - kernel[0]) // stride[0] + 1, (w - kernel[1]) // stride[1] + 1)
        return _Window(kernel, stride, (0, 0), out)
    if mode == "SAME":
        out = (-(-h // stride[0]), -(-w // stride[1]))
        pads = tuple(max(0, (o - 1) * s + k - d) // 2
                     for o, s, k, d in zip(out, stride, kernel, (h, w)))
        return _Window(kernel, stride, pads, out)
    raise ValueError(f"pad_mode must be 'VALID' or 'SAME', got {pad_mode!r}")


def _explicit_window(x_shape, kernel_size, stride, padding, ceil_mode,
                     count_include_pad=False, divisor_override=None) -> _Window:
    """The functional API's window: symmetric ``padding``, optional ``ceil_mode``."""
    kernel = _pair("kernel_size", kernel_size)
    stride = kernel if stride is None else _pair("stride", stride)
    given = padding
    if isinstance(padding, int) and not isinstance(padding, bool):
        padding = (padding, padding)
    if not (isinstance(padding, (tuple, list)) and len(padding) == 2
            and all(isinstance(p, int) and 0 <= p <= k // 2 for p, k in zip(padding, kernel))):
        raise ValueError(f"padding must be an int or a pair of ints, each at most half the "
                         f"kernel {kernel}, got {given!r}")
    out = []
    for d, k, s, p in zip(x_shape[-2:], kernel, stride, padding):
        o = (d + 2 * p - k + (s - 1 if ceil_mode else 0)) // s + 1
        if ceil_mode and (o - 1) * s >= d + p:  # the last window would start in the padding
            o -= 1
        if o < 1:
            raise ValueError(f"kernel_size {kernel} is larger than the padded input of x "
                             f"shape {tuple(x_shape)} (padding {tuple(padding)})")
        out.append(o)
    ph, pw = padding
    count = (ph, ph, pw, pw) if count_include_pad else (0, 0, 0, 0)
    if divisor_override is not None and not (isinstance(divisor_override, int)
                                             and divisor_override >= 0):
        raise ValueError(f"divisor_override must be a non-negative int or None, got "
                         f"{divisor_override!r}")
    return _Window(kernel, stride, (ph, pw), tuple(out), count, divisor_override or 0)


def _adaptive_size(x_shape, output_size) -> tuple:
    """MindSpore's output_size: an int, or a pair whose None entries keep the input's size."""
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        output_size = (output_size, output_size)
    if not (isinstance(output_size, (tuple, list)) and len(output_size) == 2):
        raise ValueError(f"output_size must be an int or a tuple of 2 (ints or None), got "
                         f"{output_size!r}")
    size = tuple(d if o is None else o for o, d in zip(output_size, x_shape[-2:]))
    if not all(isinstance(s, int) and s > 0 for s in size):
        raise ValueError(f"output_size must hold positive ints or None, got {output_size!r}")
    return size


def _window(x, attrs) -> _Window:
    return _mode_window(x.shape, **attrs)


def _v2_window(x, attrs) -> _Window:
    if _pair("dilation", attrs["dilation"], allow_four=True) != (1, 1):
        raise ValueError(f"dilation {attrs['dilation']!r} is not supported on CPU, only 1")
    return _explicit_window(x.shape, attrs["kernel_size"], attrs["strides"], attrs["pads"],
                            attrs["ceil_mode"])


def _avg2d_window(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                  divisor_override) -> _Window:
    return _explicit_window(x.shape, kernel_size, stride, padding, ceil_mode,
                            count_include_pad, divisor_override)


def _check_x(x, ranks=4):
    check_dtype("x", x, FLOATS)
    check_rank("x", x, ranks)


def _pooled(x, w: _Window) -> TensorSpec:
    return TensorSpec(x.shape[:2] + (w.oh, w.ow), x.dtype)


def _pool_infer(x, **attrs):
    _check_x(x)
    return _pooled(x, _window(x, attrs))


def _check_grad(x, pooled, **shapes):
    for name, s in shapes.items():
        want = x.shape if name == "grad_like_x" else pooled
        if s.shape != want:
            raise ValueError(f"{name} shape {s.shape} should be {want} for an input of shape "
                             f"{x.shape} pooled to {pooled}")


def _pool_grad_infer(x, out, grad, **attrs):
    _check_x(x)
    pooled = _pooled(x, _window(x, attrs)).shape
    _check_grad(x, pooled, out_origin=out, grad=grad)
    return TensorSpec(x.shape, grad.dtype)


def _v2_infer(x, **attrs):
    _check_x(x)
    if attrs["argmax_type"] not in (mstype.int32, mstype.int64):
        raise TypeError(f"argmax_type must be int32 or int64, got {attrs['argmax_type']!r}")
    out = _pooled(x, _v2_window(x, attrs))
    return out, TensorSpec(out.shape, attrs["argmax_type"])


def _scatter_infer(grad, x, argmax, what):
    check_dtype("argmax", argmax, mstype.int_types)
    if grad.shape != argmax.shape or grad.shape[:-2] != x.shape[:-2]:
        raise ValueError(f"grad shape {grad.shape}, x shape {x.shape} and argmax shape "
                         f"{argmax.shape} do not fit one {what}")
    return TensorSpec(x.shape, grad.dtype)


def _adaptive_infer(x, output_size):
    _check_x(x, (3, 4))
    return TensorSpec(x.shape[:-2] + _adaptive_size(x.shape, output_size), x.dtype)


_ATTRS = (Attr("kernel_size", 1), Attr("strides", 1), Attr("pad_mode", "VALID"),
          Attr("data_format", "NCHW"))
_V2_ATTRS = (Attr("kernel_size"), Attr("strides", None), Attr("pads", 0),
             Attr("dilation", (1, 1)), Attr("ceil_mode", False),
             Attr("argmax_type", mstype.int64))
_GRAD_IN = (Arg("x_origin"), Arg("out_origin"), Arg("grad"))
_AVG2D_IN = (Arg("kernel_size", STATIC), Arg("stride", STATIC), Arg("padding", STATIC, 0),
             Arg("ceil_mode", STATIC, False), Arg("count_include_pad", STATIC, True),
             Arg("divisor_override", STATIC, None))
_NONDIFF = ("x_origin", "out_origin")


def _patches(x, w: _Window, fill):
    """``(..., oh, ow, kh*kw)`` windows of ``x`` padded with ``fill``, the flat index of
    each entry in the (H, W) plane (-1 on padding) and each window's divisor."""
    h, wd = x.shape[-2:]
    pads = ((w.pt, w.kh + w.sh * w.oh), (w.pl, w.kw + w.sw * w.ow))
    xp = np.pad(x, ((0, 0),) * (x.ndim - 2) + pads, constant_values=fill)
    ip = np.pad(np.arange(h * wd).reshape(h, wd), pads, constant_values=-1)
    ct, cb, cl, cr = w.count
    counted = np.zeros(ip.shape)
    counted[w.pt - ct: w.pt + h + cb, w.pl - cl: w.pl + wd + cr] = 1

    def windows(a):
        v = np.lib.stride_tricks.sliding_window_view(a, (w.kh, w.kw), axis=(-2, -1))
        v = v[..., : w.oh * w.sh: w.sh, : w.ow * w.sw: w.sw, :, :]
        return v.reshape(v.shape[:-2] + (-1,))

    divisor = np.full((w.oh, w.ow), w.divisor) if w.divisor else windows(counted).sum(-1)
    return windows(xp), windows(ip), divisor


def _max_index_ref(x, w):
    win, idx, _ = _patches(x, w, -np.inf)
    k = np.argmax(win, axis=-1)
    return np.take_along_axis(np.broadcast_to(idx, win.shape), k[..., None], -1)[..., 0]


def _scatter_ref(grad, index, x_shape):
    """``dx.flat[index] += grad`` plane by plane, over zeros of ``x_shape``."""
    n = int(np.prod(x_shape[:-2]))
    dx = np.zeros((n, x_shape[-2] * x_shape[-1]), grad.dtype)
    rows = np.repeat(np.arange(n), index.shape[-2] * index.shape[-1])
    np.add.at(dx, (rows, index.reshape(-1)), grad.reshape(-1))
    return dx.reshape(x_shape)


def _avg_ref(x, w):
    win, _, divisor = _patches(x, w, 0)
    return win.sum(axis=-1) / divisor


def _avg_grad_ref(x_shape, grad, w):
    _, idx, divisor = _patches(np.zeros(x_shape[2:]), w, 0)
    valid = idx >= 0
    share = np.broadcast_to((grad / divisor)[..., None], grad.shape + idx.shape[-1:])
    n = x_shape[0] * x_shape[1]
    rows = np.broadcast_to(np.arange(n).reshape(x_shape[:2] + (1, 1, 1)), share.shape)
    dx = np.zeros((n, x_shape[2] * x_shape[3]), grad.dtype)
    np.add.at(dx, (rows[..., valid].reshape(-1),
                   np.broadcast_to(idx, share.shape)[..., valid].reshape(-1)),
              share[..., valid].reshape(-1))
    return dx.reshape(x_shape)


def max_pool_ref(x, **attrs):
    win, _, _ = _patches(x, _window(x, attrs), -np.inf)
    return win.max(axis=-1)


def max_pool_grad_ref(x, out, grad, **attrs):
    return _scatter_ref(grad, _max_index_ref(x, _window(x, attrs)), x.shape)


def max_pool_grad_grad_ref(x, out, grad, **attrs):
    idx = _max_index_ref(x, _window(x, attrs))
    flat = grad.reshape(grad.shape[:2] + (-1,))
    return np.take_along_axis(flat, idx.reshape(idx.shape[:2] + (-1,)), -1).reshape(idx.shape)


def max_pool_with_argmax_ref(x, **attrs):
    return max_pool_ref(x, **attrs), _max_index_ref(x, _window(x, attrs)).astype(np.int32)


def max_pool_v2_ref(x, **attrs):
    w = _v2_window(x, attrs)
    win, _, _ = _patches(x, w, -np.inf)
    return win.max(axis=-1), _max_index_ref(x, w).astype(attrs["argmax_type"].np)


def max_pool_v2_grad_ref(x, grad, argmax, **attrs):
    return _scatter_ref(grad, argmax, x.shape)


def avg_pool_ref(x, **attrs):
    return _avg_ref(x, _window(x, attrs))


def avg_pool_grad_ref(x, out, grad, **attrs):
    return _avg_grad_ref(x.shape, grad, _window(x, attrs))


def avg_pool2d_ref(x, **window):
    return _avg_ref(x, _avg2d_window(x, **window))


def avg_pool2d_grad_ref(grad, image, **window):
    return _avg_grad_ref(image.shape, grad, _avg2d_window(image, **window))


def _adaptive_index(size, out):
    """``(out, kmax)`` indices of each adaptive window along one axis, and a validity mask."""
    start = np.arange(out) * size // out
    stop = -(-(np.arange(out) + 1) * size // out)
    idx = start[:, None] + np.arange((stop - start).max())
    return np.minimum(idx, size - 1), idx < stop[:, None]


def _adaptive_windows(x, size, fill):
    """``(..., oh, ow, kh*kw)`` adaptive windows (``fill`` past a window's end), the flat
    index of each entry in the plane, and the validity mask."""
    ih, mh = _adaptive_index(x.shape[-2], size[0])
    iw, mw = _adaptive_index(x.shape[-1], size[1])
    rows, cols = ih[:, None, :, None], iw[None, :, None, :]
    mask = mh[:, None, :, None] & mw[None, :, None, :]
    win = np.where(mask, x[..., rows, cols], fill)
    shape = win.shape[:-2] + (-1,)
    flat = np.broadcast_to(rows * x.shape[-1] + cols, mask.shape)
    return win.reshape(shape), flat.reshape(shape[-3:]), mask.reshape(shape[-3:])


def adaptive_avg_pool_ref(x, output_size):
    win, _, mask = _adaptive_windows(x, _adaptive_size(x.shape, output_size), 0)
    return win.sum(-1) / mask.sum(-1)


def adaptive_avg_pool_grad_ref(grad, orig_input_shape):
    shape = tuple(orig_input_shape)
    _, flat, mask = _adaptive_windows(np.zeros(shape[-2:]), grad.shape[-2:], 0)
    n = int(np.prod(shape[:-2]))
    share = (grad.reshape((n,) + grad.shape[-2:]) / mask.sum(-1))[..., None]
    share = np.broadcast_to(share, (n,) + mask.shape)
    rows = np.broadcast_to(np.arange(n).reshape(n, 1, 1, 1), share.shape)
    dx = np.zeros((n, shape[-2] * shape[-1]), grad.dtype)
    np.add.at(dx, (rows[:, mask], np.broadcast_to(flat, share.shape)[:, mask]),
              share[:, mask])
    return dx.reshape(shape)


def adaptive_max_pool_ref(x, output_size):
    win, flat, _ = _adaptive_windows(x, _adaptive_size(x.shape, output_size), -np.inf)
    k = np.argmax(win, axis=-1)
    idx = np.take_along_axis(np.broadcast_to(flat, win.shape), k[..., None], -1)[..., 0]
    return win.max(-1), idx.astype(np.int64)


def adaptive_max_pool_grad_ref(grad, x, argmax):
    return _scatter_ref(grad, argmax, x.shape)


def _planes(*arrays):
    """Each array as a C-contiguous ``(planes, H, W)`` float32/float64 array."""
    dt = arrays[0].dtype if arrays[0].dtype in (np.float32, np.float64) else np.float32
    return dt, [np.ascontiguousarray(a, dt).reshape((-1,) + a.shape[-2:]) for a in arrays]


def _max(x, w, with_index):
    dt, (xp,) = _planes(x)
    out = np.empty((xp.shape[0], w.oh, w.ow), dt)
    idx = np.empty(out.shape, np.int64) if with_index else None
    _pool.max_pool(xp, out, idx, *w.max_args)
    shape = x.shape[:-2] + out.shape[1:]
    return out.reshape(shape), (idx.reshape(shape) if with_index else None)


def _scatter(grad, x_shape, argmax):
    dt, (gp,) = _planes(grad)
    idx = np.ascontiguousarray(argmax, np.int64).reshape(gp.shape)
    plane = x_shape[-2] * x_shape[-1]
    if idx.size and (idx.min() < 0 or idx.max() >= plane):  # the kernel writes there
        raise ValueError(f"argmax holds indices outside [0, {plane}) for input shape "
                         f"{tuple(x_shape)}")
    dx = np.empty((gp.shape[0],) + tuple(x_shape[-2:]), dt)
    _pool.scatter_argmax(gp, idx, dx)
    return dx.reshape(x_shape)


def _avg(x, w):
    dt, (xp,) = _planes(x)
    out = np.empty((xp.shape[0], w.oh, w.ow), dt)
    _pool.avg_pool(xp, out, *w.avg_args)
    return out.reshape(x.shape[:-2] + out.shape[1:])


def _avg_grad(grad, x_shape, w):
    dt, (gp,) = _planes(grad)
    dx = np.empty((gp.shape[0],) + tuple(x_shape[-2:]), dt)
    _pool.avg_pool_grad(gp, dx, *w.avg_args)
    return dx.reshape(x_shape)


def argmax_scatter_cpu(x, grad, argmax, **attrs):
    """MaxPoolGradWithArgmax and its V2: ``grad`` added at the argmax positions."""
    return _scatter(grad, x.shape, argmax)


def _gather_at(dx, argmax):
    """``dx`` (input-shaped) read at the flat plane indices ``argmax``: the transpose of
    the argmax scatter, so the scatter gradients differentiate again."""
    from ms_ops.defs import array, indexing

    lead = tuple(argmax.shape[:-2])
    picked = indexing.GatherD(array.Reshape(dx, lead + (-1,)), len(lead),
                              array.Reshape(argmax, lead + (-1,)))
    return array.Reshape(picked, tuple(argmax.shape))


def argmax_scatter_bprop(x, grad, argmax, out, dout, **attrs):
    return None, _gather_at(dout, argmax), None


# Sample inputs shared by several operators: Samples for the pooling operators and their
# gradient operators. Inputs of max pooling hold distinct values spaced well apart (a
# permutation plus small noise), so no window has a tie that finite differences could
# flip. The gradient operators get the forward results (``out_origin``, ``argmax``)
# computed by the forward operator itself.
def distinct(rng, shape):
    """Values 0.2 or more apart in a random order: maxima stay put under small probes."""
    n = int(np.prod(shape))
    return (rng.permutation(n) * 0.25 + rng.uniform(0, 0.05, n) - n / 8).reshape(shape)


def _run(op, *args, **attrs):
    from ms_tensor.tensor import Tensor

    out = op(*(Tensor(a) if isinstance(a, np.ndarray) else a for a in args), **attrs)
    return tuple(o.asnumpy() for o in out) if isinstance(out, tuple) else out.asnumpy()


_MODE_ATTRS = (
    ((1, 2, 4, 3), {"kernel_size": 2, "strides": 1}),
    ((1, 1, 5, 4), {"kernel_size": (3, 2), "strides": 2, "pad_mode": "SAME"}),
    ((2, 1, 4, 4), {"kernel_size": 2, "strides": (2, 1), "pad_mode": "VALID"}),
)


def _max_pool(rng):
    for shape, attrs in _MODE_ATTRS:
        yield (distinct(rng, shape),), attrs


_V2_ATTRS_samples = (
    ((1, 2, 4, 3), {"kernel_size": 2, "strides": 2}),
    ((1, 1, 5, 5), {"kernel_size": 3, "strides": 2, "pads": 1, "ceil_mode": True}),
)


# (input shape, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override)
_AVG2D = (
    ((1, 2, 4, 3), 2, 1, 0, False, True, None),
    ((1, 1, 5, 5), 3, 2, 1, True, False, None),
    ((1, 1, 5, 4), (2, 3), (2, 1), (1, 1), False, True, 4),
)


_ADAPTIVE = (((1, 2, 5, 4), (2, 3)), ((2, 4, 3), 2), ((1, 1, 4, 5), (None, 2)))


MaxPool = OpDef("MaxPool", (Arg("x"),), _ATTRS, infer=_pool_infer,
                doc="Maximum over each kernel_size window, moved by strides.")


@MaxPool.kernel("CPU", dtypes=FLOATS)
def max_pool_cpu(x, **attrs):
    return _max(x, _window(x, attrs), False)[0]


@MaxPool.bprop
def max_pool_bprop(x, out, dout, **attrs):
    return (MaxPoolGrad(x, out, dout, **attrs),)


MaxPool.samples(_max_pool)


MaxPoolGrad = OpDef("MaxPoolGrad", _GRAD_IN, _ATTRS, infer=_pool_grad_infer,
                    nondiff_inputs=_NONDIFF,
                    doc="MaxPool's input gradient: each window's grad goes to its maximum.")


@MaxPoolGrad.kernel("CPU", dtypes=FLOATS)
def max_pool_grad_cpu(x, out, grad, **attrs):
    w = _window(x, attrs)
    dt, (xp, gp) = _planes(x, grad)
    dx = np.empty(xp.shape, dt)
    _pool.max_pool_grad(xp, gp, dx, *w.max_args)
    return dx.reshape(x.shape)


@MaxPoolGrad.bprop
def max_pool_grad_bprop(x, y, grad, out, dout, **attrs):
    return None, None, MaxPoolGradGrad(x, y, dout, **attrs)


@MaxPoolGrad.samples
def _max_pool_grad(rng):
    from ms_ops.defs.nn_pool import MaxPool

    for shape, attrs in _MODE_ATTRS:
        x = distinct(rng, shape)
        out = _run(MaxPool, x, **attrs)
        yield (x, out, rng.standard_normal(out.shape)), attrs


def _pool_grad_grad_infer(x, out, grad, **attrs):
    _check_x(x)
    pooled = _pooled(x, _window(x, attrs)).shape
    if out.shape != pooled or grad.shape != x.shape:
        raise ValueError(f"out_origin shape {out.shape} and grad shape {grad.shape} should "
                         f"be {pooled} and {x.shape} for x_origin shape {x.shape}")
    return TensorSpec(pooled, grad.dtype)


MaxPoolGradGrad = OpDef("MaxPoolGradGrad", _GRAD_IN, _ATTRS, infer=_pool_grad_grad_infer,
                        nondiff_inputs=_NONDIFF,
                        doc="The gradient of MaxPoolGrad: ``grad`` read at each maximum.")


@MaxPoolGradGrad.kernel("CPU", dtypes=FLOATS)
def max_pool_grad_grad_cpu(x, out, grad, **attrs):
    w = _window(x, attrs)
    dt, (xp, gp) = _planes(x, grad)
    res = np.empty((xp.shape[0], w.oh, w.ow), dt)
    _pool.max_pool_grad_grad(xp, gp, res, *w.max_args)
    return res.reshape(x.shape[:2] + res.shape[1:])


@MaxPoolGradGrad.bprop
def max_pool_grad_grad_bprop(x, y, grad, out, dout, **attrs):
    return None, None, MaxPoolGrad(x, y, dout, **attrs)


@MaxPoolGradGrad.samples
def _max_pool_grad_grad(rng):
    from ms_ops.defs.nn_pool import MaxPool

    for shape, attrs in _MODE_ATTRS:
        x = distinct(rng, shape)
        yield (x, _run(MaxPool, x, **attrs), rng.standard_normal(shape)), attrs


def _with_argmax_infer(x, **attrs):
    out = _pool_infer(x, **attrs)
    return out, TensorSpec(out.shape, mstype.int32)


MaxPoolWithArgmax = OpDef(
    "MaxPoolWithArgmax", (Arg("x"),), _ATTRS, infer=_with_argmax_infer,
    doc="MaxPool and the flat (h * W + w) index of each maximum in its plane (int32).")


@MaxPoolWithArgmax.kernel("CPU", dtypes=FLOATS)
def max_pool_with_argmax_cpu(x, **attrs):
    out, idx = _max(x, _window(x, attrs), True)
    return out, idx.astype(np.int32)


@MaxPoolWithArgmax.bprop
def max_pool_with_argmax_bprop(x, out, dout, **attrs):
    return (MaxPoolGradWithArgmax(x, dout[0], out[1], **attrs),)


MaxPoolWithArgmax.samples(_max_pool)


def _with_argmax_grad_infer(x, grad, argmax, **attrs):
    _check_x(x)
    pooled = _pooled(x, _window(x, attrs)).shape
    _check_grad(x, pooled, grad=grad)
    return _scatter_infer(grad, x, argmax, "MaxPoolWithArgmax")


MaxPoolGradWithArgmax = OpDef(
    "MaxPoolGradWithArgmax", (Arg("x"), Arg("grad"), Arg("argmax", promote=False)), _ATTRS,
    infer=_with_argmax_grad_infer, nondiff_inputs=("x", "argmax"),
    doc="MaxPoolWithArgmax's input gradient: grad added at the argmax positions (no window "
        "is scanned again).")
MaxPoolGradWithArgmax.kernel("CPU", dtypes=FLOATS)(argmax_scatter_cpu)
MaxPoolGradWithArgmax.bprop(argmax_scatter_bprop)


@MaxPoolGradWithArgmax.samples
def _max_pool_with_argmax_grad(rng):
    from ms_ops.defs.nn_pool import MaxPoolWithArgmax

    for shape, attrs in _MODE_ATTRS:
        x = distinct(rng, shape)
        out, argmax = _run(MaxPoolWithArgmax, x, **attrs)
        yield (x, rng.standard_normal(out.shape), argmax), attrs


MaxPoolWithArgmaxV2 = OpDef(
    "MaxPoolWithArgmaxV2", (Arg("x"),), _V2_ATTRS, infer=_v2_infer,
    doc="Max pooling with symmetric ``pads`` and ``ceil_mode``, and the flat indices.")


@MaxPoolWithArgmaxV2.kernel("CPU", dtypes=FLOATS)
def max_pool_v2_cpu(x, **attrs):
    return _max(x, _v2_window(x, attrs), True)


@MaxPoolWithArgmaxV2.bprop
def max_pool_v2_bprop(x, out, dout, **attrs):
    return (MaxPoolGradWithArgmaxV2(x, dout[0], out[1], **attrs),)


@MaxPoolWithArgmaxV2.samples
def _max_pool_v2(rng):
    for shape, attrs in _V2_ATTRS_samples:
        yield (distinct(rng, shape),), attrs


def _v2_grad_infer(x, grad, argmax, **attrs):
    out, _ = _v2_infer(x, **attrs)
    if grad.shape != out.shape:
        raise ValueError(f"grad shape {grad.shape} should be {out.shape} for x shape {x.shape}")
    return _scatter_infer(grad, x, argmax, "MaxPoolWithArgmaxV2")


MaxPoolGradWithArgmaxV2 = OpDef(
    "MaxPoolGradWithArgmaxV2", (Arg("x"), Arg("grad"), Arg("argmax", promote=False)),
    _V2_ATTRS, infer=_v2_grad_infer, nondiff_inputs=("x", "argmax"),
    doc="MaxPoolWithArgmaxV2's input gradient: grad added at the argmax positions.")
MaxPoolGradWithArgmaxV2.kernel("CPU", dtypes=FLOATS)(argmax_scatter_cpu)
MaxPoolGradWithArgmaxV2.bprop(argmax_scatter_bprop)


@MaxPoolGradWithArgmaxV2.samples
def _max_pool_v2_grad(rng):
    from ms_ops.defs.nn_pool import MaxPoolWithArgmaxV2

    for shape, attrs in _V2_ATTRS_samples:
        x = distinct(rng, shape)
        out, argmax = _run(MaxPoolWithArgmaxV2, x, **attrs)
        yield (x, rng.standard_normal(out.shape), argmax), attrs


AvgPool = OpDef("AvgPool", (Arg("x"),), _ATTRS, infer=_pool_infer,
                doc="Mean over each window; SAME padding is not counted.")


@AvgPool.kernel("CPU", dtypes=FLOATS)
def avg_pool_cpu(x, **attrs):
    return _avg(x, _window(x, attrs))


@AvgPool.bprop
def avg_pool_bprop(x, out, dout, **attrs):
    return (AvgPoolGrad(x, out, dout, **attrs),)


@AvgPool.samples
def _avg_pool(rng):
    for shape, attrs in _MODE_ATTRS:
        yield (rng.standard_normal(shape),), attrs


AvgPoolGrad = OpDef("AvgPoolGrad", _GRAD_IN, _ATTRS, infer=_pool_grad_infer,
                    nondiff_inputs=_NONDIFF, doc="AvgPool's input gradient.")


@AvgPoolGrad.kernel("CPU", dtypes=FLOATS)
def avg_pool_grad_cpu(x, out, grad, **attrs):
    return _avg_grad(grad, x.shape, _window(x, attrs))


@AvgPoolGrad.bprop
def avg_pool_grad_bprop(x, y, grad, out, dout, **attrs):
    return None, None, AvgPool(dout, **attrs)


@AvgPoolGrad.samples
def _avg_pool_grad(rng):
    from ms_ops.defs.nn_pool import AvgPool

    for shape, attrs in _MODE_ATTRS:
        x = rng.standard_normal(shape)
        out = _run(AvgPool, x, **attrs)
        yield (x, out, rng.standard_normal(out.shape)), attrs


def _avg2d_infer(x, *window):
    _check_x(x)
    return _pooled(x, _avg2d_window(x, *window))


AvgPool2D = OpDef(
    "AvgPool2D", (Arg("input"),) + _AVG2D_IN, infer=_avg2d_infer,
    doc="Average pooling with symmetric padding, ceil_mode, count_include_pad and "
        "divisor_override (the functional avg_pool2d).")


@AvgPool2D.kernel("CPU", dtypes=FLOATS)
def avg_pool2d_cpu(x, **window):
    return _avg(x, _avg2d_window(x, **window))


@AvgPool2D.bprop
def avg_pool2d_bprop(x, *window, out, dout):
    return (AvgPool2DGrad(dout, x, *window),) + (None,) * len(window)


@AvgPool2D.samples
def _avg_pool2d(rng):
    for shape, *window in _AVG2D:
        yield (rng.standard_normal(shape), *window), {}


def _avg2d_grad_infer(grad, image, *window):
    _check_x(image)
    pooled = _pooled(image, _avg2d_window(image, *window)).shape
    _check_grad(image, pooled, grad=grad)
    return TensorSpec(image.shape, grad.dtype)


AvgPool2DGrad = OpDef(
    "AvgPool2DGrad", (Arg("grad"), Arg("image")) + _AVG2D_IN, infer=_avg2d_grad_infer,
    nondiff_inputs=("image",), doc="AvgPool2D's input gradient.")


@AvgPool2DGrad.kernel("CPU", dtypes=FLOATS)
def avg_pool2d_grad_cpu(grad, image, **window):
    return _avg_grad(grad, image.shape, _avg2d_window(image, **window))


@AvgPool2DGrad.bprop
def avg_pool2d_grad_bprop(grad, image, *window, out, dout):
    return (AvgPool2D(dout, *window), None) + (None,) * len(window)


@AvgPool2DGrad.samples
def _avg_pool2d_grad(rng):
    from ms_ops.defs.nn_pool import AvgPool2D

    for shape, *window in _AVG2D:
        x = rng.standard_normal(shape)
        out = _run(AvgPool2D, x, *window)
        yield (rng.standard_normal(out.shape), x, *window), {}


AdaptiveAvgPool2D = OpDef(
    "AdaptiveAvgPool2D", (Arg("x"),), (Attr("output_size"),), infer=_adaptive_infer,
    doc="Mean over windows [floor(i*H/oh), ceil((i+1)*H/oh)) giving output_size.")


@AdaptiveAvgPool2D.kernel("CPU", dtypes=FLOATS)
def adaptive_avg_pool_cpu(x, output_size):
    size = _adaptive_size(x.shape, output_size)
    dt, (xp,) = _planes(x)
    out = np.empty((xp.shape[0],) + size, dt)
    _pool.adaptive_avg_pool(xp, out)
    return out.reshape(x.shape[:-2] + size)


@AdaptiveAvgPool2D.bprop
def adaptive_avg_pool_bprop(x, out, dout, output_size):
    return (AdaptiveAvgPool2DGrad(dout, x.shape),)


@AdaptiveAvgPool2D.samples
def _adaptive_avg(rng):
    for shape, size in _ADAPTIVE:
        yield (rng.standard_normal(shape),), {"output_size": size}


def _adaptive_avg_grad_infer(grad, orig_input_shape):
    check_dtype("input_grad", grad, FLOATS)
    shape = tuple(orig_input_shape)
    if grad.ndim not in (3, 4) or len(shape) != grad.ndim or shape[:-2] != grad.shape[:-2]:
        raise ValueError(f"input_grad shape {grad.shape} does not fit orig_input_shape "
                         f"{shape}")
    return TensorSpec(shape, grad.dtype)


AdaptiveAvgPool2DGrad = OpDef(
    "AdaptiveAvgPool2DGrad", (Arg("input_grad"), Arg("orig_input_shape", STATIC)),
    infer=_adaptive_avg_grad_infer, doc="AdaptiveAvgPool2D's input gradient.")


@AdaptiveAvgPool2DGrad.kernel("CPU", dtypes=FLOATS)
def adaptive_avg_pool_grad_cpu(grad, orig_input_shape):
    shape = tuple(orig_input_shape)
    dt, (gp,) = _planes(grad)
    dx = np.empty((gp.shape[0],) + shape[-2:], dt)
    _pool.adaptive_avg_pool_grad(gp, dx)
    return dx.reshape(shape)


@AdaptiveAvgPool2DGrad.bprop
def adaptive_avg_pool_grad_bprop(grad, shape, out, dout):
    return AdaptiveAvgPool2D(dout, output_size=tuple(grad.shape[-2:])), None


@AdaptiveAvgPool2DGrad.samples
def _adaptive_avg_grad(rng):
    from ms_ops.defs.nn_pool import AdaptiveAvgPool2D

    for shape, size in _ADAPTIVE:
        out = _run(AdaptiveAvgPool2D, rng.standard_normal(shape), output_size=size)
        yield (rng.standard_normal(out.shape), shape), {}


def _adaptive_max_infer(x, output_size):
    out = _adaptive_infer(x, output_size)
    return out, TensorSpec(out.shape, mstype.int64)


AdaptiveMaxPool2D = OpDef(
    "AdaptiveMaxPool2D", (Arg("x"),), (Attr("output_size"),), infer=_adaptive_max_infer,
    doc="Maximum over adaptive windows, and its flat index in the plane (int64).")


@AdaptiveMaxPool2D.kernel("CPU", dtypes=FLOATS)
def adaptive_max_pool_cpu(x, output_size):
    size = _adaptive_size(x.shape, output_size)
    dt, (xp,) = _planes(x)
    out = np.empty((xp.shape[0],) + size, dt)
    idx = np.empty(out.shape, np.int64)
    _pool.adaptive_max_pool(xp, out, idx)
    shape = x.shape[:-2] + size
    return out.reshape(shape), idx.reshape(shape)


@AdaptiveMaxPool2D.bprop
def adaptive_max_pool_bprop(x, out, dout, output_size):
    return (AdaptiveMaxPool2DGrad(dout[0], x, out[1]),)


@AdaptiveMaxPool2D.samples
def _adaptive_max(rng):
    for shape, size in _ADAPTIVE:
        yield (distinct(rng, shape),), {"output_size": size}


def _adaptive_max_grad_infer(grad, x, argmax):
    return _scatter_infer(grad, x, argmax, "AdaptiveMaxPool2D")


AdaptiveMaxPool2DGrad = OpDef(
    "AdaptiveMaxPool2DGrad", (Arg("y_grad"), Arg("x"), Arg("argmax", promote=False)),
    infer=_adaptive_max_grad_infer, nondiff_inputs=("x", "argmax"),
    doc="AdaptiveMaxPool2D's input gradient: y_grad added at the argmax positions.")


@AdaptiveMaxPool2DGrad.kernel("CPU", dtypes=FLOATS)
def adaptive_max_pool_grad_cpu(grad, x, argmax):
    return _scatter(grad, x.shape, argmax)


@AdaptiveMaxPool2DGrad.bprop
def adaptive_max_pool_grad_bprop(grad, x, argmax, out, dout):
    return _gather_at(dout, argmax), None, None


@AdaptiveMaxPool2DGrad.samples
def _adaptive_max_grad(rng):
    from ms_ops.defs.nn_pool import AdaptiveMaxPool2D

    for shape, size in _ADAPTIVE:
        x = distinct(rng, shape)
        out, argmax = _run(AdaptiveMaxPool2D, x, output_size=size)
        yield (rng.standard_normal(out.shape), x, argmax), {}


@functional("max_pool2d")
def max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
               ceil_mode=False):
    """2-d max pooling of NCHW ``x``; ``stride`` defaults to ``kernel_size``.

    With ``return_indices`` the flat (h * W + w) int64 indices of the maxima come too.

    >>> max_pool2d(ops.ones((1, 1, 5, 6)), 3, 2, padding=1).shape
    (1, 1, 3, 3)
    """
    out, idx = MaxPoolWithArgmaxV2(x, kernel_size=kernel_size, strides=stride, pads=padding,
                                   dilation=dilation, ceil_mode=ceil_mode)
    return (out, idx) if return_indices else out


@functional("avg_pool2d")
def avg_pool2d(input_x, kernel_size=1, stride=1, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=0):
    """2-d average pooling of NCHW ``input_x`` with symmetric zero ``padding``.

    >>> avg_pool2d(ops.ones((1, 1, 4, 4)), 2, 2).shape
    (1, 1, 2, 2)
    """
    return AvgPool2D(input_x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override or None)


@functional("adaptive_avg_pool2d")
def adaptive_avg_pool2d(input, output_size):
    """Average pooling to ``output_size`` (an int, or a pair where None keeps a dimension).

    >>> adaptive_avg_pool2d(ops.ones((1, 3, 7, 5)), (2, None)).shape
    (1, 3, 2, 5)
    """
    return AdaptiveAvgPool2D(input, output_size=output_size)


@functional("adaptive_max_pool2d")
def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to ``output_size``; with ``return_indices`` the flat indices too.

    >>> adaptive_max_pool2d(ops.ones((1, 3, 7, 5)), 2).shape
    (1, 3, 2, 2)
    """
    out, idx = AdaptiveMaxPool2D(input, output_size=output_size)
    return (out, idx) if return_indices else out
