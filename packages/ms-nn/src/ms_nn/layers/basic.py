"""Dense, Flatten, Dropout, Identity."""

from __future__ import annotations

import math

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import HeUniform, Uniform, initializer
from ms_nn.layers._check import positive_int
from ms_nn.layers.activation import get_activation
from ms_tensor import Parameter
from ms_tensor import dtype as mstype

__all__ = ["Dense", "Flatten", "Dropout", "Identity"]


def default_bias_init(fan_in: int):
    """MindSpore's default bias: uniform in ``±1/sqrt(fan_in)`` (zeros when fan_in is 0)."""
    return Uniform(1.0 / math.sqrt(fan_in)) if fan_in else "zeros"


class Dense(Cell):
    """Fully connected layer: ``activation(x @ weight.T + bias)`` over the last axis.

    ``weight`` is ``(out_channels, in_channels)``. With ``weight_init=None`` it is drawn
    from ``HeUniform(sqrt(5))`` and the bias from ``Uniform(1/sqrt(in_channels))``, as in
    MindSpore 2.x. Inputs of any rank >= 1 are accepted; leading axes are kept.

    >>> Dense(3, 4)(ops.ones((2, 3))).shape
    (2, 4)
    """

    def __init__(self, in_channels, out_channels, weight_init=None, bias_init=None,
                 has_bias=True, activation=None, dtype=mstype.float32):
        super().__init__()
        self.in_channels = positive_int("Dense", "in_channels", in_channels)
        self.out_channels = positive_int("Dense", "out_channels", out_channels)
        self.has_bias = bool(has_bias)
        if weight_init is None:
            weight_init = HeUniform(math.sqrt(5))
        self.weight = Parameter(initializer(weight_init, (out_channels, in_channels), dtype),
                                name="weight")
        _check_shape("Dense", "weight", self.weight, (out_channels, in_channels))
        self.bias = None
        if self.has_bias:
            if bias_init is None:
                bias_init = default_bias_init(in_channels)
            self.bias = Parameter(initializer(bias_init, (out_channels,), dtype), name="bias")
            _check_shape("Dense", "bias", self.bias, (out_channels,))
        if isinstance(activation, str):
            activation = get_activation(activation, "Dense")
        elif activation is not None and not callable(activation):
            raise TypeError(f"Dense: activation must be a str, a Cell or None, got "
                            f"{activation!r}")
        self.activation = activation
        self.activation_flag = activation is not None

    def construct(self, x):
        shape = x.shape
        if len(shape) < 1 or shape[-1] != self.in_channels:
            raise ValueError(f"Dense: input shape {tuple(shape)} does not match in_channels "
                             f"{self.in_channels}: the last dimension must be "
                             f"{self.in_channels} (weight shape {self.weight.shape})")
        if len(shape) != 2:
            x = ops.reshape(x, (-1, self.in_channels))
        # One operator: the bias starts the product (MindSpore: MatMul, then BiasAdd)
        x = ops.dense(x, self.weight, self.bias if self.has_bias else None)
        if self.activation_flag:
            x = self.activation(x)
        if len(shape) != 2:
            x = ops.reshape(x, tuple(shape[:-1]) + (self.out_channels,))
        return x

    def extend_repr(self) -> str:
        return (f"input_channels={self.in_channels}, output_channels={self.out_channels}, "
                f"has_bias={self.has_bias}")


def _check_shape(layer, name, param, shape):
    """A Tensor given as ``*_init`` must already have the layer's shape."""
    if tuple(param.shape) != tuple(shape):
        raise ValueError(f"{layer}: {name} shape {tuple(param.shape)} from the initializer "
                         f"does not match the expected {tuple(shape)}")


class Flatten(Cell):
    """Flatten axes ``start_dim..end_dim`` into one (by default all but the batch axis).

    >>> Flatten()(ops.ones((2, 3, 4))).shape
    (2, 12)
    """

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        for name, v in (("start_dim", start_dim), ("end_dim", end_dim)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"Flatten: {name} must be an int, got {v!r}")
        self.start_dim = start_dim
        self.end_dim = end_dim

    def construct(self, x):
        nd = max(x.ndim, 1)
        start, end = self.start_dim % nd, self.end_dim % nd
        if not (-nd <= self.start_dim < nd and -nd <= self.end_dim < nd) or start > end:
            raise ValueError(f"Flatten: start_dim {self.start_dim} and end_dim {self.end_dim} "
                             f"do not name an axis range of input shape {tuple(x.shape)}")
        return ops.flatten(x, start_dim=self.start_dim, end_dim=self.end_dim)


class Dropout(Cell):
    """In training, zero each element with probability ``p`` and scale the others by
    ``1 / (1 - p)``; in inference, return the input unchanged.

    ``p`` wins over ``keep_prob`` (``p = 1 - keep_prob``), as in MindSpore 2.x. The random
    stream follows ``set_seed``.

    >>> d = Dropout(p=0.5)
    >>> d(ops.ones((2,))).asnumpy()  # a new Cell is in inference mode
    array([1., 1.], dtype=float32)
    """

    def __init__(self, keep_prob=0.5, p=None, dtype=mstype.float32):
        super().__init__()
        if p is None:
            if not isinstance(keep_prob, (int, float)) or isinstance(keep_prob, bool) \
                    or not 0 < keep_prob <= 1:
                raise ValueError(f"Dropout: keep_prob must be a number in (0, 1], got "
                                 f"{keep_prob!r}")
            p = 1.0 - keep_prob
        elif not isinstance(p, (int, float)) or isinstance(p, bool) or not 0 <= p < 1:
            raise ValueError(f"Dropout: p must be a number in [0, 1), got {p!r}")
        self.p = float(p)
        self.keep_prob = 1.0 - self.p

    def construct(self, x):
        if not self.training or self.p == 0:
            return x
        return ops.dropout(x, p=self.p)

    def extend_repr(self) -> str:
        return f"p={self.p}"


class Identity(Cell):
    """Returns its input; a placeholder where a network expects a Cell."""

    def __init__(self, *args, **kwargs):
        super().__init__()

    def construct(self, input):
        return input
