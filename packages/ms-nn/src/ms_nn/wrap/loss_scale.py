"""Loss scaling for mixed precision: overflow checks, scale updates and the training
step that skips an update whose gradients overflowed."""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.wrap.cell_wrapper import TrainOneStepCell
from ms_tensor import Parameter, Tensor, float32, int32

__all__ = ["all_finite", "DynamicLossScaleUpdateCell", "FixedLossScaleUpdateCell",
           "TrainOneStepWithLossScaleCell"]


def all_finite(inputs) -> Tensor:
    """A bool scalar Tensor: True when no value of any Tensor in ``inputs`` is inf or NaN.
    Computed with operators, so a compiled training step checks every step's values.

    >>> bool(all_finite((Tensor([1.0, float("inf")]), Tensor([1.0]))))
    False
    """
    ok = None
    for x in inputs:
        finite = ops.all(ops.isfinite(x))
        ok = finite if ok is None else ops.logical_and(ok, finite)
    return Tensor(True) if ok is None else ok


class DynamicLossScaleUpdateCell(Cell):
    """Updates a loss-scale Parameter after each step: on overflow it divides the scale
    by ``scale_factor`` (not below 1); after ``scale_window`` steps without overflow it
    multiplies it by ``scale_factor``. ``cell(loss_scale, overflow)`` returns overflow.

    Every decision is a ``select`` and every update an ``Assign``, so the same code runs
    eagerly and compiled.
    """

    def __init__(self, loss_scale_value, scale_factor, scale_window):
        super().__init__()
        self.scale_window = Tensor(scale_window, int32)
        self.scale_factor = Tensor(scale_factor, float32)
        self.loss_scale_value = loss_scale_value
        self.cur_iter = Parameter(Tensor(1, int32), name="current_iterator_step")
        self.last_overflow_iter = Parameter(Tensor(0, int32), name="last_overflow_iterator_step")
        self.minimum_loss_scale = Tensor(1.0, float32)

    def get_loss_scale(self):
        """The starting loss scale."""
        return self.loss_scale_value

    def construct(self, loss_scale, overflow):
        should_grow = (self.cur_iter - self.last_overflow_iter) >= self.scale_window
        shrunk = ops.maximum(loss_scale / self.scale_factor, self.minimum_loss_scale)
        grown = ops.select(should_grow, loss_scale * self.scale_factor, loss_scale)
        scale = ops.select(overflow, shrunk, grown)
        ops.assign(loss_scale, ops.cast(scale, loss_scale.dtype).reshape(loss_scale.shape))
        restart = ops.logical_or(overflow, should_grow)
        ops.assign(self.last_overflow_iter,
                   ops.select(restart, self.cur_iter, self.last_overflow_iter))
        ops.assign_add(self.cur_iter, Tensor(1, int32))
        return overflow


class FixedLossScaleUpdateCell(Cell):
    """A loss scale that never changes; ``cell(loss_scale, overflow)`` returns overflow."""

    def __init__(self, loss_scale_value):
        super().__init__()
        self.loss_scale_value = loss_scale_value

    def get_loss_scale(self):
        return self.loss_scale_value

    def construct(self, _, overflow):
        return overflow


class TrainOneStepWithLossScaleCell(TrainOneStepCell):
    """A training step with loss scaling: the loss's gradient is seeded with the scale,
    the gradients are divided by it, and the update is skipped when any gradient is inf
    or NaN. Returns ``(loss, overflow, scale)``.

    Args:
        network: a Cell returning the loss.
        optimizer: an ``Optimizer``.
        scale_sense: an update Cell (``DynamicLossScaleUpdateCell`` or
            ``FixedLossScaleUpdateCell``, e.g. from a loss-scale manager's
            ``get_update_cell()``), or a Tensor of shape ``()`` or ``(1,)`` holding a
            fixed scale (change it with ``set_sense_scale``).

    The update is skipped with a Python branch when run eagerly; in a compiled step
    (GRAPH_MODE), where such a branch would be frozen at capture, the update runs and
    what it wrote is put back when the step overflowed (``_update_unless``).
    """

    def __init__(self, network, optimizer, scale_sense):
        super().__init__(network, optimizer, sens=None)
        self.loss_scaling_manager = None
        if isinstance(scale_sense, Cell):
            self.loss_scaling_manager = scale_sense
            self.scale_sense = Parameter(Tensor(scale_sense.get_loss_scale(), float32),
                                         name="scale_sense")
        elif isinstance(scale_sense, Tensor):
            if scale_sense.shape not in ((), (1,)):
                raise ValueError(f"{self.cls_name}: scale_sense must have shape () or (1,), "
                                 f"got {scale_sense.shape}")
            self.scale_sense = Parameter(scale_sense, name="scale_sense")
        else:
            raise TypeError(f"{self.cls_name}: scale_sense must be a Cell or a Tensor, got "
                            f"{type(scale_sense).__name__}")

    def construct(self, *inputs):
        scaling_sens = self.scale_sense
        sharded = self._parallel_step  # SEMI_AUTO / AUTO_PARALLEL: gradients of slices
        if sharded is not None:
            loss, grads = sharded.loss_and_grads(inputs, scaling_sens)
        else:
            loss, grads = self.loss_and_grads(inputs, scaling_sens)
        grads = tuple(ops.mul(g, ops.cast(ops.reciprocal(scaling_sens), g.dtype))
                      for g in grads)
        if sharded is None:
            grads = self.grad_reducer(grads)
        cond = self.get_overflow_status(None, grads)
        if sharded is not None:  # one rank's slice overflowing skips every rank's update
            cond = sharded.any_rank(cond)
        overflow = self.process_loss_scale(cond)
        self._update_unless(overflow, grads)
        return loss, cond, ops.identity(scaling_sens)  # a copy: the scale changes later

    _shardable = construct

    def _update_unless(self, overflow, grads) -> None:
        """Run the optimizer unless ``overflow`` (see the class doc)."""
        from ms_graph.trace import current_tracer

        if current_tracer() is None:
            if not bool(overflow):
                self.optimizer(grads)
            return
        state = {id(p): p for p in self.optimizer.parameters}
        state.update((id(p), p) for _, p in self.optimizer.parameters_and_names())
        saved = [(p, ops.identity(p)) for p in state.values()]
        self.optimizer(grads)
        for p, old in saved:
            ops.assign(p, ops.select(overflow, old, p))

    def set_sense_scale(self, sens):
        """Replace the loss scale (a Tensor)."""
        if not isinstance(sens, Tensor):
            raise TypeError(f"{self.cls_name}.set_sense_scale: sens must be a Tensor, got "
                            f"{type(sens).__name__}")
        self.scale_sense.set_data(sens)

    def start_overflow_check(self, pre_cond, compute_input):
        """Kept for MindSpore's API: CPU arithmetic needs no status register to clear."""
        return Tensor(np.zeros(8, np.int32)), compute_input

    def get_overflow_status(self, status, compute_output):
        """A bool Tensor: True when some gradient holds inf or NaN."""
        return ops.logical_not(all_finite(compute_output))

    def process_loss_scale(self, overflow):
        """Let the update Cell adjust the scale; returns whether the step overflowed."""
        if self.loss_scaling_manager is not None:
            return self.loss_scaling_manager(self.scale_sense, overflow)
        return overflow
