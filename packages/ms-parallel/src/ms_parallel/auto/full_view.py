"""The network's whole Parameters while it runs outside the sharded training step.

After the first sharded step each rank's Parameters hold slices (or, with optimizer
parallel, flat parts of slices), so ``Model.eval``, ``Model.predict`` or a plain call of the
network (or of any of its cells) could not run them. ``attach`` puts a forward pre-hook and
an always-called forward hook on every cell that holds a sliced Parameter: the outermost of
them to run gathers every slice (one AllGather over all ranks per Parameter, the pieces
placed by their layouts), the Parameters hold the whole values while it runs, and its
forward hook puts the slices back. Nested cells find the values already whole. So
evaluation after sharded training computes what the single-process network computes, on
every rank; the ranks must call it together (SPMD), as they train together. ``Model.eval``
and ``predict`` hold the whole values around their (possibly compiled) runs (``held``).

The sharded training step never calls the cells (it runs the captured operators on the
slices), so it never triggers the gather. With pipeline stages (``PipelineTrainStep``) each
rank holds whole Parameters but trains only its stage's, so the others' are stale there:
its ``whole`` broadcasts each stage's Parameters from that stage's rank, and its training
pass (which calls the cells) runs with the view ``paused``.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ms_parallel.auto.execute import _along
from ms_parallel.auto.simulate import gather
from ms_tensor import Tensor

__all__ = ["FullView", "attach", "sharded_whole"]


class FullView:
    """The hooks' shared state (see the module doc).

    Args:
        params: name -> the Parameter whose value is replaced while the view is held.
        whole: ``whole() -> {name: whole value}``, run by every rank together.
    """

    def __init__(self, params: dict, whole):
        self.params = params
        self.whole = whole
        self.depth = 0
        self.saved: dict[str, np.ndarray] = {}
        self.handles = []
        self.off = False

    @contextmanager
    def paused(self):
        """The hooks do nothing while the block runs (a training pass calling the cells)."""
        self.off = True
        try:
            yield
        finally:
            self.off = False

    @contextmanager
    def held(self):
        """The whole values while the block runs (``Model.eval``/``predict`` hold them so,
        around their compiled graphs)."""
        self.enter(None, ())
        try:
            yield
        finally:
            self.leave(None, (), None)

    def enter(self, cell, inputs):
        if self.off:
            return
        if self.depth == 0:
            from ms_graph.trace import current_tracer

            if current_tracer() is not None:
                raise ValueError(
                    f"{type(cell).__name__}: its Parameters hold this rank's slices after "
                    "sharded training, and a compiled (GRAPH_MODE) function calling it "
                    "cannot gather them; call it from PYNATIVE_MODE, through Model.eval/"
                    "predict, or inside `with train_step._parallel_step.whole_parameters():`")
            self.saved = {k: p.asnumpy().copy() for k, p in self.params.items()}
            for name, value in self.whole().items():
                self.params[name].set_data(Tensor(value), slice_shape=True)
        self.depth += 1

    def leave(self, cell, inputs, output):
        if self.off:
            return
        self.depth -= 1
        if self.depth == 0:
            for name, value in self.saved.items():
                self.params[name].set_data(Tensor(value), slice_shape=True)
            self.saved = {}


def attach(network, params: dict, whole) -> FullView:
    """Hook every cell of ``network`` that holds one of ``params`` (see ``FullView``)."""
    view = FullView(params, whole)
    held = {id(p) for p in params.values()}
    for _, cell in network.cells_and_names():
        if any(id(p) in held for p in cell.get_parameters()):
            view.handles.append(cell.register_forward_pre_hook(view.enter))
            view.handles.append(cell.register_forward_hook(view.leave, always_call=True))
    return view


def sharded_whole(sharded, group=None) -> dict:
    """Parameter name -> its whole value, from a ``ShardedNet``'s slices (one AllGather
    over its ranks per Parameter, the pieces placed by their layouts). ``group``: the
    communication group of its ranks, if they are not the world."""
    from ms_parallel.groups import WORLD
    from ms_parallel.reduce_ops import AllGather

    shapes = sharded.graph.param_shapes()
    out = {}
    for name in sorted(sharded.param_layout):
        lay = sharded.param_layout[name]
        local = np.ascontiguousarray(sharded.params[name].asnumpy().reshape(-1))
        pieces = AllGather(Tensor(local), group or WORLD).asnumpy().reshape(sharded.n, -1) \
            if sharded.n > 1 else local.reshape(1, -1)
        if name in sharded.parts:  # each slice is the parts of the ranks holding it
            _, slice_shape = sharded.parts[name]
            used = {a for axes in lay.tensor_map for a in axes}
            free = [a for a in range(len(lay.dev_matrix)) if a not in used]
            slices = [np.concatenate([pieces[q] for q in _along(lay.dev_matrix, free, r)])
                      .reshape(slice_shape) for r in range(sharded.n)]
        else:
            slices = [p.reshape(lay.slice_shape(shapes[name])) for p in pieces]
        out[name] = gather(slices, lay, shapes[name], atol=0)
    return out
