"""Learning rates as precomputed lists, one value per training step.

An optimizer given a list (or a 1-D Tensor) uses entry ``global_step`` at each step.
The functions take steps in epochs of ``step_per_epoch`` steps, as MindSpore's do, and
compute in Python floats (double precision), as MindSpore's do.
"""

from __future__ import annotations

import math

__all__ = ["piecewise_constant_lr", "exponential_decay_lr", "natural_exp_decay_lr",
           "inverse_decay_lr", "cosine_decay_lr", "polynomial_decay_lr", "warmup_lr"]


def _int(who, name, value):
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{who}: {name} must be an int, got {type(value).__name__}")
    if value <= 0:
        raise ValueError(f"{who}: {name} must be > 0, got {value}")


def _float(who, name, value, allow_zero=False):
    if isinstance(value, bool) or not isinstance(value, float):
        raise TypeError(f"{who}: {name} must be a float, got {type(value).__name__}")
    if value < 0 or (value == 0 and not allow_zero):
        raise ValueError(f"{who}: {name} must be {'>= 0' if allow_zero else '> 0'}, got {value}")


def _epochs(who, total_step, step_per_epoch, decay_epoch, decay_name="decay_epoch"):
    _int(who, "total_step", total_step)
    _int(who, "step_per_epoch", step_per_epoch)
    _int(who, decay_name, decay_epoch)
    return [i // step_per_epoch for i in range(total_step)]


def _decay_inputs(who, learning_rate, decay_rate, is_stair):
    _float(who, "learning_rate", learning_rate)
    _float(who, "decay_rate", decay_rate)
    if not isinstance(is_stair, bool):
        raise TypeError(f"{who}: is_stair must be a bool, got {type(is_stair).__name__}")


def piecewise_constant_lr(milestone, learning_rates):
    """``learning_rates[i]`` for the steps before ``milestone[i]``.

    >>> piecewise_constant_lr([2, 5], [0.1, 0.05])
    [0.1, 0.1, 0.05, 0.05, 0.05]
    """
    who = "piecewise_constant_lr"
    if not isinstance(milestone, (list, tuple)) or not isinstance(learning_rates, (list, tuple)):
        raise TypeError(f"{who}: milestone and learning_rates must be lists or tuples")
    if len(milestone) != len(learning_rates):
        raise ValueError(f"{who}: milestone has {len(milestone)} entries but learning_rates "
                         f"has {len(learning_rates)}; they must be the same size")
    lr, last = [], 0
    for i, (stop, rate) in enumerate(zip(milestone, learning_rates)):
        _int(who, f"milestone[{i}]", stop)
        _float(who, f"learning_rates[{i}]", rate, allow_zero=True)
        if stop < last:
            raise ValueError(f"{who}: milestone must not decrease, got milestone[{i}] {stop} "
                             f"after {last}")
        lr += [rate] * (stop - last)
        last = stop
    return lr


def exponential_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """``learning_rate * decay_rate ** (epoch / decay_epoch)`` per step (the exponent
    floored with ``is_stair``).

    >>> exponential_decay_lr(0.1, 0.5, 4, 1, 2, is_stair=True)
    [0.1, 0.1, 0.05, 0.05]
    """
    who = "exponential_decay_lr"
    _decay_inputs(who, learning_rate, decay_rate, is_stair)
    epochs = _epochs(who, total_step, step_per_epoch, decay_epoch)
    if is_stair:
        return [learning_rate * decay_rate ** (e // decay_epoch) for e in epochs]
    return [learning_rate * decay_rate ** (e / decay_epoch) for e in epochs]


def natural_exp_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                         is_stair=False):
    """``learning_rate * e ** (-decay_rate * epoch)`` per step (epoch rounded down to a
    multiple of ``decay_epoch`` with ``is_stair``)."""
    who = "natural_exp_decay_lr"
    _decay_inputs(who, learning_rate, decay_rate, is_stair)
    epochs = _epochs(who, total_step, step_per_epoch, decay_epoch)
    if is_stair:
        epochs = [e // decay_epoch * decay_epoch for e in epochs]
    return [learning_rate * math.e ** (-decay_rate * e) for e in epochs]


def inverse_decay_lr(learning_rate, decay_rate, total_step, step_per_epoch, decay_epoch,
                     is_stair=False):
    """``learning_rate / (1 + decay_rate * epoch / decay_epoch)`` per step (the ratio
    floored with ``is_stair``)."""
    who = "inverse_decay_lr"
    _decay_inputs(who, learning_rate, decay_rate, is_stair)
    epochs = _epochs(who, total_step, step_per_epoch, decay_epoch)
    if is_stair:
        return [learning_rate / (1 + decay_rate * (e // decay_epoch)) for e in epochs]
    return [learning_rate / (1 + decay_rate * e / decay_epoch) for e in epochs]


def cosine_decay_lr(min_lr, max_lr, total_step, step_per_epoch, decay_epoch):
    """Half a cosine from ``max_lr`` to ``min_lr`` over ``decay_epoch`` epochs, then
    ``min_lr``.

    >>> cosine_decay_lr(0.0, 0.1, 3, 1, 2)
    [0.1, 0.05, 0.0]
    """
    who = "cosine_decay_lr"
    _float(who, "min_lr", min_lr, allow_zero=True)
    _float(who, "max_lr", max_lr)
    if min_lr >= max_lr:
        raise ValueError(f"{who}: max_lr must be greater than min_lr, got max_lr {max_lr}, "
                         f"min_lr {min_lr}")
    epochs = _epochs(who, total_step, step_per_epoch, decay_epoch)
    delta = 0.5 * (max_lr - min_lr)
    return [min_lr + delta * (1 + math.cos(math.pi * min(e, decay_epoch) / decay_epoch))
            for e in epochs]


def polynomial_decay_lr(learning_rate, end_learning_rate, total_step, step_per_epoch,
                        decay_epoch, power, update_decay_epoch=False):
    """``(learning_rate - end) * (1 - epoch / decay_epoch) ** power + end`` per step, the
    epoch capped at ``decay_epoch``; with ``update_decay_epoch`` the horizon grows to the
    next multiple of ``decay_epoch`` instead."""
    who = "polynomial_decay_lr"
    _float(who, "learning_rate", learning_rate)
    _float(who, "end_learning_rate", end_learning_rate, allow_zero=True)
    _float(who, "power", power)
    if not isinstance(update_decay_epoch, bool):
        raise TypeError(f"{who}: update_decay_epoch must be a bool, got "
                        f"{type(update_decay_epoch).__name__}")
    epochs = _epochs(who, total_step, step_per_epoch, decay_epoch)
    delta = learning_rate - end_learning_rate
    lr = []
    for e in epochs:
        if update_decay_epoch:
            horizon, done = decay_epoch * max(math.ceil(e / decay_epoch), 1), e
        else:
            horizon, done = decay_epoch, min(e, decay_epoch)
        lr.append(delta * (1 - done / horizon) ** power + end_learning_rate)
    return lr


def warmup_lr(learning_rate, total_step, step_per_epoch, warmup_epoch):
    """A linear ramp from 0 to ``learning_rate`` over ``warmup_epoch`` epochs.

    >>> warmup_lr(0.1, 4, 1, 2)
    [0.0, 0.05, 0.1, 0.1]
    """
    who = "warmup_lr"
    _float(who, "learning_rate", learning_rate, allow_zero=True)
    epochs = _epochs(who, total_step, step_per_epoch, warmup_epoch, "warmup_epoch")
    return [learning_rate * min(e, warmup_epoch) / warmup_epoch for e in epochs]
