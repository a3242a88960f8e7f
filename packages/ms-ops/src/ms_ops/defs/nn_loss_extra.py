"""More losses and distances as compositions: ``kl_div``, ``margin_ranking_loss``,
``hinge_embedding_loss``, ``cosine_embedding_loss``, ``soft_margin_loss``,
``multilabel_soft_margin_loss``, ``poisson_nll_loss``, ``gaussian_nll_loss``,
``triplet_margin_loss``, ``multi_margin_loss``, ``cosine_similarity``,
``pairwise_distance``.

``reduction`` is ``'mean'``, ``'sum'`` or ``'none'`` as everywhere (``kl_div`` also takes
``'batchmean'``: the sum divided by the batch size, the true KL divergence).
"""

from __future__ import annotations

import math

from ms_ops.defs import array, math_unary
from ms_ops.defs.arithmetic import Abs, Add, Div, Maximum, Mul, Neg, Pow, Sub
from ms_ops.defs.array_reorder import Select
from ms_ops.defs.comparison import Equal, Greater
from ms_ops.defs.nn_loss import _check_functional_reduction
from ms_ops.defs.reduction import ReduceMean, ReduceSum
from ms_ops.opdef import functional


def _reduced(loss, reduction, who):
    _check_functional_reduction(who, reduction)
    if reduction == "mean":
        return ReduceMean(loss, ())
    return ReduceSum(loss, ()) if reduction == "sum" else loss


def _softplus(x):
    """log(1 + exp(x)) without overflow: max(x, 0) + log1p(exp(-|x|))."""
    return Add(Maximum(x, 0.0), math_unary.Log1p(math_unary.Exp(Neg(Abs(x)))))


@functional("kl_div")
def kl_div(logits, labels, reduction="mean"):
    """``ops.kl_div``: labels * (log(labels) - logits), 0 where labels is 0 (``logits``
    holds log-probabilities)."""
    if reduction == "batchmean":
        return Div(ReduceSum(_kl(logits, labels), ()), logits.shape[0] if logits.ndim else 1)
    return _reduced(_kl(logits, labels), reduction, "kl_div")


def _kl(logits, labels):
    positive = Greater(labels, 0.0)
    safe = Select(positive, labels, 1.0)
    return Select(positive, Mul(labels, Sub(math_unary.Log(safe), logits)), 0.0)


@functional("margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``ops.margin_ranking_loss``: max(0, -target * (input1 - input2) + margin)."""
    loss = Maximum(Add(Neg(Mul(target, Sub(input1, input2))), margin), 0.0)
    return _reduced(loss, reduction, "margin_ranking_loss")


@functional("hinge_embedding_loss")
def hinge_embedding_loss(inputs, targets, margin=1.0, reduction="mean"):
    """``ops.hinge_embedding_loss``: x where target is 1, max(0, margin - x) where -1."""
    loss = Select(Equal(targets, 1.0), inputs, Maximum(Sub(margin, inputs), 0.0))
    return _reduced(loss, reduction, "hinge_embedding_loss")


@functional("cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-08):
    """``ops.cosine_similarity``: x1 . x2 / sqrt(max(|x1|^2 |x2|^2, eps^2)) along ``dim``."""
    dot = ReduceSum(Mul(x1, x2), dim)
    norms = Mul(ReduceSum(Mul(x1, x1), dim), ReduceSum(Mul(x2, x2), dim))
    return Div(dot, math_unary.Sqrt(Maximum(norms, eps * eps)))


@functional("cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction="mean"):
    """``ops.cosine_embedding_loss``: 1 - cos where target is 1, max(0, cos - margin) where
    -1 (cosine along axis 1)."""
    cos = cosine_similarity(input1, input2, 1)
    loss = Select(Equal(target, 1.0), Sub(1.0, cos), Maximum(Sub(cos, margin), 0.0))
    return _reduced(loss, reduction, "cosine_embedding_loss")


@functional("soft_margin_loss")
def soft_margin_loss(input, target, reduction="mean"):
    """``ops.soft_margin_loss``: log(1 + exp(-target * input))."""
    return _reduced(_softplus(Neg(Mul(target, input))), reduction, "soft_margin_loss")


@functional("multilabel_soft_margin_loss")
def multilabel_soft_margin_loss(input, target, weight=None, reduction="mean"):
    """``ops.multilabel_soft_margin_loss``: per sample, the mean over classes of
    -(y log sigmoid(x) + (1 - y) log sigmoid(-x)), times ``weight`` per class."""
    per_class = Add(Mul(target, _softplus(Neg(input))), Mul(Sub(1.0, target), _softplus(input)))
    if weight is not None:
        per_class = Mul(per_class, weight)
    loss = ReduceMean(per_class, -1)
    return _reduced(loss, reduction, "multilabel_soft_margin_loss")


@functional("poisson_nll_loss")
def poisson_nll_loss(input, target, log_input=True, full=False, eps=1e-08, reduction="mean"):
    """``nn.PoissonNLLLoss``'s loss: exp(x) - y x (``log_input``) or x - y log(x + eps);
    ``full`` adds Stirling's term y log y - y + log(2 pi y) / 2 where y > 1."""
    if log_input:
        loss = Sub(math_unary.Exp(input), Mul(target, input))
    else:
        loss = Sub(input, Mul(target, math_unary.Log(Add(input, eps))))
    if full:
        big = Greater(target, 1.0)
        safe = Select(big, target, 1.0)
        stirling = Add(Sub(Mul(safe, math_unary.Log(safe)), safe),
                       Mul(math_unary.Log(Mul(safe, 2 * math.pi)), 0.5))
        loss = Add(loss, Select(big, stirling, 0.0))
    return _reduced(loss, reduction, "poisson_nll_loss")


@functional("gaussian_nll_loss")
def gaussian_nll_loss(x, target, var, full=False, eps=1e-06, reduction="mean"):
    """``ops.gaussian_nll_loss``: (log(max(var, eps)) + (x - target)^2 / max(var, eps)) / 2,
    plus log(2 pi) / 2 with ``full``."""
    v = Maximum(var, eps)
    loss = Mul(Add(math_unary.Log(v), Div(Pow(Sub(x, target), 2.0), v)), 0.5)
    if full:
        loss = Add(loss, 0.5 * math.log(2 * math.pi))
    return _reduced(loss, reduction, "gaussian_nll_loss")


@functional("pairwise_distance")
def pairwise_distance(x1, x2, p=2.0, eps=1e-06, keepdim=False):
    """``ops.pairwise_distance``: the p-norm of x1 - x2 + eps over the last axis."""
    diff = Add(Sub(x1, x2), eps)
    return Pow(ReduceSum(Pow(Abs(diff), p), -1, keep_dims=keepdim), 1.0 / p)


@functional("triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-06, swap=False,
                        reduction="mean"):
    """``ops.triplet_margin_loss``: max(d(a, p) - d(a, n) + margin, 0) with the p-norm
    distance; ``swap`` uses d(p, n) when it is smaller than d(a, n)."""
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        from ms_ops.defs.arithmetic import Minimum

        d_neg = Minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    loss = Maximum(Add(Sub(d_pos, d_neg), margin), 0.0)
    return _reduced(loss, reduction, "triplet_margin_loss")


@functional("multi_margin_loss")
def multi_margin_loss(input, target, p=1, margin=1, weight=None, reduction="mean"):
    """``ops.multi_margin_loss``: per sample, the sum over classes i != y of
    max(0, margin - x[y] + x[i])^p / C, times weight[y]."""
    if p not in (1, 2):
        raise ValueError(f"multi_margin_loss: p must be 1 or 2, got {p!r}")
    from ms_ops.defs.array_create import OneHot
    from ms_ops.defs.indexing import GatherD

    n, c = input.shape
    picked = GatherD(input, 1, array.Reshape(target, (n, 1)))
    margins = Maximum(Add(Sub(margin, picked), input), 0.0)
    if p == 2:
        margins = Mul(margins, margins)
    others = Sub(1.0, array.Cast(OneHot(target, c, 1, 0, axis=-1), input.dtype))
    loss = Div(ReduceSum(Mul(margins, others), 1), c)
    if weight is not None:
        from ms_ops.defs.indexing import Gather

        loss = Mul(loss, Gather(weight, target, 0))
    return _reduced(loss, reduction, "multi_margin_loss")
