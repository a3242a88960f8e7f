"""Saliency explainers with MindSpore XAI's API (``explainer(inputs, targets)`` returns
``(N, 1, H, W)`` maps) and the counterfactual hierarchical occlusion.

``create(name, network, ...)`` builds any explainer registered through the
``ms_register_explainers`` hook, ms-insight's own and those of plugins.
"""

from ms_insight.explainer.backprop import Deconvolution, Gradient, GuidedBackprop
from ms_insight.explainer.gradcam import GradCAM
from ms_insight.explainer.hoc import HierarchicalOcclusion, HOCResult, HOCStep
from ms_insight.explainer.occlusion import Occlusion
from ms_insight.explainer.ood_net import OoDNet
from ms_insight.explainer.rise import RISE, RISEPlus

__all__ = ["Gradient", "Deconvolution", "GuidedBackprop", "GradCAM", "Occlusion", "RISE",
           "RISEPlus", "OoDNet", "HierarchicalOcclusion", "HOCResult", "HOCStep", "create",
           "names"]

def names() -> list[str]:
    """The names of every registered explainer."""
    from ms_tensor import registry

    return registry.load().names("explainer")


def create(name: str, network, *args, **kwargs):
    """The registered explainer ``name`` built on ``network``.

    >>> import ms_nn as nn
    >>> create("Gradient", nn.SequentialCell([nn.Flatten(), nn.Dense(4, 2)])).name
    'Gradient'
    """
    from ms_tensor import registry

    cls = registry.load().lookup("explainer", name)
    if cls is None:
        raise ValueError(f"no explainer named {name!r}; registered: {', '.join(names())}")
    return cls(network, *args, **kwargs)
