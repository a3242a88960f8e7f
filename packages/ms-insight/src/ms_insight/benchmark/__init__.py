"""Metrics that score explainers (MindSpore XAI's ``benchmark``): each has
``evaluate(explainer, inputs, targets, saliency)`` and pools its results."""

from ms_insight.benchmark.class_sensitivity import ClassSensitivity
from ms_insight.benchmark.faithfulness import Faithfulness
from ms_insight.benchmark.localization import Localization, boxes_to_mask
from ms_insight.benchmark.robustness import Robustness

__all__ = ["Faithfulness", "Localization", "Robustness", "ClassSensitivity", "boxes_to_mask"]
