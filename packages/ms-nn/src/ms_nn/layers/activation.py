"""Activation layers: thin Cells over the ms-ops activation operators, and
``get_activation`` for the names that ``Dense(activation='relu')`` accepts."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell

__all__ = ["ReLU", "ReLU6", "GELU", "FastGelu", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
           "LeakyReLU", "SiLU", "ELU", "Softsign", "HSwish", "HSigmoid", "get_activation"]


class ReLU(Cell):
    """``max(x, 0)`` elementwise.

    >>> ReLU()(Tensor([-1.0, 2.0])).asnumpy()
    array([0., 2.], dtype=float32)
    """

    def construct(self, input):
        return ops.relu(input)


class ReLU6(Cell):
    """``min(max(x, 0), 6)`` elementwise."""

    def construct(self, x):
        return ops.relu6(x)


class GELU(Cell):
    """Gaussian error linear unit; ``approximate=True`` (MindSpore's default) is the tanh form.

    >>> round(float(GELU(approximate=False)(Tensor(1.0))), 4)
    0.8413
    """

    def __init__(self, approximate=True):
        super().__init__()
        if not isinstance(approximate, bool):
            raise TypeError(f"GELU: approximate must be a bool, got {approximate!r}")
        self.approximate = approximate
        self._mode = "tanh" if approximate else "none"

    def construct(self, x):
        return ops.gelu(x, approximate=self._mode)


class FastGelu(Cell):
    """``x / (1 + exp(-1.702 |x|)) * exp(0.851 (x - |x|))``, a cheaper GELU."""

    def construct(self, x):
        return ops.fast_gelu(x)


class Sigmoid(Cell):
    """``1 / (1 + exp(-x))`` elementwise."""

    def construct(self, x):
        return ops.sigmoid(x)


class Tanh(Cell):
    """Hyperbolic tangent elementwise."""

    def construct(self, x):
        return ops.tanh(x)


class Softmax(Cell):
    """Softmax along ``axis`` (an int or a tuple of one int).

    >>> Softmax()(Tensor([0.0, 0.0])).asnumpy()
    array([0.5, 0.5], dtype=float32)
    """

    def __init__(self, axis=-1):
        super().__init__()
        if isinstance(axis, tuple) and len(axis) == 1:
            axis = axis[0]
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"Softmax: axis must be an int or a tuple of one int, got {axis!r}")
        self.axis = axis

    def construct(self, input):
        return ops.softmax(input, self.axis)


class LogSoftmax(Cell):
    """``log(softmax(x))`` along ``axis``, computed without forming the softmax."""

    def __init__(self, axis=-1):
        super().__init__()
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise TypeError(f"LogSoftmax: axis must be an int, got {axis!r}")
        self.axis = axis

    def construct(self, x):
        return ops.log_softmax(x, self.axis)


class LeakyReLU(Cell):
    """``x`` where positive, ``alpha * x`` elsewhere (MindSpore's default ``alpha`` is 0.2)."""

    def __init__(self, alpha=0.2):
        super().__init__()
        if not isinstance(alpha, (int, float)) or isinstance(alpha, bool):
            raise TypeError(f"LeakyReLU: alpha must be a number, got {alpha!r}")
        self.alpha = float(alpha)

    def construct(self, x):
        return ops.leaky_relu(x, self.alpha)


class SiLU(Cell):
    """``x * sigmoid(x)`` elementwise."""

    def construct(self, x):
        return ops.silu(x)


class ELU(Cell):
    """``x`` where positive, ``alpha * (exp(x) - 1)`` elsewhere; MindSpore allows only
    ``alpha=1.0``."""

    def __init__(self, alpha=1.0):
        super().__init__()
        if alpha != 1.0:
            raise ValueError(f"ELU: alpha must be 1.0 (MindSpore supports no other), got "
                             f"{alpha!r}")
        self.alpha = 1.0

    def construct(self, x):
        return ops.elu(x, self.alpha)


class Softsign(Cell):
    """``x / (1 + |x|)`` elementwise."""

    def construct(self, x):
        return ops.softsign(x)


class HSwish(Cell):
    """Hard swish: ``x * relu6(x + 3) / 6``."""

    def construct(self, x):
        return ops.hardswish(x)


class HSigmoid(Cell):
    """Hard sigmoid: ``relu6(x + 3) / 6``."""

    def construct(self, input_x):
        return ops.hardsigmoid(input_x)


_ACTIVATIONS = {
    "relu": ReLU, "relu6": ReLU6, "gelu": GELU, "fast_gelu": FastGelu, "sigmoid": Sigmoid,
    "tanh": Tanh, "softmax": Softmax, "logsoftmax": LogSoftmax, "leakyrelu": LeakyReLU,
    "silu": SiLU, "swish": SiLU, "elu": ELU, "softsign": Softsign, "hswish": HSwish,
    "hsigmoid": HSigmoid,
}


def get_activation(name, prim_name=None):
    """A new activation Cell for ``name`` (``'relu'``, ``'gelu'``, ...); ``None`` gives None.

    >>> type(get_activation("relu")).__name__
    'ReLU'
    """
    if name is None:
        return None
    if not isinstance(name, str) or name.lower() not in _ACTIVATIONS:
        where = f"{prim_name}: " if prim_name else ""
        raise KeyError(f"{where}activation {name!r} is unknown; known: "
                       f"{', '.join(sorted(_ACTIVATIONS))}")
    return _ACTIVATIONS[name.lower()]()
