"""A user script: ``Model.train`` in SEMI_AUTO_PARALLEL of an embedding-then-MatMul network
whose table's rows are cut (``Gather().shard(((n, 1), (1,)))``, a vocab-parallel embedding;
with ``--batch`` on 4 ranks ``((2, 1), (2,))``), checked against the same training in one
process: each rank reads its dataset shard, rank 0 prints ``step K sharded L1 single L2``,
every rank asserts equal losses (float32 data: 1e-5 relative) and its table slice equal to
the single run's after training. ``--graph`` runs both in GRAPH_MODE.

usage: model_gather_rows.py [--steps K] [--batch] [--graph]
"""

import argparse

import numpy as np
from step_losses import Losses

from ms_data import NumpySlicesDataset
from ms_nn import Cell
from ms_nn.loss import SoftmaxCrossEntropyWithLogits
from ms_nn.optim import Momentum
from ms_nn.train import Model
from ms_ops import Gather, MatMul
from ms_parallel.auto.simulate import local_slice
from ms_parallel.context import ParallelMode, reset_auto_parallel_context, set_auto_parallel_context
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Parameter, Tensor
from ms_tensor.context import GRAPH_MODE, set_context

BATCH, VOCAB = 8, 16


class Net(Cell):
    def __init__(self, rows=1, batch=1):
        super().__init__()
        rng = np.random.default_rng(0)
        self.table = Parameter(Tensor(rng.standard_normal((VOCAB, 6)).astype(np.float32)),
                               name="table")
        self.w = Parameter(Tensor(rng.standard_normal((6, 5)).astype(np.float32)), name="w")
        self.gather = Gather().shard(((rows, 1), (batch,)))
        self.mm = MatMul().shard(((batch, 1), (1, 1)))

    def construct(self, ids):
        return self.mm(self.gather(self.table, ids, 0), self.w)


def train(net, ids, labels, shards, shard_id):
    data = NumpySlicesDataset({"ids": ids, "y": labels}, shuffle=False, num_shards=shards,
                              shard_id=shard_id).batch(BATCH // (shards or 1))
    model = Model(net, SoftmaxCrossEntropyWithLogits(reduction="mean"),
                  Momentum(net.trainable_params(), learning_rate=0.5, momentum=0.9))
    losses = Losses()
    model.train(1, data, callbacks=[losses], dataset_sink_mode=False)
    return losses.values, model


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--batch", action="store_true")
    p.add_argument("--graph", action="store_true")
    args = p.parse_args()
    init()
    rank, n = get_rank(), get_group_size()
    rng = np.random.default_rng(1)
    ids = rng.integers(0, VOCAB, BATCH * args.steps).astype(np.int32)
    ids[:4] = [0, VOCAB // 2 - 1, VOCAB // 2, VOCAB - 1]  # slice borders
    labels = np.eye(5)[rng.integers(0, 5, BATCH * args.steps)].astype(np.float32)
    if args.graph:
        set_context(mode=GRAPH_MODE)
    single_net = Net()
    single, _ = train(single_net, ids, labels, None, None)
    set_auto_parallel_context(parallel_mode=ParallelMode.SEMI_AUTO_PARALLEL, device_num=n)
    batch = 2 if args.batch else 1
    sharded, model = train(Net(n // batch, batch), ids, labels, n, rank)
    for k, (a, b) in enumerate(zip(sharded, single)):
        if rank == 0:
            print(f"step {k} sharded {a:.12f} single {b:.12f}", flush=True)
        assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (k, a, b)
    assert len(sharded) == len(single) == args.steps, (sharded, single)
    step = model.train_network._parallel_step
    lay = step.sharded.param_layout["table"]
    assert lay.tensor_map[0], lay  # the rows are cut
    np.testing.assert_allclose(step.sharded.params["table"].asnumpy(),
                               local_slice(single_net.table.asnumpy(), lay, rank),
                               rtol=1e-5, atol=1e-6)
    if args.graph:  # one compiled sharded step, run again: the lookups' AllReduce in it
        assert step._run.misses == 1 and step._run.hits == args.steps - 1
        ops = {nd.op.name for g in step._run.graphs() for nd in g.nodes
               if hasattr(nd.op, "name")}
        assert "AllReduce" in ops, sorted(ops)
    reset_auto_parallel_context()
    print(f"rank {rank} ok", flush=True)


if __name__ == "__main__":
    main()
