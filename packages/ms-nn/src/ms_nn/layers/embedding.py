"""Embedding: a lookup table of ``vocab_size`` rows of ``embedding_size`` values."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import initializer
from ms_nn.layers._check import positive_int
from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype

__all__ = ["Embedding"]


class Embedding(Cell):
    """Rows of ``embedding_table`` (vocab_size, embedding_size) picked by integer ``ids``.

    The output shape is ``ids.shape + (embedding_size,)``. The table starts from
    ``embedding_table`` (``'normal'``: N(0, 0.01)); with ``padding_idx`` that row starts
    at zero. ``use_one_hot=True`` computes ``one_hot(ids) @ table`` instead of a gather
    (same values; the gradient is then dense).

    >>> Embedding(10, 3)(Tensor([[1, 2], [3, 4]], ms.int32)).shape
    (2, 2, 3)
    """

    def __init__(self, vocab_size, embedding_size, use_one_hot=False, embedding_table="normal",
                 dtype=mstype.float32, padding_idx=None):
        super().__init__()
        self.vocab_size = positive_int("Embedding", "vocab_size", vocab_size)
        self.embedding_size = positive_int("Embedding", "embedding_size", embedding_size)
        if not isinstance(use_one_hot, bool):
            raise TypeError(f"Embedding: use_one_hot must be a bool, got {use_one_hot!r}")
        self.use_one_hot = use_one_hot
        self.dtype = dtype
        if padding_idx is not None and not (isinstance(padding_idx, int)
                                            and 0 <= padding_idx < vocab_size):
            raise ValueError(f"Embedding: padding_idx must be an int in [0, {vocab_size}), got "
                             f"{padding_idx!r}")
        self.padding_idx = padding_idx
        table = initializer(embedding_table, (vocab_size, embedding_size), mstype.float32)
        if tuple(table.shape) != (vocab_size, embedding_size):
            raise ValueError(f"Embedding: embedding_table shape {tuple(table.shape)} does not "
                             f"match (vocab_size, embedding_size) = "
                             f"{(vocab_size, embedding_size)}")
        if padding_idx is not None:
            values = table.asnumpy().copy()
            values[padding_idx] = 0
            table = Tensor(values)
        self.embedding_table = Parameter(table, name="embedding_table")

    def construct(self, ids):
        if ids.dtype not in (mstype.int32, mstype.int64):
            raise TypeError(f"Embedding: ids must be int32 or int64, got {ids.dtype} (shape "
                            f"{tuple(ids.shape)})")
        flat = ops.reshape(ids, (-1,))
        if self.use_one_hot:
            rows = ops.matmul(ops.one_hot(flat, self.vocab_size, 1.0, 0.0),
                              self.embedding_table)
        else:
            rows = ops.gather(self.embedding_table, flat, 0)
        return ops.reshape(rows, tuple(ids.shape) + (self.embedding_size,))

    def extend_repr(self) -> str:
        return (f"vocab_size={self.vocab_size}, embedding_size={self.embedding_size}, "
                f"use_one_hot={self.use_one_hot}, padding_idx={self.padding_idx}")
