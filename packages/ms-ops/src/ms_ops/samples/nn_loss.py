"""Samples for the loss primitives: every ``reduction``, class weights, an
``ignore_index`` that some labels hit, (N, C, d) inputs for NLLLoss, probabilities
inside (0, 1) for BinaryCrossEntropy, and SmoothL1Loss differences away from ``beta``
(where it switches from quadratic to linear)."""

import numpy as np

REDUCTIONS = ("none", "mean", "sum")


def _probabilities(rng, shape):
    p = rng.uniform(0.1, 1.0, shape)
    return p / p.sum(axis=-1, keepdims=True)


def _log_probabilities(rng, shape):
    x = rng.standard_normal(shape)
    return x - np.log(np.exp(x).sum(axis=1, keepdims=True))


def _softmax_ce(rng):
    yield (rng.standard_normal((3, 4)), _probabilities(rng, (3, 4))), {}
    yield (rng.standard_normal((2, 5)), np.eye(5)[[1, 3]]), {}


def _sparse_softmax_ce(rng):
    for is_grad in (False, True):
        yield (rng.standard_normal((3, 4)), rng.integers(0, 4, 3)), {"is_grad": is_grad}


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


def _nll(rng):
    for logits, labels, weight, attrs in _nll_cases(rng):
        yield (logits, labels, weight), attrs


def _nll_grad(rng):
    for logits, labels, weight, attrs in _nll_cases(rng):
        per_item = labels.shape if attrs.get("reduction", "mean") == "none" else ()
        ignored = labels == attrs.get("ignore_index", -100)
        total = np.array(np.where(ignored, 0.0, weight[labels]).sum())  # NLLLoss's
        yield (logits, rng.standard_normal(per_item), labels, weight, total), attrs


def _bce(rng):
    for reduction in REDUCTIONS:
        yield (rng.uniform(0.1, 0.9, (3, 4)), rng.uniform(0.0, 1.0, (3, 4)),
               rng.uniform(0.5, 2.0, (3, 4))), {"reduction": reduction}
    yield (rng.uniform(0.1, 0.9, (3, 4)), (rng.random((3, 4)) < 0.5).astype(float),
           rng.uniform(0.5, 2.0, (4,))), {}


def _bce_logits(rng):
    for reduction in REDUCTIONS:
        yield (rng.standard_normal((3, 4)), rng.uniform(0.0, 1.0, (3, 4)),
               rng.uniform(0.5, 2.0, (3, 4)), rng.uniform(0.5, 2.0, (3, 4))), \
            {"reduction": reduction}
    yield (rng.standard_normal((3, 4)), (rng.random((3, 4)) < 0.5).astype(float),
           rng.uniform(0.5, 2.0, (4,)), rng.uniform(0.5, 2.0, (1,))), {}


def _smooth_l1(rng):
    """|logits - labels| in [0.05, 0.8] or [1.2, 2.5] times beta: both branches, no
    point on the switch."""
    for beta, reduction in ((1.0, "none"), (1.0, "mean"), (0.5, "sum")):
        labels = rng.standard_normal((2, 3))
        gap = np.array([[0.05, 0.4, 0.8], [1.2, 1.8, 2.5]]) * beta
        sign = rng.choice([-1.0, 1.0], (2, 3))
        yield (labels + sign * gap, labels), {"beta": beta, "reduction": reduction}


SAMPLES = {
    "SoftmaxCrossEntropyWithLogits": _softmax_ce,
    "SparseSoftmaxCrossEntropyWithLogits": _sparse_softmax_ce,
    "NLLLoss": _nll, "NLLLossGrad": _nll_grad, "BinaryCrossEntropy": _bce,
    "BCEWithLogitsLoss": _bce_logits, "SmoothL1Loss": _smooth_l1,
}
