"""Mixed precision: ``auto_mixed_precision`` (levels O0-O3), ``build_train_network``,
loss-scale managers and loss scalers (MindSpore's ``mindspore.amp``).

How float16 compute works here: ``Cell.to_float(float16)`` casts a cell's floating-point
inputs before ``construct``; Parameters stay float32 (the master weights the optimizer
updates) and layers cast them to their input's dtype where they compute. Cells that must
stay float32 (BatchNorm, LayerNorm) are switched back with ``to_float(float32)`` and
their output is cast to float16 for the next cell. The loss is computed in float32.
"""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.wrap.cell_wrapper import TrainOneStepCell, WithLossCell
from ms_nn.wrap.loss_scale import (
    DynamicLossScaleUpdateCell,
    FixedLossScaleUpdateCell,
    TrainOneStepWithLossScaleCell,
    all_finite,
)
from ms_tensor import Parameter, Tensor, bfloat16, float16, float32, int32

__all__ = ["auto_mixed_precision", "build_train_network", "LossScaleManager",
           "FixedLossScaleManager", "DynamicLossScaleManager", "LossScaler", "StaticLossScaler",
           "DynamicLossScaler", "all_finite", "get_white_list", "get_black_list",
           "custom_mixed_precision"]

_LEVELS = ("O0", "O1", "O2", "O3")


def _cell_types(*names):
    """Layer classes by name; the layers package may be absent in a trimmed install."""
    from ms_nn import layers

    return tuple(getattr(layers, n) for n in names if hasattr(layers, n))


def get_white_list() -> list:
    """Cells that O1 runs in float16 (the matrix-multiply kinds)."""
    return list(_cell_types("Conv1d", "Conv2d", "Conv3d", "Conv1dTranspose", "Conv2dTranspose",
                            "Conv3dTranspose", "Dense", "LSTMCell", "RNNCell", "GRUCell"))


def get_black_list() -> list:
    """Cells that O2 keeps in float32 (normalizations)."""
    return list(_cell_types("BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "LayerNorm"))


class _CastOutput(Cell):
    """Runs a cell and casts its floating-point output to ``dtype``; adds no name prefix,
    so the wrapped cell's Parameters keep their names."""

    def __init__(self, backbone, dtype):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self.dtype = dtype

    def construct(self, *args, **kwargs):
        return _cast(self._backbone(*args, **kwargs), self.dtype)


def _cast(out, dtype):
    if isinstance(out, tuple):
        return tuple(_cast(o, dtype) for o in out)
    if isinstance(out, Tensor) and out.dtype in (float16, bfloat16, float32) and out.dtype != dtype:
        return ops.cast(out, dtype)
    return out


def _replace_children(network, kinds, make):
    """Replace every descendant cell of one of ``kinds`` by ``make(cell)``."""
    for name, child in list(network.name_cells().items()):
        if isinstance(child, kinds):
            network._cells[name] = make(child)
        else:
            _replace_children(child, kinds, make)


def auto_mixed_precision(network, amp_level="O0", dtype=float16):
    """Set ``network`` up for mixed precision and return it.

    - O0: unchanged.
    - O1: white-list cells (Dense, Conv, ...) compute in ``dtype``; their outputs return
      to float32.
    - O2: everything in ``dtype`` except black-list cells (BatchNorm, LayerNorm); the
      network's output is cast to float32.
    - O3: everything in ``dtype``; the output is cast to float32.
    """
    if not isinstance(network, Cell):
        raise TypeError(f"auto_mixed_precision: network must be a Cell, got "
                        f"{type(network).__name__}")
    if dtype not in (float16, bfloat16):
        raise ValueError(f"auto_mixed_precision: dtype must be float16 or bfloat16, got {dtype}")
    if amp_level not in _LEVELS:
        raise ValueError(f"auto_mixed_precision: amp_level must be one of {list(_LEVELS)}, got "
                         f"{amp_level!r}")
    if amp_level == "O0":
        return network
    if amp_level == "O1":
        kinds = tuple(get_white_list())
        if isinstance(network, kinds):
            network = _CastOutput(network.to_float(dtype), float32)
        else:
            _replace_children(network, kinds, lambda c: _CastOutput(c.to_float(dtype), float32))
    else:
        network.to_float(dtype)
        if amp_level == "O2":
            _replace_children(network, tuple(get_black_list()),
                              lambda c: _CastOutput(c.to_float(float32), dtype))
        network = _CastOutput(network, float32)
    network._amp_level = amp_level
    return network



def custom_mixed_precision(network, *, white_list=None, black_list=None, dtype=float16):
    """Mixed precision with the caller's own lists (MindSpore's ``amp.custom_mixed_precision``).

    ``white_list``: the cells of these classes compute in ``dtype`` (as O1 does with
    ``get_white_list()``). ``black_list``: everything computes in ``dtype`` except cells of
    these classes (as O2 does with ``get_black_list()``); the output returns to float32.
    Lists hold Cell classes; a Primitive class is refused by name, since operators are not
    cast one by one here (MindSpore's blacklist refuses Primitives too).
    """
    if not isinstance(network, Cell):
        raise TypeError(f"custom_mixed_precision: network must be a Cell, got "
                        f"{type(network).__name__}")
    if (white_list is None) == (black_list is None):
        raise ValueError("custom_mixed_precision: give exactly one of white_list and black_list")
    if dtype not in (float16, bfloat16):
        raise ValueError(f"custom_mixed_precision: dtype must be float16 or bfloat16, got {dtype}")
    kinds = tuple(white_list if white_list is not None else black_list)
    for kind in kinds:
        if not (isinstance(kind, type) and issubclass(kind, Cell)):
            raise TypeError(f"custom_mixed_precision: the lists hold Cell classes; got {kind!r} "
                            f"(Primitives are not cast one by one here: list the Cell that "
                            f"calls it)")
    if white_list is not None:
        if isinstance(network, kinds):
            return _CastOutput(network.to_float(dtype), float32)
        _replace_children(network, kinds, lambda c: _CastOutput(c.to_float(dtype), float32))
        return network
    network.to_float(dtype)
    _replace_children(network, kinds, lambda c: _CastOutput(c.to_float(float32), dtype))
    return _CastOutput(network, float32)

class _AmpWithLossCell(Cell):
    """The loss in float32 on a float16 network's output."""

    def __init__(self, backbone, loss_fn):
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data, label):
        return self._loss_fn(_cast(self._backbone(data), float32), _cast(label, float32))


class LossScaleManager:
    """Base of loss-scale managers: ``get_loss_scale``, ``update_loss_scale(overflow)``,
    ``get_update_cell``."""

    def get_loss_scale(self):
        raise NotImplementedError

    def update_loss_scale(self, overflow):
        raise NotImplementedError

    def get_update_cell(self):
        raise NotImplementedError


class FixedLossScaleManager(LossScaleManager):
    """A constant loss scale. With ``drop_overflow_update`` (default) a step whose
    gradients overflow is skipped; without it every step updates."""

    def __init__(self, loss_scale=128.0, drop_overflow_update=True):
        if loss_scale < 1:
            raise ValueError(f"FixedLossScaleManager: loss_scale must be >= 1, got {loss_scale}")
        self._loss_scale = loss_scale
        self._drop_overflow_update = bool(drop_overflow_update)

    def get_loss_scale(self):
        return self._loss_scale

    def get_drop_overflow_update(self):
        return self._drop_overflow_update

    def update_loss_scale(self, overflow):
        """The scale is fixed: nothing to do."""

    def get_update_cell(self):
        if not self._drop_overflow_update:
            return None
        return FixedLossScaleUpdateCell(self._loss_scale)


class DynamicLossScaleManager(LossScaleManager):
    """A loss scale that halves (``/ scale_factor``, not below 1) on overflow and grows
    (``* scale_factor``) after ``scale_window`` steps without one."""

    def __init__(self, init_loss_scale=2 ** 24, scale_factor=2, scale_window=2000):
        if init_loss_scale < 1.0:
            raise ValueError(f"DynamicLossScaleManager: init_loss_scale must be >= 1, got "
                             f"{init_loss_scale}")
        if scale_factor <= 0:
            raise ValueError(f"DynamicLossScaleManager: scale_factor must be > 0, got "
                             f"{scale_factor}")
        if not isinstance(scale_window, int) or scale_window <= 0:
            raise ValueError(f"DynamicLossScaleManager: scale_window must be an int > 0, got "
                             f"{scale_window!r}")
        self.loss_scale = init_loss_scale
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.increase_ratio = scale_factor
        self.decrease_ratio = 1 / scale_factor
        self.cur_iter = 1
        self.last_overflow_iter = 0
        self.bad_step_max = 1000
        self.bad_step = 0

    def get_loss_scale(self):
        return self.loss_scale

    def update_loss_scale(self, overflow):
        """Host-side update, for loops that do not use the update Cell."""
        if overflow:
            self.loss_scale = max(self.loss_scale * self.decrease_ratio, 1)
            self.last_overflow_iter = self.cur_iter
            self.bad_step += 1
        else:
            if (self.cur_iter - self.last_overflow_iter) % self.scale_window == 0:
                self.loss_scale *= self.increase_ratio
            self.bad_step = 0
        if self.bad_step > self.bad_step_max:
            raise RuntimeError(f"DynamicLossScaleManager: the gradients overflowed "
                               f"{self.bad_step} steps in a row (more than {self.bad_step_max})")
        self.cur_iter += 1

    def get_drop_overflow_update(self):
        return True

    def get_update_cell(self):
        return DynamicLossScaleUpdateCell(self.loss_scale, self.scale_factor, self.scale_window)


_CONFIG = {
    "O0": {"keep_batchnorm_fp32": False, "cast_model_type": float32, "loss_scale_manager": None},
    "O1": {"keep_batchnorm_fp32": False, "cast_model_type": float32, "loss_scale_manager": None},
    "O2": {"keep_batchnorm_fp32": True, "cast_model_type": float16,
           "loss_scale_manager": DynamicLossScaleManager},
    "O3": {"keep_batchnorm_fp32": False, "cast_model_type": float16, "loss_scale_manager": None},
}


def build_train_network(network, optimizer, loss_fn=None, level="O0", boost_level="O0",
                        **kwargs):
    """A training Cell: the network at ``level`` precision, with ``loss_fn`` attached
    and the optimizer's update (``TrainOneStepWithLossScaleCell`` when the loss-scale
    manager drops overflowing steps, else ``TrainOneStepCell``).

    Keyword overrides: ``cast_model_type``, ``keep_batchnorm_fp32``,
    ``loss_scale_manager``. O2 defaults to a ``DynamicLossScaleManager``.
    """
    if level not in _LEVELS:
        raise ValueError(f"build_train_network: level must be one of {list(_LEVELS)}, got "
                         f"{level!r}")
    unknown = set(kwargs) - {"cast_model_type", "keep_batchnorm_fp32", "loss_scale_manager"}
    if unknown:
        raise ValueError(f"build_train_network: unknown keyword arguments {sorted(unknown)}")
    config = dict(_CONFIG[level])
    if isinstance(config["loss_scale_manager"], type):
        config["loss_scale_manager"] = config["loss_scale_manager"]()
    config.update(kwargs)
    manager = config["loss_scale_manager"]
    if manager is not None and not isinstance(manager, LossScaleManager):
        raise TypeError(f"build_train_network: loss_scale_manager must be a LossScaleManager, "
                        f"got {type(manager).__name__}")
    cast_type = config["cast_model_type"]
    if cast_type in (float16, bfloat16):
        network.to_float(cast_type)
        if config["keep_batchnorm_fp32"]:
            _replace_children(network, tuple(get_black_list()),
                              lambda c: _CastOutput(c.to_float(float32), cast_type))
    elif level in ("O1",):
        network = auto_mixed_precision(network, level)
    if loss_fn is not None:
        if cast_type in (float16, bfloat16):
            network = _AmpWithLossCell(network, loss_fn)
        else:
            network = WithLossCell(network, loss_fn)
    loss_scale = 1.0
    if manager is not None:
        loss_scale = manager.get_loss_scale()
        update_cell = manager.get_update_cell()
        if update_cell is not None:
            return TrainOneStepWithLossScaleCell(network, optimizer,
                                                 scale_sense=update_cell).set_train()
    return TrainOneStepCell(network, optimizer, loss_scale).set_train()


class LossScaler:
    """Scales a loss and unscales gradients by hand (``mindspore.amp.LossScaler``):
    ``scale``, ``unscale`` and ``adjust(grads_finite)``."""

    def scale(self, inputs):
        raise NotImplementedError

    def unscale(self, inputs):
        raise NotImplementedError

    def adjust(self, grads_finite):
        raise NotImplementedError


def _map(fn, inputs):
    if isinstance(inputs, (tuple, list)):
        return type(inputs)(_map(fn, x) for x in inputs)
    return fn(inputs)


class StaticLossScaler(LossScaler):
    """A constant scale."""

    def __init__(self, scale_value):
        if scale_value <= 0:
            raise ValueError(f"StaticLossScaler: scale_value must be > 0, got {scale_value}")
        self.scale_value = Parameter(Tensor(scale_value, float32), name="scale_value")

    def scale(self, inputs):
        return _map(lambda x: x * ops.cast(self.scale_value, x.dtype), inputs)

    def unscale(self, inputs):
        return _map(lambda x: x * ops.cast(ops.reciprocal(self.scale_value), x.dtype), inputs)

    def adjust(self, grads_finite):
        return False


class DynamicLossScaler(LossScaler):
    """A scale multiplied by ``scale_factor`` after ``scale_window`` finite steps and
    divided by it (not below 1) after a non-finite one."""

    def __init__(self, scale_value, scale_factor, scale_window):
        if scale_value <= 0:
            raise ValueError(f"DynamicLossScaler: scale_value must be > 0, got {scale_value}")
        self.scale_value = Parameter(Tensor(scale_value, float32), name="scale_value")
        self.scale_factor = scale_factor
        self.scale_window = scale_window
        self.counter = Parameter(Tensor(0, int32), name="counter")

    def scale(self, inputs):
        return _map(lambda x: x * ops.cast(self.scale_value, x.dtype), inputs)

    def unscale(self, inputs):
        return _map(lambda x: x * ops.cast(ops.reciprocal(self.scale_value), x.dtype), inputs)

    def adjust(self, grads_finite):
        """Update the scale after a step; returns True."""
        value = float(self.scale_value)
        if bool(grads_finite):
            count = int(self.counter) + 1
            if count == self.scale_window:
                value, count = value * self.scale_factor, 0
        else:
            value, count = max(1.0, value / self.scale_factor), 0
        self.scale_value.set_data(Tensor(value, float32))
        self.counter.set_data(Tensor(count))
        return True
