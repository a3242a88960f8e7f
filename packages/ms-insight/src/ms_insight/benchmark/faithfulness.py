"""Faithfulness: does removing what the saliency map calls important change the
prediction the most? Three readings of it (MindSpore XAI's), all in [0, 1], higher is
more faithful; deleted pixels become 0."""

from __future__ import annotations

import numpy as np

from ms_insight.benchmark._base import LabelSensitiveMetric, rank_masks, saliency_array
from ms_insight.explainer._common import forward_probs

__all__ = ["Faithfulness"]

_FRACTION = 0.5  # of the pixels perturbed, in sqrt(H*W) steps
_BASE = 0.0


def _auc(curve: np.ndarray) -> float:
    """MindSpore XAI's area: the mean of the curve without its two end points' full weight."""
    return float((curve.sum() - curve[0] - curve[-1]) / len(curve))


class Faithfulness(LabelSensitiveMetric):
    """Faithfulness of an explainer's saliency maps.

    Args:
        num_labels: number of classes of the network.
        activation_fn: logits to probabilities (``nn.Softmax()``).
        metric: ``"NaiveFaithfulness"`` (negative correlation between the mean saliency of
            each deleted block of pixels and the probability left), ``"DeletionAUC"``
            (1 - area under the probability left as the most salient pixels go) or
            ``"InsertionAUC"`` (area under the probability rise as they are put back on a
            blank image).

    ``evaluate(explainer, inputs, targets, saliency=None)`` returns ``(N,)`` scores.

    >>> import numpy as np, ms_nn as nn
    >>> from ms_insight.explainer import Gradient
    >>> net = nn.SequentialCell([nn.Flatten(), nn.Dense(64, 3)])
    >>> f = Faithfulness(3, nn.Softmax(), "DeletionAUC")
    >>> f.evaluate(Gradient(net), np.ones((1, 1, 8, 8), np.float32), 1).shape
    (1,)
    """

    METRICS = ("NaiveFaithfulness", "DeletionAUC", "InsertionAUC")

    def __init__(self, num_labels: int, activation_fn, metric: str = "NaiveFaithfulness"):
        super().__init__(num_labels)
        if metric not in self.METRICS:
            raise ValueError(f"Faithfulness: metric must be one of {list(self.METRICS)}, got "
                             f"{metric!r}")
        if not callable(activation_fn):
            raise TypeError("Faithfulness: activation_fn must be a Cell such as nn.Softmax()")
        self._activation_fn = activation_fn
        self._metric = metric

    def evaluate(self, explainer, inputs, targets, saliency=None) -> np.ndarray:
        who = f"Faithfulness({self._metric})"
        x = self._check(explainer, inputs, who)
        t = self._targets(targets, len(x), who)
        s = saliency_array(explainer, x, t, saliency, who)
        scores = [self._one(explainer.network, x[i], int(t[i]), s[i].mean(axis=0))
                  for i in range(len(x))]
        return (1 + np.asarray(scores, float)) / 2

    def _probs(self, network, batch, label):
        return forward_probs(network, self._activation_fn, batch.astype(np.float32), 64)[:, label]

    def _one(self, network, sample, label, sal_hw) -> float:
        accumulate = self._metric != "NaiveFaithfulness"
        masks = rank_masks(sal_hw, _FRACTION, accumulate)[:, None]
        if self._metric == "InsertionAUC":
            perturbed = np.where(masks, sample[None], _BASE)
        else:
            perturbed = np.where(masks, _BASE, sample[None])
        probs = self._probs(network, perturbed, label)
        if self._metric == "DeletionAUC":
            # The area under the probability left: small when the salient pixels carry
            # the prediction. (MindSpore XAI 1.8.1 takes the area under the probability
            # *drop*, which ranks a random map above a faithful one; see docs/xai.md.)
            return 1.0 - _auc(probs)
        if self._metric == "InsertionAUC":
            base = self._probs(network, np.full_like(sample, _BASE)[None], label)[0]
            return _auc(probs - base)
        if sal_hw.max() == sal_hw.min() or probs.max() == probs.min():
            return 0.0  # a uniform map, or deletions that change nothing: no correlation
        importance = (sal_hw[None] * masks[:, 0]).sum(axis=(1, 2)) / masks[:, 0].sum(axis=(1, 2))
        return float(-np.corrcoef(importance, probs)[0, 1])
