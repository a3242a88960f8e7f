"""MindSpore's ``nn.BatchNorm3d`` (a BatchNorm2d named ``bn2d`` over (N, C, D*H, W), so
its Parameters are ``bn2d.gamma`` etc. as in MindSpore) and ``nn.InstanceNorm1d/2d/3d``.

InstanceNorm normalizes each (sample, channel) over its spatial axes with the biased
variance, then scales by ``gamma`` and shifts by ``beta``. In training it also moves its
``mean``/``variance`` Parameters toward the batch average of the instance statistics
(unbiased variance) by ``momentum``, as the GPU kernel MindSpore uses does; MindSpore's
CPU build has no InstanceNorm kernel to compare with.
"""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import initializer
from ms_nn.layers._check import positive_int
from ms_nn.layers.normalization import BatchNorm2d, _check_eps
from ms_tensor import Parameter
from ms_tensor import dtype as mstype

__all__ = ["BatchNorm3d", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d"]


class BatchNorm3d(Cell):
    """Batch normalization of (N, C, D, H, W) per channel (MindSpore's momentum: the
    weight of the old moving statistic).

    >>> BatchNorm3d(3)(ops.ones((2, 3, 2, 2, 2))).shape
    (2, 3, 2, 2, 2)
    """

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, dtype=mstype.float32):
        super().__init__()
        self.bn2d = BatchNorm2d(num_features, eps, momentum, affine, gamma_init, beta_init,
                                moving_mean_init, moving_var_init, use_batch_statistics,
                                dtype=dtype)

    def construct(self, x):
        if x.ndim != 5:
            raise ValueError(f"BatchNorm3d: input shape {tuple(x.shape)} must be 5-d "
                             f"(N, C, D, H, W)")
        n, c, d, h, w = x.shape
        return ops.reshape(self.bn2d(ops.reshape(x, (n, c, d * h, w))), x.shape)


class _InstanceNorm(Cell):
    rank = 4

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        layer = type(self).__name__
        self.num_features = positive_int(layer, "num_features", num_features)
        self.eps = _check_eps(layer, "eps", eps)
        if not 0 <= momentum <= 1:
            raise ValueError(f"{layer}: momentum must be in [0, 1], got {momentum!r}")
        self.momentum, self.affine = float(momentum), bool(affine)
        c = (num_features,)
        self.gamma = Parameter(initializer(gamma_init, c, dtype), name="gamma",
                               requires_grad=self.affine)
        self.beta = Parameter(initializer(beta_init, c, dtype), name="beta",
                              requires_grad=self.affine)
        self.mean = Parameter(initializer("zeros", c, dtype), name="mean", requires_grad=False)
        self.variance = Parameter(initializer("ones", c, dtype), name="variance",
                                  requires_grad=False)

    def construct(self, x):
        layer = type(self).__name__
        if x.ndim != self.rank or x.shape[1] != self.num_features:
            raise ValueError(f"{layer}: input shape {tuple(x.shape)} must be {self.rank}-d with "
                             f"num_features={self.num_features} channels on axis 1")
        axes = tuple(range(2, x.ndim))
        mean = ops.mean(x, axes, True)
        centred = x - mean
        var = ops.mean(centred * centred, axes, True)
        out = centred / ops.sqrt(var + self.eps)
        shape = (1, -1) + (1,) * len(axes)
        out = out * ops.reshape(self.gamma, shape) + ops.reshape(self.beta, shape)
        if self.training:
            count = 1
            for d in x.shape[2:]:
                count *= d
            unbiased = var * (count / max(count - 1, 1))
            m = self.momentum
            ops.assign(self.mean, (1 - m) * self.mean + m * ops.mean(ops.reshape(
                mean, x.shape[:2]), 0))
            ops.assign(self.variance, (1 - m) * self.variance + m * ops.mean(ops.reshape(
                unbiased, x.shape[:2]), 0))
        return out


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of (N, C, L).

    >>> InstanceNorm1d(3)(ops.ones((2, 3, 4))).shape
    (2, 3, 4)
    """

    rank = 3


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of (N, C, H, W).

    >>> InstanceNorm2d(3)(ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)
    """

    rank = 4


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of (N, C, D, H, W).

    >>> InstanceNorm3d(3)(ops.ones((2, 3, 2, 2, 2))).shape
    (2, 3, 2, 2, 2)
    """

    rank = 5
