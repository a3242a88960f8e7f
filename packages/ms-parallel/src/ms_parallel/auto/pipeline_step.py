"""``TrainOneStepCell`` (and ``Model.train``) with ``pipeline_stages`` > 1: the network is
an ``nn.PipelineCell(WithLossCell(backbone, loss_fn), micro_size)`` (the backbone a
``SequentialCell`` or a chain of its children: ``ms_parallel.auto.pipeline``) whose cells carry
``pipeline_stage`` marks, and rank ``s`` trains stage ``s`` with ``PipelineCell``'s 1F1B
schedule (``ms_parallel.auto.pipeline``).

As MindSpore's ``nn.PipelineCell``, the step's loss is the *sum* of the micro-batches'
losses (and the gradients those of that sum); it is broadcast from the last stage, so every
rank returns it. Each rank's optimizer sees its stage's gradients and zeros for the other
stages' Parameters (which it does not use). Every stage reads the whole batch.

With more ranks than stages (``width`` = ranks / stages per stage, stage ``s`` on ranks
``s * width ..``), each stage's operators are also sharded over its ranks as in
SEMI_AUTO/AUTO_PARALLEL (``shard`` annotations, data parallel by default): the stage's
Parameters and their optimizer state hold slices, and the boundary activations are whole
on every rank of a stage (rank ``i`` of a stage talks to rank ``i`` of the next). Outside the
step, a call of the network or its cells (``Model.eval``/``predict``) first broadcasts each
stage's Parameters from its rank (``ms_parallel.auto.full_view``): every rank computes with
the trained values.

With ``enable_parallel_optimizer`` (ZeRO-1, as ``ParallelTrainStep``), where ``r`` ranks of a
stage hold the same slice, each keeps only its ``1/r`` flat part of it and of its optimizer
state: the stage's forward all-gathers the part where it is read, so each micro-batch's
backward reduce-scatters the gradient, and the optimizer updates the part. (With one rank
per stage nothing is replicated, so nothing is split.)
"""

from __future__ import annotations

import numpy as np

from ms_parallel.auto.full_view import attach
from ms_parallel.auto.train import optimizer_state, slice_in_place
from ms_parallel.context import get_auto_parallel_context as _get
from ms_tensor import Tensor

__all__ = ["PipelineTrainStep"]


class PipelineTrainStep:
    """``step(*inputs) -> (loss, gradients)`` for one rank's pipeline stage."""

    def __init__(self, network, optimizer, sens: float, stages: int):
        from ms_nn.wrap import PipelineCell, WithLossCell
        from ms_parallel.auto.pipeline import PipelineCell as Stages
        from ms_parallel.management import get_group_size, get_rank

        inner = getattr(network, "network", None)
        if not isinstance(network, PipelineCell) or not isinstance(inner, WithLossCell):
            raise ValueError(f"TrainOneStepCell with pipeline_stages={stages}: the network must "
                             f"be nn.PipelineCell(nn.WithLossCell(backbone, loss_fn), "
                             f"micro_size), got {type(network).__name__}")
        if get_group_size() % stages:
            raise ValueError(f"TrainOneStepCell: pipeline_stages={stages} on "
                             f"{get_group_size()} ranks; the rank count must be a multiple of "
                             "the stage count")
        self.optimizer = optimizer
        self.sens = sens
        self.micro = network.micro_size
        self.stages = stages
        backbone = inner.backbone_network
        losses = [c for c in inner.cells() if c is not backbone]  # WithLossCell's loss Cell
        if len(losses) != 1:
            raise ValueError("TrainOneStepCell with pipeline stages: the WithLossCell's loss "
                             "function must be a Cell (an nn loss)")
        self.width = get_group_size() // stages  # ranks per stage, sharding its operators
        stage, local = divmod(get_rank(), self.width)
        popt = bool(_get("enable_parallel_optimizer"))
        self.pipe = Stages(backbone, losses[0], self.micro, stage, stages, self.width, local,
                           on_shard=lambda sharded, by_name: slice_in_place(
                               sharded, by_name, optimizer_state(optimizer), popt))
        # eval / predict / a call of the backbone: every stage's Parameters, current
        params = {p.name: p for c in self.pipe.all_cells for p in c.get_parameters()}
        self.full_view = attach(network, params, self._whole)

    def _whole(self) -> dict:
        """Each stage's Parameters as its ranks hold them (gathered from the slices there,
        then a Broadcast from the stage's first rank)."""
        from ms_parallel.auto.full_view import sharded_whole
        from ms_parallel.reduce_ops import Broadcast

        pipe = self.pipe
        mine = {} if pipe.sharded is None else sharded_whole(pipe.sharded, pipe.group)
        return {p.name: Broadcast(Tensor(mine.get(p.name, p.asnumpy())),
                                  stage * self.width).asnumpy()
                for c, stage in zip(pipe.all_cells, pipe.marks) for p in c.get_parameters()}

    def whole_parameters(self):
        """The context ``Model.eval``/``predict`` run in (see ``full_view``)."""
        return self.full_view.held()

    def __call__(self, *inputs):
        loss, grads = self.loss_and_grads(inputs, self.sens)
        self.optimizer(grads)
        return loss, grads

    def any_rank(self, flag):
        """``flag`` is True on some rank (see ``ParallelTrainStep.any_rank``)."""
        from ms_parallel.auto.train import any_rank

        return any_rank(flag)

    def loss_and_grads(self, inputs, sens):
        """``(loss, gradients)`` of one 1F1B pass, the gradients times ``sens`` (a number or
        a one-value Tensor: a loss scale); no update."""
        from ms_parallel.reduce_ops import Broadcast

        if len(inputs) != 2:
            raise ValueError(f"TrainOneStepCell with pipeline stages: expected (data, label), "
                             f"got {len(inputs)} inputs")
        with self.full_view.paused():  # the stages call their cells
            loss, grads = self.pipe.step(*inputs)
        # the stages' objective is the mean over micro-batches; PipelineCell's is their sum
        if isinstance(sens, Tensor):
            from ms_ops import functional as F

            mine = {id(p): g * F.cast(F.reshape(sens, ()), g.dtype) * float(self.micro)
                    for p, g in zip(self.pipe.params, grads or ())}
        else:
            mine = {id(p): g * (float(self.micro) * sens)
                    for p, g in zip(self.pipe.params, grads or ())}
        weights = list(self.optimizer.parameters)
        grads = tuple(mine.get(id(p), Tensor(np.zeros(p.shape, p.asnumpy().dtype)))
                      for p in weights)
        last = (self.stages - 1) * self.width  # the last stage's first rank
        loss = loss * float(self.micro) if loss is not None else \
            Tensor(np.zeros((), self.pipe.params[0].asnumpy().dtype if self.pipe.params
                            else np.float32))
        return Broadcast(loss, last), grads
