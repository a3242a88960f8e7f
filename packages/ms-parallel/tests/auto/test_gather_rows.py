"""Gather/Embedding with the table's gathered axis cut (a vocab-parallel lookup): on
simulated ranks, the ranks' masked local lookups sum to the whole lookup and their table
gradients are the slices of the whole gradient, indices at and across the slice borders,
negative and outside every slice included; the rule, the plan and the search offer the cut."""

import numpy as np
import pytest

from ms_autodiff import grad
from ms_nn import Cell
from ms_ops import Embedding, Gather, MatMul, ReduceMean
from ms_ops import functional as F
from ms_parallel.auto.execute import _run
from ms_parallel.auto.gather_rows import masked_gather
from ms_parallel.auto.graph import capture
from ms_parallel.auto.planner import plan
from ms_parallel.auto.simulate import local_slice
from ms_parallel.auto.spec import spec_for
from ms_parallel.auto.strategy import from_strategy, layouts
from ms_parallel.auto.topology import Topology
from ms_tensor import Parameter, Tensor

RNG = np.random.default_rng(0)


def _whole_grad(table, indices, axis, dout):
    """numpy: the lookups' scatter-add of ``dout`` into the table."""
    g = np.zeros_like(table)
    moved, d = np.moveaxis(g, axis, 0), np.moveaxis(dout, axis, 0)
    d = d.reshape((indices.size,) + moved.shape[1:]) if axis == 0 else \
        np.moveaxis(dout.reshape(table.shape[:axis] + (indices.size,) + table.shape[axis + 1:]),
                    axis, 0)
    np.add.at(moved, indices.reshape(-1) % table.shape[axis], d)
    return g


@pytest.mark.parametrize("axis, parts", [(0, 2), (0, 4), (1, 2), (-1, 3)])
def test_ranks_masked_lookups_sum_to_the_lookup_and_its_gradient(axis, parts):
    table = RNG.standard_normal((12, 6, 3) if axis != -1 else (2, 3, 12))
    ax = axis % table.ndim
    n = table.shape[ax]
    rows = n // parts
    # every slice border, its neighbours, the last row as -1 and an index twice
    indices = np.array([[0, rows - 1, rows, n - 1], [-1, rows + 1, n - rows, rows]])
    want = np.take(table, indices, axis=ax)
    dout = RNG.standard_normal(want.shape)
    got, grads = 0.0, []
    for r in range(parts):
        piece = Tensor(np.take(table, range(r * rows, (r + 1) * rows), axis=ax))
        out = masked_gather(piece, Tensor(indices), axis, r * rows, n)
        got = got + out.asnumpy()
        grads.append(grad(lambda t, lo=r * rows: F.reduce_sum(F.mul(
            masked_gather(t, Tensor(indices), axis, lo, n), Tensor(dout))))(piece).asnumpy())
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-12)
    np.testing.assert_allclose(np.concatenate(grads, axis=ax),
                               _whole_grad(table, indices, ax, dout), rtol=0, atol=1e-12)


def test_an_index_outside_every_slice_gives_zeros():
    out = masked_gather(Tensor(np.ones((2, 3))), Tensor(np.array([5, 1])), 0, 0, 4)
    np.testing.assert_array_equal(out.asnumpy(), [[0, 0, 0], [1, 1, 1]])


class _Net(Cell):
    def __init__(self, op, strategy, rows=8, padding_idx=None, by_freq=False):
        super().__init__()
        self.table = Parameter(Tensor(RNG.standard_normal((rows, 4))), name="table")
        self.w = Parameter(Tensor(RNG.standard_normal((4, 3))), name="w")
        self.op, self.kind = op.shard(strategy), type(op).__name__
        self.mm, self.mean = MatMul(), ReduceMean()
        self.options = (padding_idx, None, 2.0, by_freq)

    def construct(self, ids):
        rows = self.op(self.table, ids, 0) if self.kind == "Gather" else \
            self.op(ids, self.table, *self.options)
        return self.mean(self.mm(F.reshape(rows, (-1, 4)), self.w))


@pytest.mark.parametrize("op, strategy, extra", [
    (Gather(), ((2, 1), (1, 1)), {}),
    (Embedding(), ((1, 1), (2, 1)), {"padding_idx": 5}),  # the pad row on rank 1
    (Embedding(), ((2, 1), (2, 1)), {"padding_idx": -8}),  # batch and rows cut, pad row 0
])
def test_simulated_ranks_of_a_planned_lookup_sum_to_the_lookup(op, strategy, extra):
    ids = np.array([[0, 3, 4, 7], [5, 4, 3, 0]])
    net = _Net(op, strategy, **extra)
    p = plan(capture(net, Tensor(ids)), Topology(device_num=4), "sharding_propagation")
    node = p.graph.nodes[0]
    ins, outs = p.model.layouts(0, p.cuts[0])
    assert outs[0].partial, outs[0]  # the rows' letter is cut: the output is a summand
    table = net.table.asnumpy()
    t = 0 if node.spec.op == "Gather" else 1
    total = 0.0
    for rank in range(4):
        args = list(node.args)
        args[t] = Tensor(local_slice(table, ins[t], rank))
        args[1 - t] = Tensor(local_slice(ids, ins[1 - t], rank))
        local = _run(node, args, outs, ins, rank).asnumpy()
        # the summands of this rank's batch slice, placed into the whole output
        whole = np.zeros(ids.shape + (4,))
        n = local.shape[0]
        b = ins[1 - t].block(rank)[0]
        whole[b * n:(b + 1) * n] = local
        total = total + whole
    replicas = 4 // np.prod(ins[t].shards) // np.prod(ins[1 - t].shards)
    want = table[ids]
    np.testing.assert_allclose(total / replicas, want, rtol=0, atol=1e-12)


def test_the_rule_offers_the_rows_cut_except_where_the_whole_axis_is_needed():
    gather = spec_for("Gather", {}, (None, None, 0), ((8, 4), (2, 3)), ((2, 3, 4),))
    assert from_strategy(gather, ((2, 1), (1, 1)), 2) == (2, 1, 1, 1)
    _, outs = layouts(gather, (2, 1, 1, 1), 2)
    assert outs[0].partial
    emb = spec_for("Embedding", {}, (None, None, None, None, 2.0, True), ((2, 3), (8, 4)),
                   ((2, 3, 4),))
    with pytest.raises(ValueError, match="Embedding needs it whole"):
        from_strategy(emb, ((1, 1), (2, 1)), 2)
    batched = spec_for("Gather", {"batch_dims": 1}, (None, None, 1), ((2, 8), (2, 3)),
                       ((2, 3),))
    with pytest.raises(ValueError, match="needs it whole"):
        from_strategy(batched, ((1, 2), (1, 1)), 2)


def test_the_search_cuts_a_large_vocabulary_and_prices_the_partial_output():
    class Net(Cell):
        def __init__(self):
            super().__init__()
            self.table = Parameter(Tensor(np.zeros((65536, 3), np.float32)), name="table")
            self.w = Parameter(Tensor(np.zeros((3, 8), np.float32)), name="w")
            self.gather, self.mm, self.mean = Gather(), MatMul(), ReduceMean()

        def construct(self, ids):
            return self.mean(self.mm(self.gather(self.table, ids, 0), self.w))

    graph = capture(Net(), Tensor(np.zeros(8, np.int32)))
    for mode in ("dynamic_programming", "recursive_programming"):
        p = plan(graph, Topology(device_num=8), mode)
        rows, _, batch = p.cuts[0]
        assert rows > 1 and p.model.layouts(0, p.cuts[0])[1][0].partial, p.cuts
    # into a batch-cut MatMul: free from a batch-cut lookup, a ReduceScatter from the rows'
    assert p.model.edge_of(0, 0, 1, 0, (1, 1, 8), (8, 1, 1)) == 0
    assert p.model.edge_of(0, 0, 1, 0, (8, 1, 1), (8, 1, 1)) > 0
