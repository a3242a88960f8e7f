"""Convolution layers (NCHW): Conv1d, Conv2d, Conv2dTranspose on ms-ops' Conv2D and
Conv2DBackpropInput (Conv1d is a Conv2d over a height of 1, with MindSpore's 4-d weight)."""

from __future__ import annotations

import math

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import HeUniform, initializer
from ms_nn.layers._check import int_tuple, one_of, positive_int, rank
from ms_nn.layers.basic import _check_shape, default_bias_init
from ms_tensor import Parameter
from ms_tensor import dtype as mstype

__all__ = ["Conv1d", "Conv2d", "Conv2dTranspose"]

_PAD_MODES = ("same", "valid", "pad")


def _padding4(layer, padding, pad_mode) -> tuple:
    """``padding`` as (top, bottom, left, right); non-zero only with ``pad_mode='pad'``."""
    pads = int_tuple(layer, "padding", padding, 4, minimum=0)
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"{layer}: padding must be 0 unless pad_mode is 'pad', got padding "
                         f"{padding!r} with pad_mode {pad_mode!r}")
    return pads


class _Conv(Cell):
    """What the convolutions share: argument checks, the weight and the bias."""

    def __init__(self, layer, in_channels, out_channels, kernel_size, stride, pad_mode, pads,
                 dilation, group, has_bias, weight_init, bias_init, dtype, transposed=False):
        super().__init__()
        self.in_channels = positive_int(layer, "in_channels", in_channels)
        self.out_channels = positive_int(layer, "out_channels", out_channels)
        self.group = positive_int(layer, "group", group)
        if in_channels % group or out_channels % group:
            raise ValueError(f"{layer}: group {group} must divide in_channels {in_channels} "
                             f"and out_channels {out_channels}")
        self.kernel_size, self.stride, self.dilation = kernel_size, stride, dilation
        self.pad_mode = pad_mode
        self.padding = pads
        self.has_bias = bool(has_bias)
        self.data_format = "NCHW"
        if transposed:
            shape = (in_channels, out_channels // group) + kernel_size
        else:
            shape = (out_channels, in_channels // group) + kernel_size
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, shape, dtype), name="weight")
        _check_shape(layer, "weight", self.weight, shape)
        self.bias = None
        if self.has_bias:
            if bias_init is None:
                bias_init = default_bias_init(shape[1] * math.prod(kernel_size))
            self.bias = Parameter(initializer(bias_init, (out_channels,), dtype), name="bias")
            _check_shape(layer, "bias", self.bias, (out_channels,))

    def _add_bias(self, out):
        if not self.has_bias:
            return out
        return ops.add(out, ops.reshape(self.bias, (1, -1, 1, 1)))

    def _check_channels(self, layer, x, ranks, layout):
        rank(layer, x, ranks, layout)
        if x.shape[1] != self.in_channels:
            raise ValueError(f"{layer}: input shape {tuple(x.shape)} has {x.shape[1]} channels, "
                             f"in_channels is {self.in_channels} (weight shape "
                             f"{tuple(self.weight.shape)})")

    def extend_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}, dilation={self.dilation}, "
                f"group={self.group}, has_bias={self.has_bias}")


class Conv2d(_Conv):
    """2-d convolution over NCHW input.

    ``weight`` is ``(out_channels, in_channels / group, kh, kw)``. ``pad_mode`` is
    ``'same'`` (MindSpore's default: output ``ceil(H / stride)``), ``'valid'`` (no padding)
    or ``'pad'`` (``padding``: an int or (top, bottom, left, right)). Default weights come
    from ``HeUniform(sqrt(5))``; there is no bias unless ``has_bias=True``.

    >>> Conv2d(1, 6, 5, pad_mode="valid")(ops.ones((2, 1, 32, 32))).shape
    (2, 6, 28, 28)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCHW", dtype=mstype.float32):
        layer = "Conv2d"
        one_of(layer, "data_format", data_format, ("NCHW",))
        one_of(layer, "pad_mode", pad_mode, _PAD_MODES)
        super().__init__(layer, in_channels, out_channels,
                         int_tuple(layer, "kernel_size", kernel_size, 2),
                         int_tuple(layer, "stride", stride, 2), pad_mode,
                         _padding4(layer, padding, pad_mode),
                         int_tuple(layer, "dilation", dilation, 2), group, has_bias,
                         weight_init, bias_init, dtype)
        self._conv = ops.Conv2D(out_channel=out_channels, kernel_size=self.kernel_size,
                                pad_mode=pad_mode, pad=self.padding, stride=self.stride,
                                dilation=self.dilation, group=group)

    def construct(self, x):
        self._check_channels("Conv2d", x, (4,), "4-d (N, C, H, W)")
        return self._add_bias(self._conv(x, self.weight))


class Conv1d(_Conv):
    """1-d convolution over (N, C, L) input.

    As in MindSpore, ``weight`` is 4-d, ``(out_channels, in_channels / group, 1, k)``,
    and the work is a Conv2d over a height of 1. ``padding`` is an int or (left, right).

    >>> Conv1d(2, 3, 3, pad_mode="valid")(ops.ones((1, 2, 10))).shape
    (1, 3, 8)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=mstype.float32):
        layer = "Conv1d"
        one_of(layer, "pad_mode", pad_mode, _PAD_MODES)
        k = positive_int(layer, "kernel_size", kernel_size)
        s = positive_int(layer, "stride", stride)
        d = positive_int(layer, "dilation", dilation)
        left, right = int_tuple(layer, "padding", padding, 2, minimum=0)
        pads = _padding4(layer, (0, 0, left, right), pad_mode)
        super().__init__(layer, in_channels, out_channels, (1, k), (1, s), pad_mode, pads,
                         (1, d), group, has_bias, weight_init, bias_init, dtype)
        self._conv = ops.Conv2D(out_channel=out_channels, kernel_size=(1, k), pad_mode=pad_mode,
                                pad=pads, stride=(1, s), dilation=(1, d), group=group)

    def construct(self, x):
        self._check_channels("Conv1d", x, (3,), "3-d (N, C, L)")
        out = self._add_bias(self._conv(ops.expand_dims(x, 2), self.weight))
        return ops.squeeze(out, 2)


def _deconv_length(pad_mode, length, kernel, stride, dilation, pad_sum) -> int:
    """Output length of a transposed convolution (the input length of the matching conv)."""
    span = (kernel - 1) * dilation + 1
    if pad_mode == "same":
        return length * stride
    if pad_mode == "valid":
        return length * stride + max(span - stride, 0)
    return length * stride - pad_sum + span - stride


class Conv2dTranspose(_Conv):
    """Transposed 2-d convolution (the gradient of Conv2d with respect to its input).

    ``weight`` is ``(in_channels, out_channels / group, kh, kw)``. The output height is
    ``H * stride`` for ``'same'``, ``(H - 1) * stride + dilation * (kh - 1) + 1`` for
    ``'valid'`` (at least ``H * stride``), and that minus top + bottom padding for
    ``'pad'``, where ``output_padding`` then adds rows and columns at the end.

    >>> Conv2dTranspose(4, 2, 3, stride=2)(ops.ones((1, 4, 5, 5))).shape
    (1, 2, 10, 10)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, output_padding=0, dilation=1, group=1, has_bias=False,
                 weight_init=None, bias_init=None, dtype=mstype.float32):
        layer = "Conv2dTranspose"
        one_of(layer, "pad_mode", pad_mode, _PAD_MODES)
        super().__init__(layer, in_channels, out_channels,
                         int_tuple(layer, "kernel_size", kernel_size, 2),
                         int_tuple(layer, "stride", stride, 2), pad_mode,
                         _padding4(layer, padding, pad_mode),
                         int_tuple(layer, "dilation", dilation, 2), group, has_bias,
                         weight_init, bias_init, dtype, transposed=True)
        op = int_tuple(layer, "output_padding", output_padding, 2, minimum=0)
        for i in range(2):
            if op[i] >= max(self.stride[i], self.dilation[i]):
                raise ValueError(f"{layer}: output_padding {output_padding!r} must be smaller "
                                 f"than max(stride, dilation) = "
                                 f"{max(self.stride[i], self.dilation[i])} in each dimension")
        if any(op) and pad_mode != "pad":
            raise ValueError(f"{layer}: output_padding {output_padding!r} needs pad_mode 'pad', "
                             f"got {pad_mode!r}")
        self.output_padding = op
        self._deconv = ops.Conv2DBackpropInput(
            out_channel=in_channels, kernel_size=self.kernel_size, pad_mode=pad_mode,
            pad=self.padding, stride=self.stride, dilation=self.dilation, group=group)

    def construct(self, x):
        self._check_channels("Conv2dTranspose", x, (4,), "4-d (N, C, H, W)")
        n, _, h, w = x.shape
        t, b, left, right = self.padding
        size = (n, self.out_channels,
                _deconv_length(self.pad_mode, h, self.kernel_size[0], self.stride[0],
                               self.dilation[0], t + b),
                _deconv_length(self.pad_mode, w, self.kernel_size[1], self.stride[1],
                               self.dilation[1], left + right))
        out = self._add_bias(self._deconv(x, self.weight, size))
        if any(self.output_padding):
            out = ops.pad(out, (0, self.output_padding[1], 0, self.output_padding[0]))
        return out
