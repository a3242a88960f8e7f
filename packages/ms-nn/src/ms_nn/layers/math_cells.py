"""MindSpore's small math layers: ``Range``, ``Moments``, ``MatDet``, ``MatInverse``,
``ReduceLogSumExp``, ``LGamma``, ``DiGamma``, ``IGamma``, ``LBeta``, ``BiDense``,
``ChannelShuffle``, ``LRN`` and ``RReLU``, each over ms-ops functions."""

from __future__ import annotations

import math

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import Uniform, initializer
from ms_nn.layers._check import positive_int
from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype

__all__ = ["Range", "Moments", "MatDet", "MatInverse", "ReduceLogSumExp", "LGamma", "DiGamma",
           "IGamma", "LBeta", "BiDense", "ChannelShuffle", "LRN", "RReLU"]


class Range(Cell):
    """The constant ``arange(start, limit, delta)`` (float32 if any bound is a float, else
    int32); with one bound it counts from 0.

    >>> Range(1, 8, 2)()
    Tensor(shape=[4], dtype=Int32, value= [1, 3, 5, 7])
    """

    def __init__(self, start, limit=None, delta=1):
        super().__init__()
        if delta == 0:
            raise ValueError("Range: delta must not be zero")
        data = np.arange(start, limit, delta) if limit is not None else np.arange(start)
        self.result_tensor = Tensor(data.astype(np.float32 if data.dtype.kind == "f"
                                                else np.int32))

    def construct(self):
        return self.result_tensor


class Moments(Cell):
    """(mean, biased variance) over ``axis`` (every axis when None).

    >>> [t.asnumpy().tolist() for t in Moments(1)(Tensor([[1.0, 3.0], [2.0, 2.0]]))]
    [[2.0, 2.0], [1.0, 0.0]]
    """

    def __init__(self, axis=None, keep_dims=None):
        super().__init__()
        self.axis = () if axis is None else axis
        self.keep_dims = bool(keep_dims)

    def construct(self, x):
        axis = self.axis if self.axis != () else tuple(range(x.ndim))
        mean = ops.mean(x, axis, True)
        diff = x - ops.stop_gradient(mean)
        var = ops.mean(diff * diff, axis, True)
        if self.keep_dims:
            return mean, var
        return ops.squeeze(mean, axis), ops.squeeze(var, axis)


class MatDet(Cell):
    """Determinants of a batch of square matrices.

    >>> MatDet()(Tensor([[2.0, 0.0], [0.0, 3.0]]))
    Tensor(shape=[], dtype=Float32, value= 6)
    """

    def construct(self, a):
        return ops.det(a)


class MatInverse(Cell):
    """Inverses of a batch of square (in MindSpore: positive-definite) matrices.

    >>> MatInverse()(Tensor([[2.0, 0.0], [0.0, 4.0]])).asnumpy().tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """

    def construct(self, a):
        return ops.inverse(a)


class ReduceLogSumExp(Cell):
    """log(sum(exp(x))) over ``axis``, computed without overflow.

    >>> round(float(ReduceLogSumExp(0)(Tensor([0.0, 0.0]))), 4)
    0.6931
    """

    def __init__(self, axis, keep_dims=False):
        super().__init__()
        self.axis, self.keep_dims = axis, bool(keep_dims)

    def construct(self, x):
        return ops.logsumexp(x, self.axis, self.keep_dims)


class LGamma(Cell):
    """log|Gamma(x)|, elementwise."""

    def construct(self, x):
        return ops.lgamma(x)


class DiGamma(Cell):
    """The digamma function d/dx log Gamma(x), elementwise."""

    def construct(self, x):
        return ops.digamma(x)


class IGamma(Cell):
    """The regularized lower incomplete gamma function P(a, x)."""

    def construct(self, a, x):
        return ops.igamma(a, x)


class LBeta(Cell):
    """log|B(x, y)| = lgamma(x) + lgamma(y) - lgamma(x + y).

    >>> LBeta()(Tensor([2.0]), Tensor([3.0])).asnumpy().round(4)
    array([-2.4849], dtype=float32)
    """

    def construct(self, x, y):
        return ops.lgamma(x) + ops.lgamma(y) - ops.lgamma(x + y)


class BiDense(Cell):
    """Bilinear layer y = x1^T A x2 + b, ``weight`` (out, in1, in2), uniform in
    +-1/sqrt(in1) as MindSpore starts it.

    >>> BiDense(3, 4, 2)(ops.ones((5, 3)), ops.ones((5, 4))).shape
    (5, 2)
    """

    def __init__(self, in1_channels, in2_channels, out_channels, weight_init=None,
                 bias_init=None, has_bias=True, dtype=mstype.float32):
        super().__init__()
        self.in1_channels = positive_int("BiDense", "in1_channels", in1_channels)
        self.in2_channels = positive_int("BiDense", "in2_channels", in2_channels)
        self.out_channels = positive_int("BiDense", "out_channels", out_channels)
        bound = Uniform(1 / math.sqrt(in1_channels))
        self.weight = Parameter(initializer(weight_init or bound,
                                            (out_channels, in1_channels, in2_channels), dtype),
                                name="weight")
        self.has_bias = bool(has_bias)
        self.bias = Parameter(initializer(bias_init or bound, (out_channels,), dtype),
                              name="bias") if has_bias else None

    def construct(self, input1, input2):
        if input1.shape[-1] != self.in1_channels or input2.shape[-1] != self.in2_channels or \
                input1.shape[:-1] != input2.shape[:-1]:
            raise ValueError(f"BiDense: inputs {tuple(input1.shape)} and {tuple(input2.shape)} "
                             f"must end in {self.in1_channels} and {self.in2_channels} and "
                             f"agree elsewhere")
        lead = input1.shape[:-1]
        x1 = ops.reshape(input1, (-1, self.in1_channels))
        x2 = ops.reshape(input2, (-1, self.in2_channels))
        w = ops.reshape(ops.transpose(self.weight, (1, 0, 2)), (self.in1_channels, -1))
        y = ops.reshape(ops.matmul(x1, w), (-1, self.out_channels, self.in2_channels))
        out = ops.sum(y * ops.expand_dims(x2, 1), -1)
        if self.bias is not None:
            out = out + self.bias
        return ops.reshape(out, lead + (self.out_channels,))


class ChannelShuffle(Cell):
    """Interleave the channels of ``groups`` groups (ShuffleNet).

    >>> ChannelShuffle(2)(ops.arange(4).reshape(1, 4, 1, 1)).reshape(-1).asnumpy().tolist()
    [0, 2, 1, 3]
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = positive_int("ChannelShuffle", "groups", groups)

    def construct(self, x):
        n, c = x.shape[:2]
        if c % self.groups:
            raise ValueError(f"ChannelShuffle: {c} channels (input shape {tuple(x.shape)}) are "
                             f"not divisible by groups {self.groups}")
        rest = x.shape[2:]
        y = ops.reshape(x, (n, self.groups, c // self.groups) + rest)
        y = ops.transpose(y, (0, 2, 1) + tuple(range(3, 3 + len(rest))))
        return ops.reshape(y, x.shape)


class LRN(Cell):
    """Local response normalization across channels (``ops.lrn``): x / (bias + alpha *
    sum of x^2 over the ``2 * depth_radius + 1`` neighbouring channels)^beta.

    >>> LRN(1, 1.0, 1.0, 0.5)(ops.ones((1, 3, 1, 1))).reshape(-1).asnumpy().round(4)
    array([0.5774, 0.5   , 0.5774], dtype=float32)
    """

    def __init__(self, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5,
                 norm_region="ACROSS_CHANNELS"):
        super().__init__()
        if norm_region != "ACROSS_CHANNELS":
            raise ValueError(f"LRN: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
        if not isinstance(depth_radius, int) or depth_radius < 0:
            raise ValueError(f"LRN: depth_radius must be an int >= 0, got {depth_radius!r}")
        self.depth_radius, self.bias, self.alpha, self.beta = depth_radius, bias, alpha, beta

    def construct(self, input_x):
        return ops.lrn(input_x, self.depth_radius, self.bias, self.alpha, self.beta)


class RReLU(Cell):
    """x for x >= 0, else a * x with ``a`` drawn from U(lower, upper) per element, on
    every call: MindSpore's RReLU samples in inference too.

    >>> RReLU(0.2, 0.2)(Tensor([-1.0, 2.0])).asnumpy().round(4)
    array([-0.2,  2. ], dtype=float32)
    """

    def __init__(self, lower=1 / 8, upper=1 / 3):
        super().__init__()
        if not lower <= upper:
            raise ValueError(f"RReLU: lower {lower} must not exceed upper {upper}")
        self.lower, self.upper = float(lower), float(upper)

    def construct(self, x):
        return ops.rrelu(x, self.lower, self.upper)
