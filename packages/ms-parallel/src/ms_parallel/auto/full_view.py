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

The training step itself never calls the cells (it runs the captured operators on the
slices), so it never triggers the gather.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ms_parallel.auto.execute import _along
from ms_parallel.auto.simulate import gather
from ms_tensor import Tensor

__all__ = ["FullView", "attach"]


class FullView:
    """The hooks' shared state for one ``ShardedNet`` (see the module doc)."""

    def __init__(self, sharded):
        self.sharded = sharded
        self.depth = 0
        self.saved: dict[str, np.ndarray] = {}
        self.handles = []

    def whole(self) -> dict:
        """Parameter name -> its whole value (every rank must call this together)."""
        from ms_parallel.reduce_ops import AllGather

        net = self.sharded
        shapes = net.graph.param_shapes()
        out = {}
        for name in sorted(net.param_layout):
            lay = net.param_layout[name]
            local = np.ascontiguousarray(net.params[name].asnumpy().reshape(-1))
            pieces = AllGather(Tensor(local)).asnumpy().reshape(net.n, -1) if net.n > 1 \
                else local.reshape(1, -1)
            if name in net.parts:  # each slice is the parts of the ranks holding it
                _, slice_shape = net.parts[name]
                free = [a for a in range(len(lay.dev_matrix))
                        if a not in {a for axes in lay.tensor_map for a in axes}]
                slices = [np.concatenate([pieces[q] for q in _along(lay.dev_matrix, free, r)])
                          .reshape(slice_shape) for r in range(net.n)]
            else:
                slices = [p.reshape(lay.slice_shape(shapes[name])) for p in pieces]
            out[name] = gather(slices, lay, shapes[name], atol=0)
        return out

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
        if self.depth == 0:
            from ms_graph.trace import current_tracer

            if current_tracer() is not None:
                raise ValueError(
                    f"{type(cell).__name__}: its Parameters hold this rank's slices after "
                    "sharded training, and a compiled (GRAPH_MODE) function calling it "
                    "cannot gather them; call it from PYNATIVE_MODE, through Model.eval/"
                    "predict, or inside `with train_step._parallel_step.whole_parameters():`")
            self.saved = {k: p.asnumpy().copy() for k, p in self.sharded.params.items()}
            for name, value in self.whole().items():
                self.sharded.params[name].set_data(Tensor(value), slice_shape=True)
        self.depth += 1

    def leave(self, cell, inputs, output):
        self.depth -= 1
        if self.depth == 0:
            for name, value in self.saved.items():
                self.sharded.params[name].set_data(Tensor(value), slice_shape=True)
            self.saved = {}


def attach(network, sharded) -> FullView:
    """Hook every cell of ``network`` that holds one of ``sharded``'s Parameters."""
    view = FullView(sharded)
    held = {id(p) for p in sharded.params.values()}
    for _, cell in network.cells_and_names():
        if any(id(p) in held for p in cell.get_parameters()):
            view.handles.append(cell.register_forward_pre_hook(view.enter))
            view.handles.append(cell.register_forward_hook(view.leave, always_call=True))
    return view
