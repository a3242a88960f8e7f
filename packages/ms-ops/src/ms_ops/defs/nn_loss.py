"""Losses over classes: the softmax cross-entropy family (Cython), NLLLoss, and
``nll_loss``/``cross_entropy`` built on them (element-wise losses are in ``nn_loss_elementwise``).

``SoftmaxCrossEntropyWithLogits`` and ``SparseSoftmaxCrossEntropyWithLogits`` run fused
kernels from ``kernels/_loss.pyx`` (log-softmax, loss and gradient in one pass per row);
the ``*_reference`` functions here are their numpy twins, which the tests hold them to.
Labels are data, so a label out of range is found by the kernel, not by inference.
"""

from __future__ import annotations

import numpy as np

from ms_ops.defs import array
from ms_ops.defs.arithmetic import Add, Div, Mul, Neg, Sub
from ms_ops.defs.reduction import ReduceSum
from ms_ops.infer import check_dtype, check_rank, shape_text
from ms_ops.kernels import _loss
from ms_ops.opdef import FLOATS, INTS, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor.tensor import Tensor

_REDUCTIONS = ("none", "mean", "sum")
_LOG_EPS = 1e-12  # BinaryCrossEntropy clamps log(x) and log(1 - x) at log(1e-12), as MindSpore


def _check_reduction(reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"reduction must be 'none', 'mean' or 'sum', got {reduction!r}")


def _check_same_shape(name, spec, ref_name, ref):
    if spec.shape != ref.shape:
        raise ValueError(f"{name} shape {shape_text(spec.shape)} must equal {ref_name} shape "
                         f"{shape_text(ref.shape)}")


def _check_logits_2d(logits):
    check_dtype("logits", logits, FLOATS)
    check_rank("logits", logits, 2)
    if logits.shape[1] == 0:
        raise ValueError(f"logits shape {shape_text(logits.shape)} has no classes")


def _nll_shapes(logits, labels, weight):
    check_dtype("logits", logits, FLOATS)
    check_dtype("labels", labels, INTS)
    check_dtype("weight", weight, FLOATS)
    if logits.ndim < 2:
        raise ValueError(f"logits must be (N, C) or (N, C, d1, ...), got shape "
                         f"{shape_text(logits.shape)}")
    want = logits.shape[:1] + logits.shape[2:]
    if labels.shape != want:
        raise ValueError(f"labels shape {shape_text(labels.shape)} must be {shape_text(want)} "
                         f"for logits shape {shape_text(logits.shape)}")
    if weight.shape != logits.shape[1:2]:
        raise ValueError(f"weight shape {shape_text(weight.shape)} must be "
                         f"({logits.shape[1]},), one per class of logits shape "
                         f"{shape_text(logits.shape)}")
    return want


_REDUCTION = Attr("reduction", "mean")


def _work(a):
    """float32/float64 stay; float16 and bfloat16 are computed in float32."""
    return np.ascontiguousarray(a if a.dtype in (np.float32, np.float64) else
                                a.astype(np.float32))


def _check_labels(labels, n_classes, ignore_index=None):
    bad = (labels < 0) | (labels >= n_classes)
    if ignore_index is not None:
        bad &= labels != ignore_index
    if bad.any():
        at = np.argwhere(bad)[0]
        raise ValueError(f"labels must lie in [0, {n_classes}), got {labels[tuple(at)]} at "
                         f"index {tuple(int(i) for i in at)}")


def _log_softmax_rows(x):
    shifted = x - x.max(axis=1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))


def softmax_cross_entropy_reference(logits, labels):
    """numpy reference of ``_loss.softmax_cross_entropy``."""
    logp = _log_softmax_rows(logits.astype(np.float64))
    return ((-(labels * logp).sum(axis=1)).astype(logits.dtype),
            (np.exp(logp) - labels).astype(logits.dtype))


def sparse_softmax_cross_entropy_reference(logits, labels, is_grad):
    """numpy reference of ``_loss.sparse_softmax_cross_entropy``."""
    logp = _log_softmax_rows(logits.astype(np.float64))
    rows = np.arange(logits.shape[0])
    if is_grad:
        grad = np.exp(logp)
        grad[rows, labels] -= 1.0
        return (grad / logits.shape[0]).astype(logits.dtype)
    return np.asarray(-logp[rows, labels].mean(), dtype=logits.dtype)


def _picked(labels, ignore_index, weight):
    """Safe class indices (ignored targets point at class 0) and their weights (0 if ignored)."""
    keep = labels != ignore_index
    safe = np.where(keep, labels, 0).astype(np.intp)
    return safe, weight[safe] * keep


def _zeros_for(d, like):
    """A zero cotangent for an output nothing downstream used (``None``)."""
    return Tensor(np.zeros(like.shape, like.dtype.np)) if d is None else d


def _check_functional_reduction(who, reduction):
    if reduction not in _REDUCTIONS:
        raise ValueError(f"{who}: reduction must be 'none', 'mean' or 'sum', got {reduction!r}")


def _full(shape, like, value):
    return Tensor(np.full(shape, value, like.dtype.np))


def _per_class(weight, ndim):
    """A (C,) tensor shaped to broadcast over axis 1 of an ``ndim``-d input."""
    return array.Reshape(weight, (1, -1) + (1,) * (ndim - 2))


# Samples for the loss primitives: every ``reduction``, class weights, an
# ``ignore_index`` that some labels hit, (N, C, d) inputs for NLLLoss, probabilities
# inside (0, 1) for BinaryCrossEntropy, and SmoothL1Loss differences away from ``beta``
# (where it switches from quadratic to linear).
REDUCTIONS = ("none", "mean", "sum")


def _probabilities(rng, shape):
    p = rng.uniform(0.1, 1.0, shape)
    return p / p.sum(axis=-1, keepdims=True)


def _log_probabilities(rng, shape):
    x = rng.standard_normal(shape)
    return x - np.log(np.exp(x).sum(axis=1, keepdims=True))


def _nll_cases(rng):
    """(logits, labels, weight, attrs): 2-d and (N, C, d) inputs, every reduction."""
    for reduction in REDUCTIONS:
        yield (_log_probabilities(rng, (3, 4)), np.array([0, 3, 1]),
               rng.uniform(0.5, 2.0, 4), {"reduction": reduction})
    yield (_log_probabilities(rng, (2, 3, 2)), np.array([[0, 2], [1, 1]]),
           rng.uniform(0.5, 2.0, 3), {"reduction": "none"})
    yield (_log_probabilities(rng, (2, 3, 2)), np.array([[0, 2], [1, 1]]),
           rng.uniform(0.5, 2.0, 3), {})
    yield (_log_probabilities(rng, (4, 3)), np.array([2, 1, 0, 1]),
           rng.uniform(0.5, 2.0, 3), {"ignore_index": 1})


def _sce_infer(logits, labels):
    _check_logits_2d(logits)
    check_dtype("labels", labels, FLOATS)
    _check_same_shape("labels", labels, "logits", logits)
    return TensorSpec(logits.shape[:1], logits.dtype), TensorSpec(logits.shape, logits.dtype)


SoftmaxCrossEntropyWithLogits = OpDef(
    "SoftmaxCrossEntropyWithLogits", (Arg("logits"), Arg("labels")),
    infer=_sce_infer, promote="common", nondiff_inputs=("labels",),
    doc="""Cross-entropy of ``softmax(logits)`` against dense ``labels``, both (N, C).

    Outputs ``(loss, backprop)``: ``loss`` (N,) is ``-sum(labels * log_softmax(logits))`` per
    row and ``backprop`` (N, C) is ``softmax(logits) - labels``, the gradient when each
    label row sums to 1. ``labels`` take no gradient (MindSpore's rule returns zeros).
    """)


@SoftmaxCrossEntropyWithLogits.kernel("CPU", dtypes=FLOATS)
def softmax_cross_entropy_cpu(logits, labels):
    x = _work(logits)
    return _loss.softmax_cross_entropy(x, np.ascontiguousarray(labels, dtype=x.dtype))


@SoftmaxCrossEntropyWithLogits.bprop
def softmax_cross_entropy_bprop(logits, labels, out, dout):
    """d loss / d logits = p * sum(labels) - labels with p = softmax(logits), which is
    ``backprop`` when labels sum to 1; d backprop / d logits is the softmax Jacobian."""
    d_loss, d_back = (_zeros_for(d, o) for d, o in zip(dout, out))
    p = Add(out[1], labels)
    mass = ReduceSum(labels, (1,), keep_dims=True)
    grad = Mul(array.Reshape(d_loss, (-1, 1)), Sub(Mul(p, mass), labels))
    grad = Add(grad, Mul(p, Sub(d_back, ReduceSum(Mul(d_back, p), (1,),
                                                            keep_dims=True))))
    return grad, None


@SoftmaxCrossEntropyWithLogits.samples
def _softmax_ce(rng):
    yield (rng.standard_normal((3, 4)), _probabilities(rng, (3, 4))), {}
    yield (rng.standard_normal((2, 5)), np.eye(5)[[1, 3]]), {}


def _sparse_sce_infer(logits, labels, is_grad=False):
    _check_logits_2d(logits)
    check_dtype("labels", labels, INTS)
    if labels.shape != logits.shape[:1]:
        raise ValueError(f"labels shape {shape_text(labels.shape)} must be (N,) = "
                         f"({logits.shape[0]},) for logits shape {shape_text(logits.shape)}")
    if not isinstance(is_grad, bool):
        raise TypeError(f"'is_grad' must be a bool, got {type(is_grad).__name__} {is_grad!r}")
    return TensorSpec(logits.shape if is_grad else (), logits.dtype)


SparseSoftmaxCrossEntropyWithLogits = OpDef(
    "SparseSoftmaxCrossEntropyWithLogits", (Arg("logits"), Arg("labels")),
    (Attr("is_grad", False),), infer=_sparse_sce_infer, nondiff_inputs=("labels",),
    doc="""Mean cross-entropy of ``softmax(logits)`` (N, C) against class indices
    ``labels`` (N,), a 0-d tensor; with ``is_grad=True`` it returns the gradient of that
    mean instead, ``(softmax(logits) - one_hot(labels)) / N``. Labels must lie in [0, C).
    """)


@SparseSoftmaxCrossEntropyWithLogits.kernel("CPU", dtypes=None)
def sparse_softmax_cross_entropy_cpu(logits, labels, is_grad=False):
    _check_labels(labels, logits.shape[1])
    if labels.dtype not in (np.int32, np.int64):
        labels = labels.astype(np.int64)
    return _loss.sparse_softmax_cross_entropy(_work(logits), np.ascontiguousarray(labels),
                                              is_grad)


@SparseSoftmaxCrossEntropyWithLogits.bprop
def sparse_softmax_cross_entropy_bprop(logits, labels, out, dout, is_grad=False):
    if not is_grad:
        return Mul(SparseSoftmaxCrossEntropyWithLogits(logits, labels, is_grad=True), dout), None
    from ms_ops.defs import softmax

    # out = (p - one_hot) / N: its derivative is the softmax Jacobian over N
    p = softmax.Softmax(logits, axis=-1)
    jvp = Mul(p, Sub(dout, ReduceSum(Mul(dout, p), (1,), keep_dims=True)))
    return Mul(jvp, 1.0 / logits.shape[0]), None


@SparseSoftmaxCrossEntropyWithLogits.samples
def _sparse_softmax_ce(rng):
    for is_grad in (False, True):
        yield (rng.standard_normal((3, 4)), rng.integers(0, 4, 3)), {"is_grad": is_grad}


def _nll_infer(logits, labels, weight, reduction="mean", ignore_index=-100):
    _check_reduction(reduction)
    per_item = _nll_shapes(logits, labels, weight)
    return (TensorSpec(per_item if reduction == "none" else (), logits.dtype),
            TensorSpec((), weight.dtype))


NLLLoss = OpDef(
    "NLLLoss", (Arg("logits"), Arg("labels"), Arg("weight")),
    (_REDUCTION, Attr("ignore_index", -100)), infer=_nll_infer,
    nondiff_inputs=("labels", "weight"),
    doc="""Negative log-likelihood: ``-weight[t] * logits[n, t]`` for each target ``t``,
    reduced (``'mean'`` divides by the total weight of the counted targets).

    ``logits`` is (N, C) or (N, C, d1, ...) (MindSpore's primitive takes (N, C); the extra
    dimensions serve ``ops.nll_loss``), ``labels`` has its shape without C. Targets equal
    to ``ignore_index`` count for nothing. Outputs ``(loss, total_weight)``.
    """)


@NLLLoss.kernel("CPU", dtypes=None)
def nll_loss_cpu(logits, labels, weight, reduction="mean", ignore_index=-100):
    _check_labels(labels, logits.shape[1], ignore_index)
    safe, w = _picked(labels, ignore_index, weight)
    loss = -w * np.take_along_axis(logits, safe[:, None], axis=1)[:, 0]
    total = w.sum()
    if reduction == "mean":
        with np.errstate(divide="ignore", invalid="ignore"):
            return loss.sum() / total, total
    return (loss if reduction == "none" else loss.sum()), total


@NLLLoss.bprop
def nll_loss_bprop(logits, labels, weight, out, dout, reduction="mean", ignore_index=-100):
    d_loss = _zeros_for(dout[0], out[0])
    grad = NLLLossGrad(logits, d_loss, labels, weight, out[1], reduction=reduction,
                       ignore_index=ignore_index)
    return grad, None, None


@NLLLoss.samples
def _nll(rng):
    for logits, labels, weight, attrs in _nll_cases(rng):
        yield (logits, labels, weight), attrs


def _nll_grad_infer(logits, loss_grad, labels, weight, total_weight, reduction="mean",
                    ignore_index=-100):
    _check_reduction(reduction)
    per_item = _nll_shapes(logits, labels, weight)
    want = per_item if reduction == "none" else ()
    if loss_grad.shape != want:
        raise ValueError(f"loss_grad shape {shape_text(loss_grad.shape)} must be "
                         f"{shape_text(want)} for reduction {reduction!r}")
    return TensorSpec(logits.shape, logits.dtype)


NLLLossGrad = OpDef(
    "NLLLossGrad",
    (Arg("logits"), Arg("loss_grad"), Arg("labels"), Arg("weight"), Arg("total_weight")),
    (_REDUCTION, Attr("ignore_index", -100)), infer=_nll_grad_infer,
    nondiff_inputs=("labels", "weight", "total_weight"),
    doc="Gradient of NLLLoss's loss with respect to ``logits``, given ``loss_grad``.")


@NLLLossGrad.kernel("CPU", dtypes=None)
def nll_loss_grad_cpu(logits, loss_grad, labels, weight, total_weight, reduction="mean",
                      ignore_index=-100):
    _check_labels(labels, logits.shape[1], ignore_index)
    safe, w = _picked(labels, ignore_index, weight)
    scale = loss_grad / total_weight if reduction == "mean" else loss_grad
    grad = np.zeros(logits.shape, np.result_type(logits, loss_grad))
    np.put_along_axis(grad, safe[:, None], (-w * scale)[:, None], axis=1)
    return grad


@NLLLossGrad.bprop
def nll_loss_grad_bprop(logits, loss_grad, labels, weight, total_weight, out, dout,
                        reduction="mean", ignore_index=-100):
    # the gradient is linear in loss_grad, with the same coefficients as NLLLoss itself
    g = NLLLoss(dout, labels, weight, reduction=reduction, ignore_index=ignore_index)[0]
    return Tensor(np.zeros(logits.shape, logits.dtype.np)), g, None, None, None


@NLLLossGrad.samples
def _nll_grad(rng):
    for logits, labels, weight, attrs in _nll_cases(rng):
        per_item = labels.shape if attrs.get("reduction", "mean") == "none" else ()
        ignored = labels == attrs.get("ignore_index", -100)
        total = np.array(np.where(ignored, 0.0, weight[labels]).sum())  # NLLLoss's
        yield (logits, rng.standard_normal(per_item), labels, weight, total), attrs


@functional("nll_loss")
def nll_loss(inputs, target, weight=None, ignore_index=-100, reduction="mean",
             label_smoothing=0.0):
    """Negative log-likelihood of log-probabilities ``inputs`` (N, C) or (N, C, d1, ...)
    for class indices ``target`` (N,) or (N, d1, ...).

    With ``label_smoothing`` ``s`` the loss is ``(1 - s) * nll + s / C * smooth``, where
    ``smooth`` is ``-sum_c weight[c] * inputs[:, c]``, reduced like ``nll`` (the mean
    divides both by the total weight of the counted targets).

    >>> x = Tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    >>> round(float(nll_loss(ops.log_softmax(x, 1), Tensor([2, 0], mstype.int32))), 4)
    0.7531
    """
    _check_functional_reduction("nll_loss", reduction)
    if inputs.ndim < 2:
        raise ValueError(f"nll_loss: inputs must be (N, C) or (N, C, d1, ...), got shape "
                         f"{inputs.shape}")
    n_classes = inputs.shape[1]
    weight = _full((n_classes,), inputs, 1.0) if weight is None else weight
    loss, total = NLLLoss(inputs, target, weight, reduction=reduction, ignore_index=ignore_index)
    if not label_smoothing:
        return loss
    from ms_ops.defs import comparison

    counted = array.Cast(comparison.NotEqual(target, ignore_index), inputs.dtype)
    smooth = Neg(Mul(ReduceSum(Mul(inputs, _per_class(weight, inputs.ndim)), (1,)),
                     counted))
    if reduction != "none":
        smooth = ReduceSum(smooth, ())
        if reduction == "mean":
            smooth = Div(smooth, total)
    return Add(Mul(loss, 1.0 - label_smoothing), Mul(smooth, label_smoothing / n_classes))


@functional("cross_entropy")
def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy between ``softmax(input)`` over axis 1 and ``target``.

    ``input`` is (C,), (N, C) or (N, C, d1, ...). ``target`` holds class indices (an
    integer tensor shaped like ``input`` without C) or class probabilities (a float tensor
    shaped like ``input``). ``weight`` (C,) rescales classes; ``label_smoothing`` mixes the
    target with the uniform distribution.

    >>> x = Tensor([[1.0, 2.0, 3.0], [1.0, 1.0, 1.0]])
    >>> round(float(cross_entropy(x, Tensor([2, 0], mstype.int32))), 4)
    0.7531
    """
    from ms_ops.defs import softmax

    _check_functional_reduction("cross_entropy", reduction)
    if input.ndim == 1:
        # one sample: the batch of one is squeezed away again by the reduction or below
        loss = cross_entropy(array.Reshape(input, (1, -1)),
                             array.Reshape(target, (1,) + target.shape), weight,
                             ignore_index, reduction, label_smoothing)
        return array.Reshape(loss, ()) if reduction == "none" else loss
    log_p = softmax.LogSoftmax(input, axis=1)
    if target.dtype not in FLOATS:
        return nll_loss(log_p, target, weight, ignore_index, reduction, label_smoothing)
    if target.shape != input.shape:
        raise ValueError(f"cross_entropy: class-probability target shape {target.shape} must "
                         f"equal input shape {input.shape}")
    n_classes = input.shape[1]
    if label_smoothing:
        target = Add(Mul(target, 1.0 - label_smoothing), label_smoothing / n_classes)
    if weight is not None:
        target = Mul(target, _per_class(weight, input.ndim))
    picked = Mul(log_p, target)
    if reduction == "none":
        return Neg(ReduceSum(picked, (1,)))
    total = Neg(ReduceSum(picked, ()))
    return Mul(total, n_classes / input.size) if reduction == "mean" else total
