"""Counterfactual hierarchical occlusion (HOC), MindInsight's counterfactual explanation.

For an image and a label: which smallest part of the image, kept while the rest is
occluded, still makes the network give the label a probability above a threshold? The
search goes from coarse windows to fine ones. At each layer the windows inside the
region kept so far are scored alone, then added greedily, best first, until the
union keeps the prediction; that union is the next layer's region. Each layer is one
step the dashboard shows.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ms_insight.explainer._common import as_inputs, as_targets, forward_probs

__all__ = ["HierarchicalOcclusion", "HOCResult", "HOCStep"]


@dataclass
class HOCStep:
    """One layer of the search: the window size and the region kept after it."""

    window: int
    mask: np.ndarray
    prob: float
    regions: list = field(default_factory=list)


@dataclass
class HOCResult:
    """The search for one sample: ``found`` when the full image reaches the threshold
    (else there is no prediction to keep); ``mask`` the final kept region (``(H, W)``
    bool), ``steps`` from coarse to fine."""

    label: int
    prob: float
    found: bool
    mask: np.ndarray
    masked_prob: float
    steps: list

    @property
    def kept_fraction(self) -> float:
        return float(self.mask.mean())


class HierarchicalOcclusion:
    """Counterfactual explanation by hierarchical occlusion.

    Args:
        network: the classifier Cell.
        activation_fn: logits to probabilities (``nn.Softmax()``).
        threshold: the probability the kept region must keep for the label.
        window_sizes: window edge per layer, coarse to fine (default ``H/2, H/4, H/8``,
            at least 2); windows move by half their size.
        baseline: value occluded pixels take.
        perturbation_per_eval: images per forward pass.

    ``hoc(inputs, targets)`` returns one ``HOCResult`` per sample.

    >>> import numpy as np, ms_nn as nn
    >>> from ms_tensor import Tensor
    >>> net = nn.SequentialCell([nn.Flatten(), nn.Dense(64, 2)])
    >>> hoc = HierarchicalOcclusion(net, nn.Softmax(), threshold=0.0)
    >>> r = hoc(np.ones((1, 1, 8, 8), np.float32), 0)
    >>> r[0].found, r[0].mask.shape
    (True, (8, 8))
    """

    def __init__(self, network, activation_fn, threshold: float = 0.5, window_sizes=None,
                 baseline: float = 0.0, perturbation_per_eval: int = 64):
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"HierarchicalOcclusion: threshold must be in [0, 1], got {threshold}")
        network.set_train(False)
        self.network = network
        self._activation_fn = activation_fn
        self._threshold = float(threshold)
        self._window_sizes = window_sizes
        self._baseline = float(baseline)
        self._per_eval = perturbation_per_eval

    def _probs(self, sample, masks, label):
        keep = masks[:, None]
        batch = np.where(keep, sample[None], self._baseline).astype(np.float32)
        return forward_probs(self.network, self._activation_fn, batch, self._per_eval)[:, label]

    def _sizes(self, h, w):
        if self._window_sizes is not None:
            sizes = [int(s) for s in self._window_sizes]
            if not sizes or min(sizes) < 1:
                raise ValueError(f"HierarchicalOcclusion: window_sizes must be positive ints, "
                                 f"got {self._window_sizes!r}")
            return sizes
        edge = min(h, w)
        return sorted({max(edge // d, 2) for d in (2, 4, 8)}, reverse=True)

    def __call__(self, inputs, targets):
        x = as_inputs(inputs, "HierarchicalOcclusion")
        t = as_targets(targets, len(x), "HierarchicalOcclusion")
        return [self._explain(x[i], int(t[i])) for i in range(len(x))]

    def _explain(self, sample, label) -> HOCResult:
        _, h, w = sample.shape
        full = np.ones((h, w), bool)
        prob = float(self._probs(sample, full[None], label)[0])
        result = HOCResult(label, prob, False, full, prob, [])
        if prob < self._threshold:
            return result
        region = full
        for size in self._sizes(h, w):
            step = self._layer(sample, label, region, size)
            if step is None:
                break
            if step.mask.sum() == region.sum():
                continue  # nothing can be dropped at this scale; a finer one may
            result.steps.append(step)
            region = step.mask
            result.masked_prob = step.prob
        result.found = True
        result.mask = region
        return result

    def _layer(self, sample, label, region, size):
        """The smallest greedy union of ``size`` windows inside ``region`` that keeps the
        label's probability at the threshold, or None when no window fits or none keeps it."""
        h, w = region.shape
        stride = max(size // 2, 1)
        boxes, masks = [], []
        for top in range(0, max(h - size, 0) + 1, stride):
            for left in range(0, max(w - size, 0) + 1, stride):
                m = np.zeros_like(region)
                m[top:top + size, left:left + size] = True
                m &= region
                if m.any():
                    boxes.append((top, left, size, size))
                    masks.append(m)
        if not masks:
            return None
        masks = np.stack(masks)
        order = np.argsort(-self._probs(sample, masks, label), kind="stable")
        unions = np.logical_or.accumulate(masks[order], axis=0)
        probs = self._probs(sample, unions, label)
        ok = np.nonzero(probs >= self._threshold)[0]
        if len(ok) == 0:
            return None
        k = int(ok[0])
        return HOCStep(size, unions[k], float(probs[k]), [boxes[j] for j in order[:k + 1]])
