"""MindSpore's 1-d/3-d, adaptive and power-average pooling layers and max-unpooling:
``AdaptiveAvgPool1d/3d``, ``AdaptiveMaxPool1d/3d``, ``AvgPool3d``, ``MaxPool3d``,
``LPPool1d/2d``, ``MaxUnpool1d/3d``, each a Cell over the ``ops`` function of that name.

``pad_mode='same'`` pads ``max((ceil(n / s) - 1) * s + k - n, 0)`` per axis, the odd one
after, as MindSpore does; the average counts the padding only with ``count_include_pad``.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.layers._check import int_tuple, one_of
from ms_tensor import Tensor

__all__ = ["AdaptiveAvgPool1d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AdaptiveMaxPool3d",
           "AvgPool3d", "MaxPool3d", "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool3d",
           "FractionalMaxPool2d", "FractionalMaxPool3d"]


class AdaptiveAvgPool1d(Cell):
    """Average over ``output_size`` bins of the last axis of (N, C, L).

    >>> AdaptiveAvgPool1d(2)(ops.ones((1, 3, 6))).shape
    (1, 3, 2)
    """

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, input):
        return ops.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool1d(AdaptiveAvgPool1d):
    """Maximum over ``output_size`` bins of the last axis of (N, C, L).

    >>> AdaptiveMaxPool1d(2)(ops.ones((1, 3, 6))).shape
    (1, 3, 2)
    """

    def construct(self, input):
        return ops.adaptive_max_pool1d(input, self.output_size)


class AdaptiveAvgPool3d(AdaptiveAvgPool1d):
    """Average over ``output_size`` bins of (D, H, W) (an int, or a triple with None
    keeping that axis).

    >>> AdaptiveAvgPool3d((1, 2, 2))(ops.ones((1, 3, 4, 4, 4))).shape
    (1, 3, 1, 2, 2)
    """

    def construct(self, input):
        return ops.adaptive_avg_pool3d(input, self.output_size)


class AdaptiveMaxPool3d(Cell):
    """Maximum over ``output_size`` bins of (D, H, W).

    >>> AdaptiveMaxPool3d(2)(ops.ones((1, 3, 4, 4, 4))).shape
    (1, 3, 2, 2, 2)
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, input):
        return ops.adaptive_max_pool3d(input, self.output_size, self.return_indices)


def _same_pads(sizes, kernel, stride):
    pads = []
    for n, k, s in zip(reversed(sizes), reversed(kernel), reversed(stride)):
        total = max((-(-n // s) - 1) * s + k - n, 0)
        pads += [total // 2, total - total // 2]
    return tuple(pads)


class _Pool3d(Cell):
    def __init__(self, kernel_size, stride, pad_mode, padding, ceil_mode):
        super().__init__()
        layer = type(self).__name__
        self.kernel_size = int_tuple(layer, "kernel_size", kernel_size, 3)
        self.stride = int_tuple(layer, "stride", stride, 3)
        self.pad_mode = one_of(layer, "pad_mode", pad_mode.lower(), ("valid", "same", "pad"))
        self.padding = int_tuple(layer, "padding", padding, 3, minimum=0)
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(f"{layer}: padding must be 0 unless pad_mode is 'pad', got "
                             f"{padding!r}")
        self.ceil_mode = ceil_mode

    def _check(self, x):
        if x.ndim not in (4, 5):
            raise ValueError(f"{type(self).__name__}: input shape {tuple(x.shape)} must be 4-d "
                             f"(C, D, H, W) or 5-d (N, C, D, H, W)")


class MaxPool3d(_Pool3d):
    """3-d max pooling over (N, C, D, H, W).

    >>> MaxPool3d(2, 2)(ops.ones((1, 2, 4, 4, 4))).shape
    (1, 2, 2, 2, 2)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.dilation = int_tuple("MaxPool3d", "dilation", dilation, 3)
        self.return_indices = return_indices

    def construct(self, x):
        self._check(x)
        if self.pad_mode == "same":
            x = ops.pad(x, _same_pads(x.shape[-3:], self.kernel_size, self.stride),
                        value=float("-inf"))
        return ops.max_pool3d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.ceil_mode, self.return_indices)


class AvgPool3d(_Pool3d):
    """3-d average pooling over (N, C, D, H, W).

    >>> AvgPool3d(2, 2)(ops.ones((1, 2, 4, 4, 4))).shape
    (1, 2, 2, 2, 2)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__(kernel_size, stride, pad_mode, padding, ceil_mode)
        self.count_include_pad = count_include_pad
        self.divisor_override = divisor_override

    def construct(self, x):
        self._check(x)
        args = (self.kernel_size, self.stride, self.padding, self.ceil_mode,
                self.count_include_pad, self.divisor_override or 0)
        if self.pad_mode != "same":
            return ops.avg_pool3d(x, *args)
        pads = _same_pads(x.shape[-3:], self.kernel_size, self.stride)
        out = ops.avg_pool3d(ops.pad(x, pads), *args)
        if self.divisor_override or self.count_include_pad:
            return out
        ones = Tensor(np.ones((1, 1) + tuple(x.shape[-3:]), np.float32)).astype(x.dtype)
        return out / ops.avg_pool3d(ops.pad(ones, pads), *args)


class LPPool1d(Cell):
    """(sum of x^p over each window)^(1/p) over the last axis.

    >>> LPPool1d(2, 3)(ops.ones((1, 2, 6))).shape
    (1, 2, 2)
    """

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def construct(self, x):
        return ops.lp_pool1d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class LPPool2d(LPPool1d):
    """(sum of x^p over each window)^(1/p) over the last two axes.

    >>> LPPool2d(2, 3)(ops.ones((1, 2, 6, 6))).shape
    (1, 2, 2, 2)
    """

    def construct(self, x):
        return ops.lp_pool2d(x, self.norm_type, self.kernel_size, self.stride, self.ceil_mode)


class MaxUnpool1d(Cell):
    """Put each pooled value back at the index ``MaxPool1d`` returned, zeros elsewhere.

    >>> MaxUnpool1d(2)(ops.ones((1, 1, 2)), Tensor([[[1, 2]]])).shape
    (1, 1, 4)
    """

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, x, indices, output_size=None):
        return ops.max_unpool1d(x, indices, self.kernel_size, self.stride, self.padding,
                                output_size)


class MaxUnpool3d(MaxUnpool1d):
    """Put each pooled value back at the index ``MaxPool3d`` returned, zeros elsewhere.

    >>> MaxUnpool3d(2)(ops.ones((1, 1, 1, 1, 1)), Tensor([[[[[3]]]]])).shape
    (1, 1, 2, 2, 2)
    """

    def construct(self, x, indices, output_size=None):
        return ops.max_unpool3d(x, indices, self.kernel_size, self.stride, self.padding,
                                output_size)


class FractionalMaxPool2d(Cell):
    """Max pooling over pseudo-random windows (Graham 2014) to ``output_size`` or
    ``output_ratio``; ``_random_samples`` (N, C, 2) fixes the windows.

    >>> FractionalMaxPool2d(2, output_size=(3, 3))(ops.ones((1, 1, 6, 6))).shape
    (1, 1, 3, 3)
    """

    def __init__(self, kernel_size, output_size=None, output_ratio=None, return_indices=False,
                 _random_samples=None):
        super().__init__()
        if output_size is None and output_ratio is None:
            raise ValueError(f"{type(self).__name__}: give output_size or output_ratio")
        self.kernel_size, self.output_size = kernel_size, output_size
        self.output_ratio, self.return_indices = output_ratio, return_indices
        self._random_samples = _random_samples

    def construct(self, input):
        return ops.fractional_max_pool2d(input, self.kernel_size, self.output_size,
                                         self.output_ratio, self.return_indices,
                                         self._random_samples)


class FractionalMaxPool3d(FractionalMaxPool2d):
    """``FractionalMaxPool2d`` over (N, C, D, H, W); ``_random_samples`` is (N, C, 3).

    >>> FractionalMaxPool3d(2, output_ratio=0.5)(ops.ones((1, 1, 6, 6, 6))).shape
    (1, 1, 3, 3, 3)
    """

    def construct(self, input):
        return ops.fractional_max_pool3d(input, self.kernel_size, self.output_size,
                                         self.output_ratio, self.return_indices,
                                         self._random_samples)
