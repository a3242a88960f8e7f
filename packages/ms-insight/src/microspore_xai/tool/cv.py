"""``mindspore_xai.tool.cv`` for microspore: the OoD detector RISEPlus uses."""

from ms_insight.explainer.ood_net import OoDNet

__all__ = ["OoDNet"]
