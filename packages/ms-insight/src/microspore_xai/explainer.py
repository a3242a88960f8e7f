"""``mindspore_xai.explainer`` for microspore: ms-insight's explainers."""

from ms_insight.explainer import (
    RISE,
    Deconvolution,
    GradCAM,
    Gradient,
    GuidedBackprop,
    HierarchicalOcclusion,
    Occlusion,
    RISEPlus,
)

__all__ = ["Gradient", "Deconvolution", "GuidedBackprop", "GradCAM", "Occlusion", "RISE",
           "RISEPlus", "HierarchicalOcclusion"]
