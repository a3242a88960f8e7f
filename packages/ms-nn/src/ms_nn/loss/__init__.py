"""Loss Cells (``nn.MSELoss``, ``nn.SoftmaxCrossEntropyWithLogits``, ...)."""

from ms_nn.loss.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    L1Loss,
    LossBase,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
    SoftmaxCrossEntropyWithLogits,
)
from ms_nn.loss.loss_extra import *  # noqa: F403
from ms_nn.loss.loss_extra import __all__ as _extra

__all__ = ["LossBase", "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "NLLLoss",
           "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss",
           *_extra]
