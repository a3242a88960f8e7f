"""BatchNorm1d/2d, LayerNorm, GroupNorm.

BatchNorm keeps MindSpore's convention: ``momentum`` (default 0.9) is the weight of the
OLD moving statistic, ``moving = momentum * moving + (1 - momentum) * batch``; the
BatchNorm operator takes the complement. The operator updates the moving-statistics
Parameters in place during training, as MindSpore's kernel does.
"""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import initializer
from ms_nn.layers._check import one_of, positive_int, rank
from ms_tensor import Parameter
from ms_tensor import dtype as mstype

__all__ = ["BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm"]


def _check_eps(layer, name, eps):
    if not isinstance(eps, (int, float)) or isinstance(eps, bool) or eps <= 0:
        raise ValueError(f"{layer}: {name} must be a number > 0, got {eps!r}")
    return float(eps)


class _BatchNorm(Cell):
    """Shared by BatchNorm1d and BatchNorm2d; subclasses say which input ranks they take."""

    _ranks: tuple = ()
    _layout = ""

    def __init__(self, num_features, eps=1e-5, momentum=0.9, affine=True, gamma_init="ones",
                 beta_init="zeros", moving_mean_init="zeros", moving_var_init="ones",
                 use_batch_statistics=None, data_format="NCHW", dtype=mstype.float32):
        super().__init__()
        layer = type(self).__name__
        self.num_features = positive_int(layer, "num_features", num_features)
        self.eps = _check_eps(layer, "eps", eps)
        if not isinstance(momentum, (int, float)) or isinstance(momentum, bool) \
                or not 0 <= momentum <= 1:
            raise ValueError(f"{layer}: momentum must be a number in [0, 1], got {momentum!r}")
        self.momentum = float(momentum)
        one_of(layer, "data_format", data_format, ("NCHW",))
        if use_batch_statistics not in (None, True, False):
            raise TypeError(f"{layer}: use_batch_statistics must be None or a bool, got "
                            f"{use_batch_statistics!r}")
        self.use_batch_statistics = use_batch_statistics
        self.affine = bool(affine)
        c = (num_features,)
        self.moving_mean = Parameter(initializer(moving_mean_init, c, dtype),
                                     name="moving_mean", requires_grad=False)
        self.moving_variance = Parameter(initializer(moving_var_init, c, dtype),
                                         name="moving_variance", requires_grad=False)
        self.gamma = Parameter(initializer(gamma_init, c, dtype), name="gamma",
                               requires_grad=self.affine)
        self.beta = Parameter(initializer(beta_init, c, dtype), name="beta",
                              requires_grad=self.affine)
        self._train_op = ops.BatchNorm(is_training=True, epsilon=self.eps,
                                       momentum=1.0 - self.momentum)
        self._infer_op = ops.BatchNorm(is_training=False, epsilon=self.eps)

    def construct(self, x):
        layer = type(self).__name__
        rank(layer, x, self._ranks, self._layout)
        if x.shape[1] != self.num_features:
            raise ValueError(f"{layer}: input shape {tuple(x.shape)} has {x.shape[1]} channels "
                             f"(axis 1), num_features is {self.num_features}")
        use_batch = self.training if self.use_batch_statistics is None \
            else self.use_batch_statistics
        op = self._train_op if use_batch else self._infer_op
        return op(x, self.gamma, self.beta, self.moving_mean, self.moving_variance)[0]

    def extend_repr(self) -> str:
        return (f"num_features={self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"gamma={self.gamma}, beta={self.beta}, moving_mean={self.moving_mean}, "
                f"moving_variance={self.moving_variance}")


class BatchNorm1d(_BatchNorm):
    """Batch normalization of (N, C) or (N, C, L) input over every axis but C.

    In training (or with ``use_batch_statistics=True``) the batch statistics normalize and
    the moving ones are updated; in inference the moving statistics normalize.

    >>> BatchNorm1d(3)(ops.ones((4, 3))).shape
    (4, 3)
    """

    _ranks = (2, 3)
    _layout = "2-d (N, C) or 3-d (N, C, L)"


class BatchNorm2d(_BatchNorm):
    """Batch normalization of (N, C, H, W) input per channel; see BatchNorm1d.

    >>> BatchNorm2d(3)(ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)
    """

    _ranks = (4,)
    _layout = "4-d (N, C, H, W)"


class LayerNorm(Cell):
    """Normalize over the axes from ``begin_norm_axis`` on, then scale by ``gamma`` and shift
    by ``beta`` (shape ``normalized_shape``, applied from ``begin_params_axis`` on).

    MindSpore's default ``epsilon`` here is 1e-7 (ops.layer_norm's is 1e-5).

    >>> LayerNorm((4,))(ops.ones((2, 4))).shape
    (2, 4)
    """

    def __init__(self, normalized_shape, begin_norm_axis=-1, begin_params_axis=-1,
                 gamma_init="ones", beta_init="zeros", epsilon=1e-7, dtype=mstype.float32):
        super().__init__()
        if isinstance(normalized_shape, list):
            normalized_shape = tuple(normalized_shape)
        if not isinstance(normalized_shape, tuple) or not all(
                isinstance(d, int) and d > 0 for d in normalized_shape):
            raise TypeError(f"LayerNorm: normalized_shape must be a tuple of positive ints, "
                            f"got {normalized_shape!r}")
        for name, v in (("begin_norm_axis", begin_norm_axis),
                        ("begin_params_axis", begin_params_axis)):
            if not isinstance(v, int) or isinstance(v, bool):
                raise TypeError(f"LayerNorm: {name} must be an int, got {v!r}")
        self.normalized_shape = normalized_shape
        self.begin_norm_axis = begin_norm_axis
        self.begin_params_axis = begin_params_axis
        self.epsilon = _check_eps("LayerNorm", "epsilon", epsilon)
        self.gamma = Parameter(initializer(gamma_init, normalized_shape, dtype), name="gamma")
        self.beta = Parameter(initializer(beta_init, normalized_shape, dtype), name="beta")
        self._norm = ops.LayerNorm(begin_norm_axis=begin_norm_axis,
                                   begin_params_axis=begin_params_axis, epsilon=self.epsilon)

    def construct(self, input_x):
        nd = input_x.ndim
        axis = self.begin_params_axis % nd if -nd <= self.begin_params_axis < nd else None
        if axis is None or tuple(input_x.shape[axis:]) != self.normalized_shape:
            raise ValueError(f"LayerNorm: input shape {tuple(input_x.shape)} from "
                             f"begin_params_axis {self.begin_params_axis} on must equal "
                             f"normalized_shape {self.normalized_shape}")
        return self._norm(input_x, self.gamma, self.beta)[0]

    def extend_repr(self) -> str:
        return (f"normalized_shape={self.normalized_shape}, "
                f"begin_norm_axis={self.begin_norm_axis}, "
                f"begin_params_axis={self.begin_params_axis}, epsilon={self.epsilon}")


class GroupNorm(Cell):
    """Split the ``num_channels`` channels of (N, C, ...) input into ``num_groups`` groups,
    normalize each group over its channels and positions, then apply per-channel
    ``gamma``/``beta``.

    >>> GroupNorm(2, 4)(ops.ones((2, 4, 3, 3))).shape
    (2, 4, 3, 3)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, gamma_init="ones",
                 beta_init="zeros", dtype=mstype.float32):
        super().__init__()
        self.num_groups = positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = positive_int("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_groups {num_groups} must divide num_channels "
                             f"{num_channels}")
        self.eps = _check_eps("GroupNorm", "eps", eps)
        self.affine = bool(affine)
        self.gamma = Parameter(initializer(gamma_init, (num_channels,), dtype), name="gamma",
                               requires_grad=self.affine)
        self.beta = Parameter(initializer(beta_init, (num_channels,), dtype), name="beta",
                              requires_grad=self.affine)

    def construct(self, x):
        if x.ndim < 2 or x.shape[1] != self.num_channels:
            raise ValueError(f"GroupNorm: input shape {tuple(x.shape)} must be (N, C, ...) with "
                             f"C = num_channels {self.num_channels}")
        return ops.group_norm(x, self.num_groups, self.gamma, self.beta, self.eps)

    def extend_repr(self) -> str:
        return f"num_groups={self.num_groups}, num_channels={self.num_channels}"
