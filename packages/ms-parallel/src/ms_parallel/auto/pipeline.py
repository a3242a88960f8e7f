"""Pipeline parallel: the stages of a network on consecutive ranks, 1F1B over Send/Receive.

As MindSpore's ``pipeline_stages`` with ``Cell.pipeline_stage`` and ``nn.PipelineCell(net,
micro_size)``: the children of the network are marked ``cell.pipeline_stage = s``; rank
``s`` runs stage ``s``. The network is a ``SequentialCell``, or any Cell whose
``construct`` calls each of its children once, in the order they are defined, each on the
previous one's output (MindSpore's tutorial networks): the first step checks that with
one pass through the network and refuses, naming the cell, what the stages cannot cut.
A batch is cut into ``micro_size`` micro-batches. Each rank runs
the one-forward-one-backward schedule: ``stages - s - 1`` warm-up forwards, then a forward
and a backward in turn, then the remaining backwards, so at most ``stages - s`` micro-batches'
activations are alive on stage ``s``. Activations go forward and their gradients backward
with ms-parallel's Send/Receive operators; each stage differentiates its own part with
``vjp``. The last stage computes ``loss_fn(output, labels) / micro_size`` per micro-batch,
so the gradients it accumulates are the whole batch's (for a mean loss). When every cell of a
stage is marked with ``Cell.recompute()``, the stage is one ``ms_autodiff.recompute`` call:
it keeps only each micro-batch's input and runs its forward again in the backward pass; a
marked cell among or inside the others recomputes only its own activations (``Cell``'s
own recompute; a sharded stage's ``ShardedNet`` recomputes the marked cells' operators).

Send and Receive block (MPI standard mode: a large message waits for its receive), so in the
steady phase a stage receives the gradient of micro-batch ``i`` before it sends the
activation of micro-batch ``warm + i``: the next stage sends that gradient first, and no two
ranks ever wait on each other's sends.
"""

from __future__ import annotations

import numpy as np

from ms_autodiff import vjp
from ms_autodiff.recompute import recompute
from ms_tensor import Tensor

__all__ = ["PipelineCell"]

_BACK = 1 << 20  # tag offset of the gradients going backwards


class PipelineCell:
    """One rank's stage of a pipelined network.

    Args:
        backbone: a ``SequentialCell`` (or a chain of children, see the module doc) whose
            children carry ``pipeline_stage`` (0 if unset).
        loss_fn: ``loss_fn(output, labels)``, a mean over the rows; run on the last stage.
        micro_size: micro-batches per step (must divide the batch).
        stage: this rank's stage; ``stages``: how many (the ranks in the pipeline).
    """

    def __init__(self, backbone, loss_fn, micro_size: int, stage: int, stages: int,
                 width: int = 1, local: int = 0, on_shard=None):
        cells = list(backbone.cells())
        self.backbone = backbone
        marks = [getattr(c, "pipeline_stage", 0) for c in cells]
        if sorted(set(marks)) != list(range(stages)) or marks != sorted(marks):
            raise ValueError(f"PipelineCell: the cells' pipeline_stage values {marks} must "
                             f"rise from 0 to {stages - 1} in order, each stage non-empty")
        self.cells = [c for c, m in zip(cells, marks) if m == stage]
        self.all_cells = cells
        self.marks = marks
        self.loss_fn, self.micro, self.stage, self.stages = loss_fn, micro_size, stage, stages
        self.params = [p for c in self.cells for p in c.trainable_params()]
        # operator sharding inside the stage: ``width`` ranks per stage, this one ``local``
        # among them; ``sharded`` (a ShardedNet) is made on the first step
        self.width, self.local, self.on_shard = width, local, on_shard
        self.sharded, self.shapes = None, {}
        # Cell.recompute() on every cell of the stage: keep each micro-batch's input only,
        # and run the stage again in its backward pass.
        self.recompute = all(c.__dict__.get("_recompute", False) for c in self.cells)

    def _run(self, x):
        for c in self.cells:
            x = c(x)
        return x

    def _peer(self, stage):
        """The world rank of stage ``stage``'s rank at this rank's place in its stage."""
        return stage * self.width + self.local

    def _boundary(self, micro_x):
        """The shapes and dtype entering and leaving this stage (one local dry run, on the
        first step: before the Parameters are sliced)."""
        key = tuple(micro_x.shape)
        if key not in self.shapes:
            self.shapes[key] = self._dry_run(micro_x)
        return self.shapes[key]

    def _dry_run(self, micro_x):
        from ms_nn import SequentialCell

        if type(self.backbone) is not SequentialCell:  # a subclass may change construct
            _check_chain(self.backbone, self.all_cells, micro_x)
        shapes, x = [], micro_x
        for s in range(self.stages):
            shapes.append(x.shape)
            for c, m in zip(self.all_cells, self.marks):
                if m == s:
                    x = c(x)
        shapes.append(x.shape)
        return shapes[self.stage], shapes[self.stage + 1], x.dtype

    def step(self, x, labels):
        """One training step: ``(loss or None, gradients of self.params)``; the loss (the
        whole batch's) comes back on the last stage only."""
        from ms_parallel.p2p_ops import Receive, Send
        from ms_parallel.reduce_ops import AllReduce

        n = x.shape[0]
        if n % self.micro:
            raise ValueError(f"PipelineCell: batch {n} is not divisible by micro_size "
                             f"{self.micro}")
        rows = n // self.micro
        xs = [x[i * rows:(i + 1) * rows] for i in range(self.micro)]
        ys = [labels[i * rows:(i + 1) * rows] for i in range(self.micro)]
        in_shape, out_shape, dtype = self._boundary(xs[0])
        first, last = self.stage == 0, self.stage == self.stages - 1
        pending, grads, losses = {}, None, []
        if self.width > 1 and self.sharded is None:  # planned on a sample of its input
            self._shard(xs[0] if first else Tensor(np.zeros(in_shape, dtype.np)), ys[0], last)

        def forward(m, send=True):
            inp = xs[m] if first else Receive(m, self._peer(self.stage - 1), in_shape, dtype)
            if self.sharded is not None:
                def fn(a):  # the stage's operators on this rank's slices, output whole
                    return self.sharded.loss(a, ys[m]) if last else \
                        self.sharded.loss(a, whole=True)
            elif last:
                def fn(a):
                    return self.loss_fn(self._run(a), ys[m]) / float(self.micro)
            else:
                fn = self._run
            if self.recompute:  # the whole stage is one recomputed call
                stage_fn, fn = fn, lambda a: recompute(stage_fn, a, weights=self.params,
                                                       name=f"stage {self.stage}")
            out, pull = vjp(fn, inp, weights=self.params)
            if last:
                losses.append(out)
            elif send:
                Send(out, m, self._peer(self.stage + 1))
            pending[m] = (pull, out)
            return out

        def cotangent(m):
            out = pending[m][1]
            cot = Tensor(np.ones(out.shape, out.dtype.np)) if last else \
                Receive(_BACK + m, self._peer(self.stage + 1), out_shape, dtype)
            # sharded: each of the stage's ranks computes the whole output, and the ranks'
            # shares of the objective add up to it (the slices' gradients are summed below)
            return cot / float(self.width) if self.sharded is not None else cot

        def backward(m, cot):
            nonlocal grads
            pull, _ = pending.pop(m)
            in_grads, w_grads = pull(cot)
            grads = list(w_grads) if grads is None else [a + b for a, b in zip(grads, w_grads)]
            if not first:
                back = in_grads[0]
                if self.sharded is not None:  # each rank read the input: sum their shares
                    back = AllReduce(back, "sum", self.group)
                Send(back, _BACK + m, self._peer(self.stage - 1))

        warm = min(self.stages - self.stage - 1, self.micro)
        for m in range(warm):
            forward(m)
        for i in range(self.micro - warm):
            # The next stage sends gradient i before it receives activation warm + i: take
            # the gradient first, so that two blocking sends never wait on each other.
            out = forward(warm + i, send=False)
            cot = cotangent(i)
            if not last:
                Send(out, warm + i, self._peer(self.stage + 1))
            backward(i, cot)
        for m in range(self.micro - warm, self.micro):
            backward(m, cotangent(m))
        loss = sum(losses[1:], losses[0]) if last else None
        if self.sharded is not None:  # a slice's gradient, summed over the ranks holding it
            grads = [self._replica_sum(p.name, g) for p, g in zip(self.params, grads)]
        return loss, grads

    def _replica_sum(self, name, g):
        from ms_parallel.reduce_ops import AllReduce

        if name in self.sharded.parts:  # a part's gradient arrives summed (reduce-scattered)
            return g
        ranks = self.sharded.replica_ranks(name)
        return AllReduce(g, "sum", self.sharded.group(ranks)) if len(ranks) > 1 else g

    def _shard(self, x, y, last):
        """Plan this stage's operators on its ``width`` ranks (the context's mode and
        annotations), slice its Parameters in place (``on_shard`` slices the optimizer's
        state alike, and with optimizer parallel keeps parts of replicated slices) and make
        the stage's group."""
        from ms_nn import Cell
        from ms_parallel.auto.execute import ShardedNet
        from ms_parallel.auto.graph import capture
        from ms_parallel.auto.planner import plan_from_context
        from ms_parallel.context import get_auto_parallel_context as get
        from ms_parallel.management import create_group

        cells, loss_fn, micro = self.cells, self.loss_fn, float(self.micro)

        class Stage(Cell):
            def __init__(self):
                super().__init__(auto_prefix=False)  # the Parameters keep their names
                for i, c in enumerate(cells):  # held, so that capture sees their shards
                    setattr(self, f"part{i}", c)
                self.loss_fn = loss_fn

            def construct(self, a, labels=None):
                for c in cells:
                    a = c(a)
                return self.loss_fn(a, labels) / micro if last else a

        stage = Stage()
        graph = capture(stage, x, y) if last else capture(stage, x)
        world = [self.stage * self.width + i for i in range(self.width)]
        self.group = f"pipeline-stage-{self.stage}"
        create_group(self.group, world)
        by_name = {p.name: p for p in self.params}
        plan = plan_from_context(graph, device_num=self.width)
        sharded = ShardedNet(plan, self.local, {k: p.asnumpy() for k, p in by_name.items()},
                             world=world)
        if set(sharded.params) != set(by_name):
            raise ValueError(f"PipelineCell: stage {self.stage}'s Parameters "
                             f"{sorted(set(by_name) - set(sharded.params))} are not read by "
                             "its operators")
        self.on_shard(sharded, by_name)
        save = (get("strategy_ckpt_config") or {}).get("save_file") or \
            get("strategy_ckpt_save_file")
        if save:  # the stage's layouts on its world ranks (merge_pipeline_strategys), with
            # the optimizer's parts (as local ranks of the stage)
            plan.save(save, {k: ranks for k, (ranks, _) in sharded.parts.items()},
                      stage=(self.stage, world))
        self.params = [sharded.params[p.name] for p in self.params]
        self.sharded = sharded


def _check_chain(backbone, cells, x) -> None:
    """Raise unless ``backbone(x)`` calls each of ``cells`` once, in order, each on the
    previous one's output, and returns the last one's: then running the cells in turn is
    the network, and the stages may cut it between them."""
    calls = []
    handles = [c.register_forward_hook(lambda cell, args, out: calls.append((cell, args, out)))
               for c in cells]
    try:
        out = backbone(x)
    finally:
        for h in handles:
            h.remove()
    name = type(backbone).__name__
    order = [type(c).__name__ for c, _, _ in calls]
    if [id(c) for c, _, _ in calls] != [id(c) for c in cells]:
        raise ValueError(f"PipelineCell: {name}.construct calls its cells as {order}; the "
                         f"stages need each of {[type(c).__name__ for c in cells]} called "
                         "once, in the order they are defined (or a SequentialCell)")
    source = x
    for k, (cell, args, result) in enumerate(calls):
        if len(args) != 1 or args[0] is not source:
            what = "the network's input" if k == 0 else f"{order[k - 1]}'s output"
            raise ValueError(f"PipelineCell: in {name}.construct, cell {k} "
                             f"({type(cell).__name__}) is not called on {what} alone; the "
                             "stages cut the network between cells, so the cells must form "
                             "a chain with nothing computed between them")
        source = result
    if out is not source:
        raise ValueError(f"PipelineCell: {name}.construct does not return its last cell's "
                         f"output ({order[-1]}) as it is")
