"""Run a plan on real ranks: each rank holds its slices and the collectives join them.

``ShardedNet(plan, rank)`` keeps, as Parameters, only this rank's slice of every Parameter
(under the layout of the first operator that reads it) and runs the captured operators on
local slices. Between operators it performs the planned redistribution with ms-parallel's
collective operators (AllGather / ReduceScatter / AllReduce / AlltoAll on the groups of
ranks along one device axis) and local slicing, so ``grad`` differentiates straight through
them: each collective's gradient rule is its adjoint.

The loss a rank computes is the whole batch's loss (partial outputs are all-reduced).
``loss_for_grad`` divides it by the device count, so the ranks' objectives sum to the true
loss; the gradient of a Parameter slice held by several ranks is then the sum of their
gradients (``reduce_gradients`` all-reduces over those ranks). The result equals the
single-process gradient of the unsliced Parameter, sliced.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops import functional as F
from ms_parallel.auto.gather_rows import local_lookup
from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.recompute import run_nodes
from ms_parallel.auto.redistribution import plan_redistribution
from ms_parallel.auto.simulate import group_of, local_slice
from ms_tensor import Parameter, Tensor

__all__ = ["ShardedNet", "redistribute"]


class ShardedNet:
    """This rank's part of a plan made from a captured network (``capture`` then ``plan``).

    Args:
        plan: a ``Plan`` whose graph came from ``capture`` (its nodes carry their OpDefs).
        rank: this process's rank in the world of ``plan``'s device count.
        params: full arrays of the Parameters by name (the single-process initial values).
        world: the world ranks of the plan's ranks ``0 .. n-1`` (a pipeline stage's), if
            they are not those.
    """

    def __init__(self, plan, rank: int, params: dict, world=None):
        self.plan = plan
        self.world = list(range(plan.model.n)) if world is None else list(world)
        self.graph = plan.graph
        self.n = plan.model.n
        self.rank = rank
        self._groups: dict[tuple, str] = {}
        # name -> (ranks, slice shape) of a Parameter stored as this rank's flat part of the
        # slice those ranks share (optimizer parallel): gathered where it is read
        self.parts: dict[str, tuple] = {}
        self.layouts = [plan.model.layouts(j, c) for j, c in enumerate(plan.cuts)]
        self.param_layout: dict[str, TensorLayout] = {}
        for j, node in enumerate(self.graph.nodes):
            if node.op is None:
                raise ValueError(f"ShardedNet: node {node.name} has no operator; plan a graph "
                                 "captured from a network (ms_parallel.auto.capture)")
            for s, lay in zip(node.sources, self.layouts[j][0]):
                if s is not None and s[0] == "param":
                    self.param_layout.setdefault(s[1], lay)
        self.params = {name: Parameter(Tensor(np.ascontiguousarray(
            local_slice(np.asarray(params[name]), lay, rank))), name=name)
            for name, lay in self.param_layout.items()}
        self._make_groups()

    # -- groups ---------------------------------------------------------------------------
    def _ranks_along(self, dev, axes) -> list[int]:
        """Ranks that differ from this one only along ``axes`` of ``dev``, ascending."""
        return _along(dev, axes, self.rank)

    def _group(self, ranks) -> str:
        return self._groups[tuple(ranks)]

    def _make_groups(self):
        """Create, in one order on every rank, each group a redistribution or a gradient
        reduction will use (MPI groups are made collectively by their members)."""
        from ms_parallel.management import create_group

        needed: list[tuple] = []
        for dev, axes in self._group_axes():
            for r in range(self.n):
                g = tuple(_along(dev, axes, r))
                if len(g) > 1 and g not in needed:
                    needed.append(g)
        for g in sorted(needed):
            if self.rank in g:
                ranks = [self.world[r] for r in g]
                name = "auto-" + "-".join(map(str, ranks))
                try:
                    create_group(name, ranks)
                except ValueError as e:
                    if "already exists" not in str(e):
                        raise
                self._groups[g] = name

    def _group_axes(self):
        for src, o, dst, i in self.graph.edges():
            yield from self._steps_axes(self.layouts[src][1][o], self.layouts[dst][0][i],
                                        self.graph.nodes[src])
        for j, node in enumerate(self.graph.nodes):
            for s, lay, shape in zip(node.sources, self.layouts[j][0], node.spec.in_shapes):
                if s is not None and s[0] == "param":
                    yield from self._steps_axes(self.param_layout[s[1]], lay, node, shape)
        for j, o in self.graph.outputs:
            out = self.layouts[j][1][o]
            yield from ((out.dev_matrix, (a,)) for a in sorted(out.partial))
            whole = TensorLayout(out.dev_matrix, tuple(() for _ in out.tensor_map))
            yield from self._steps_axes(out, whole, self.graph.nodes[j],
                                        self.graph.nodes[j].spec.out_shapes[o])
        for lay in self.param_layout.values():
            used = {a for axes in lay.tensor_map for a in axes}
            yield lay.dev_matrix, tuple(a for a in range(len(lay.dev_matrix)) if a not in used)

    def _steps_axes(self, src, dst, node, shape=None):
        shape = node.spec.out_shapes[0] if shape is None else shape
        r = plan_redistribution(src, dst, shape, node.itemsize, self.plan.model.topo)
        for step in r.steps:
            if step.kind == "Slice":
                yield r.dev_matrix, tuple(range(len(r.dev_matrix)))
            else:
                yield r.dev_matrix, (step.axis,)

    # -- running --------------------------------------------------------------------------
    def _redistribute(self, x, src: TensorLayout, dst: TensorLayout, shape, itemsize):
        return redistribute(x, src, dst, shape, self.rank, self._group, itemsize,
                            self.plan.model.topo)

    def loss(self, *inputs, whole: bool = False):
        """This rank's forward pass; ``inputs`` are the full (global-batch) inputs, each
        rank slicing what its first reader needs. The output keeps its sliced dimensions
        unless ``whole`` (then every rank gets all of it: a pipeline stage's output)."""
        values: dict[tuple, Tensor] = {}
        run_nodes(self, values, inputs)  # each Cell.recompute() region as one call
        j, o = self.graph.outputs[0]
        out = self.layouts[j][1][o]
        keep = tuple(() for _ in out.tensor_map) if whole else out.tensor_map
        result = self._redistribute(values[(j, o)], out, TensorLayout(out.dev_matrix, keep),
                                    self.graph.nodes[j].spec.out_shapes[o],
                                    self.graph.nodes[j].itemsize)
        return result

    def run_node(self, j, values: dict, inputs) -> None:
        """Node ``j`` on this rank's slices: its inputs redistributed from ``values`` (by
        ``(node, output)``), ``inputs`` or the Parameters; its outputs put in ``values``."""
        node = self.graph.nodes[j]
        ins, outs = self.layouts[j]
        args = []
        for i, (s, lay) in enumerate(zip(node.sources, ins)):
            if s is None:
                args.append(node.args[i])
            elif s[0] == "const":
                args.append(Tensor(local_slice(np.asarray(node.args[i]), lay, self.rank))
                            if lay is not None and np.ndim(node.args[i]) else node.args[i])
            elif s[0] == "input":
                args.append(self._input_slice(inputs[s[1]], lay, node.spec.in_shapes[i]))
            elif s[0] == "param":
                src = self.param_layout[s[1]]
                args.append(self._redistribute(self._param(s[1]), src, lay,
                                               node.spec.in_shapes[i], node.itemsize))
            else:
                producer = self.graph.nodes[s[1]]
                src = self.layouts[s[1]][1][s[2]]
                args.append(self._redistribute(values[(s[1], s[2])], src, lay,
                                               producer.spec.out_shapes[s[2]],
                                               producer.itemsize))
        out = _run(node, args, outs, ins, self.rank)
        for o, t in enumerate(out if isinstance(out, tuple) else (out,)):
            values[(j, o)] = t

    def _param(self, name):
        """Parameter ``name``'s slice; one kept as parts is all-gathered (its gradient, the
        AllGather's adjoint, is then reduce-scattered: each rank gets its part's sum)."""
        from ms_parallel.reduce_ops import AllGather

        p = self.params[name]
        if name not in self.parts:
            return p
        ranks, shape = self.parts[name]
        return F.reshape(AllGather(p, self._group(ranks)), shape)

    def _input_slice(self, x, lay, shape):
        """This rank's slice of a global input: Tensor indexing (an operator, so a compiled
        step slices each call's data), numpy for other arrays."""
        if isinstance(x, Tensor):
            return x[_index(lay, shape, self.rank)] if lay is not None and shape else x
        return Tensor(np.ascontiguousarray(local_slice(np.asarray(x), lay, self.rank)))

    def loss_for_grad(self, *inputs):
        """The rank's share of the objective: the ranks' shares sum to the loss."""
        return F.div(self.loss(*inputs), float(self.n))

    def replica_ranks(self, name: str) -> list[int]:
        """The ranks holding the same slice of Parameter ``name`` as this one, ascending."""
        lay = self.param_layout[name]
        used = {a for axes in lay.tensor_map for a in axes}
        return self._ranks_along(lay.dev_matrix,
                                 [a for a in range(len(lay.dev_matrix)) if a not in used])

    def group(self, ranks) -> str:
        """The communication group this net made for those ranks."""
        return self._group(ranks)

    def reduce_gradients(self, grads: dict) -> dict:
        """Sum each Parameter slice's gradient over the ranks that hold the same slice."""
        from ms_parallel.reduce_ops import AllReduce

        out = {}
        for name, g in grads.items():
            ranks = self.replica_ranks(name)
            out[name] = AllReduce(g, "sum", self._group(ranks)) if len(ranks) > 1 else g
        return out

def redistribute(x, src: TensorLayout, dst: TensorLayout, shape, rank: int, group_for,
                 itemsize: int = 4, topology=None):
    """This rank's slice ``x`` of a tensor of ``shape`` under ``src``, moved to ``dst`` by the
    planned steps. ``group_for(ranks)`` names the communication group of those world ranks
    (all of which run the same call)."""
    from ms_parallel.p2p_ops import AlltoAll
    from ms_parallel.reduce_ops import AllGather, AllReduce, ReduceScatter

    r = plan_redistribution(src, dst, shape, itemsize, topology)
    dev = r.dev_matrix
    for step in r.steps:
        if step.kind == "Slice":
            g = group_for(_along(dev, range(len(dev)), rank))
            for d in range(len(shape)):
                x = _gather_dim(x, d, g, AllGather) if x.shape[d] != shape[d] else x
            x = x[_index(dst, shape, rank)]
            continue
        g = group_for(_along(dev, (step.axis,), rank))
        p = dev[step.axis]
        if step.kind == "AllReduce" and not x.shape:
            # ms-parallel's AllReduce gradient comes back as (1,) for a 0-d tensor
            x = F.reshape(AllReduce(F.reshape(x, (1,)), "sum", g), ())
        elif step.kind == "AllReduce":
            x = AllReduce(x, "sum", g)
        elif step.kind == "AllGather":
            x = _gather_dim(x, step.dim, g, AllGather)
        elif step.kind == "ReduceScatter":
            x = _to_front(ReduceScatter(_to_front(x, step.dim), "sum", g), step.dim)
        elif step.kind == "AlltoAll":
            x = AlltoAll(x, p, step.dim_to, step.dim, g)
        elif step.kind == "Split":
            c = (rank // math.prod(dev[step.axis + 1:])) % p
            n = x.shape[step.dim] // p
            index = [slice(None)] * len(x.shape)
            index[step.dim] = slice(c * n, (c + 1) * n)
            x = x[tuple(index)]
    return x


def _along(dev, axes, rank):
    ranks = [rank]
    for a in axes:
        ranks = sorted({r for x in ranks for r in group_of(dev, a, x)})
    return ranks


def _to_front(x, d):
    if d == 0:
        return x
    perm = list(range(len(x.shape)))
    perm[0], perm[d] = perm[d], perm[0]
    return F.transpose(x, tuple(perm))


def _gather_dim(x, d, group, all_gather):
    return _to_front(all_gather(_to_front(x, d), group), d)


def _index(layout, shape, rank):
    local = layout.slice_shape(shape)
    return tuple(slice(b * n, (b + 1) * n) for b, n in zip(layout.block(rank), local))


# operators whose local computation is not the operator itself where some cuts apply:
# ``fn(node, args, input layouts, rank)`` gives the output, or None to run the operator
LOCAL = {"Gather": local_lookup, "Embedding": local_lookup}


def _run(node, args, outs, ins=None, rank=0):
    """The operator on local slices: Reshape gets the local target shape, a mean over cut
    axes is scaled so that the partial sums add up to the mean, and the operators in
    ``LOCAL`` compute their own local part (a lookup in a table's slice of rows)."""
    spec = node.spec
    if spec.op == "Reshape":
        args = [args[0], outs[0].slice_shape(spec.out_shapes[0])]
    local = LOCAL.get(spec.op)
    out = None if local is None or ins is None else local(node, args, ins, rank)
    if out is None:
        out = node.op(*args, **node.attrs)
    scale = math.prod(outs[0].dev_matrix[a] for a in outs[0].partial) if spec.mean_letters \
        else 1
    return F.div(out, float(scale)) if scale > 1 else out
