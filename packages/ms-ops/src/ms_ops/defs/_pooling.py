"""Helpers that the pooling families share: windows, inference, numpy references, Cython
calls and sample builders.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs.nn_conv import _pair
from ms_ops.infer import check_dtype, check_rank
from ms_ops.kernels import _pool
from ms_ops.opdef import FLOATS, STATIC, Arg, Attr, TensorSpec
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


def _window(x, attrs) -> _Window:
    return _mode_window(x.shape, **attrs)


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


def _scatter_infer(grad, x, argmax, what):
    check_dtype("argmax", argmax, mstype.int_types)
    if grad.shape != argmax.shape or grad.shape[:-2] != x.shape[:-2]:
        raise ValueError(f"grad shape {grad.shape}, x shape {x.shape} and argmax shape "
                         f"{argmax.shape} do not fit one {what}")
    return TensorSpec(x.shape, grad.dtype)


_ATTRS = (Attr("kernel_size", 1), Attr("strides", 1), Attr("pad_mode", "VALID"),
          Attr("data_format", "NCHW"))
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


def _scatter_ref(grad, index, x_shape):
    """``dx.flat[index] += grad`` plane by plane, over zeros of ``x_shape``."""
    n = int(np.prod(x_shape[:-2]))
    dx = np.zeros((n, x_shape[-2] * x_shape[-1]), grad.dtype)
    rows = np.repeat(np.arange(n), index.shape[-2] * index.shape[-1])
    np.add.at(dx, (rows, index.reshape(-1)), grad.reshape(-1))
    return dx.reshape(x_shape)


def _planes(*arrays):
    """Each array as a C-contiguous ``(planes, H, W)`` float32/float64 array."""
    dt = arrays[0].dtype if arrays[0].dtype in (np.float32, np.float64) else np.float32
    return dt, [np.ascontiguousarray(a, dt).reshape((-1,) + a.shape[-2:]) for a in arrays]


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


def _gather_at(dx, argmax):
    """``dx`` (input-shaped) read at the flat plane indices ``argmax``: the transpose of
    the argmax scatter, so the scatter gradients differentiate again."""
    from ms_ops.defs import array, indexing

    lead = tuple(argmax.shape[:-2])
    picked = indexing.GatherD(array.Reshape(dx, lead + (-1,)), len(lead),
                              array.Reshape(argmax, lead + (-1,)))
    return array.Reshape(picked, tuple(argmax.shape))


# Samples for the pooling operators and their gradient operators. Inputs of max pooling
# hold distinct values spaced well apart (a permutation plus small noise), so no window
# has a tie that finite differences could flip. The gradient operators get the forward
# results (``out_origin``, ``argmax``) computed by the forward operator itself.
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
