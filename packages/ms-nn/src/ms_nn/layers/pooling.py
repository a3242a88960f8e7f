"""Pooling layers: MaxPool2d, AvgPool2d, AdaptiveAvgPool2d/AdaptiveMaxPool2d and the 1-d
forms (pooled as 2-d over a height of 1). Inputs are (N, C, H, W) or unbatched (C, H, W)."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.layers._check import int_tuple, one_of, positive_int, rank

__all__ = ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "MaxPool1d",
           "AvgPool1d"]

_PAD_MODES = ("valid", "same", "pad")


class _Pool2d(Cell):
    """Window arguments; ``'same'``/``'valid'`` use MaxPool/AvgPool, ``'pad'`` (and any of
    ceil_mode, dilation, ...) the padded functional forms."""

    def __init__(self, layer, kernel_size, stride, pad_mode, padding, ceil_mode):
        super().__init__()
        self._layer = layer
        self.kernel_size = int_tuple(layer, "kernel_size", kernel_size, 2)
        self.stride = int_tuple(layer, "stride", stride, 2)
        self.pad_mode = one_of(layer, "pad_mode", pad_mode.lower() if isinstance(pad_mode, str)
                               else pad_mode, _PAD_MODES)
        self.padding = int_tuple(layer, "padding", padding, 2, minimum=0)
        if self.pad_mode != "pad" and any(self.padding):
            raise ValueError(f"{layer}: padding must be 0 unless pad_mode is 'pad', got "
                             f"padding {padding!r} with pad_mode {pad_mode!r}")
        if not isinstance(ceil_mode, bool):
            raise TypeError(f"{layer}: ceil_mode must be a bool, got {ceil_mode!r}")
        self.ceil_mode = ceil_mode

    def _needs_padded_form(self, extra: bool) -> bool:
        padded = self.pad_mode == "pad" or self.ceil_mode or extra
        if padded and self.pad_mode == "same":
            raise ValueError(f"{self._layer}: pad_mode 'same' cannot be combined with "
                             f"ceil_mode, dilation, return_indices or count_include_pad/"
                             f"divisor_override; use pad_mode 'pad'")
        return padded

    def _run(self, x, pool):
        rank(self._layer, x, (3, 4), "3-d (C, H, W) or 4-d (N, C, H, W)")
        if x.ndim == 4:
            return pool(x)
        out = pool(ops.expand_dims(x, 0))
        if isinstance(out, tuple):
            return tuple(ops.squeeze(o, 0) for o in out)
        return ops.squeeze(out, 0)

    def extend_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, "
                f"pad_mode={self.pad_mode}, padding={self.padding}")


class MaxPool2d(_Pool2d):
    """Maximum over each ``kernel_size`` window moved by ``stride``.

    >>> MaxPool2d(kernel_size=2, stride=2)(ops.ones((1, 3, 8, 8))).shape
    (1, 3, 4, 4)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False, data_format="NCHW"):
        super().__init__("MaxPool2d", kernel_size, stride, pad_mode, padding, ceil_mode)
        one_of("MaxPool2d", "data_format", data_format, ("NCHW",))
        self.dilation = int_tuple("MaxPool2d", "dilation", dilation, 2)
        self.return_indices = bool(return_indices)
        self._padded = self._needs_padded_form(self.return_indices or self.dilation != (1, 1))
        if not self._padded:
            self._pool = ops.MaxPool(kernel_size=self.kernel_size, strides=self.stride,
                                     pad_mode=self.pad_mode.upper())

    def _pool2d(self, x):
        if not self._padded:
            return self._pool(x)
        return ops.max_pool2d(x, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.return_indices, self.ceil_mode)

    def construct(self, x):
        return self._run(x, self._pool2d)


class AvgPool2d(_Pool2d):
    """Mean over each ``kernel_size`` window moved by ``stride``.

    With ``pad_mode='pad'``, ``count_include_pad`` says whether padding counts in the
    divisor and ``divisor_override`` replaces it. With ``'same'`` padding is never counted.

    >>> AvgPool2d(kernel_size=2, stride=2)(ops.ones((1, 3, 8, 8))).shape
    (1, 3, 4, 4)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None, data_format="NCHW"):
        super().__init__("AvgPool2d", kernel_size, stride, pad_mode, padding, ceil_mode)
        one_of("AvgPool2d", "data_format", data_format, ("NCHW",))
        if divisor_override is not None:
            positive_int("AvgPool2d", "divisor_override", divisor_override)
        self.count_include_pad = bool(count_include_pad)
        self.divisor_override = divisor_override
        self._padded = self._needs_padded_form(divisor_override is not None)
        if not self._padded:
            self._pool = ops.AvgPool(kernel_size=self.kernel_size, strides=self.stride,
                                     pad_mode=self.pad_mode.upper())

    def _pool2d(self, x):
        if not self._padded:
            return self._pool(x)
        return ops.avg_pool2d(x, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                              self.count_include_pad, self.divisor_override or 0)

    def construct(self, x):
        return self._run(x, self._pool2d)


class _AdaptivePool2d(Cell):
    """Windows chosen so the output is ``output_size`` (an int, a pair, or a pair with None
    keeping that input dimension)."""

    def __init__(self, output_size):
        super().__init__()
        name = type(self).__name__
        size = (output_size, output_size) if isinstance(output_size, int) else output_size
        if not (isinstance(size, (tuple, list)) and len(size) == 2 and all(
                s is None or (isinstance(s, int) and not isinstance(s, bool) and s > 0)
                for s in size)):
            raise ValueError(f"{name}: output_size must be a positive int or a "
                             f"tuple of 2 positive ints or None, got {output_size!r}")
        self.output_size = tuple(size)


class AdaptiveAvgPool2d(_AdaptivePool2d):
    """Mean over windows chosen so the output is ``output_size``.

    >>> AdaptiveAvgPool2d((1, 1))(ops.ones((2, 3, 7, 5))).shape
    (2, 3, 1, 1)
    """

    def construct(self, input):
        rank("AdaptiveAvgPool2d", input, (3, 4), "3-d (C, H, W) or 4-d (N, C, H, W)")
        return ops.adaptive_avg_pool2d(input, self.output_size)


class AdaptiveMaxPool2d(_AdaptivePool2d):
    """Maximum over windows chosen so the output is ``output_size``; with
    ``return_indices`` also the flat (H * W) index of each maximum.

    >>> AdaptiveMaxPool2d(2)(ops.ones((1, 3, 7, 5))).shape
    (1, 3, 2, 2)
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__(output_size)
        if not isinstance(return_indices, bool):
            raise TypeError(f"AdaptiveMaxPool2d: return_indices must be a bool, got "
                            f"{return_indices!r}")
        self.return_indices = return_indices

    def construct(self, input):
        rank("AdaptiveMaxPool2d", input, (3, 4), "3-d (C, H, W) or 4-d (N, C, H, W)")
        return ops.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _Pool1d(Cell):
    """A 1-d pool as the 2-d one over a height of 1; input (N, C, L) or (C, L)."""

    def __init__(self, layer, pool2d):
        super().__init__()
        self._layer = layer
        self._pool2d = pool2d

    def construct(self, x):
        rank(self._layer, x, (2, 3), "2-d (C, L) or 3-d (N, C, L)")
        out = self._pool2d(ops.expand_dims(x, -2))
        if isinstance(out, tuple):
            return tuple(ops.squeeze(o, -2) for o in out)
        return ops.squeeze(out, -2)


def _pair1d(layer, name, value, minimum=1):
    return (1 if minimum else 0, int_tuple(layer, name, value, 1, minimum)[0])


class MaxPool1d(_Pool1d):
    """Maximum over windows along the last axis of (N, C, L) input.

    >>> MaxPool1d(kernel_size=2, stride=2)(ops.ones((1, 3, 8))).shape
    (1, 3, 4)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, dilation=1,
                 return_indices=False, ceil_mode=False):
        layer = "MaxPool1d"
        super().__init__(layer, MaxPool2d(
            _pair1d(layer, "kernel_size", kernel_size), _pair1d(layer, "stride", stride),
            pad_mode, _pair1d(layer, "padding", padding, 0), _pair1d(layer, "dilation", dilation),
            return_indices, ceil_mode))


class AvgPool1d(_Pool1d):
    """Mean over windows along the last axis of (N, C, L) input.

    >>> AvgPool1d(kernel_size=2, stride=2)(ops.ones((1, 3, 8))).shape
    (1, 3, 4)
    """

    def __init__(self, kernel_size=1, stride=1, pad_mode="valid", padding=0, ceil_mode=False,
                 count_include_pad=True):
        layer = "AvgPool1d"
        super().__init__(layer, AvgPool2d(
            _pair1d(layer, "kernel_size", kernel_size), _pair1d(layer, "stride", stride),
            pad_mode, _pair1d(layer, "padding", padding, 0), ceil_mode, count_include_pad))
