"""The names ms-nn exports from optimizers, schedules, wrappers and mixed precision
(``ms_nn/__init__.py`` imports them from here)."""

from ms_nn.amp import (
    DynamicLossScaleManager,
    DynamicLossScaler,
    FixedLossScaleManager,
    LossScaleManager,
    LossScaler,
    StaticLossScaler,
    auto_mixed_precision,
    build_train_network,
)
from ms_nn.optim import (
    SGD,
    Adagrad,
    Adam,
    AdamW,
    AdamWeightDecay,
    CosineDecayLR,
    ExponentialDecayLR,
    InverseDecayLR,
    LearningRateSchedule,
    Momentum,
    NaturalExpDecayLR,
    Optimizer,
    PolynomialDecayLR,
    RMSProp,
    WarmUpLR,
    cosine_decay_lr,
    exponential_decay_lr,
    inverse_decay_lr,
    natural_exp_decay_lr,
    piecewise_constant_lr,
    polynomial_decay_lr,
    warmup_lr,
)
from ms_nn.wrap import (
    DynamicLossScaleUpdateCell,
    FixedLossScaleUpdateCell,
    TrainOneStepCell,
    TrainOneStepWithLossScaleCell,
    WithEvalCell,
    WithLossCell,
    all_finite,
)

__all__ = [
    # mindspore.nn
    "Optimizer", "Momentum", "SGD", "Adam", "AdamWeightDecay", "AdamW", "RMSProp", "Adagrad",
    "LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
    "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR", "piecewise_constant_lr",
    "exponential_decay_lr", "natural_exp_decay_lr", "inverse_decay_lr", "cosine_decay_lr",
    "polynomial_decay_lr", "warmup_lr", "WithLossCell", "WithEvalCell", "TrainOneStepCell",
    "TrainOneStepWithLossScaleCell", "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
    # mindspore.amp (the managers are also mindspore.train and top-level names)
    "auto_mixed_precision", "build_train_network", "LossScaleManager", "FixedLossScaleManager",
    "DynamicLossScaleManager", "LossScaler", "StaticLossScaler", "DynamicLossScaler",
    "all_finite",
]

# the part of ``__all__`` that ``mindspore.amp`` offers
AMP_NAMES = tuple(__all__[__all__.index("auto_mixed_precision"):])
