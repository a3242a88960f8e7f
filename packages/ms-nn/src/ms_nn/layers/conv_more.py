"""MindSpore's ``nn.Conv3d``, ``nn.Conv1dTranspose`` and ``nn.Conv3dTranspose`` (NCDHW /
NCL), on ``ops.conv3d``, ``ops.conv_transpose3d`` and Conv2dTranspose over a height of 1.

``pad_mode`` is MindSpore's: 'same' keeps ``size * stride`` (transposed) or
``ceil(size / stride)`` (forward), 'valid' pads nothing, 'pad' takes ``padding`` as an
int or a (head, tail, top, bottom, left, right) tuple.
"""

from __future__ import annotations

import ms_ops as ops
from ms_nn.layers._check import int_tuple, one_of
from ms_nn.layers.conv import _PAD_MODES, Conv2dTranspose, _Conv
from ms_tensor import dtype as mstype

__all__ = ["Conv3d", "Conv1dTranspose", "Conv3dTranspose"]


def _padding6(layer, padding, pad_mode) -> tuple:
    pads = int_tuple(layer, "padding", padding, 6, minimum=0)
    if pad_mode != "pad" and any(pads):
        raise ValueError(f"{layer}: padding must be 0 unless pad_mode is 'pad', got padding "
                         f"{padding!r} with pad_mode {pad_mode!r}")
    return pads


def _args3d(layer, kernel_size, stride, dilation, data_format):
    one_of(layer, "data_format", data_format, ("NCDHW",))
    return (int_tuple(layer, "kernel_size", kernel_size, 3),
            int_tuple(layer, "stride", stride, 3), int_tuple(layer, "dilation", dilation, 3))


class Conv3d(_Conv):
    """3-d convolution over (N, C, D, H, W); ``weight`` is (out, in / group, kd, kh, kw).

    >>> Conv3d(2, 3, 3)(ops.ones((1, 2, 4, 5, 5))).shape
    (1, 3, 4, 5, 5)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, data_format="NCDHW", dtype=mstype.float32):
        layer = "Conv3d"
        one_of(layer, "pad_mode", pad_mode, _PAD_MODES)
        kernel, stride, dilation = _args3d(layer, kernel_size, stride, dilation, data_format)
        super().__init__(layer, in_channels, out_channels, kernel, stride, pad_mode,
                         _padding6(layer, padding, pad_mode), dilation, group, has_bias,
                         weight_init, bias_init, dtype)
        self.data_format = data_format

    def construct(self, x):
        self._check_channels("Conv3d", x, (5,), "5-d (N, C, D, H, W)")
        out = ops.conv3d(x, self.weight, None, self.stride, self.pad_mode, self.padding,
                         self.dilation, self.group)
        return out if self.bias is None else out + ops.reshape(self.bias, (1, -1, 1, 1, 1))


class Conv1dTranspose(Conv2dTranspose):
    """Transposed 1-d convolution over (N, C, L); as in MindSpore the weight is 4-d,
    (in, out / group, 1, k), and the work is a Conv2dTranspose over a height of 1.

    >>> Conv1dTranspose(3, 2, 3, stride=2)(ops.ones((1, 3, 5))).shape
    (1, 2, 10)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init=None,
                 bias_init=None, dtype=mstype.float32):
        layer = "Conv1dTranspose"
        left, right = int_tuple(layer, "padding", padding, 2, minimum=0)
        for name, v in (("kernel_size", kernel_size), ("stride", stride),
                        ("dilation", dilation)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise ValueError(f"{layer}: {name} must be an int, got {v!r}")
        super().__init__(in_channels, out_channels, (1, kernel_size), (1, stride), pad_mode,
                         (0, 0, left, right), 0, (1, dilation), group, has_bias, weight_init,
                         bias_init, dtype)

    def construct(self, x):
        if x.ndim != 3:
            raise ValueError(f"Conv1dTranspose: input shape {tuple(x.shape)} must be 3-d "
                             f"(N, C, L)")
        return ops.squeeze(super().construct(ops.expand_dims(x, 2)), 2)


def _fit(y, axis, start, length):
    """``y[start:start + length]`` along ``axis``, zero-extended at the end if short."""
    index = [slice(None)] * y.ndim
    index[axis] = slice(start, start + length)
    y = y[tuple(index)]
    short = length - y.shape[axis]
    if short > 0:
        pads = [0] * (2 * y.ndim)
        pads[2 * (y.ndim - 1 - axis) + 1] = short
        y = ops.pad(y, tuple(pads))
    return y


class Conv3dTranspose(_Conv):
    """Transposed 3-d convolution; ``weight`` is (in, out / group, kd, kh, kw). Each
    output size is ``size * stride`` ('same'), ``(size - 1) * stride + span`` at least
    ``size * stride`` ('valid'), or ``(size - 1) * stride + span - padding +
    output_padding`` ('pad'), where span = dilation * (k - 1) + 1.

    >>> Conv3dTranspose(4, 2, 3, stride=2)(ops.ones((1, 4, 2, 3, 3))).shape
    (1, 2, 4, 6, 6)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, output_padding=0, has_bias=False,
                 weight_init=None, bias_init=None, data_format="NCDHW", dtype=mstype.float32):
        layer = "Conv3dTranspose"
        one_of(layer, "pad_mode", pad_mode, _PAD_MODES)
        kernel, stride, dilation = _args3d(layer, kernel_size, stride, dilation, data_format)
        super().__init__(layer, in_channels, out_channels, kernel, stride, pad_mode,
                         _padding6(layer, padding, pad_mode), dilation, group, has_bias,
                         weight_init, bias_init, dtype, transposed=True)
        op = int_tuple(layer, "output_padding", output_padding, 3, minimum=0)
        if any(o >= max(s, d) for o, s, d in zip(op, stride, dilation)):
            raise ValueError(f"{layer}: output_padding {output_padding!r} must be smaller than "
                             f"max(stride, dilation) in each dimension")
        if any(op) and pad_mode != "pad":
            raise ValueError(f"{layer}: output_padding {output_padding!r} needs pad_mode 'pad'")
        self.output_padding = op
        self.data_format = data_format

    def construct(self, x):
        self._check_channels("Conv3dTranspose", x, (5,), "5-d (N, C, D, H, W)")
        y = ops.conv_transpose3d(x, self.weight, None, self.stride, 0, 0, self.group,
                                 self.dilation)
        for i in range(3):
            n, s, span = x.shape[2 + i], self.stride[i], self.dilation[i] * (
                self.kernel_size[i] - 1) + 1
            if self.pad_mode == "same":
                start, length = max(span - s, 0) // 2, n * s
            elif self.pad_mode == "valid":
                start, length = 0, n * s + max(span - s, 0)
            else:
                before, after = self.padding[2 * i], self.padding[2 * i + 1]
                start = before
                length = (n - 1) * s + span - before - after + self.output_padding[i]
            y = _fit(y, 2 + i, start, length)
        return y if self.bias is None else y + ops.reshape(self.bias, (1, -1, 1, 1, 1))
