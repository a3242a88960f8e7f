"""MindSpore's patch and depthwise names over ``unfold``/``fold``/``conv2d``:
``ops.Im2Col``, ``ops.Col2Im``, ``col2im``, ``ops.ExtractImagePatches``,
``ops.DepthwiseConv2dNative`` and ``adaptive_avg_pool2d_ext``.

Im2Col/Col2Im keep the channel and kernel axes apart ((N, C, kh*kw, L)); ExtractImagePatches
orders its depth as TensorFlow's does (kernel row, kernel column, then channel), with the
patches laid out on the output grid. Explicit padding is applied first with ``ops.pad`` so
an asymmetric ``pads`` works too.
"""

from __future__ import annotations

import ms_ops as ops
from ms_ops.defs.nn_conv_more import _same_pads, _tuple
from ms_ops.opdef import functional, primitive_class
from ms_tensor.tensor import Tensor


def _pairs(name, pads):
    """(top, bottom), (left, right) from an int, 2 ints or 4 ints."""
    if isinstance(pads, (tuple, list)) and len(pads) == 4:
        return [(int(pads[0]), int(pads[1])), (int(pads[2]), int(pads[3]))]
    if isinstance(pads, (tuple, list)) and len(pads) == 1:
        pads = pads[0]
    return [(p, p) for p in _tuple(f"{name}: pads", pads, 2)]


def _two(name, value):
    if isinstance(value, (tuple, list)) and len(value) == 1:
        value = value[0]
    if isinstance(value, (tuple, list)) and len(value) == 4:  # NCHW form (1, 1, h, w)
        value = tuple(value[2:])
    return _tuple(name, value, 2)


def _check4(name, x):
    if not isinstance(x, Tensor) or x.ndim != 4:
        raise ValueError(f"{name}: input must be a 4-d Tensor (N, C, H, W), got "
                         f"{getattr(x, 'shape', type(x).__name__)}")


def _pad(x, pairs, value=0.0):
    flat = (pairs[1][0], pairs[1][1], pairs[0][0], pairs[0][1])
    return ops.pad(x, flat, value=value) if any(flat) else x


def _im2col(x, ksizes, strides=1, dilations=1, pads=0):
    _check4("Im2Col", x)
    kernel = _two("Im2Col: ksizes", ksizes)
    cols = ops.unfold(_pad(x, _pairs("Im2Col", pads)), kernel,
                      _two("Im2Col: dilations", dilations), 0, _two("Im2Col: strides", strides))
    n, c = x.shape[:2]
    return ops.reshape(cols, (n, c, kernel[0] * kernel[1], -1))


Im2Col = primitive_class("Im2Col", _im2col, ("ksizes", "strides", "dilations", "pads"))


@functional("col2im", methods="col2im")
def col2im(input_x, output_size, kernel_size, dilation, padding_value, stride):
    """Sum the (N, C, kh*kw, L) columns of ``Im2Col`` back into (N, C, *output_size).

    >>> col2im(ops.ones((1, 2, 4, 9)), Tensor([4, 4]), 2, 1, 0, 1).shape
    (1, 2, 4, 4)
    """
    if not isinstance(input_x, Tensor) or input_x.ndim != 4:
        raise ValueError(f"Col2Im: input_x must be a 4-d Tensor (N, C, kh*kw, L), got "
                         f"{getattr(input_x, 'shape', type(input_x).__name__)}")
    kernel = _two("Col2Im: kernel_size", kernel_size)
    n, c, k, length = input_x.shape
    if k != kernel[0] * kernel[1]:
        raise ValueError(f"Col2Im: input_x's axis 2 ({k}) must be kh*kw = "
                         f"{kernel[0] * kernel[1]} for kernel_size {kernel_size!r}")
    return ops.fold(ops.reshape(input_x, (n, c * k, length)), output_size, kernel,
                    _two("Col2Im: dilation", dilation), _two("Col2Im: padding", padding_value),
                    _two("Col2Im: stride", stride))


Col2Im = primitive_class(
    "Col2Im", lambda x, output_size, kernel_size, dilation=1, padding=0, stride=1: col2im(
        x, output_size, kernel_size, dilation, padding, stride),
    ("kernel_size", "dilation", "padding", "stride"))


def _extract_patches(x, ksizes, strides, rates, padding="VALID"):
    name = "ExtractImagePatches"
    _check4(name, x)
    kernel, stride = _two(f"{name}: ksizes", ksizes), _two(f"{name}: strides", strides)
    rate = _two(f"{name}: rates", rates)
    if str(padding).upper() not in ("VALID", "SAME"):
        raise ValueError(f"{name}: padding must be 'VALID' or 'SAME', got {padding!r}")
    pairs = _same_pads(x.shape[2:], kernel, stride, rate) if str(padding).upper() == "SAME" \
        else [(0, 0), (0, 0)]
    xp = _pad(x, pairs)
    outs = [(n - r * (k - 1) - 1) // s + 1
            for n, k, s, r in zip(xp.shape[2:], kernel, stride, rate)]
    if min(outs) <= 0:
        raise ValueError(f"{name}: input shape {x.shape} is smaller than the dilated kernel "
                         f"{kernel} (rates {rate})")
    n, c = x.shape[:2]
    cols = ops.reshape(ops.unfold(xp, kernel, rate, 0, stride), (n, c, kernel[0] * kernel[1],
                                                                  -1))
    cols = ops.transpose(cols, (0, 2, 1, 3))
    return ops.reshape(cols, (n, c * kernel[0] * kernel[1], outs[0], outs[1]))


ExtractImagePatches = primitive_class("ExtractImagePatches", _extract_patches,
                                      ("ksizes", "strides", "rates", "padding"))


def _depthwise(x, weight, channel_multiplier, kernel_size, mode=3, pad_mode="valid", pad=0,
               stride=1, dilation=1, group=1):
    name = "DepthwiseConv2dNative"
    _check4(name, x)
    kernel = _two(f"{name}: kernel_size", kernel_size)
    c = x.shape[1]
    if not isinstance(weight, Tensor) or weight.ndim != 4 or \
            tuple(weight.shape) != (channel_multiplier, c) + kernel:
        raise ValueError(f"{name}: weight shape {getattr(weight, 'shape', None)} must be "
                         f"(channel_multiplier={channel_multiplier}, C={c}, *{kernel})")
    st, dl = _two(f"{name}: stride", stride), _two(f"{name}: dilation", dilation)
    if pad_mode not in ("valid", "same", "pad"):
        raise ValueError(f"{name}: pad_mode must be 'valid', 'same' or 'pad', got {pad_mode!r}")
    if pad_mode == "same":
        pairs = _same_pads(x.shape[2:], kernel, st, dl)
    else:
        pairs = _pairs(name, pad if pad_mode == "pad" else 0)
    w = ops.reshape(ops.transpose(weight, (1, 0, 2, 3)), (c * channel_multiplier, 1) + kernel)
    return ops.conv2d(_pad(x, pairs), w, None, st, "valid", 0, dl, c)


DepthwiseConv2dNative = primitive_class(
    "DepthwiseConv2dNative", _depthwise,
    ("channel_multiplier", "kernel_size", "mode", "pad_mode", "pad", "stride", "dilation",
     "group"))


@functional(methods="unfold")
def _unfold_method(self, kernel_size, dilation=1, padding=0, stride=1):
    """``Tensor.unfold``: ``ops.unfold`` with the tensor first (im2col).

    >>> ops.ones((1, 2, 4, 4)).unfold(2).shape
    (1, 8, 9)
    """
    return ops.unfold(self, kernel_size, dilation, padding, stride)


@functional(methods="fold")
def _fold_method(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """``Tensor.fold``: ``ops.fold`` with the tensor first (col2im of unfold's columns).

    >>> ops.ones((1, 8, 9)).fold(Tensor([4, 4]), 2).shape
    (1, 2, 4, 4)
    """
    return ops.fold(self, output_size, kernel_size, dilation, padding, stride)


@functional("adaptive_avg_pool2d_ext")
def adaptive_avg_pool2d_ext(input, output_size):
    """``mint``'s adaptive average pooling of (N, C, H, W) or (C, H, W) ``input``.

    >>> adaptive_avg_pool2d_ext(ops.ones((1, 2, 5, 5)), 2).shape
    (1, 2, 2, 2)
    """
    return ops.adaptive_avg_pool2d(input, output_size)
