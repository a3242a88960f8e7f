"""The ``mint.nn`` namespace: PyTorch-shaped layers (``mint_nn_layers``, ``mint_nn_simple``)
plus the ``nn`` layers whose constructors already are PyTorch's (``ReLU``, ``Identity``,
the padding layers, ``PixelShuffle``, ``SoftMarginLoss``, ``AdaptiveMaxPool2d``)."""

from __future__ import annotations

from ms_nn.cell import Cell
from ms_nn.layers import mint_nn_layers, mint_nn_simple
from ms_nn.layers.activation import ReLU
from ms_nn.layers.basic import Identity
from ms_nn.layers.mint_nn_layers import *  # noqa: F403
from ms_nn.layers.mint_nn_simple import *  # noqa: F403
from ms_nn.layers.padding import (
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
)
from ms_nn.layers.pooling import AdaptiveMaxPool2d
from ms_nn.layers.reshaping import PixelShuffle
from ms_nn.loss.loss_extra import SoftMarginLoss

__all__ = [*mint_nn_layers.__all__, *mint_nn_simple.__all__, "Cell", "ReLU", "Identity",
           "ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ReflectionPad1d",
           "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "AdaptiveMaxPool2d", "PixelShuffle", "SoftMarginLoss"]
