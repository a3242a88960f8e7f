"""Evaluation metrics with MindSpore's ``clear`` / ``update`` / ``eval`` protocol."""

from __future__ import annotations

from ms_nn.train.metrics.accuracy import Accuracy
from ms_nn.train.metrics.confusion_matrix import ConfusionMatrix
from ms_nn.train.metrics.confusion_matrix_metric import ConfusionMatrixMetric
from ms_nn.train.metrics.loss import Loss
from ms_nn.train.metrics.metric import Metric, rearrange_inputs
from ms_nn.train.metrics.occlusion_sensitivity import OcclusionSensitivity
from ms_nn.train.metrics.precision_recall import F1, Fbeta, Precision, Recall
from ms_nn.train.metrics.regression import MAE, MSE
from ms_nn.train.metrics.roc import ROC, auc
from ms_nn.train.metrics.scores_more import BleuScore, CosineSimilarity, Dice, Perplexity
from ms_nn.train.metrics.surface_distance import (
    HausdorffDistance,
    MeanSurfaceDistance,
    RootMeanSquareDistance,
)
from ms_nn.train.metrics.topk import (
    Top1CategoricalAccuracy,
    Top5CategoricalAccuracy,
    TopKCategoricalAccuracy,
)

__all__ = ["Metric", "rearrange_inputs", "Accuracy", "Precision", "Recall", "Fbeta", "F1",
           "Loss", "TopKCategoricalAccuracy", "Top1CategoricalAccuracy",
           "Top5CategoricalAccuracy", "ConfusionMatrix", "MAE", "MSE", "names", "get_metric_fn",
           "get_metrics", "ConfusionMatrixMetric", "OcclusionSensitivity", "ROC", "auc",
           "BleuScore", "CosineSimilarity", "Dice", "Perplexity", "HausdorffDistance",
           "MeanSurfaceDistance", "RootMeanSquareDistance"]

# The names Model(metrics={...}) accepts, as in MindSpore.
_METRICS = {
    "accuracy": Accuracy,
    "acc": Accuracy,
    "precision": Precision,
    "recall": Recall,
    "F1": F1,
    "loss": Loss,
    "mae": MAE,
    "mse": MSE,
    "top_1_accuracy": Top1CategoricalAccuracy,
    "top_5_accuracy": Top5CategoricalAccuracy,
    "dice": Dice,
    "roc": ROC,
    "bleu_score": BleuScore,
    "cosine_similarity": CosineSimilarity,
    "confusion_matrix": ConfusionMatrix,
    "perplexity": Perplexity,
    "hausdorff_distance": HausdorffDistance,
    "mean_surface_distance": MeanSurfaceDistance,
    "root_mean_square_distance": RootMeanSquareDistance,
    "occlusion_sensitivity": OcclusionSensitivity,
    "confusion_matrix_metric": ConfusionMatrixMetric,
}


def names() -> list[str]:
    """The metric names that ``get_metric_fn`` and ``Model(metrics=...)`` accept, sorted."""
    return sorted(_METRICS)


def get_metric_fn(name: str, *args, **kwargs) -> Metric:
    """A new metric object from its name (``"acc"``, ``"loss"``, ...)."""
    if name not in _METRICS:
        raise KeyError(f"unknown metric {name!r}; known names: {', '.join(names())}")
    return _METRICS[name](*args, **kwargs)


def get_metrics(metrics) -> dict | None:
    """Normalize ``Model``'s ``metrics``: a set of names or a dict of name -> Metric/name."""
    if metrics is None:
        return None
    if isinstance(metrics, dict):
        out = {}
        for key, value in metrics.items():
            if isinstance(value, str):
                value = get_metric_fn(value)
            if not isinstance(value, Metric):
                raise TypeError(f"metrics[{key!r}] must be a Metric or a metric name, got "
                                f"{type(value).__name__}")
            out[key] = value
        return out
    if isinstance(metrics, (set, list, tuple)):
        return {name: get_metric_fn(name) for name in metrics}
    raise TypeError(f"metrics must be a set of names or a dict, got {type(metrics).__name__}")
