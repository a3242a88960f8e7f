"""``ConfusionMatrixMetric``: rates derived from the per-sample, per-class confusion matrix
of binarized (N, C, ...) segmentation/classification outputs (sensitivity, specificity,
precision, F1, MCC, ... under their many names), as MindSpore's."""

from __future__ import annotations

import numpy as np

from ms_nn.train.metrics.metric import Metric, check_inputs, empty_error, rearrange_inputs

__all__ = ["ConfusionMatrixMetric"]

_ALIASES = {
    "tpr": ("sensitivity", "recall", "hit_rate", "true_positive_rate", "tpr"),
    "tnr": ("specificity", "selectivity", "true_negative_rate", "tnr"),
    "ppv": ("precision", "positive_predictive_value", "ppv"),
    "npv": ("negative_predictive_value", "npv"),
    "fnr": ("miss_rate", "false_negative_rate", "fnr"),
    "fpr": ("fall_out", "false_positive_rate", "fpr"),
    "fdr": ("false_discovery_rate", "fdr"),
    "for": ("false_omission_rate", "for"),
    "pt": ("prevalence_threshold", "pt"),
    "ts": ("threat_score", "critical_success_index", "ts", "csi"),
    "acc": ("accuracy", "acc"),
    "ba": ("balanced_accuracy", "ba"),
    "f1": ("f1_score", "f1"),
    "mcc": ("matthews_correlation_coefficient", "mcc"),
    "fm": ("fowlkes_mallows_index", "fm"),
    "bm": ("informedness", "bookmaker_informedness", "bm"),
    "mk": ("markedness", "deltap", "mk"),
}
_METRIC = {alias: key for key, aliases in _ALIASES.items() for alias in aliases}
_DECREASE = ("none", "mean", "sum", "mean_batch", "sum_batch", "mean_channel", "sum_channel")


def _metric_key(name: str) -> str:
    key = _METRIC.get(name.replace(" ", "_").lower())
    if key is None:
        raise ValueError(f"ConfusionMatrixMetric: unknown metric_name {name!r}; known: "
                         f"{', '.join(sorted(_METRIC))}")
    return key


def _ratio(num, den):
    num, den = np.asarray(num, float), np.asarray(den, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(den != 0, num / np.where(den != 0, den, 1), np.nan)


def _rates(tp, tn, p, n):
    return _ratio(tp, p), _ratio(tn, n)


def compute_metric(key: str, cm: np.ndarray) -> np.ndarray:
    """The metric ``key`` of confusion vectors ``cm[..., (tp, fp, tn, fn)]`` (nan where
    undefined)."""
    cm = cm[None] if cm.ndim == 1 else cm
    tp, fp, tn, fn = (cm[..., i] for i in range(4))
    p, n = tp + fn, fp + tn
    if key in ("pt", "ba", "bm"):
        tpr, tnr = _rates(tp, tn, p, n)
        if key == "pt":
            return _ratio(np.sqrt(tpr * (1.0 - tnr)) + tnr - 1.0, tpr + tnr - 1.0)
        return (tpr + tnr) / 2.0 if key == "ba" else tpr + tnr - 1.0
    if key == "fm":
        return np.sqrt(_ratio(tp, tp + fp) * _ratio(tp, p))
    if key == "mk":
        return _ratio(tp, tp + fp) + _ratio(tn, tn + fn) - 1.0
    if key == "mcc":
        return _ratio(tp * tn - fp * fn, np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)))
    num, den = {"tpr": (tp, p), "tnr": (tn, n), "ppv": (tp, tp + fp), "npv": (tn, tn + fn),
                "fnr": (fn, p), "fpr": (fp, n), "fdr": (fp, fp + tp), "for": (fn, fn + tn),
                "ts": (tp, tp + fn + fp), "acc": (tp + tn, p + n),
                "f1": (2.0 * tp, 2.0 * tp + fn + fp)}[key]
    return _ratio(num, den)


def confusion_vectors(y_pred, y, skip_channel=True) -> np.ndarray:
    """(N, C, 4) counts (tp, fp, tn, fn) per sample and class of binarized inputs."""
    if not np.all(y.astype(np.uint8) == y):
        raise ValueError("ConfusionMatrixMetric.update: y must be binarized (0/1)")
    if y_pred.ndim < 2:
        raise ValueError(f"ConfusionMatrixMetric.update: y_pred must have at least 2 axes "
                         f"(N, C, ...), got shape {y_pred.shape}")
    if not skip_channel:  # drop the background channel
        y = y[:, 1:] if y.shape[1] > 1 else y
        y_pred = y_pred[:, 1:] if y_pred.shape[1] > 1 else y_pred
    if y.shape != y_pred.shape:
        raise ValueError(f"ConfusionMatrixMetric.update: y_pred shape {y_pred.shape} and y "
                         f"shape {y.shape} must be equal")
    n, c = y_pred.shape[:2]
    y_pred, y = y_pred.reshape(n, c, -1).astype(float), y.reshape(n, c, -1).astype(float)
    tp = ((y_pred + y) == 2).sum(2).astype(float)
    tn = ((y_pred + y) == 0).sum(2).astype(float)
    p = y.sum(2)
    return np.stack([tp, y.shape[-1] - p - tn, tn, p - tp], axis=-1)


def _decrease(chart, how):
    """(reduced chart, count of the non-nan entries it reduced)."""
    nans = np.isnan(chart)
    kept = (~nans).astype(float)
    chart = np.where(nans, 0.0, chart)
    if how == "none":
        return chart, kept
    if how == "sum":
        return chart.sum(axis=(0, 1)), kept.sum(axis=(0, 1))
    axis = {"mean_batch": 0, "sum_batch": 0, "mean_channel": 1, "sum_channel": 1}.get(how, 1)
    count, total = kept.sum(axis=axis), chart.sum(axis=axis)
    if how.startswith("sum"):
        return total, count
    chart = np.where(count > 0, total / np.where(count > 0, count, 1), 0.0)
    if how != "mean":
        return chart, count
    count = (count > 0).astype(float).sum(axis=0)
    return np.where(count > 0, chart.sum(axis=0) / np.where(count > 0, count, 1), 0.0), count


class ConfusionMatrixMetric(Metric):
    """A confusion-matrix rate (``metric_name``) over binarized (N, C, ...) inputs: of the
    summed counts, or (``calculation_method=True``) averaged over the per-sample values
    as ``decrease`` says.

    >>> m = ConfusionMatrixMetric(metric_name="tpr")
    >>> m.update(Tensor([[[0.0], [1.0]], [[1.0], [1.0]]]), Tensor([[[0.0], [1.0]], [[0.0], [1.0]]]))
    >>> m.eval()
    array([1.])
    """

    def __init__(self, skip_channel=True, metric_name="sensitivity", calculation_method=False,
                 decrease="mean"):
        super().__init__()
        for name, v in (("skip_channel", skip_channel),
                        ("calculation_method", calculation_method)):
            if not isinstance(v, bool):
                raise TypeError(f"ConfusionMatrixMetric: {name} must be a bool, got {v!r}")
        if decrease not in _DECREASE:
            raise ValueError(f"ConfusionMatrixMetric: decrease must be one of "
                             f"{', '.join(_DECREASE)}, got {decrease!r}")
        self.skip_channel, self.metric_name = skip_channel, metric_name
        self.calculation_method, self.decrease = calculation_method, decrease
        self._key = _metric_key(metric_name)
        self.clear()

    def clear(self):
        self._total_num, self._class_num = 0.0, 0
        self._totals, self._summed = np.zeros(4), False

    @rearrange_inputs
    def update(self, *inputs):
        check_inputs("ConfusionMatrixMetric", inputs, 2)
        y_pred, y = (self._convert_data(v) for v in inputs)
        cm = confusion_vectors(y_pred, y, self.skip_channel)
        per_sample = self.calculation_method and not (
            y_pred.ndim == 2 or (y_pred.ndim == 3 and y_pred.shape[-1] == 1))
        if per_sample:
            score, count = _decrease(compute_metric(self._key, cm), self.decrease)
            count = int(np.asarray(count).item())
            self._total_num += float(np.asarray(score).item()) * count
            self._class_num += count
        else:  # 2-d inputs have one value per sample: their counts are summed
            self._totals += cm.sum(axis=(0, 1))
            self._summed = True

    def eval(self):
        if self._summed:
            return compute_metric(self._key, self._totals)
        if self._class_num == 0:
            raise empty_error(self)
        return self._total_num / self._class_num
