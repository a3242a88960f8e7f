"""Optimizers and learning-rate schedules (MindSpore's ``nn.optim`` and
``nn.learning_rate_schedule`` / ``nn.dynamic_lr``)."""

from ms_nn.optim.ada_extra import Adadelta, AdaMax
from ms_nn.optim.ada_grad import Adagrad
from ms_nn.optim.adam import Adam, AdamW, AdamWeightDecay
from ms_nn.optim.dynamic_lr import (
    cosine_decay_lr,
    exponential_decay_lr,
    inverse_decay_lr,
    natural_exp_decay_lr,
    piecewise_constant_lr,
    polynomial_decay_lr,
    warmup_lr,
)
from ms_nn.optim.learning_rate_schedule import (
    CosineDecayLR,
    ExponentialDecayLR,
    InverseDecayLR,
    LearningRateSchedule,
    NaturalExpDecayLR,
    PolynomialDecayLR,
    WarmUpLR,
)
from ms_nn.optim.momentum import Momentum
from ms_nn.optim.optimizer import Optimizer
from ms_nn.optim.rmsprop import RMSProp
from ms_nn.optim.sgd import SGD

__all__ = ["Optimizer", "Momentum", "SGD", "Adam", "AdamWeightDecay", "AdamW", "RMSProp",
           "Adagrad", "Adadelta", "AdaMax", "LearningRateSchedule", "ExponentialDecayLR",
           "NaturalExpDecayLR", "InverseDecayLR", "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR",
           "piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr",
           "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]
