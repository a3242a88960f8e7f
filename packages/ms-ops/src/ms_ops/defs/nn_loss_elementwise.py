"""Losses computed element by element, then reduced: BinaryCrossEntropy, BCEWithLogitsLoss,
SmoothL1Loss, and the functions ``binary_cross_entropy(_with_logits)``, ``mse_loss``,
``l1_loss``, ``smooth_l1_loss``.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.arithmetic import Add, Div, Mul, Neg, Sub
from ms_ops.defs.nn_loss import (
    _LOG_EPS,
    _REDUCTION,
    REDUCTIONS,
    _check_functional_reduction,
    _check_reduction,
    _check_same_shape,
    _full,
)
from ms_ops.defs.reduction import ReduceSum
from ms_ops.infer import broadcast_shapes, check_dtype, shape_text
from ms_ops.opdef import FLOATS, Arg, Attr, OpDef, TensorSpec, functional


def _check_broadcasts_to(name, spec, ref_name, ref):
    if broadcast_shapes(spec, ref, names=(name, ref_name)) != ref.shape:
        raise ValueError(f"{name} shape {shape_text(spec.shape)} must broadcast to {ref_name} "
                         f"shape {shape_text(ref.shape)}")


def _reduced(spec, reduction):
    return TensorSpec(spec.shape if reduction == "none" else (), spec.dtype)


def _reduce_np(loss, reduction):
    if reduction == "none":
        return loss
    return loss.mean() if reduction == "mean" else loss.sum()


def _softplus_np(z):
    return np.maximum(z, 0.0) + np.log1p(np.exp(-np.abs(z)))


def _spread(dout, like, reduction):
    """The cotangent of a reduced loss, as one value per element of ``like``."""
    if reduction == "none":
        return dout
    if reduction == "mean":
        dout = Mul(dout, 1.0 / like.size)
    return array.BroadcastTo(dout, like.shape)


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    total = ReduceSum(loss, ())
    return Mul(total, 1.0 / loss.size) if reduction == "mean" else total


def _bce_infer(logits, labels, weight, reduction="mean"):
    _check_reduction(reduction)
    for name, s in (("logits", logits), ("labels", labels), ("weight", weight)):
        check_dtype(name, s, FLOATS)
    _check_same_shape("labels", labels, "logits", logits)
    _check_broadcasts_to("weight", weight, "logits", logits)
    return _reduced(logits, reduction)


BinaryCrossEntropy = OpDef(
    "BinaryCrossEntropy", (Arg("logits"), Arg("labels"), Arg("weight")), (_REDUCTION,),
    infer=_bce_infer, promote="common", nondiff_inputs=("labels", "weight"),
    doc="""``-weight * (labels * log(logits) + (1 - labels) * log(1 - logits))`` for
    probabilities ``logits``, each log clamped at log(1e-12), then reduced.

    ``weight`` is required here (it broadcasts to ``logits``); ``ops.binary_cross_entropy``
    supplies ones when it is omitted. ``labels`` and ``weight`` take no gradient.
    """)


@BinaryCrossEntropy.kernel("CPU", dtypes=FLOATS)
def binary_cross_entropy_cpu(logits, labels, weight, reduction="mean"):
    with np.errstate(divide="ignore"):
        log_x = np.log(np.maximum(logits, _LOG_EPS))
        log_1mx = np.log(np.maximum(1.0 - logits, _LOG_EPS))
    return _reduce_np(-weight * (labels * log_x + (1.0 - labels) * log_1mx), reduction)


@BinaryCrossEntropy.bprop
def binary_cross_entropy_bprop(logits, labels, weight, out, dout, reduction="mean"):
    from ms_ops.defs import arithmetic

    x = logits
    denom = arithmetic.Maximum(Mul(x, Sub(1.0, x)), _LOG_EPS)
    grad = Mul(Mul(weight, Div(Sub(x, labels), denom)), _spread(dout, x, reduction))
    return grad, None, None


@BinaryCrossEntropy.samples
def _bce(rng):
    for reduction in REDUCTIONS:
        yield (rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0.0, 1.0, (3, 4)),
               rng.uniform(0.5, 2.0, (3, 4))), {"reduction": reduction}
    yield (rng.uniform(0.1, 0.9, (3, 4)), (rng.random((3, 4)) < 0.5).astype(float),
           rng.uniform(0.5, 2.0, (4,))), {}


def _bce_with_logits_infer(logits, label, weight, pos_weight, reduction="mean"):
    _check_reduction(reduction)
    for name, s in (("logits", logits), ("label", label), ("weight", weight),
                    ("pos_weight", pos_weight)):
        if s is not None:
            check_dtype(name, s, FLOATS)
    _check_same_shape("label", label, "logits", logits)
    for name, s in (("weight", weight), ("pos_weight", pos_weight)):
        if s is not None:
            _check_broadcasts_to(name, s, "logits", logits)
    return _reduced(logits, reduction)


BCEWithLogitsLoss = OpDef(
    "BCEWithLogitsLoss",
    (Arg("logits"), Arg("label"), Arg("weight", default=None), Arg("pos_weight", default=None)),
    (_REDUCTION,), infer=_bce_with_logits_infer, promote="common",
    nondiff_inputs=("label", "weight", "pos_weight"),
    doc="""Binary cross-entropy of ``sigmoid(logits)`` against ``label``, computed from
    the logits without overflow: ``weight * (pos_weight * label * softplus(-logits)
    + (1 - label) * softplus(logits))``, then reduced. ``weight`` and ``pos_weight``
    broadcast to ``logits`` and may be left out (ones); only ``logits`` takes a gradient.
    """)


@BCEWithLogitsLoss.kernel("CPU", dtypes=FLOATS)
def bce_with_logits_cpu(logits, label, weight=None, pos_weight=None, reduction="mean"):
    positive = label if pos_weight is None else pos_weight * label
    loss = positive * _softplus_np(-logits) + (1.0 - label) * _softplus_np(logits)
    return _reduce_np(loss if weight is None else weight * loss, reduction)


@BCEWithLogitsLoss.bprop
def bce_with_logits_bprop(logits, label, weight, pos_weight, out, dout, reduction="mean"):
    from ms_ops.defs import activation

    # d/dx = weight * (sigmoid(x) * (1 - y + pos_weight * y) - pos_weight * y)
    py = label if pos_weight is None else Mul(pos_weight, label)
    coef = Sub(Mul(activation.Sigmoid(logits), Add(Sub(1.0, label), py)), py)
    coef = coef if weight is None else Mul(weight, coef)
    return Mul(coef, _spread(dout, logits, reduction)), None, None, None


@BCEWithLogitsLoss.samples
def _bce_logits(rng):
    for reduction in REDUCTIONS:
        yield (rng.standard_normal((3, 4)), rng.uniform(0.0, 1.0, (3, 4)),
               rng.uniform(0.5, 2.0, (3, 4)), rng.uniform(0.5, 2.0, (3, 4))), \
            {"reduction": reduction}
    yield (rng.standard_normal((3, 4)), (rng.random((3, 4)) < 0.5).astype(float),
           rng.uniform(0.5, 2.0, (4,)), rng.uniform(0.5, 2.0, (1,))), {}
    yield (rng.standard_normal((2, 3)), rng.uniform(0.0, 1.0, (2, 3))), {"reduction": "none"}


def _smooth_l1_infer(logits, labels, beta=1.0, reduction="none"):
    _check_reduction(reduction)
    check_dtype("logits", logits, FLOATS)
    check_dtype("labels", labels, FLOATS)
    _check_same_shape("labels", labels, "logits", logits)
    if not isinstance(beta, (int, float)) or isinstance(beta, bool) or beta <= 0:
        raise ValueError(f"beta must be a number > 0, got {beta!r}")
    return _reduced(logits, reduction)


SmoothL1Loss = OpDef(
    "SmoothL1Loss", (Arg("logits"), Arg("labels")),
    (Attr("beta", 1.0), Attr("reduction", "none")), infer=_smooth_l1_infer, promote="common",
    doc="""``0.5 * d**2 / beta`` where ``|d| < beta``, else ``|d| - 0.5 * beta``, with
    ``d = logits - labels``; then reduced (``'none'`` by default, as in MindSpore).""")


@SmoothL1Loss.kernel("CPU", dtypes=FLOATS)
def smooth_l1_loss_cpu(logits, labels, beta=1.0, reduction="none"):
    d = logits - labels
    ad = np.abs(d)
    return _reduce_np(np.where(ad < beta, 0.5 * d * d / beta, ad - 0.5 * beta), reduction)


@SmoothL1Loss.bprop
def smooth_l1_loss_bprop(logits, labels, out, dout, beta=1.0, reduction="none"):
    from ms_ops.defs import arithmetic

    slope = arithmetic.Minimum(arithmetic.Maximum(Mul(Sub(logits, labels), 1.0 / beta), -1.0),
                               1.0)
    grad = Mul(slope, _spread(dout, logits, reduction))
    return grad, Neg(grad)


@SmoothL1Loss.samples
def _smooth_l1(rng):
    """|logits - labels| in [0.05, 0.8] or [1.2, 2.5] times beta: both branches, no
    point on the switch."""
    for beta, reduction in ((1.0, "none"), (1.0, "mean"), (0.5, "sum")):
        labels = rng.standard_normal((2, 3))
        gap = np.array([[0.05, 0.4, 0.8], [1.2, 1.8, 2.5]]) * beta
        sign = rng.choice([-1.0, 1.0], (2, 3))
        yield (labels + sign * gap, labels), {"beta": beta, "reduction": reduction}


@functional("binary_cross_entropy")
def binary_cross_entropy(logits, labels, weight=None, reduction="mean"):
    """Binary cross-entropy of probabilities ``logits`` against ``labels`` (see
    BinaryCrossEntropy); ``weight`` defaults to ones.

    >>> round(float(binary_cross_entropy(Tensor([0.3, 0.9]), Tensor([0.0, 1.0]))), 4)
    0.231
    """
    _check_functional_reduction("binary_cross_entropy", reduction)
    weight = _full((), logits, 1.0) if weight is None else weight
    return BinaryCrossEntropy(logits, labels, weight, reduction=reduction)


@functional("binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None,
                                     reduction="mean"):
    """Binary cross-entropy of ``sigmoid(input)`` against ``target`` (see
    BCEWithLogitsLoss); ``weight`` and ``pos_weight`` default to ones.

    >>> round(float(binary_cross_entropy_with_logits(Tensor([0.5, -1.0]), Tensor([1.0, 0.0]))), 4)
    0.3937
    """
    _check_functional_reduction("binary_cross_entropy_with_logits", reduction)
    weight = _full((), input, 1.0) if weight is None else weight
    pos_weight = _full((), input, 1.0) if pos_weight is None else pos_weight
    return BCEWithLogitsLoss(input, target, weight, pos_weight, reduction=reduction)


@functional("mse_loss")
def mse_loss(input, target, reduction="mean"):
    """Squared error ``(input - target)**2`` (broadcasting), reduced.

    >>> float(mse_loss(Tensor([1.0, 2.0]), Tensor([1.0, 4.0])))  # (0 + 4) / 2
    2.0
    """
    _check_functional_reduction("mse_loss", reduction)
    d = Sub(input, target)
    return _reduce(Mul(d, d), reduction)


@functional("l1_loss")
def l1_loss(input, target, reduction="mean"):
    """Absolute error ``|input - target|`` (broadcasting), reduced.

    >>> float(l1_loss(Tensor([1.0, 2.0]), Tensor([1.0, 4.0])))  # (0 + 2) / 2
    1.0
    """
    from ms_ops.defs import arithmetic

    _check_functional_reduction("l1_loss", reduction)
    return _reduce(arithmetic.Abs(Sub(input, target)), reduction)


@functional("smooth_l1_loss")
def smooth_l1_loss(input, target, beta=1.0, reduction="none"):
    """Smooth L1 (Huber-like) loss; see SmoothL1Loss. Not reduced by default.

    >>> smooth_l1_loss(Tensor([0.0, 3.0]), Tensor([0.5, 0.0])).asnumpy()
    array([0.125, 2.5  ], dtype=float32)
    """
    _check_functional_reduction("smooth_l1_loss", reduction)
    return SmoothL1Loss(input, target, beta=float(beta), reduction=reduction)
