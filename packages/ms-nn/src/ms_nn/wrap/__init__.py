"""Cells that wrap a network for training and evaluation (MindSpore's ``nn.wrap``)."""

from ms_nn.wrap.cell_wrapper import TrainOneStepCell, WithEvalCell, WithLossCell
from ms_nn.wrap.loss_scale import (
    DynamicLossScaleUpdateCell,
    FixedLossScaleUpdateCell,
    TrainOneStepWithLossScaleCell,
    all_finite,
)
from ms_nn.wrap.pipeline_cell import PipelineCell

__all__ = ["WithLossCell", "WithEvalCell", "TrainOneStepCell", "TrainOneStepWithLossScaleCell",
           "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell", "all_finite", "PipelineCell"]
