"""Explain a dataset with several methods and rank them (MindSpore's
``ImageClassificationRunner``)."""

from ms_insight.runner.image_classification import ImageClassificationRunner
from ms_insight.runner.result import ExplainResult

__all__ = ["ImageClassificationRunner", "ExplainResult"]
