"""What the metrics share: the explainer and argument checks, per-label aggregation of
results, and the pixel ranking the perturbation metrics delete or insert by."""

from __future__ import annotations

import numpy as np

from ms_insight.explainer._common import as_inputs, as_targets, to_tensor

__all__ = ["LabelSensitiveMetric", "LabelAgnosticMetric", "saliency_array", "rank_masks"]


def saliency_array(explainer, x, targets, saliency, who):
    """``saliency`` as an ``(N, 1, H, W)`` array, computed by ``explainer`` when None."""
    if saliency is None:
        saliency = explainer(to_tensor(x), targets, show=False)
    s = saliency.asnumpy() if hasattr(saliency, "asnumpy") else np.asarray(saliency)
    if s.ndim == 3:
        s = s[:, None]
    if s.ndim != 4 or s.shape[0] != x.shape[0] or s.shape[2:] != x.shape[2:]:
        raise ValueError(f"{who}: saliency must be (N, 1, H, W) matching inputs {x.shape}, got "
                         f"{s.shape}")
    return s.astype(np.float64)


def rank_masks(saliency_hw: np.ndarray, fraction: float, accumulate: bool) -> np.ndarray:
    """Boolean ``(steps, H, W)`` masks of pixels by falling saliency: ``sqrt(H*W)`` steps
    covering ``fraction`` of the pixels, each step the next block (or, with
    ``accumulate``, everything up to it)."""
    flat = saliency_hw.reshape(-1)
    steps = int(np.floor(np.sqrt(flat.size)))
    per_step = int(np.floor(flat.size * fraction / steps))
    rank = np.empty(flat.size, np.int64)
    rank[np.argsort(-flat, kind="stable")] = np.arange(flat.size)
    ends = (np.arange(steps) + 1) * per_step
    starts = np.zeros(steps, np.int64) if accumulate else ends - per_step
    masks = (rank[None] >= starts[:, None]) & (rank[None] < ends[:, None])
    return masks.reshape((steps,) + saliency_hw.shape)


class _Metric:
    def __init__(self):
        self._explainer = None

    def _check(self, explainer, inputs, who):
        if not callable(explainer) or not hasattr(explainer, "network"):
            raise TypeError(f"{who}: explainer must be an explainer (with .network), got "
                            f"{type(explainer).__name__}")
        if self._explainer is None:
            self._explainer = explainer
        elif self._explainer is not explainer:
            raise ValueError(f"{who}: this metric object already evaluates another explainer; "
                             "call reset() or make a new one per explainer")
        return as_inputs(inputs, who)


class LabelAgnosticMetric(_Metric):
    """A metric whose results are pooled over all samples."""

    def __init__(self):
        super().__init__()
        self._results: list[float] = []

    def aggregate(self, result) -> None:
        self._results.extend(np.asarray(result, float).reshape(-1).tolist())

    @property
    def performance(self) -> float:
        r = [v for v in self._results if not np.isnan(v)]
        return float(np.mean(r)) if r else 0.0

    def get_results(self) -> list:
        return list(self._results)

    def reset(self) -> None:
        self._results = []  # a new list: copies of this metric must not share one
        self._explainer = None


class LabelSensitiveMetric(_Metric):
    """A metric whose results are kept per label (``class_performances``)."""

    def __init__(self, num_labels: int):
        super().__init__()
        if not isinstance(num_labels, int) or num_labels < 1:
            raise ValueError(f"{type(self).__name__}: num_labels must be a positive int, got "
                             f"{num_labels!r}")
        self._num_labels = num_labels
        self._results = {i: [] for i in range(num_labels)}

    @property
    def num_labels(self) -> int:
        return self._num_labels

    def _targets(self, targets, n, who):
        return as_targets(targets, n, who, self._num_labels)

    def aggregate(self, result, targets) -> None:
        result = np.asarray(result, float).reshape(-1)
        t = as_targets(targets, len(result), type(self).__name__, self._num_labels)
        for value, label in zip(result, t):
            self._results[int(label)].append(float(value))

    @property
    def class_performances(self) -> list[float]:
        out = []
        for label in range(self._num_labels):
            r = [v for v in self._results[label] if not np.isnan(v)]
            out.append(float(np.mean(r)) if r else 0.0)
        return out

    @property
    def performance(self) -> float:
        r = [v for vs in self._results.values() for v in vs if not np.isnan(v)]
        return float(np.mean(r)) if r else 0.0

    def get_results(self) -> dict:
        return {k: list(v) for k, v in self._results.items()}

    def reset(self) -> None:
        self._results = {i: [] for i in range(self._num_labels)}
        self._explainer = None
