"""Learning-rate schedules: Cells mapping the optimizer's ``global_step`` to a rate.

An optimizer given a schedule calls it with its ``global_step`` (an int32 Tensor of
shape ``(1,)``) before every update. The arithmetic is float32 operators, as in
MindSpore, so the rates match its values bit for bit where the operators do.
"""

from __future__ import annotations

import math

import ms_ops as ops
from ms_nn.cell import Cell
from ms_tensor import Tensor, float32

__all__ = ["LearningRateSchedule", "ExponentialDecayLR", "NaturalExpDecayLR", "InverseDecayLR",
           "CosineDecayLR", "PolynomialDecayLR", "WarmUpLR"]


class LearningRateSchedule(Cell):
    """Base class: subclasses implement ``construct(global_step)`` returning a Tensor."""

    def construct(self, global_step):
        raise NotImplementedError(f"{self.cls_name}: a LearningRateSchedule must implement "
                                  "construct(global_step)")


def _step(global_step) -> Tensor:
    if not isinstance(global_step, Tensor):
        global_step = Tensor(global_step)
    return ops.cast(global_step, float32)


def _check_positive_float(cls, name, value, allow_zero=False):
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(f"{cls}: {name} must be a float, got {type(value).__name__}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{cls}: {name} must be {'>= 0' if allow_zero else '> 0'}, got {value}")


def _check_positive_int(cls, name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{cls}: {name} must be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{cls}: {name} must be > 0, got {value}")


def _check_decay(cls, learning_rate, decay_rate, decay_steps, is_stair):
    _check_positive_float(cls, "learning_rate", learning_rate)
    _check_positive_float(cls, "decay_rate", decay_rate)
    _check_positive_int(cls, "decay_steps", decay_steps)
    if not isinstance(is_stair, bool):
        raise TypeError(f"{cls}: is_stair must be a bool, got {type(is_stair).__name__}")


class ExponentialDecayLR(LearningRateSchedule):
    """``learning_rate * decay_rate ** (step / decay_steps)``; with ``is_stair`` the
    exponent is floored, so the rate drops once every ``decay_steps``.

    >>> float(ExponentialDecayLR(0.1, 0.9, 4, is_stair=True)(Tensor(4)))  # doctest: +ELLIPSIS
    0.0899...
    """

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _check_decay(self.cls_name, learning_rate, decay_rate, decay_steps, is_stair)
        self.learning_rate = learning_rate
        self.decay_rate = decay_rate
        self.decay_steps = decay_steps
        self.is_stair = is_stair

    def construct(self, global_step):
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate * ops.pow(Tensor(self.decay_rate, float32), p)


class NaturalExpDecayLR(LearningRateSchedule):
    """``learning_rate * e ** (-decay_rate * step)``; with ``is_stair`` the step is
    rounded down to a multiple of ``decay_steps``."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _check_decay(self.cls_name, learning_rate, decay_rate, decay_steps, is_stair)
        self.learning_rate = learning_rate
        self.decay_rate = decay_rate
        self.decay_steps = decay_steps
        self.is_stair = is_stair

    def construct(self, global_step):
        p = _step(global_step)
        if self.is_stair:
            p = ops.floor(p / self.decay_steps) * self.decay_steps
        return self.learning_rate * ops.pow(Tensor(math.e, float32), -self.decay_rate * p)


class InverseDecayLR(LearningRateSchedule):
    """``learning_rate / (1 + decay_rate * step / decay_steps)`` (floored with
    ``is_stair``)."""

    def __init__(self, learning_rate, decay_rate, decay_steps, is_stair=False):
        super().__init__()
        _check_decay(self.cls_name, learning_rate, decay_rate, decay_steps, is_stair)
        self.learning_rate = learning_rate
        self.decay_rate = decay_rate
        self.decay_steps = decay_steps
        self.is_stair = is_stair

    def construct(self, global_step):
        p = _step(global_step) / self.decay_steps
        if self.is_stair:
            p = ops.floor(p)
        return self.learning_rate / (1 + self.decay_rate * p)


class CosineDecayLR(LearningRateSchedule):
    """Half a cosine from ``max_lr`` at step 0 down to ``min_lr`` at ``decay_steps``,
    then ``min_lr``.

    >>> round(float(CosineDecayLR(0.01, 0.1, 4)(Tensor(2))), 6)
    0.055
    """

    def __init__(self, min_lr, max_lr, decay_steps):
        super().__init__()
        _check_positive_float(self.cls_name, "min_lr", min_lr, allow_zero=True)
        _check_positive_float(self.cls_name, "max_lr", max_lr)
        _check_positive_int(self.cls_name, "decay_steps", decay_steps)
        if min_lr >= max_lr:
            raise ValueError(f"{self.cls_name}: max_lr must be greater than min_lr, got "
                             f"max_lr {max_lr}, min_lr {min_lr}")
        self.min_lr = min_lr
        self.max_lr = max_lr
        self.decay_steps = decay_steps
        self.delta = 0.5 * (max_lr - min_lr)

    def construct(self, global_step):
        p = ops.minimum(_step(global_step), float(self.decay_steps))
        # sin(pi * (p + 0.5)) is cos(pi * p); written as MindSpore writes it, so that the
        # float32 rounding is the same
        return self.min_lr + self.delta * (1.0 + ops.sin(math.pi * (p / self.decay_steps + 0.5)))


class PolynomialDecayLR(LearningRateSchedule):
    """``(learning_rate - end) * (1 - step / decay_steps) ** power + end``, the step
    capped at ``decay_steps``; with ``update_decay_steps`` the horizon grows to the next
    multiple of ``decay_steps`` instead."""

    def __init__(self, learning_rate, end_learning_rate, decay_steps, power,
                 update_decay_steps=False):
        super().__init__()
        _check_positive_float(self.cls_name, "learning_rate", learning_rate)
        _check_positive_float(self.cls_name, "end_learning_rate", end_learning_rate,
                              allow_zero=True)
        _check_positive_float(self.cls_name, "power", power)
        _check_positive_int(self.cls_name, "decay_steps", decay_steps)
        if not isinstance(update_decay_steps, bool):
            raise TypeError(f"{self.cls_name}: update_decay_steps must be a bool, got "
                            f"{type(update_decay_steps).__name__}")
        self.learning_rate = learning_rate
        self.end_learning_rate = end_learning_rate
        self.decay_steps = decay_steps
        self.power = power
        self.update_decay_steps = update_decay_steps
        self.diff_learning_rate = learning_rate - end_learning_rate

    def construct(self, global_step):
        step = _step(global_step)
        horizon = float(self.decay_steps)
        if self.update_decay_steps:
            horizon = horizon * ops.maximum(ops.ceil(step / horizon), 1.0)
        else:
            step = ops.minimum(step, horizon)
        p = step / horizon
        return self.diff_learning_rate * ops.pow(1.0 - p, self.power) + self.end_learning_rate


class WarmUpLR(LearningRateSchedule):
    """``learning_rate * min(step, warmup_steps) / warmup_steps``: a linear ramp from 0."""

    def __init__(self, learning_rate, warmup_steps):
        super().__init__()
        _check_positive_float(self.cls_name, "learning_rate", learning_rate, allow_zero=True)
        _check_positive_int(self.cls_name, "warmup_steps", warmup_steps)
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps

    def construct(self, global_step):
        p = ops.minimum(_step(global_step), float(self.warmup_steps)) / self.warmup_steps
        return self.learning_rate * p
