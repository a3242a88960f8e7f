"""More loss Cells, each over one ms-ops loss function with MindSpore's constructor
arguments: ``KLDivLoss``, ``MarginRankingLoss``, ``HingeEmbeddingLoss``,
``CosineEmbeddingLoss``, ``SoftMarginLoss``, ``MultiLabelSoftMarginLoss``,
``PoissonNLLLoss``, ``GaussianNLLLoss``, ``TripletMarginLoss``, ``MultiMarginLoss``,
``RMSELoss`` and ``MAELoss``."""

from __future__ import annotations

import ms_ops as ops
from ms_nn.loss.loss import LossBase

__all__ = ["KLDivLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "CosineEmbeddingLoss",
           "SoftMarginLoss", "MultiLabelSoftMarginLoss", "PoissonNLLLoss", "GaussianNLLLoss",
           "TripletMarginLoss", "MultiMarginLoss", "RMSELoss", "MAELoss"]


class KLDivLoss(LossBase):
    """labels * (log(labels) - logits), ``logits`` being log-probabilities; ``reduction``
    may also be ``"batchmean"`` (the true KL divergence per sample)."""

    def __init__(self, reduction="mean"):
        super().__init__("mean" if reduction == "batchmean" else reduction)
        self.reduction = reduction

    def construct(self, logits, labels):
        return ops.kl_div(logits, labels, self.reduction)


class MarginRankingLoss(LossBase):
    """max(0, -target * (input1 - input2) + margin)."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = float(margin)

    def construct(self, input1, input2, target):
        return ops.margin_ranking_loss(input1, input2, target, self.margin, self.reduction)


class HingeEmbeddingLoss(LossBase):
    """x where the target is 1, max(0, margin - x) where it is -1."""

    def __init__(self, margin=1.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = float(margin)

    def construct(self, logits, labels):
        return ops.hinge_embedding_loss(logits, labels, self.margin, self.reduction)


class CosineEmbeddingLoss(LossBase):
    """1 - cos(x1, x2) where the target is 1, max(0, cos - margin) where it is -1."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = float(margin)

    def construct(self, logits_x1, logits_x2, labels):
        return ops.cosine_embedding_loss(logits_x1, logits_x2, labels, self.margin,
                                         self.reduction)


class SoftMarginLoss(LossBase):
    """log(1 + exp(-y x)), the two-class logistic loss."""

    def construct(self, logits, labels):
        return ops.soft_margin_loss(logits, labels, self.reduction)


class MultiLabelSoftMarginLoss(LossBase):
    """Per sample, the mean over classes of the binary logistic loss (``weight`` per class)."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, x, target):
        return ops.multilabel_soft_margin_loss(x, target, self.weight, self.reduction)


class PoissonNLLLoss(LossBase):
    """exp(x) - y x (``log_input``), or x - y log(x + eps); ``full`` adds Stirling's term."""

    def __init__(self, log_input=True, full=False, eps=1e-08, reduction="mean"):
        super().__init__(reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def construct(self, input, target):
        return ops.poisson_nll_loss(input, target, self.log_input, self.full, self.eps,
                                    self.reduction)


class GaussianNLLLoss(LossBase):
    """(log(max(var, eps)) + (x - target)^2 / max(var, eps)) / 2 (+ log(2 pi) / 2 if full)."""

    def __init__(self, *, full=False, eps=1e-06, reduction="mean"):
        super().__init__(reduction)
        self.full, self.eps = full, eps

    def construct(self, logits, labels, var):
        return ops.gaussian_nll_loss(logits, labels, var, self.full, self.eps, self.reduction)


class TripletMarginLoss(LossBase):
    """max(d(a, p) - d(a, n) + margin, 0) with p-norm distances."""

    def __init__(self, p=2, swap=False, eps=1e-06, reduction="mean", margin=1.0):
        super().__init__(reduction)
        self.p, self.swap, self.eps, self.margin = p, swap, eps, margin

    def construct(self, x, positive, negative, margin=None):
        return ops.triplet_margin_loss(x, positive, negative,
                                       self.margin if margin is None else margin, self.p,
                                       self.eps, self.swap, self.reduction)


class MultiMarginLoss(LossBase):
    """Multi-class hinge loss: the sum over other classes of max(0, margin - x[y] + x[i])^p,
    divided by the number of classes."""

    def __init__(self, p=1, margin=1.0, reduction="mean", weight=None):
        super().__init__(reduction)
        self.p, self.margin, self.weight = p, margin, weight

    def construct(self, x, target, weight=None):
        return ops.multi_margin_loss(x, target, self.p, self.margin,
                                     self.weight if weight is None else weight, self.reduction)


class RMSELoss(LossBase):
    """sqrt(mean((logits - labels)^2)), the root mean squared error."""

    def __init__(self):
        super().__init__("mean")

    def construct(self, logits, label):
        return ops.sqrt(ops.mse_loss(logits, label, "mean"))


class MAELoss(LossBase):
    """|logits - labels|, reduced (mean by default)."""

    def construct(self, logits, label):
        return ops.l1_loss(logits, label, self.reduction)
