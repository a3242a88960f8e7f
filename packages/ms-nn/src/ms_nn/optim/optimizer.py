"""``Optimizer``: the base of every optimizer (MindSpore's ``nn.Optimizer``).

It owns what all optimizers share: the learning rate (a number, a Tensor, a list with
one value per step, or a ``LearningRateSchedule``), parameter groups with their own
learning rate, weight decay and gradient centralization, loss-scale correction and the
``global_step`` counter. Subclasses call ``_prepare(gradients)`` and then update each
Parameter in place with a fused ms-ops kernel, or with operators written back through
``assign``.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.optim.learning_rate_schedule import LearningRateSchedule
from ms_tensor import Parameter, ParameterTuple, Tensor, float32
from ms_tensor.tensor import array_of

__all__ = ["Optimizer", "assign", "clone_state"]

_GROUP_KEYS = ("params", "lr", "weight_decay", "grad_centralization", "order_params")


def assign(param: Parameter, value: Tensor) -> Parameter:
    """Write ``value`` into ``param``'s buffer, which the network shares.

    Parameters stay the same objects (and the same arrays) for the whole run, so the
    network, the optimizer and checkpoints all see every update. The write is the
    ``Assign`` operator, so a graph trace of a training step sees it too.
    """
    return ops.Assign()(param, value)


def clone_state(params, prefix: str, init=0.0) -> ParameterTuple:
    """One accumulator per Parameter, named ``prefix.<parameter name>`` (MindSpore's
    names, so checkpoints carry optimizer state under the same keys), filled with
    ``init``."""
    return ParameterTuple(Parameter(Tensor(np.full(p.shape, init, array_of(p).dtype)),
                                    name=f"{prefix}.{p.name}", requires_grad=p.requires_grad)
                          for p in params)


class _IteratorLearningRate(LearningRateSchedule):
    """A list of learning rates read at ``global_step``."""

    def __init__(self, learning_rate: Tensor, name: str):
        super().__init__()
        self.learning_rate = Parameter(learning_rate, name=name)

    def construct(self, global_step):
        step = int(array_of(global_step).reshape(-1)[0])
        size = self.learning_rate.shape[0]
        if step >= size:
            raise RuntimeError(f"Optimizer: the learning-rate list has {size} values but "
                               f"training reached step {step}; give one value per step")
        return ops.gather(self.learning_rate, global_step, 0)


class _ConstantLearningRate(LearningRateSchedule):
    """A fixed rate among groups whose others are dynamic."""

    def __init__(self, learning_rate: Parameter):
        super().__init__()
        self.learning_rate = learning_rate

    def construct(self, global_step):
        return self.learning_rate


class _ScaledWeightDecay(Cell):
    """A weight-decay schedule times the loss scale (the gradients are still scaled
    when the decay is added)."""

    def __init__(self, weight_decay: Cell, loss_scale: float):
        super().__init__()
        self.weight_decay = weight_decay
        self.loss_scale = loss_scale

    def construct(self, global_step):
        return self.weight_decay(global_step) * self.loss_scale


class Optimizer(Cell):
    """Base class of optimizers; ``optimizer(gradients)`` updates the Parameters.

    Args:
        learning_rate: float, 0-d Tensor, list / 1-D Tensor (one rate per step), or a
            ``LearningRateSchedule``.
        parameters: list of Parameters, or of group dicts with ``params`` and optionally
            ``lr``, ``weight_decay``, ``grad_centralization``; a dict holding only
            ``order_params`` fixes the order of ``optimizer.parameters``.
        weight_decay: float or a Cell of the step. Without groups it is added to every
            Parameter whose name contains neither ``beta`` nor ``gamma``; with groups, to
            the groups whose decay is above 0.
        loss_scale: the gradients arrive multiplied by it; it is divided out.
    """

    def __init__(self, learning_rate, parameters, weight_decay=0.0, loss_scale=1.0):
        super().__init__(auto_prefix=False)
        parameters = self._parameters_base_check(parameters, "parameters")
        if not all(isinstance(p, Parameter) for p in parameters) and \
                not all(isinstance(p, dict) for p in parameters):
            raise TypeError(f"{self.cls_name}: every element of parameters must be a "
                            "Parameter, or every element a dict (parameter groups)")
        if isinstance(loss_scale, int) and not isinstance(loss_scale, bool):
            loss_scale = float(loss_scale)
        if not isinstance(loss_scale, float) or loss_scale <= 0:
            raise ValueError(f"{self.cls_name}: loss_scale must be a float > 0, got "
                             f"{loss_scale!r}")
        self.loss_scale = loss_scale
        self.need_scale = loss_scale != 1.0
        self.reciprocal_scale = Tensor(1.0 / loss_scale, float32)
        self.dynamic_lr = False
        self.dynamic_weight_decay = False
        self.is_group = isinstance(parameters[0], dict)
        self.is_group_lr = False
        self.global_step = Parameter(Tensor(np.zeros(1, np.int32)), name="global_step")
        learning_rate = self._preprocess_single_lr(learning_rate)
        if self.is_group:
            self._init_groups(parameters, learning_rate, weight_decay)
        else:
            self._init_flat(parameters, learning_rate, weight_decay)
        self.param_length = len(self._parameters)

    # -- construction ----------------------------------------------------------------
    def _parameters_base_check(self, parameters, what):
        if parameters is None:
            raise ValueError(f"{self.cls_name}: {what} cannot be None")
        if not isinstance(parameters, Iterable):
            raise TypeError(f"{self.cls_name}: {what} must be a list of Parameters or of "
                            f"group dicts, got {type(parameters).__name__}")
        parameters = list(parameters)
        if not parameters:
            raise ValueError(f"{self.cls_name}: {what} is empty; the optimizer has nothing "
                             "to update")
        return parameters

    def _preprocess_single_lr(self, learning_rate):
        """A float, a float32 0-d Tensor, a 1-D float32 Tensor (dynamic) or a schedule."""
        if isinstance(learning_rate, (int, float)) and not isinstance(learning_rate, bool):
            if learning_rate < 0:
                raise ValueError(f"{self.cls_name}: learning_rate must be >= 0, got "
                                 f"{learning_rate}")
            return float(learning_rate)
        if isinstance(learning_rate, Tensor) and learning_rate.ndim == 0:
            return Tensor(learning_rate.asnumpy(), float32)
        if isinstance(learning_rate, LearningRateSchedule):
            self.dynamic_lr = True
            return learning_rate
        if isinstance(learning_rate, Tensor):
            if learning_rate.ndim > 1:
                raise ValueError(f"{self.cls_name}: a Tensor learning_rate must be 0-d or 1-D, "
                                 f"got shape {learning_rate.shape}")
            self.dynamic_lr = True
            return Tensor(learning_rate.asnumpy(), float32)
        if isinstance(learning_rate, Iterable) and not isinstance(learning_rate, (str, bytes)):
            self.dynamic_lr = True
            return Tensor(np.asarray(list(learning_rate), np.float32))
        raise TypeError(f"{self.cls_name}: learning_rate must be a float, a Tensor, a list or "
                        f"a LearningRateSchedule, got {type(learning_rate).__name__}")

    def _build_single_lr(self, learning_rate, name):
        """A Parameter (fixed rate) or a schedule (dynamic rate)."""
        if isinstance(learning_rate, float):
            learning_rate = Parameter(Tensor(learning_rate, float32), name=name)
        elif isinstance(learning_rate, Tensor) and learning_rate.ndim == 0:
            learning_rate = Parameter(learning_rate, name=name)
        elif isinstance(learning_rate, Tensor):
            return _IteratorLearningRate(learning_rate, name)
        else:
            return learning_rate
        if self.is_group_lr and self.dynamic_lr:
            return _ConstantLearningRate(learning_rate)
        return learning_rate

    def _preprocess_weight_decay(self, weight_decay):
        if isinstance(weight_decay, Cell):
            self.dynamic_weight_decay = True
            return _ScaledWeightDecay(weight_decay, self.loss_scale)
        if isinstance(weight_decay, (int, float)) and not isinstance(weight_decay, bool):
            if weight_decay < 0:
                raise ValueError(f"{self.cls_name}: weight_decay must be >= 0, got "
                                 f"{weight_decay}")
            return float(weight_decay) * self.loss_scale
        raise TypeError(f"{self.cls_name}: weight_decay must be a float, an int or a Cell, "
                        f"got {type(weight_decay).__name__}")

    def _init_flat(self, parameters, learning_rate, weight_decay):
        self.learning_rate = self._build_single_lr(learning_rate, "learning_rate")
        self.parameters = ParameterTuple(parameters)
        self._parameters = self.parameters
        weight_decay = self._preprocess_weight_decay(weight_decay)
        self.decay_flags = tuple("beta" not in p.name and "gamma" not in p.name
                                 for p in parameters)
        if self.dynamic_weight_decay:
            self.weight_decay = weight_decay
            self.exec_weight_decay = True
        else:
            self.weight_decay = Tensor(weight_decay, float32)
            self.exec_weight_decay = weight_decay > 0
        self.grad_centralization_flags = (False,) * len(parameters)

    def _init_groups(self, groups, learning_rate, weight_decay):
        for g in groups:
            bad = [k for k in g if k not in _GROUP_KEYS]
            if bad:
                raise KeyError(f"{self.cls_name}: parameter group keys must be among "
                               f"{list(_GROUP_KEYS)}, got {bad}")
            if "order_params" in g and len(g) > 1:
                raise ValueError(f"{self.cls_name}: a group with 'order_params' must hold "
                                 f"nothing else, got keys {list(g)}")
            if "lr" in g:
                self.is_group_lr = True
                self._preprocess_single_lr(g["lr"])  # sets dynamic_lr for any dynamic group
        default_lr = self._build_single_lr(learning_rate, "learning_rate")
        params, lrs, decays, centralize, seen = [], [], [], [], set()
        order = None
        for i, g in enumerate(groups):
            if "order_params" in g:
                order = list(g["order_params"])
                continue
            lr = default_lr
            if "lr" in g:
                lr = self._build_single_lr(self._preprocess_single_lr(g["lr"]),
                                           f"learning_rate_group_{i}")
            wd = self._preprocess_weight_decay(g.get("weight_decay", weight_decay))
            gc = g.get("grad_centralization", False)
            if not isinstance(gc, bool):
                raise TypeError(f"{self.cls_name}: grad_centralization must be a bool, got "
                                f"{type(gc).__name__}")
            for p in self._parameters_base_check(g.get("params"), f"group {i}'s 'params'"):
                if not isinstance(p, Parameter):
                    raise TypeError(f"{self.cls_name}: group {i}'s 'params' must hold "
                                    f"Parameters, got {type(p).__name__}")
                if p.name in seen:
                    raise RuntimeError(f"{self.cls_name}: Parameter {p.name!r} is in more "
                                       "than one group; give each Parameter once")
                seen.add(p.name)
                params.append(p)
                lrs.append(lr)
                decays.append(wd)
                centralize.append(gc)
        if order is not None:
            if len(order) != len(params):
                raise ValueError(f"{self.cls_name}: order_params has {len(order)} Parameters "
                                 f"but the groups hold {len(params)}")
            where = {p.name: i for i, p in enumerate(params)}
            try:
                idx = [where[p.name] for p in order]
            except KeyError as e:
                raise ValueError(f"{self.cls_name}: order_params names {e.args[0]!r}, which "
                                 "is in no group") from None
            params, lrs, decays, centralize = ([seq[i] for i in idx]
                                               for seq in (params, lrs, decays, centralize))
        self.parameters = ParameterTuple(params)
        self._parameters = self.parameters
        if self.is_group_lr:
            # one entry per Parameter; groups share the same rate object
            self.learning_rate = tuple(lrs)
            unique = list({id(lr): lr for lr in lrs}.values())
            if self.dynamic_lr:
                for j, lr in enumerate(unique):
                    self.insert_child_to_cell(f"learning_rate_{j}", lr)
            else:
                self._group_learning_rates = ParameterTuple(unique)
        else:
            self.learning_rate = default_lr
        self.decay_flags = tuple(isinstance(wd, Cell) or wd > 0 for wd in decays)
        self.weight_decay = tuple(wd if isinstance(wd, Cell) else Tensor(wd, float32)
                                  for wd in decays)
        self.exec_weight_decay = any(self.decay_flags)
        self.grad_centralization_flags = tuple(centralize)

    # -- the pieces of a step ----------------------------------------------------------
    def get_weight_decay(self):
        """The weight decay of the current step (a tuple per Parameter with groups)."""
        if not self.dynamic_weight_decay:
            return self.weight_decay
        if self.is_group:
            return tuple(wd(self.global_step) if isinstance(wd, Cell) else wd
                         for wd in self.weight_decay)
        return self.weight_decay(self.global_step)

    def decay_weight(self, gradients):
        """``gradient + weight_decay * parameter`` where the decay applies."""
        if not self.exec_weight_decay:
            return gradients
        wd = self.get_weight_decay()
        decays = wd if self.is_group else itertools.repeat(wd)
        return tuple(ops.addn([ops.mul(p, ops.cast(d, p.dtype)), g]) if flag else g
                     for p, g, d, flag in zip(self._parameters, gradients, decays,
                                              self.decay_flags))

    def gradients_centralization(self, gradients):
        """Subtract the mean over all but the first axis, for groups that ask for it
        (only gradients of rank >= 2 whose second dimension is a multiple of 16)."""
        if not any(self.grad_centralization_flags):
            return gradients
        out = []
        for g, flag in zip(gradients, self.grad_centralization_flags):
            if flag and g.ndim >= 2 and g.shape[1] % 16 == 0:
                g = g - ops.mean(g, tuple(range(1, g.ndim)), True)
            out.append(g)
        return tuple(out)

    def scale_grad(self, gradients):
        """Divide the loss scale out of the gradients."""
        if not self.need_scale:
            return gradients
        return tuple(ops.mul(g, ops.cast(self.reciprocal_scale, g.dtype)) for g in gradients)

    def flatten_gradients(self, gradients):
        """Parameters are never flattened into one buffer here, so this is the identity."""
        return gradients

    def get_lr(self):
        """The learning rate of the current step: a Parameter or Tensor, or a tuple of
        them (one per Parameter) with group learning rates."""
        lr = self.learning_rate
        if self.dynamic_lr:
            if self.is_group_lr:
                cache = {}
                for sched in lr:
                    if id(sched) not in cache:
                        cache[id(sched)] = sched(self.global_step).reshape(())
                return tuple(cache[id(s)] for s in lr)
            return lr(self.global_step).reshape(())
        return lr

    def get_lr_parameter(self, param):
        """The learning rate (Parameter, or schedule when dynamic) of ``param``, or a list
        for a list of Parameters."""
        params = [param] if isinstance(param, Parameter) else param
        if not isinstance(params, list):
            raise TypeError(f"{self.cls_name}.get_lr_parameter: param must be a Parameter or "
                            f"a list of them, got {type(param).__name__}")
        ids = [id(p) for p in self._parameters]
        out = []
        for p in params:
            if not isinstance(p, Parameter):
                raise TypeError(f"{self.cls_name}.get_lr_parameter: expected Parameters, got "
                                f"{type(p).__name__}")
            if id(p) not in ids:
                raise ValueError(f"{self.cls_name}.get_lr_parameter: Parameter {p.name!r} is "
                                 "not updated by this optimizer")
            lr = self.learning_rate[ids.index(id(p))] if self.is_group_lr else self.learning_rate
            if isinstance(lr, (_ConstantLearningRate, _IteratorLearningRate)):
                lr = lr.learning_rate
            out.append(lr)
        return out if isinstance(param, list) else out[0]

    def _prepare(self, gradients):
        """Decay, centralize and unscale the gradients, read the learning rate and
        advance ``global_step``; returns ``(gradients, per-Parameter learning rates)``."""
        gradients = tuple(gradients)
        if len(gradients) != len(self._parameters):
            raise ValueError(f"{self.cls_name}: got {len(gradients)} gradients for "
                             f"{len(self._parameters)} parameters; pass one per Parameter in "
                             "optimizer.parameters, in that order")
        gradients = self.decay_weight(gradients)
        gradients = self.gradients_centralization(gradients)
        gradients = self.scale_grad(gradients)
        lr = self.get_lr()
        ops.AssignAdd()(self.global_step, 1)
        lrs = lr if self.is_group_lr else itertools.repeat(lr)
        return gradients, lrs

    def construct(self, *hyper_params):
        raise NotImplementedError(f"{self.cls_name}: an Optimizer subclass must implement "
                                  "construct(gradients)")
