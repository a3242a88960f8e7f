"""``nn.Conv2dBnAct`` and ``nn.DenseBnAct`` (a layer, an optional BatchNorm, an optional
activation, as MindSpore's quantization-ready blocks), ``nn.EmbeddingLookup`` (a table
looked up on the host), ``nn.MultiFieldEmbeddingLookup`` (lookups pooled per field) and
``nn.ParameterUpdate`` (writes its input into a Parameter)."""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import initializer
from ms_nn.layers._check import positive_int
from ms_nn.layers.activation import get_activation
from ms_nn.layers.basic import Dense
from ms_nn.layers.conv import Conv2d
from ms_nn.layers.normalization import BatchNorm1d, BatchNorm2d
from ms_tensor import Parameter
from ms_tensor import dtype as mstype

__all__ = ["Conv2dBnAct", "DenseBnAct", "EmbeddingLookup", "ParameterUpdate",
           "MultiFieldEmbeddingLookup"]


def _act(activation, alpha, who):
    if activation is None:
        return None
    if activation == "leakyrelu":
        from ms_nn.layers.activation import LeakyReLU

        return LeakyReLU(alpha)
    if isinstance(activation, str):
        return get_activation(activation, who)
    if isinstance(activation, Cell):
        return activation
    raise TypeError(f"{who}: activation must be a str, a Cell or None, got {activation!r}")


class Conv2dBnAct(Cell):
    """Conv2d, then BatchNorm2d (``has_bn``), then ``activation``.

    >>> Conv2dBnAct(2, 3, 3, has_bn=True, activation="relu")(ops.ones((1, 2, 4, 4))).shape
    (1, 3, 4, 4)
    """

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, pad_mode="same",
                 padding=0, dilation=1, group=1, has_bias=False, weight_init="normal",
                 bias_init="zeros", has_bn=False, momentum=0.997, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.conv = Conv2d(in_channels, out_channels, kernel_size, stride, pad_mode, padding,
                           dilation, group, has_bias, weight_init, bias_init)
        self.has_bn, self.after_fake = has_bn, after_fake
        self.batchnorm = BatchNorm2d(out_channels, eps, momentum) if has_bn else None
        self.activation = _act(activation, alpha, "Conv2dBnAct")
        self.has_act = self.activation is not None

    def construct(self, x):
        x = self.conv(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return self.activation(x) if self.has_act else x


class DenseBnAct(Cell):
    """Dense, then BatchNorm1d (``has_bn``), then ``activation``.

    >>> DenseBnAct(3, 4, has_bn=True, activation="relu")(ops.ones((2, 3))).shape
    (2, 4)
    """

    def __init__(self, in_channels, out_channels, weight_init="normal", bias_init="zeros",
                 has_bias=True, has_bn=False, momentum=0.9, eps=1e-5, activation=None,
                 alpha=0.2, after_fake=True):
        super().__init__()
        self.dense = Dense(in_channels, out_channels, weight_init, bias_init, has_bias)
        self.has_bn, self.after_fake = has_bn, after_fake
        self.batchnorm = BatchNorm1d(out_channels, eps, momentum) if has_bn else None
        self.activation = _act(activation, alpha, "DenseBnAct")
        self.has_act = self.activation is not None

    def construct(self, x):
        x = self.dense(x)
        if self.has_bn:
            x = self.batchnorm(x)
        return self.activation(x) if self.has_act else x


class EmbeddingLookup(Cell):
    """Rows of ``embedding_table`` (vocab_size, embedding_size) for integer ``indices``;
    with ``max_norm`` each looked-up row is scaled down to that norm.

    >>> EmbeddingLookup(10, 3)(Tensor([[1, 2], [3, 4]])).shape
    (2, 2, 3)
    """

    def __init__(self, vocab_size, embedding_size, param_init="normal", target="CPU",
                 slice_mode="batch_slice", manual_shapes=None, max_norm=None, sparse=True,
                 dtype=mstype.float32):
        super().__init__()
        if target not in ("CPU", "DEVICE"):
            raise ValueError(f"EmbeddingLookup: target must be 'CPU' or 'DEVICE', got {target!r}")
        if not sparse and target == "CPU":
            raise ValueError("EmbeddingLookup: sparse must be True when target is 'CPU'")
        self.vocab_size = positive_int("EmbeddingLookup", "vocab_size", vocab_size)
        self.embedding_size = positive_int("EmbeddingLookup", "embedding_size", embedding_size)
        self.target, self.sparse, self.slice_mode = target, sparse, slice_mode
        self.max_norm = max_norm
        self.embedding_table = Parameter(initializer(param_init, (vocab_size, embedding_size),
                                                     dtype), name="embedding_table")

    def construct(self, indices):
        out = ops.gather(self.embedding_table, indices, 0)
        if self.max_norm is not None:
            norm = ops.sqrt(ops.sum(out * out, -1, keepdim=True))
            out = out * ops.minimum(ops.ones_like(norm), self.max_norm / ops.maximum(
                norm, ops.full_like(norm, 1e-12)))
        return out


class ParameterUpdate(Cell):
    """Writes its input into ``param`` and returns it (to set a Parameter from a graph).

    >>> p = Parameter(Tensor([0.0]), name="p"); _ = ParameterUpdate(p)(Tensor([3.0]))
    >>> p.asnumpy()
    array([3.], dtype=float32)
    """

    def __init__(self, param):
        super().__init__(auto_prefix=False)
        if not isinstance(param, Parameter):
            raise TypeError(f"ParameterUpdate: param must be a Parameter, got "
                            f"{type(param).__name__}")
        self._param = param

    def construct(self, x):
        ops.assign(self._param, x)
        return x


class MultiFieldEmbeddingLookup(EmbeddingLookup):
    """Per sample, the looked-up rows weighted by ``input_values`` and pooled per field
    (``field_ids``) with ``operator`` 'SUM', 'MEAN' (divided by the sum of |values|) or
    'MAX' (zero-weight entries ignored; empty fields give 0): (batch, field_size, dim).

    >>> net = MultiFieldEmbeddingLookup(10, 2, field_size=2)
    >>> ids = Tensor([[1, 5, 3]]); vals = Tensor([[1.0, 1.0, 0.0]]); fields = Tensor([[0, 1, 1]])
    >>> net(ids, vals, fields).shape
    (1, 2, 2)
    """

    def __init__(self, vocab_size, embedding_size, field_size, param_init="normal",
                 target="CPU", slice_mode="batch_slice", feature_num_list=None, max_norm=None,
                 sparse=True, operator="SUM", dtype=mstype.float32):
        super().__init__(vocab_size, embedding_size, param_init, target, slice_mode,
                         feature_num_list, max_norm, sparse, dtype)
        if operator not in ("SUM", "MEAN", "MAX"):
            raise ValueError(f"MultiFieldEmbeddingLookup: operator must be 'SUM', 'MEAN' or "
                             f"'MAX', got {operator!r}")
        self.field_size = positive_int("MultiFieldEmbeddingLookup", "field_size", field_size)
        self.operator = operator

    def construct(self, input_indices, input_values, field_ids):
        for name, t in (("input_indices", input_indices), ("input_values", input_values),
                        ("field_ids", field_ids)):
            if t.ndim != 2:
                raise ValueError(f"MultiFieldEmbeddingLookup: {name} must be 2-d (batch, seq), "
                                 f"got shape {tuple(t.shape)}")
        batch, seq = input_indices.shape
        segments = batch * self.field_size
        ids = ops.reshape(ops.cast(field_ids, mstype.int32) + ops.reshape(
            ops.arange(0, segments, self.field_size, dtype=mstype.int32), (batch, 1)), (-1,))
        weights = ops.reshape(input_values, (batch, seq, 1))
        rows = ops.reshape(super().construct(input_indices) * weights, (-1, self.embedding_size))
        if self.operator == "MAX":
            low = float(np.finfo(np.float32).min)
            rows = rows + ops.reshape(ops.cast(ops.equal(weights, 0), rows.dtype) * low,
                                      (-1, 1))
            merged = ops.unsorted_segment_max(rows, ids, segments)
            count = ops.unsorted_segment_sum(ops.abs(ops.reshape(input_values, (-1,))), ids,
                                             segments)
            merged = merged * ops.expand_dims(ops.cast(count != 0, rows.dtype), -1)
        else:
            merged = ops.unsorted_segment_sum(rows, ids, segments)
            if self.operator == "MEAN":
                count = ops.unsorted_segment_sum(ops.abs(ops.reshape(input_values, (-1,))), ids,
                                                 segments)
                count = ops.expand_dims(count, -1)
                merged = ops.where(count != 0, merged / ops.where(count != 0, count,
                                                                  ops.ones_like(count)),
                                   ops.zeros_like(merged))
        return ops.reshape(merged, (batch, self.field_size, -1))
