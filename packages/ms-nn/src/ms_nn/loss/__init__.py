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

__all__ = ["LossBase", "SoftmaxCrossEntropyWithLogits", "CrossEntropyLoss", "NLLLoss",
           "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "BCELoss", "BCEWithLogitsLoss"]
