"""Layers: dense, activations, convolutions, pooling, normalization, embedding, LSTM and
transformer blocks, each a Cell computing with ms-ops."""

from ms_nn.layers.activation import (
    ELU,
    GELU,
    FastGelu,
    HSigmoid,
    HSwish,
    LeakyReLU,
    LogSoftmax,
    ReLU,
    ReLU6,
    Sigmoid,
    SiLU,
    Softmax,
    Softsign,
    Tanh,
    get_activation,
)
from ms_nn.layers.basic import Dense, Dropout, Flatten, Identity
from ms_nn.layers.conv import Conv1d, Conv2d, Conv2dTranspose
from ms_nn.layers.embedding import Embedding
from ms_nn.layers.normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm
from ms_nn.layers.pooling import (
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)
from ms_nn.layers.rnn import LSTM
from ms_nn.layers.transformer import MultiheadAttention, TransformerEncoderLayer

__all__ = [
    "Dense", "Flatten", "Dropout", "Identity",
    "ReLU", "ReLU6", "GELU", "FastGelu", "Sigmoid", "Tanh", "Softmax", "LogSoftmax",
    "LeakyReLU", "SiLU", "ELU", "Softsign", "HSwish", "HSigmoid", "get_activation",
    "Conv1d", "Conv2d", "Conv2dTranspose",
    "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "MaxPool1d", "AvgPool1d",
    "BatchNorm1d", "BatchNorm2d", "LayerNorm", "GroupNorm",
    "Embedding", "LSTM", "MultiheadAttention", "TransformerEncoderLayer",
]
