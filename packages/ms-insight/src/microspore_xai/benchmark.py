"""``mindspore_xai.benchmark`` for microspore: ms-insight's explainer metrics."""

from ms_insight.benchmark import ClassSensitivity, Faithfulness, Localization, Robustness

__all__ = ["Faithfulness", "Localization", "Robustness", "ClassSensitivity"]
