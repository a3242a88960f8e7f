"""MindSpore's remaining loss names as compositions: ``huber_loss``, ``mse_loss_ext``,
``multilabel_margin_loss`` and the class forms ``ops.L2Loss()``, ``ops.KLDivLoss()``,
``ops.SoftMarginLoss()``, ``ops.MultiMarginLoss()``, ``ops.MultilabelMarginLoss()``,
``ops.TripletMarginLoss()``, ``ops.SigmoidCrossEntropyWithLogits()``.

``reduction`` is ``'mean'``, ``'sum'`` or ``'none'``; the losses differentiate through the
operators they are made of.
"""

from __future__ import annotations

import ms_ops as ops
from ms_ops.defs.nn_loss import _check_functional_reduction
from ms_ops.opdef import functional, primitive_class
from ms_tensor.tensor import Tensor, value_read_hook


def _reduced(loss, reduction, who):
    _check_functional_reduction(who, reduction)
    if reduction == "mean":
        return ops.mean(loss)
    return ops.sum(loss) if reduction == "sum" else loss


def _pair(who, a, b):
    for what, t in (("input", a), ("target", b)):
        if not isinstance(t, Tensor):
            raise TypeError(f"{who}: {what} must be a Tensor, got {type(t).__name__}")
        if not t.is_floating_point():
            raise TypeError(f"{who}: {what} must be float16/32/64, got {t.dtype}")


@functional("huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0):
    """0.5 * d^2 where |d| < delta, else delta * (|d| - 0.5 * delta), d = input - target
    (broadcast).

    >>> huber_loss(Tensor([0.0, 3.0]), Tensor([0.5, 0.0]), "none").tolist()
    [0.125, 2.5]
    """
    _pair("huber_loss", input, target)
    if not isinstance(delta, (int, float)) or delta <= 0:
        raise ValueError(f"huber_loss: delta must be a positive number, got {delta!r}")
    d = ops.abs(input - target)
    loss = ops.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    return _reduced(loss, reduction, "huber_loss")


@functional("mse_loss_ext")
def mse_loss_ext(input, target, reduction="mean"):
    """(input - target)^2 with broadcasting, reduced.

    >>> mse_loss_ext(Tensor([1.0, 3.0]), Tensor([0.0]), "sum").tolist()
    10.0
    """
    _pair("mse_loss_ext", input, target)
    return _reduced(ops.square(input - target), reduction, "mse_loss_ext")


@functional("multilabel_margin_loss")
def multilabel_margin_loss(input, target, reduction="mean"):
    """For each sample, the hinge sum over (target class j, non-target class i) pairs of
    max(0, 1 - (x[j] - x[i])), divided by the class count. ``target`` (int, same shape)
    lists the target classes, ended by the first -1.

    >>> multilabel_margin_loss(Tensor([[0.1, 0.2, 0.4, 0.8]]), Tensor([[3, 0, -1, 1]]))
    Tensor(shape=[], dtype=Float32, value= 0.85)
    """
    if not isinstance(input, Tensor) or not isinstance(target, Tensor):
        raise TypeError("MultilabelMarginLoss: input and target must be Tensors")
    if input.ndim not in (1, 2) or target.shape != input.shape:
        raise ValueError(f"MultilabelMarginLoss: input must be (C) or (N, C) and target of the "
                         f"same shape, got {input.shape} and {target.shape}")
    if target.is_floating_point():
        raise TypeError(f"MultilabelMarginLoss: target must be an int tensor, got "
                        f"{target.dtype}")
    x = ops.reshape(input, (-1, input.shape[-1]))
    t = ops.reshape(target, x.shape).astype("int64")
    c = x.shape[1]
    if value_read_hook() is None:  # eager: check the labels' range (a graph cannot)
        values = t.asnumpy()
        if ((values < -1) | (values >= c)).any():
            raise ValueError(f"MultilabelMarginLoss: target values must be in [-1, {c}), got "
                             f"{values.min()}..{values.max()}")
    # how often each class is listed before the first -1, from tensors (graphs follow it)
    listed = ops.cumsum((t < 0).astype("int32"), 1) == 0
    hits = ops.one_hot(ops.clamp(t, min=0), c, 1.0, 0.0) * ops.expand_dims(
        listed.astype(x.dtype), 2)
    count = ops.sum(hits.astype(x.dtype), 1)
    others = (count == 0).astype(x.dtype)
    margin = ops.relu(1 - (ops.expand_dims(x, 2) - ops.expand_dims(x, 1)))
    weights = ops.expand_dims(count, 2) * ops.expand_dims(others, 1)
    loss = ops.sum(margin * weights, (1, 2)) / c
    loss = ops.reshape(loss, input.shape[:-1])
    return _reduced(loss, reduction, "MultilabelMarginLoss")


MultilabelMarginLoss = primitive_class("MultilabelMarginLoss", multilabel_margin_loss,
                                       ("reduction",))
L2Loss = primitive_class("L2Loss", lambda x: ops.sum(ops.square(x)) / 2)
KLDivLoss = primitive_class(
    "KLDivLoss", lambda logits, labels, reduction="mean": ops.kl_div(logits, labels, reduction),
    ("reduction",))
SoftMarginLoss = primitive_class(
    "SoftMarginLoss", lambda input, target, reduction="mean": ops.soft_margin_loss(
        input, target, reduction), ("reduction",))
MultiMarginLoss = primitive_class(
    "MultiMarginLoss", lambda inputs, target, weight=None, p=1, margin=1.0, reduction="mean":
    ops.multi_margin_loss(inputs, target, p, margin, weight, reduction),
    ("p", "margin", "reduction"))
TripletMarginLoss = primitive_class(
    "TripletMarginLoss", lambda x, positive, negative, margin, p=2, swap=False, eps=1e-6,
    reduction="mean": ops.triplet_margin_loss(x, positive, negative, float(margin), p, eps,
                                              swap, reduction),
    ("p", "swap", "eps", "reduction"))
SigmoidCrossEntropyWithLogits = primitive_class(
    "SigmoidCrossEntropyWithLogits", lambda logits, label: ops.binary_cross_entropy_with_logits(
        logits, label, reduction="none"))
