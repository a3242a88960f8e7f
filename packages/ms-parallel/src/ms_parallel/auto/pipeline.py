"""Pipeline parallel: the stages of a network on consecutive ranks, 1F1B over Send/Receive.

As MindSpore's ``pipeline_stages`` with ``Cell.pipeline_stage`` and ``nn.PipelineCell(net,
micro_size)``: the children of a ``SequentialCell`` are marked ``cell.pipeline_stage = s``;
rank ``s`` runs stage ``s``. A batch is cut into ``micro_size`` micro-batches. Each rank runs
the one-forward-one-backward schedule: ``stages - s - 1`` warm-up forwards, then a forward
and a backward in turn, then the remaining backwards, so at most ``stages - s`` micro-batches'
activations are alive on stage ``s``. Activations go forward and their gradients backward
with ms-parallel's Send/Receive operators; each stage differentiates its own part with
``vjp``. The last stage computes ``loss_fn(output, labels) / micro_size`` per micro-batch,
so the gradients it accumulates are the whole batch's (for a mean loss). When every cell of a
stage is marked with ``Cell.recompute()``, the stage keeps only each micro-batch's input and
runs its forward again in the backward pass (activation recomputation).

Send and Receive block (MPI standard mode: a large message waits for its receive), so in the
steady phase a stage receives the gradient of micro-batch ``i`` before it sends the
activation of micro-batch ``warm + i``: the next stage sends that gradient first, and no two
ranks ever wait on each other's sends.
"""

from __future__ import annotations

import numpy as np

from ms_autodiff import vjp
from ms_tensor import Tensor

__all__ = ["PipelineCell"]

_BACK = 1 << 20  # tag offset of the gradients going backwards


class PipelineCell:
    """One rank's stage of a pipelined network.

    Args:
        backbone: a ``SequentialCell`` whose children carry ``pipeline_stage`` (0 if unset).
        loss_fn: ``loss_fn(output, labels)``, a mean over the rows; run on the last stage.
        micro_size: micro-batches per step (must divide the batch).
        stage: this rank's stage; ``stages``: how many (the ranks in the pipeline).
    """

    def __init__(self, backbone, loss_fn, micro_size: int, stage: int, stages: int):
        cells = list(backbone.cells())
        marks = [getattr(c, "pipeline_stage", 0) for c in cells]
        if sorted(set(marks)) != list(range(stages)) or marks != sorted(marks):
            raise ValueError(f"PipelineCell: the cells' pipeline_stage values {marks} must "
                             f"rise from 0 to {stages - 1} in order, each stage non-empty")
        self.cells = [c for c, m in zip(cells, marks) if m == stage]
        self.all_cells = cells
        self.marks = marks
        self.loss_fn, self.micro, self.stage, self.stages = loss_fn, micro_size, stage, stages
        self.params = [p for c in self.cells for p in c.trainable_params()]
        # Cell.recompute() on every cell of the stage: keep each micro-batch's input only,
        # and run the stage again in its backward pass.
        self.recompute = all(c.__dict__.get("_recompute", False) for c in self.cells)

    def _run(self, x):
        for c in self.cells:
            x = c(x)
        return x

    def _boundary(self, micro_x):
        """The shapes and dtype entering and leaving this stage (one local dry run)."""
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

        def forward(m, send=True):
            inp = xs[m] if first else Receive(m, self.stage - 1, in_shape, dtype)
            if last:
                def fn(a):
                    return self.loss_fn(self._run(a), ys[m]) / float(self.micro)
            else:
                fn = self._run
            if self.recompute:
                out, pull = fn(inp), (fn, inp)
            else:
                out, pull = vjp(fn, inp, weights=self.params)
            if last:
                losses.append(out)
            elif send:
                Send(out, m, self.stage + 1)
            pending[m] = (pull, out)
            return out

        def cotangent(m):
            out = pending[m][1]
            return Tensor(np.ones(out.shape, out.dtype.np)) if last else \
                Receive(_BACK + m, self.stage + 1, out_shape, dtype)

        def backward(m, cot):
            nonlocal grads
            pull, _ = pending.pop(m)
            if self.recompute:
                pull = vjp(pull[0], pull[1], weights=self.params)[1]
            in_grads, w_grads = pull(cot)
            grads = list(w_grads) if grads is None else [a + b for a, b in zip(grads, w_grads)]
            if not first:
                Send(in_grads[0], _BACK + m, self.stage - 1)

        warm = min(self.stages - self.stage - 1, self.micro)
        for m in range(warm):
            forward(m)
        for i in range(self.micro - warm):
            # The next stage sends gradient i before it receives activation warm + i: take
            # the gradient first, so that two blocking sends never wait on each other.
            out = forward(warm + i, send=False)
            cot = cotangent(i)
            if not last:
                Send(out, warm + i, self.stage + 1)
            backward(i, cot)
        for m in range(self.micro - warm, self.micro):
            backward(m, cotangent(m))
        loss = sum(losses[1:], losses[0]) if last else None
        return loss, grads
