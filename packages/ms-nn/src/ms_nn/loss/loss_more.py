"""``nn.MultilabelMarginLoss`` and ``nn.TripletMarginWithDistanceLoss`` (MindSpore 2.x /
PyTorch semantics)."""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_tensor import Tensor

__all__ = ["MultilabelMarginLoss", "TripletMarginWithDistanceLoss"]


def _reduce(loss, reduction):
    if reduction == "mean":
        return ops.mean(loss)
    if reduction == "sum":
        return ops.sum(loss)
    return loss


def _check_reduction(who, reduction):
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{who}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")
    return reduction


class MultilabelMarginLoss(Cell):
    """sum over target classes j and other classes i of max(0, 1 - (x[j] - x[i])), over C;
    ``target`` lists class indices, ended by the first -1.

    >>> x = Tensor([[0.1, 0.2, 0.4, 0.8]]); y = Tensor([[3, 0, -1, 1]])
    >>> round(float(MultilabelMarginLoss()(x, y)), 4)
    0.85
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check_reduction("MultilabelMarginLoss", reduction)

    def construct(self, x, target):
        if x.ndim not in (1, 2) or tuple(target.shape) != tuple(x.shape):
            raise ValueError(f"MultilabelMarginLoss: x {tuple(x.shape)} must be (C,) or (N, C) "
                             f"and target {tuple(target.shape)} the same shape")
        squeeze = x.ndim == 1
        x2 = ops.expand_dims(x, 0) if squeeze else x
        t = target.asnumpy().reshape(x2.shape).astype(np.int64)
        n, c = x2.shape
        count = np.zeros((n, c), np.float32)  # how often each class is listed as a target
        for row in range(n):
            for j in t[row]:
                if j < 0:
                    break
                if j >= c:
                    raise ValueError(f"MultilabelMarginLoss: target class {j} is out of range "
                                     f"for {c} classes")
                count[row, j] += 1
        weight = count[:, :, None] * (count[:, None, :] == 0)
        margins = ops.relu(1 - ops.expand_dims(x2, 2) + ops.expand_dims(x2, 1))
        loss = ops.sum(margins * Tensor(weight).astype(x.dtype), (1, 2)) / c
        return _reduce(ops.squeeze(loss, 0) if squeeze else loss, self.reduction)


class TripletMarginWithDistanceLoss(Cell):
    """max(d(a, p) - d(a, n) + margin, 0) with ``distance_function`` (the pairwise
    Euclidean distance by default); ``swap`` uses min(d(a, n), d(p, n)).

    >>> a = Tensor([[0.0, 0.0]]); p = Tensor([[0.0, 1.0]]); n = Tensor([[3.0, 4.0]])
    >>> round(float(TripletMarginWithDistanceLoss(margin=5.0)(a, p, n)), 4)
    1.0
    """

    def __init__(self, distance_function=None, swap=False, reduction="mean", margin=1.0):
        super().__init__()
        if margin < 0:
            raise ValueError(f"TripletMarginWithDistanceLoss: margin must be >= 0, got {margin}")
        self.distance_function = distance_function
        self.swap, self.margin = bool(swap), float(margin)
        self.reduction = _check_reduction("TripletMarginWithDistanceLoss", reduction)

    def _distance(self, a, b):
        if self.distance_function is None:
            return ops.pairwise_distance(a, b)
        return self.distance_function(a, b)

    def construct(self, x, positive, negative):
        d_pos = self._distance(x, positive)
        d_neg = self._distance(x, negative)
        if self.swap:
            d_neg = ops.minimum(d_neg, self._distance(positive, negative))
        return _reduce(ops.relu(d_pos - d_neg + self.margin), self.reduction)
