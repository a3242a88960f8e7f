"""Loss Cells with MindSpore 2.x semantics, each on the fused ms-ops loss operator where
there is one (SoftmaxCrossEntropyWithLogits, NLLLoss, BinaryCrossEntropy, ...)."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell
from ms_tensor import Tensor
from ms_tensor import dtype as mstype

__all__ = ["LossBase", "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "NLLLoss",
           "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss"]

_REDUCTIONS = ("mean", "sum", "none")


def _check_reduction(layer, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{layer}: reduction must be 'mean', 'sum' or 'none', got "
                         f"{reduction!r}")
    return reduction


def _check_same_shape(layer, logits, labels):
    if tuple(logits.shape) != tuple(labels.shape):
        raise ValueError(f"{layer}: logits shape {tuple(logits.shape)} and labels shape "
                         f"{tuple(labels.shape)} must be equal")


class LossBase(Cell):
    """Base of the losses: ``get_loss`` weights an elementwise loss and reduces it.

    Subclasses compute the unreduced loss in ``construct`` and return
    ``self.get_loss(x)``; ``reduction`` is ``'mean'`` (default), ``'sum'`` or ``'none'``.
    """

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _check_reduction(type(self).__name__, reduction)
        self.average = reduction == "mean"
        self.reduce = reduction != "none"

    def get_axis(self, x):
        """Every axis of ``x``."""
        return tuple(range(x.ndim))

    def get_loss(self, x, weights=1.0):
        """``x * weights`` computed in float32 (the input's dtype is restored), reduced.

        >>> LossBase().get_loss(Tensor([1.0, 3.0]))
        Tensor(shape=[], dtype=Float32, value= 2)
        """
        input_dtype = x.dtype
        x = ops.cast(x, mstype.float32)
        if not isinstance(weights, (int, float)) or weights != 1.0:
            weights = ops.cast(weights, mstype.float32) if isinstance(weights, Tensor) \
                else weights
            x = ops.mul(x, weights)
        if self.reduce and self.average:
            x = ops.mean(x, self.get_axis(x))
        elif self.reduce:
            x = ops.sum(x, self.get_axis(x))
        return ops.cast(x, input_dtype)

    def construct(self, logits, labels):
        raise NotImplementedError(f"{type(self).__name__}: a loss must define construct")


class SoftmaxCrossEntropyWithLogits(LossBase):
    """Cross-entropy of ``softmax(logits)`` (N, C) against ``labels``.

    ``labels`` are (N, C) probabilities, or with ``sparse=True`` class indices (N,). Not
    reduced by default; ``sparse=True, reduction='mean'`` runs the fused sparse operator.

    >>> loss = SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    >>> round(float(loss(Tensor([[1.0, 2.0, 3.0]]), Tensor([2], ms.int32))), 4)
    0.4076
    """

    def __init__(self, sparse=False, reduction="none"):
        super().__init__(reduction)
        if not isinstance(sparse, bool):
            raise TypeError(f"SoftmaxCrossEntropyWithLogits: sparse must be a bool, got "
                            f"{sparse!r}")
        self.sparse = sparse
        self._sparse_op = ops.SparseSoftmaxCrossEntropyWithLogits()
        self._dense_op = ops.SoftmaxCrossEntropyWithLogits()

    def construct(self, logits, labels):
        layer = "SoftmaxCrossEntropyWithLogits"
        if logits.ndim != 2:
            raise ValueError(f"{layer}: logits shape {tuple(logits.shape)} must be 2-d (N, C)")
        if self.sparse:
            if tuple(labels.shape) != (logits.shape[0],):
                raise ValueError(f"{layer}: sparse labels shape {tuple(labels.shape)} must be "
                                 f"({logits.shape[0]},), one class index per row of logits "
                                 f"shape {tuple(logits.shape)}")
            if self.reduction == "mean":
                return self._sparse_op(logits, labels)
            labels = ops.one_hot(labels, logits.shape[1], Tensor(1.0, logits.dtype),
                                 Tensor(0.0, logits.dtype))
        else:
            _check_same_shape(layer, logits, labels)
        return self.get_loss(self._dense_op(logits, labels)[0])


class CrossEntropyLoss(LossBase):
    """Cross-entropy of ``softmax(logits)`` over axis 1 against class indices or class
    probabilities; ``weight`` rescales classes, ``ignore_index`` drops targets,
    ``label_smoothing`` mixes in the uniform distribution (see ``ops.cross_entropy``).

    >>> round(float(CrossEntropyLoss()(Tensor([[1.0, 2.0, 3.0]]), Tensor([2], ms.int32))), 4)
    0.4076
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        if not isinstance(label_smoothing, (int, float)) or not 0 <= label_smoothing <= 1:
            raise ValueError(f"CrossEntropyLoss: label_smoothing must be in [0, 1], got "
                             f"{label_smoothing!r}")
        self.weight = weight
        self.ignore_index = ignore_index
        self.label_smoothing = float(label_smoothing)

    def construct(self, logits, labels):
        return ops.cross_entropy(logits, labels, self.weight, self.ignore_index,
                                 self.reduction, self.label_smoothing)


class NLLLoss(LossBase):
    """Negative log-likelihood of log-probabilities ``logits`` (N, C, ...) for class
    indices ``labels`` (N, ...); ``weight`` (C,) rescales classes.

    >>> float(NLLLoss()(Tensor([[-1.0, -2.0]]), Tensor([1], ms.int32)))
    2.0
    """

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight
        self.ignore_index = ignore_index

    def construct(self, logits, labels):
        return ops.nll_loss(logits, labels, self.weight, self.ignore_index, self.reduction)


class MSELoss(LossBase):
    """Squared error ``(logits - labels) ** 2`` (broadcasting), reduced.

    >>> float(MSELoss()(Tensor([1.0, 2.0]), Tensor([1.0, 4.0])))
    2.0
    """

    def construct(self, logits, labels):
        return ops.mse_loss(logits, labels, self.reduction)


class L1Loss(LossBase):
    """Absolute error ``|logits - labels|`` (broadcasting), reduced.

    >>> float(L1Loss()(Tensor([1.0, 2.0]), Tensor([1.0, 4.0])))
    1.0
    """

    def construct(self, logits, labels):
        return ops.l1_loss(logits, labels, self.reduction)


class SmoothL1Loss(LossBase):
    """``0.5 d**2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere, for
    ``d = logits - labels`` of equal shapes; not reduced by default.

    >>> SmoothL1Loss()(Tensor([0.0, 3.0]), Tensor([0.5, 0.0])).asnumpy()
    array([0.125, 2.5  ], dtype=float32)
    """

    def __init__(self, beta=1.0, reduction="none"):
        super().__init__(reduction)
        if not isinstance(beta, (int, float)) or isinstance(beta, bool) or beta <= 0:
            raise ValueError(f"SmoothL1Loss: beta must be a number > 0, got {beta!r}")
        self.beta = float(beta)

    def construct(self, logits, labels):
        _check_same_shape("SmoothL1Loss", logits, labels)
        return ops.smooth_l1_loss(logits, labels, self.beta, self.reduction)


class HuberLoss(LossBase):
    """``0.5 d**2`` where ``|d| < delta``, ``delta * (|d| - 0.5 delta)`` elsewhere, for
    ``d = logits - labels`` (broadcasting), reduced.

    >>> HuberLoss(reduction="none")(Tensor([0.0, 3.0]), Tensor([0.5, 0.0])).asnumpy()
    array([0.125, 2.5  ], dtype=float32)
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction)
        if not isinstance(delta, (int, float)) or isinstance(delta, bool) or delta <= 0:
            raise ValueError(f"HuberLoss: delta must be a number > 0, got {delta!r}")
        self.delta = float(delta)

    def construct(self, logits, labels):
        d = ops.abs(ops.sub(logits, labels))
        quadratic = ops.mul(ops.square(d), 0.5)
        linear = ops.mul(ops.sub(d, 0.5 * self.delta), self.delta)
        return self.get_loss(ops.select(ops.less(d, self.delta), quadratic, linear))


class BCELoss(LossBase):
    """Binary cross-entropy of probabilities ``logits`` against ``labels`` (equal shapes);
    ``weight`` rescales each element (broadcast).

    >>> round(float(BCELoss()(Tensor([0.3, 0.9]), Tensor([0.0, 1.0]))), 4)
    0.231
    """

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, logits, labels):
        _check_same_shape("BCELoss", logits, labels)
        return ops.binary_cross_entropy(logits, labels, self.weight, self.reduction)


class BCEWithLogitsLoss(LossBase):
    """Binary cross-entropy of ``sigmoid(input)`` against ``target``, computed stably;
    ``weight`` rescales each element, ``pos_weight`` the positive term per class.

    >>> round(float(BCEWithLogitsLoss()(Tensor([0.5, -1.0]), Tensor([1.0, 0.0]))), 4)
    0.3937
    """

    def __init__(self, reduction="mean", weight=None, pos_weight=None):
        super().__init__(reduction)
        for name, v in (("weight", weight), ("pos_weight", pos_weight)):
            if v is not None and not isinstance(v, Tensor):
                raise TypeError(f"BCEWithLogitsLoss: {name} must be a Tensor or None, got "
                                f"{type(v).__name__}")
        self.weight = weight
        self.pos_weight = pos_weight

    def construct(self, input, target):
        _check_same_shape("BCEWithLogitsLoss", input, target)
        return ops.binary_cross_entropy_with_logits(input, target, self.weight,
                                                    self.pos_weight, self.reduction)
