"""More activation layers (``nn.CELU``, ``nn.SeLU``, ``nn.Hardtanh``, ``nn.LogSigmoid``,
``nn.Mish``, ``nn.PReLU``, ``nn.HShrink``, ``nn.SoftShrink``, ``nn.Softmin``, ``nn.GLU``,
``nn.Tanhshrink``, ``nn.Threshold``, ``nn.Softmax2d``), each a thin Cell over one ms-ops
function with MindSpore's constructor arguments."""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype

__all__ = ["CELU", "SeLU", "Hardtanh", "LogSigmoid", "Mish", "PReLU", "HShrink", "SoftShrink",
           "Softmin", "GLU", "Tanhshrink", "Threshold", "Softmax2d"]


class CELU(Cell):
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""

    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.celu(x, self.alpha)


class SeLU(Cell):
    """The self-normalizing ELU (fixed alpha and scale)."""

    def construct(self, input_x):
        return ops.selu(input_x)


class Hardtanh(Cell):
    """x clipped to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0):
        super().__init__()
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val {min_val} must not exceed max_val {max_val}")
        self.min_val, self.max_val = min_val, max_val

    def construct(self, x):
        return ops.hardtanh(x, self.min_val, self.max_val)


class LogSigmoid(Cell):
    """log(sigmoid(x)), computed without overflow."""

    def construct(self, x):
        return ops.logsigmoid(x)


class Mish(Cell):
    """x * tanh(softplus(x))."""

    def construct(self, x):
        return ops.mish(x)


class PReLU(Cell):
    """x where x > 0, else w * x, with a learned slope ``w`` per channel (axis 1) or one
    for all (``channel=1``).

    >>> PReLU()(Tensor([-2.0, 3.0])).asnumpy()
    array([-0.5,  3. ], dtype=float32)
    """

    def __init__(self, channel=1, w=0.25):
        super().__init__()
        if not isinstance(channel, int) or channel < 1:
            raise ValueError(f"PReLU: channel must be a positive int, got {channel!r}")
        init = np.asarray(w.asnumpy() if isinstance(w, Tensor) else w, np.float32)
        self.w = Parameter(Tensor(np.broadcast_to(init, (channel,)).copy(), mstype.float32),
                           name="a")

    def construct(self, x):
        return ops.prelu(x, self.w)


class HShrink(Cell):
    """x where |x| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = float(lambd)

    def construct(self, input_x):
        return ops.hardshrink(input_x, self.lambd)


class SoftShrink(Cell):
    """x - lambd above lambd, x + lambd below -lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = float(lambd)

    def construct(self, input_x):
        return ops.softshrink(input_x, self.lambd)


class Softmin(Cell):
    """softmax(-x) along ``axis``."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.softmin(x, self.axis)


class GLU(Cell):
    """a * sigmoid(b) for the two halves of x along ``axis``."""

    def __init__(self, axis=-1):
        super().__init__()
        self.axis = axis

    def construct(self, x):
        return ops.glu(x, self.axis)


class Tanhshrink(Cell):
    """x - tanh(x)."""

    def construct(self, x):
        return ops.tanhshrink(x)


class Threshold(Cell):
    """x where x > threshold, else ``value``."""

    def __init__(self, threshold, value):
        super().__init__()
        self.threshold, self.value = threshold, value

    def construct(self, input_x):
        return ops.threshold(input_x, self.threshold, self.value)


class Softmax2d(Cell):
    """Softmax over the channels (axis -3) of (C, H, W) or (N, C, H, W) input."""

    def construct(self, x):
        if x.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: input must be 3-d or 4-d, got shape {x.shape}")
        return ops.softmax(x, -3)
