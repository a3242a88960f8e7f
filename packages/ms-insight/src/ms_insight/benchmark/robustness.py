"""Robustness: how much the saliency map moves when the input moves a little without
changing the prediction (max sensitivity)."""

from __future__ import annotations

import numpy as np

from ms_insight.benchmark._base import LabelSensitiveMetric, saliency_array
from ms_insight.explainer._common import forward_probs, to_tensor

__all__ = ["Robustness"]


class Robustness(LabelSensitiveMetric):
    """Max-sensitivity robustness, as ``exp(-max ||S(x+d) - S(x)|| / ||S(x)||)`` in (0, 1].

    Args:
        num_labels: number of classes.
        activation_fn: logits to probabilities.
        num_perturbations: noisy copies tried per sample (10, as MindSpore XAI).
        radius: the noise is uniform in ``[-radius, radius]``.
        threshold: a noisy copy counts only if the probabilities move by at most this
            (L2); each copy is redrawn up to 3 times to meet it.
        seed: seed of the noise.

    A zero saliency map gives NaN (no relative change is defined).

    >>> import numpy as np, ms_nn as nn
    >>> from ms_insight.explainer import Gradient
    >>> net = nn.SequentialCell([nn.Flatten(), nn.Dense(64, 3)])
    >>> r = Robustness(3, nn.Softmax(), seed=0)
    >>> float(r.evaluate(Gradient(net), np.ones((1, 1, 8, 8), np.float32), 1)[0]) == 1.0
    True
    """

    def __init__(self, num_labels: int, activation_fn, num_perturbations: int = 10,
                 radius: float = 0.2, threshold: float = 0.1, seed: int | None = None):
        super().__init__(num_labels)
        if not callable(activation_fn):
            raise TypeError("Robustness: activation_fn must be a Cell such as nn.Softmax()")
        self._activation_fn = activation_fn
        self._num = num_perturbations
        self._radius = radius
        self._threshold = threshold
        self._rng = np.random.default_rng(seed)

    def _noisy(self, network, sample, probs):
        noisy = sample
        for _ in range(3):
            noisy = sample + self._rng.uniform(-self._radius, self._radius, sample.shape)
            moved = forward_probs(network, self._activation_fn, noisy[None].astype(np.float32), 1)
            if np.linalg.norm(moved[0] - probs) <= self._threshold:
                break
        return noisy.astype(np.float32)

    def evaluate(self, explainer, inputs, targets, saliency=None) -> np.ndarray:
        x = self._check(explainer, inputs, "Robustness")
        t = self._targets(targets, len(x), "Robustness")
        s = saliency_array(explainer, x, t, saliency, "Robustness")
        net = explainer.network
        probs = forward_probs(net, self._activation_fn, x, 64)
        out = []
        for i in range(len(x)):
            norm = np.linalg.norm(s[i])
            if norm == 0:
                out.append(np.nan)
                continue
            noisy = np.stack([self._noisy(net, x[i], probs[i]) for _ in range(self._num)])
            moved = explainer(to_tensor(noisy), [int(t[i])] * self._num, show=False).asnumpy()
            sens = np.sqrt(((moved - s[i][None]) ** 2).sum(axis=(1, 2, 3))).max() / norm
            out.append(float(np.exp(-sens)))
        return np.array(out, float)
