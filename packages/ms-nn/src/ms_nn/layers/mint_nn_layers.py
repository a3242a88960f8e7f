"""``mint.nn``'s weighted layers with PyTorch's constructors and Parameter names:
``Linear``, ``Conv1d/2d/3d``, ``ConvTranspose2d``, ``BatchNorm1d/2d/3d``, ``GroupNorm``,
``LayerNorm``, ``Embedding``.

Weights start as PyTorch's and MindSpore's mint do: kaiming-uniform with a = sqrt(5)
(U(+-1/sqrt(fan_in))) for weights and biases, ones/zeros for normalization, N(0, 1) for
embeddings. BatchNorm's ``momentum`` is PyTorch's (the weight of the NEW batch statistic).
"""

from __future__ import annotations

import math

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import HeUniform, Normal, Uniform, initializer
from ms_nn.layers._check import int_tuple, one_of, positive_int
from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype

__all__ = ["Linear", "Conv1d", "Conv2d", "Conv3d", "ConvTranspose2d", "BatchNorm1d",
           "BatchNorm2d", "BatchNorm3d", "GroupNorm", "LayerNorm", "Embedding", "PReLU"]


def _uniform(fan_in, shape, dtype):
    bound = 1.0 / math.sqrt(fan_in) if fan_in else 0.0
    return Parameter(initializer(Uniform(bound), shape, dtype), name="bias")


class Linear(Cell):
    """``x @ weight.T + bias`` with ``weight`` (out_features, in_features).

    >>> Linear(3, 4)(ops.ones((2, 3))).shape
    (2, 4)
    """

    def __init__(self, in_features, out_features, bias=True, weight_init=None, bias_init=None,
                 dtype=None):
        super().__init__()
        dtype = dtype or mstype.float32
        self.in_features = positive_int("Linear", "in_features", in_features)
        self.out_features = positive_int("Linear", "out_features", out_features)
        self.weight = Parameter(initializer(weight_init or HeUniform(math.sqrt(5)),
                                            (out_features, in_features), dtype), name="weight")
        self.bias = None
        if bias:
            self.bias = Parameter(initializer(bias_init or Uniform(1 / math.sqrt(in_features)),
                                              (out_features,), dtype), name="bias")

    def construct(self, x):
        if x.shape[-1] != self.in_features:
            raise ValueError(f"Linear: input shape {tuple(x.shape)} must end in "
                             f"in_features={self.in_features}")
        out = ops.matmul(x, self.weight.T)
        return out if self.bias is None else out + self.bias

    def extend_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}"


_PAD_MODES = {"zeros": "constant", "reflect": "reflect", "replicate": "replicate",
              "circular": "circular"}


class _ConvNd(Cell):
    nd = 2
    transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 dilation=1, groups=1, bias=True, padding_mode="zeros", dtype=None,
                 output_padding=0):
        super().__init__()
        name, nd = type(self).__name__, self.nd
        dtype = dtype or mstype.float32
        self.in_channels = positive_int(name, "in_channels", in_channels)
        self.out_channels = positive_int(name, "out_channels", out_channels)
        self.groups = positive_int(name, "groups", groups)
        if in_channels % groups or out_channels % groups:
            raise ValueError(f"{name}: in_channels {in_channels} and out_channels "
                             f"{out_channels} must be divisible by groups {groups}")
        self.kernel_size = int_tuple(name, "kernel_size", kernel_size, nd)
        self.stride = int_tuple(name, "stride", stride, nd)
        self.dilation = int_tuple(name, "dilation", dilation, nd)
        if isinstance(padding, str):
            one_of(name, "padding", padding, ("same", "valid"))
            if padding == "same" and self.transposed:
                raise ValueError(f"{name}: padding='same' is not supported")
            self.padding = padding
        else:
            self.padding = int_tuple(name, "padding", padding, nd, minimum=0)
        self.output_padding = int_tuple(name, "output_padding", output_padding, nd, minimum=0)
        one_of(name, "padding_mode", padding_mode, tuple(_PAD_MODES))
        if self.transposed and padding_mode != "zeros":
            raise ValueError(f"{name}: only padding_mode='zeros' is supported, got "
                             f"{padding_mode!r}")
        self.padding_mode = padding_mode
        if self.transposed:
            shape = (in_channels, out_channels // groups) + self.kernel_size
        else:
            shape = (out_channels, in_channels // groups) + self.kernel_size
        self.weight = Parameter(initializer(HeUniform(math.sqrt(5)), shape, dtype),
                                name="weight")
        self.bias = _uniform(shape[1] * int(np.prod(self.kernel_size)), (out_channels,),
                             dtype) if bias else None

    def _conv(self, x):
        fn = {1: ops.conv1d, 2: ops.conv2d, 3: ops.conv3d}[self.nd]
        if isinstance(self.padding, str):
            return fn(x, self.weight, self.bias, self.stride, self.padding, 0, self.dilation,
                      self.groups)
        if self.padding_mode != "zeros" and any(self.padding):
            pads = tuple(p for p in reversed(self.padding) for _ in range(2))
            x = ops.pad(x, pads, mode=_PAD_MODES[self.padding_mode])
            return fn(x, self.weight, self.bias, self.stride, "valid", 0, self.dilation,
                      self.groups)
        return fn(x, self.weight, self.bias, self.stride, "pad", self.padding, self.dilation,
                  self.groups)

    def construct(self, x):
        name = type(self).__name__
        if x.ndim not in (self.nd + 1, self.nd + 2):
            raise ValueError(f"{name}: input shape {tuple(x.shape)} must have {self.nd + 2} "
                             f"axes (N, C, ...) or {self.nd + 1} (C, ...)")
        batched = x.ndim == self.nd + 2
        if x.shape[-self.nd - 1] != self.in_channels:
            raise ValueError(f"{name}: input shape {tuple(x.shape)} has "
                             f"{x.shape[-self.nd - 1]} channels, in_channels is "
                             f"{self.in_channels}")
        out = self._conv(x if batched else ops.expand_dims(x, 0))
        return out if batched else ops.squeeze(out, 0)

    def extend_repr(self) -> str:
        return (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, padding={self.padding}")


class Conv1d(_ConvNd):
    """1-d convolution over (N, C, L); ``padding`` an int or 'same'/'valid'.

    >>> Conv1d(2, 3, 3, padding=1)(ops.ones((1, 2, 5))).shape
    (1, 3, 5)
    """

    nd = 1


class Conv2d(_ConvNd):
    """2-d convolution over (N, C, H, W); ``padding_mode`` zeros, reflect, replicate or
    circular.

    >>> Conv2d(2, 3, 3, padding="same")(ops.ones((1, 2, 5, 5))).shape
    (1, 3, 5, 5)
    """

    nd = 2


class Conv3d(_ConvNd):
    """3-d convolution over (N, C, D, H, W).

    >>> Conv3d(2, 3, 3)(ops.ones((1, 2, 4, 5, 5))).shape
    (1, 3, 2, 3, 3)
    """

    nd = 3


class ConvTranspose2d(_ConvNd):
    """Transposed 2-d convolution; ``weight`` is (in_channels, out_channels/groups, kh, kw).

    >>> ConvTranspose2d(2, 3, 3, stride=2)(ops.ones((1, 2, 4, 4))).shape
    (1, 3, 9, 9)
    """

    nd = 2
    transposed = True

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                 output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                 dtype=None):
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         groups, bias, padding_mode, dtype, output_padding)

    def _conv(self, x):
        padding = (0, 0) if self.padding == "valid" else self.padding
        return ops.conv_transpose2d(x, self.weight, self.bias, self.stride, padding,
                                    self.output_padding, self.groups, self.dilation)


class _BatchNormNd(Cell):
    ranks = (4,)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, dtype=None):
        super().__init__()
        name = type(self).__name__
        dtype = dtype or mstype.float32
        self.num_features = positive_int(name, "num_features", num_features)
        self.eps, self.momentum = float(eps), momentum
        self.affine, self.track_running_stats = bool(affine), bool(track_running_stats)
        c = (num_features,)
        self.weight = Parameter(initializer("ones", c, dtype), name="weight",
                                requires_grad=self.affine)
        self.bias = Parameter(initializer("zeros", c, dtype), name="bias",
                              requires_grad=self.affine)
        self.running_mean = Parameter(initializer("zeros", c, dtype), name="running_mean",
                                      requires_grad=False)
        self.running_var = Parameter(initializer("ones", c, dtype), name="running_var",
                                     requires_grad=False)
        self.num_batches_tracked = Parameter(Tensor(np.array(0, np.int64)),
                                             name="num_batches_tracked", requires_grad=False)

    def construct(self, x):
        name = type(self).__name__
        if x.ndim not in self.ranks or x.shape[1] != self.num_features:
            raise ValueError(f"{name}: input shape {tuple(x.shape)} must have "
                             f"{' or '.join(map(str, self.ranks))} axes and num_features="
                             f"{self.num_features} channels on axis 1")
        shape = x.shape
        if x.ndim == 5:  # per-channel statistics do not see the spatial layout
            x = ops.reshape(x, x.shape[:3] + (-1,))
        use_batch = self.training or not self.track_running_stats
        if not use_batch:
            out = ops.batch_norm(x, self.running_mean, self.running_var, self.weight,
                                 self.bias, False, 0.0, self.eps)
            return out if out.shape == shape else ops.reshape(out, shape)
        momentum = self.momentum
        if self.training and self.track_running_stats:
            ops.assign(self.num_batches_tracked, self.num_batches_tracked + 1)
            if momentum is None:  # a cumulative average, as PyTorch does
                momentum = 1.0 / float(self.num_batches_tracked.asnumpy())
            mean, var = self.running_mean, self.running_var
        else:
            mean = Tensor(np.zeros(self.num_features, np.float32)).astype(x.dtype)
            var = Tensor(np.ones(self.num_features, np.float32)).astype(x.dtype)
        out = ops.batch_norm(x, mean, var, self.weight, self.bias, True, momentum, self.eps)
        return out if out.shape == shape else ops.reshape(out, shape)


class BatchNorm1d(_BatchNormNd):
    """Batch normalization of (N, C) or (N, C, L).

    >>> BatchNorm1d(3)(ops.ones((4, 3))).shape
    (4, 3)
    """

    ranks = (2, 3)


class BatchNorm2d(_BatchNormNd):
    """Batch normalization of (N, C, H, W) per channel.

    >>> BatchNorm2d(3)(ops.ones((2, 3, 4, 4))).shape
    (2, 3, 4, 4)
    """

    ranks = (4,)


class BatchNorm3d(_BatchNormNd):
    """Batch normalization of (N, C, D, H, W) per channel.

    >>> BatchNorm3d(3)(ops.ones((2, 3, 2, 2, 2))).shape
    (2, 3, 2, 2, 2)
    """

    ranks = (5,)


class GroupNorm(Cell):
    """Normalize each group of channels of (N, C, ...) per sample.

    >>> GroupNorm(2, 4)(ops.ones((2, 4, 3))).shape
    (2, 4, 3)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, dtype=None):
        super().__init__()
        dtype = dtype or mstype.float32
        self.num_groups = positive_int("GroupNorm", "num_groups", num_groups)
        self.num_channels = positive_int("GroupNorm", "num_channels", num_channels)
        if num_channels % num_groups:
            raise ValueError(f"GroupNorm: num_channels {num_channels} must be divisible by "
                             f"num_groups {num_groups}")
        self.eps = float(eps)
        self.weight = Parameter(initializer("ones", (num_channels,), dtype), name="weight",
                                requires_grad=bool(affine))
        self.bias = Parameter(initializer("zeros", (num_channels,), dtype), name="bias",
                              requires_grad=bool(affine))

    def construct(self, x):
        return ops.group_norm(x, self.num_groups, self.weight, self.bias, self.eps)


class LayerNorm(Cell):
    """Normalize the trailing ``normalized_shape`` axes.

    >>> LayerNorm(3)(ops.ones((2, 3))).shape
    (2, 3)
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 dtype=None):
        super().__init__()
        dtype = dtype or mstype.float32
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = float(eps)
        self.weight = self.bias = None
        if elementwise_affine:
            self.weight = Parameter(initializer("ones", self.normalized_shape, dtype),
                                    name="weight")
            if bias:
                self.bias = Parameter(initializer("zeros", self.normalized_shape, dtype),
                                      name="bias")

    def construct(self, x):
        return ops.layer_norm(x, self.normalized_shape, self.weight, self.bias, self.eps)


class Embedding(Cell):
    """Rows of a (num_embeddings, embedding_dim) table, N(0, 1) at the start; the row
    ``padding_idx`` starts at zero and gets no gradient.

    >>> Embedding(10, 3)(Tensor([[1, 2]])).shape
    (1, 2, 3)
    """

    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, dtype=None):
        super().__init__()
        dtype = dtype or mstype.float32
        self.num_embeddings = positive_int("Embedding", "num_embeddings", num_embeddings)
        self.embedding_dim = positive_int("Embedding", "embedding_dim", embedding_dim)
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"Embedding: padding_idx {padding_idx} must be within "
                                 f"[-{num_embeddings}, {num_embeddings})")
            padding_idx %= num_embeddings
        self.padding_idx, self.max_norm, self.norm_type = padding_idx, max_norm, norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        if _weight is None:
            table = initializer(Normal(1.0), (num_embeddings, embedding_dim), dtype)
            if padding_idx is not None:
                data = table.asnumpy().copy()
                data[padding_idx] = 0
                table = Tensor(data)
        else:
            table = _weight
        self.weight = Parameter(table, name="weight", requires_grad=not _freeze)

    def construct(self, input):
        return ops.embedding(input, self.weight, self.padding_idx, self.max_norm,
                             self.norm_type, self.scale_grad_by_freq)


class PReLU(Cell):
    """x where x > 0, else weight * x: one learned slope, or one per channel (axis 1).

    >>> PReLU()(Tensor([-2.0, 3.0])).asnumpy()
    array([-0.5,  3. ], dtype=float32)
    """

    def __init__(self, num_parameters=1, init=0.25, dtype=None):
        super().__init__()
        self.num_parameters = positive_int("PReLU", "num_parameters", num_parameters)
        self.weight = Parameter(initializer(float(init), (num_parameters,),
                                            dtype or mstype.float32), name="weight")

    def construct(self, input):
        if self.num_parameters == 1 or input.ndim < 2:
            return ops.where(input > 0, input, input * self.weight[0] if self.num_parameters
                             == 1 else input * self.weight)
        return ops.prelu(input, self.weight)
