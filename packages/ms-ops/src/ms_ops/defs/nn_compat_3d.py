"""MindSpore's class forms of 3-d convolution and pooling (``ops.Conv3D``,
``ops.Conv3DTranspose``, ``ops.AvgPool3D``, ``ops.MaxPool3D``, ``ops.MaxPool3DWithArgmax``,
``ops.AdaptiveAvgPool3D``, ``ops.AdaptiveMaxPool3D``, ``ops.MaxUnpool2D/3D``) and
``conv3d_transpose``, over the functional 3-d operators.

MindSpore's padding comes as ``pad_mode`` ('valid', 'same' or 'pad') plus ``pad`` (one int
or six: head, tail, top, bottom, left, right). Symmetric padding goes to the functional
form; asymmetric padding ('same' with an odd total) is applied first with ``ops.pad``.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.defs.nn_conv_more import _same_pads, _tuple
from ms_ops.opdef import functional, primitive_class
from ms_tensor.tensor import Tensor


def _spatial(name, value, n=3):
    """An int, an n-tuple or MindSpore's (1, 1, *n) form."""
    if isinstance(value, (tuple, list)) and len(value) == n + 2:
        value = tuple(value[2:])
    return _tuple(f"{name}", value, n)


def _pads(name, pad_mode, pad, sizes, kernel, stride, dilation):
    """(before, after) per spatial axis from MindSpore's pad_mode and pad."""
    mode = pad_mode.lower() if isinstance(pad_mode, str) else pad_mode
    if mode not in ("valid", "same", "pad"):
        raise ValueError(f"{name}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    nd = len(sizes)
    if isinstance(pad, (tuple, list)) and len(pad) == 2 * nd:
        pairs = [(int(pad[2 * i]), int(pad[2 * i + 1])) for i in range(nd)]
    else:
        pairs = [(p, p) for p in _tuple(f"{name}: pad", pad, nd)]
    if mode != "pad" and any(p for pair in pairs for p in pair):
        raise ValueError(f"{name}: pad must be 0 unless pad_mode is 'pad', got {pad!r}")
    if any(p < 0 for pair in pairs for p in pair):
        raise ValueError(f"{name}: pad must be non-negative, got {pad!r}")
    if mode == "same":
        return _same_pads(sizes, kernel, stride, dilation)
    return pairs


def _check5(name, x):
    if not isinstance(x, Tensor) or x.ndim != 5:
        raise ValueError(f"{name}: input must be a 5-d Tensor (N, C, D, H, W), got "
                         f"{getattr(x, 'shape', type(x).__name__)}")


def _pad_first(x, pairs, value=0.0):
    flat = tuple(v for p in reversed(pairs) for v in p)
    return ops.pad(x, flat, value=value) if any(flat) else x


def _conv3d(x, weight, out_channel, kernel_size, mode=1, pad_mode="valid", pad=0, stride=1,
            dilation=1, group=1, data_format="NCDHW"):
    name = "Conv3D"
    _check5(name, x)
    if data_format != "NCDHW":
        raise ValueError(f"{name}: data_format must be 'NCDHW', got {data_format!r}")
    kernel = _spatial(f"{name}: kernel_size", kernel_size)
    if not isinstance(weight, Tensor) or weight.shape[0] != out_channel or \
            tuple(weight.shape[2:]) != kernel:
        raise ValueError(f"{name}: weight shape {getattr(weight, 'shape', None)} must be "
                         f"({out_channel}, C/group, *{kernel}) for out_channel {out_channel} "
                         f"and kernel_size {kernel_size!r}")
    st, dl = _spatial(f"{name}: stride", stride), _spatial(f"{name}: dilation", dilation)
    pairs = _pads(name, pad_mode, pad, x.shape[2:], kernel, st, dl)
    return ops.conv3d(_pad_first(x, pairs), weight, None, st, "valid", 0, dl, group)


Conv3D = primitive_class("Conv3D", _conv3d, ("out_channel", "kernel_size", "mode", "pad_mode",
                                             "pad", "stride", "dilation", "group",
                                             "data_format"))


def _transpose(name, x, weight, pad_mode, pad, stride, dilation, group, output_padding):
    _check5(name, x)
    if not isinstance(weight, Tensor) or weight.ndim != 5 or weight.shape[0] != x.shape[1]:
        raise ValueError(f"{name}: weight shape {getattr(weight, 'shape', None)} must be "
                         f"(C_in={x.shape[1]}, C_out/group, kd, kh, kw)")
    kernel = tuple(weight.shape[2:])
    st, dl = _spatial(f"{name}: stride", stride), _spatial(f"{name}: dilation", dilation)
    extra = _spatial(f"{name}: output_padding", output_padding)
    full = [(n - 1) * s + d * (k - 1) + 1 for n, s, d, k in zip(x.shape[2:], st, dl, kernel)]
    if str(pad_mode).lower() == "same":  # the output is input * stride, the cut centred
        pairs = [(max(f - n * s, 0) // 2, max(f - n * s, 0) - max(f - n * s, 0) // 2)
                 for f, n, s in zip(full, x.shape[2:], st)]
    else:
        pairs = _pads(name, pad_mode, pad, x.shape[2:], kernel, st, dl)
    y = ops.conv_transpose3d(x, weight, None, st, 0, 0, group, dl)
    y = _pad_first(y, [(0, e) for e in extra])
    sizes = [f - b - a + e for f, (b, a), e in zip(full, pairs, extra)]
    if min(sizes) <= 0:
        raise ValueError(f"{name}: pad {pad!r} leaves no output for input shape {x.shape}")
    return y[(slice(None), slice(None)) + tuple(slice(b, b + s) for (b, _), s in
                                                 zip(pairs, sizes))]


def _conv3d_transpose_prim(dout, weight, in_channel, out_channel, kernel_size, mode=1,
                           pad_mode="valid", pad=0, stride=1, dilation=1, group=1,
                           output_padding=0, data_format="NCDHW"):
    if data_format != "NCDHW":
        raise ValueError(f"Conv3DTranspose: data_format must be 'NCDHW', got {data_format!r}")
    if isinstance(weight, Tensor) and (weight.shape[0] != in_channel or tuple(
            weight.shape[2:]) != _spatial("Conv3DTranspose: kernel_size", kernel_size) or
            weight.shape[1] * group != out_channel):
        raise ValueError(f"Conv3DTranspose: weight shape {weight.shape} must be ({in_channel}, "
                         f"{out_channel}/group, *kernel_size {kernel_size!r})")
    return _transpose("Conv3DTranspose", dout, weight, pad_mode, pad, stride, dilation, group,
                      output_padding)


Conv3DTranspose = primitive_class(
    "Conv3DTranspose", _conv3d_transpose_prim,
    ("in_channel", "out_channel", "kernel_size", "mode", "pad_mode", "pad", "stride",
     "dilation", "group", "output_padding", "data_format"))


@functional("conv3d_transpose")
def conv3d_transpose(inputs, weight, pad_mode="valid", padding=0, stride=1, dilation=1,
                     group=1, output_padding=0):
    """Transposed 3-d convolution with MindSpore's padding arguments.

    >>> conv3d_transpose(ops.ones((1, 2, 2, 2, 2)), ops.ones((2, 3, 2, 2, 2)), stride=2).shape
    (1, 3, 4, 4, 4)
    """
    return _transpose("conv3d_transpose", inputs, weight, pad_mode, padding, stride, dilation,
                      group, output_padding)


def _symmetric(pairs, kernel):
    return all(b == a and 2 * b <= k for (b, a), k in zip(pairs, kernel))


def _avg_pool3d(x, kernel_size=1, strides=1, pad_mode="valid", pad=0, ceil_mode=False,
                count_include_pad=True, divisor_override=0, data_format="NCDHW"):
    name = "AvgPool3D"
    _check5(name, x)
    kernel = _spatial(f"{name}: kernel_size", kernel_size)
    st = _spatial(f"{name}: strides", strides)
    pairs = _pads(name, pad_mode, pad, x.shape[2:], kernel, st, (1, 1, 1))
    if _symmetric(pairs, kernel):
        return ops.avg_pool3d(x, kernel, st, tuple(b for b, _ in pairs), ceil_mode,
                              count_include_pad, divisor_override)
    sums = ops.avg_pool3d(_pad_first(x, pairs), kernel, st, 0, ceil_mode, True, 1)
    if divisor_override:
        return sums / divisor_override
    inside = np.ones(x.shape[2:], np.float32)
    mask = np.pad(inside, pairs, constant_values=1.0 if count_include_pad else 0.0)
    counts = ops.avg_pool3d(Tensor(mask[None, None]), kernel, st, 0, ceil_mode, True, 1)
    return sums / counts.astype(x.dtype)


AvgPool3D = primitive_class("AvgPool3D", _avg_pool3d,
                            ("kernel_size", "strides", "pad_mode", "pad", "ceil_mode",
                             "count_include_pad", "divisor_override", "data_format"))


def _max_pool3d(x, kernel_size=1, strides=1, pad_mode="VALID", pad_list=0, ceil_mode=None,
                data_format="NCDHW"):
    name = "MaxPool3D"
    _check5(name, x)
    kernel = _spatial(f"{name}: kernel_size", kernel_size)
    st = _spatial(f"{name}: strides", strides)
    pairs = _pads(name, pad_mode, pad_list, x.shape[2:], kernel, st, (1, 1, 1))
    if _symmetric(pairs, kernel):
        return ops.max_pool3d(x, kernel, st, tuple(b for b, _ in pairs), 1, bool(ceil_mode))
    return ops.max_pool3d(_pad_first(x, pairs, float("-inf")), kernel, st, 0, 1,
                          bool(ceil_mode))


MaxPool3D = primitive_class("MaxPool3D", _max_pool3d, ("kernel_size", "strides", "pad_mode",
                                                       "pad_list", "ceil_mode", "data_format"))


def _max_pool3d_argmax(x, ksize, strides, pads, dilation=(1, 1, 1), ceil_mode=False,
                       data_format="NCDHW", argmax_type="int64"):
    _check5("MaxPool3DWithArgmax", x)
    if str(argmax_type).lower() not in ("int32", "int64"):
        raise TypeError(f"MaxPool3DWithArgmax: argmax_type must be int32 or int64, got "
                        f"{argmax_type!r}")
    out, index = ops.max_pool3d(x, _spatial("MaxPool3DWithArgmax: ksize", ksize),
                                _spatial("MaxPool3DWithArgmax: strides", strides),
                                _spatial("MaxPool3DWithArgmax: pads", pads),
                                _spatial("MaxPool3DWithArgmax: dilation", dilation),
                                ceil_mode, return_indices=True)
    return out, index.astype(argmax_type)


MaxPool3DWithArgmax = primitive_class("MaxPool3DWithArgmax", _max_pool3d_argmax,
                                      ("ksize", "strides", "pads", "dilation", "ceil_mode",
                                       "data_format", "argmax_type"))
AdaptiveAvgPool3D = primitive_class(
    "AdaptiveAvgPool3D", lambda x, output_size: ops.adaptive_avg_pool3d(x, output_size),
    ("output_size",))


def _bins(n, m):
    return [(i * n // m, -(-(i + 1) * n // m)) for i in range(m)]


def _adaptive_max_pool3d(x, output_size):
    _check5("AdaptiveMaxPool3D", x)
    size = output_size.asnumpy().reshape(-1).tolist() if isinstance(output_size, Tensor) \
        else list(output_size)
    if len(size) != 3 or min(size) <= 0:
        raise ValueError(f"AdaptiveMaxPool3D: output_size must hold 3 positive ints, got "
                         f"{output_size!r}")
    size = tuple(int(s) for s in size)
    out = ops.adaptive_max_pool3d(x, size)
    d, h, w = x.shape[2:]
    cells = []  # each bin's argmax as a flat (d * H + h) * W + w index, with tensor ops
    for d0, d1 in _bins(d, size[0]):
        for h0, h1 in _bins(h, size[1]):
            for w0, w1 in _bins(w, size[2]):
                box = x[:, :, d0:d1, h0:h1, w0:w1]
                arg = ops.argmax(ops.reshape(box, box.shape[:2] + (-1,)), -1).astype("int32")
                plane = (h1 - h0) * (w1 - w0)
                bd, rest = arg // plane, arg % plane
                bh, bw = rest // (w1 - w0), rest % (w1 - w0)
                cells.append(((bd + d0) * h + bh + h0) * w + bw + w0)
    index = ops.reshape(ops.stack(cells, -1), x.shape[:2] + size)
    return out, index.astype("int32")


AdaptiveMaxPool3D = primitive_class("AdaptiveMaxPool3D", _adaptive_max_pool3d)


def _unpool(name, nd, fn):
    def call(x, argmax, ksize, strides=0, pads=0, output_shape=(), data_format=None):
        kernel = _tuple(f"{name}: ksize", ksize, nd)
        stride = kernel if strides in (0, None) else _tuple(f"{name}: strides", strides, nd)
        size = tuple(output_shape)[-nd:] if output_shape else None
        return fn(x, argmax, kernel, stride, _tuple(f"{name}: pads", pads, nd), size)
    return primitive_class(name, call, ("ksize", "strides", "pads", "output_shape",
                                        "data_format"))


MaxUnpool2D = _unpool("MaxUnpool2D", 2, lambda *a: ops.max_unpool2d(*a))
MaxUnpool3D = _unpool("MaxUnpool3D", 3, lambda *a: ops.max_unpool3d(*a))
