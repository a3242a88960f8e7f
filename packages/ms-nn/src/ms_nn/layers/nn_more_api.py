"""The ``nn`` names of the 1-d/3-d convolution, pooling, normalization and dropout layers,
and MindSpore 2.x's ``*Ext`` layers, which are the ``mint.nn`` layers under ``nn`` names
(``nn.Linear`` is ``mint.nn.Linear`` in MindSpore too)."""

from __future__ import annotations

from ms_nn.layers import (
    conv_more,
    dropout_more,
    fused_more,
    image_cells,
    math_cells,
    norm_more,
    pooling_more,
    rnn_more,
    transformer_more,
)
from ms_nn.layers.conv_more import *  # noqa: F403
from ms_nn.layers.dropout_more import *  # noqa: F403
from ms_nn.layers.fused_more import *  # noqa: F403
from ms_nn.layers.image_cells import *  # noqa: F403
from ms_nn.layers.math_cells import *  # noqa: F403
from ms_nn.layers.mint_nn_layers import Embedding as EmbeddingExt
from ms_nn.layers.mint_nn_layers import LayerNorm as LayerNormExt
from ms_nn.layers.mint_nn_layers import Linear
from ms_nn.layers.mint_nn_layers import PReLU as PReLUExt
from ms_nn.layers.mint_nn_simple import AvgPool1d as AvgPool1dExt
from ms_nn.layers.mint_nn_simple import AvgPool2d as AvgPool2dExt
from ms_nn.layers.mint_nn_simple import AvgPool3d as AvgPool3dExt
from ms_nn.layers.mint_nn_simple import Dropout as DropoutExt
from ms_nn.layers.mint_nn_simple import Dropout2d as Dropout2dExt
from ms_nn.layers.mint_nn_simple import L1Loss as L1LossExt
from ms_nn.layers.mint_nn_simple import LogSoftmax as LogSoftmaxExt
from ms_nn.layers.mint_nn_simple import MaxPool2d as MaxPool2dExt
from ms_nn.layers.mint_nn_simple import MaxUnpool2d, Upsample
from ms_nn.layers.norm_more import *  # noqa: F403
from ms_nn.layers.pooling_more import *  # noqa: F403
from ms_nn.layers.rnn_more import *  # noqa: F403
from ms_nn.layers.transformer_more import *  # noqa: F403
from ms_nn.loss import loss_more
from ms_nn.loss.ctc import CTCLoss
from ms_nn.loss.loss_more import *  # noqa: F403
from ms_nn.optim.adafactor import AdaFactor
from ms_nn.optim.lamb import Lamb
from ms_nn.optim.rprop_asgd import ASGD, Rprop
from ms_nn.wrap.grad_wrappers import ForwardValueAndGrad, WithGradCell

__all__ = [*conv_more.__all__, *dropout_more.__all__, *norm_more.__all__, *image_cells.__all__,
           *math_cells.__all__, *loss_more.__all__,
           *pooling_more.__all__, *rnn_more.__all__, *transformer_more.__all__,
           "EmbeddingExt", "LayerNormExt", "Linear",
           "PReLUExt",
           "AvgPool1dExt", "AvgPool2dExt", "AvgPool3dExt", "DropoutExt", "Dropout2dExt",
           "L1LossExt", "LogSoftmaxExt", "MaxPool2dExt", "MaxUnpool2d", "Upsample",
           "ASGD", "Rprop", "ForwardValueAndGrad", "WithGradCell", *fused_more.__all__,
           "CTCLoss", "Lamb", "AdaFactor"]
