"""A vocab-parallel embedding on real ranks: the table's rows are cut (each rank looks up its
rows, the partial lookups are all-reduced where the MatMul needs them) and the sharded
training step must give the single-process losses step for step, the table's gradient
(sliced) and the Parameters after SGD (float64, 1e-12).

``--batch`` also cuts the batch in 2 (4 ranks: 2 x 2); ``--op embedding`` uses Embedding
(with a padding row) instead of Gather; ``--graph`` compiles the sharded step
(``ms_graph.jit``) and checks that the graph holds the AllReduce. Each step draws new ids,
slice borders and every row included. Rank 0 prints ``step K sharded L1 single L2``; every
rank prints ``rank R ok``.

usage: train_gather_rows.py [--steps K] [--batch] [--op gather|embedding] [--graph]
"""

import argparse

import numpy as np
from ms_graph import jit

from ms_autodiff import value_and_grad
from ms_nn import Cell
from ms_nn.optim.optimizer import assign
from ms_ops import Embedding, Gather, MatMul, ReduceMean, SoftmaxCrossEntropyWithLogits
from ms_parallel.auto.execute import ShardedNet
from ms_parallel.auto.graph import capture
from ms_parallel.auto.planner import plan
from ms_parallel.auto.simulate import local_slice
from ms_parallel.auto.topology import Topology
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Parameter, Tensor

LR, VOCAB, B = 0.5, 16, 8


def main():
    """Run the check (the module is imported by pytest's collection too)."""
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--batch", action="store_true")
    p.add_argument("--op", choices=("gather", "embedding"), default="gather")
    p.add_argument("--graph", action="store_true")
    args = p.parse_args()
    init()
    rank, n = get_rank(), get_group_size()
    rng = np.random.default_rng(0)


    class Net(Cell):
        def __init__(self):
            super().__init__()
            self.table = Parameter(Tensor(rng.standard_normal((VOCAB, 6))), name="table")
            self.w = Parameter(Tensor(rng.standard_normal((6, 5)) * 0.5), name="w")
            b = 2 if args.batch else 1
            rows = n // b
            if args.op == "gather":
                self.lookup = Gather().shard(((rows, 1), (b,)))
            else:
                self.lookup = Embedding().shard(((b,), (rows, 1)))
            self.mm = MatMul().shard(((b, 1), (1, 1)))
            self.loss, self.mean = SoftmaxCrossEntropyWithLogits(), ReduceMean()

        def construct(self, ids, labels):
            rows = self.lookup(self.table, ids, 0) if args.op == "gather" else \
                self.lookup(ids, self.table, VOCAB // 2 - 1)  # a padding row at a slice border
            return self.mean(self.loss(self.mm(rows, self.w), labels)[0])


    def batch():
        ids = rng.integers(0, VOCAB, B)
        r = VOCAB // (n // (2 if args.batch else 1))  # rows per slice
        ids[:5] = [0, r - 1, r, VOCAB - 1, VOCAB // 2 - 1]  # slice borders, the padding row
        return Tensor(ids.astype(np.int32)), Tensor(np.eye(5)[rng.integers(0, 5, B)])


    net = Net()
    names = ["table", "w"]
    full = {q.name: q.asnumpy().copy() for q in net.trainable_params()}
    result = plan(capture(net, *batch()), Topology(device_num=n), "sharding_propagation")
    assert result.model.layouts(0, result.cuts[0])[1][0].partial, "the lookup is not partial"
    sharded = ShardedNet(result, rank, full)
    weights = [sharded.params[k] for k in names]
    sharded_grad = value_and_grad(sharded.loss_for_grad, None, weights)
    single_params = list(net.trainable_params())
    single_grad = value_and_grad(net, None, single_params)


    def step(x, labels):
        loss, grads = sharded_grad(x, labels)
        grads = sharded.reduce_gradients(dict(zip(names, grads)))
        for k, w in zip(names, weights):
            assign(w, w - LR * grads[k])
        return loss, grads["table"]


    run = jit(step, capture_mode="trace") if args.graph else step
    for k in range(args.steps):
        x, labels = batch()
        loss, table_grad = run(x, labels)
        want, want_grads = single_grad(x, labels)
        for q, g in zip(single_params, want_grads):
            assign(q, q - LR * g)
        a, b = n * float(loss.asnumpy()), float(want.asnumpy())  # loss_for_grad is loss / n
        if rank == 0:
            print(f"step {k} sharded {a:.12f} single {b:.12f}", flush=True)
        assert abs(a - b) <= 1e-12 * max(1.0, abs(b)), (k, a, b)
        want_table = dict(zip([q.name for q in single_params], want_grads))["table"].asnumpy()
        np.testing.assert_allclose(table_grad.asnumpy(), local_slice(
            want_table, sharded.param_layout["table"], rank), rtol=0, atol=1e-12)
        assert np.abs(want_table).sum() > 0
    for q in single_params:
        np.testing.assert_allclose(sharded.params[q.name].asnumpy(), local_slice(
            q.asnumpy(), sharded.param_layout[q.name], rank), rtol=0, atol=1e-12)
    assert sharded.params["table"].shape[0] == VOCAB // (n // (2 if args.batch else 1))
    if args.graph:
        ops = {node.op.name for g in run.graphs() for node in g.nodes if hasattr(node.op, "name")}
        assert "AllReduce" in ops and run.hits == args.steps - 1, (sorted(ops), run.hits)
    print(f"rank {rank} ok", flush=True)


if __name__ == "__main__":
    main()
