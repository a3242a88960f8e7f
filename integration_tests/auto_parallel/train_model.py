"""A user script: ``Model.train`` in SEMI_AUTO_PARALLEL on the launcher's ranks, checked
against the same training in one process.

The network is an ordinary Cell with Megatron shards on two MatMuls; the context sets
``parallel_mode=SEMI_AUTO_PARALLEL`` (and ``enable_parallel_optimizer`` with
``--parallel-optimizer``). Each rank reads its shard of the dataset (``num_shards``,
``shard_id``): the steps' global batches are the single run's batches. Rank 0 prints
``step K sharded L1 single L2``; every rank asserts equal losses (the dataset yields
float32, whose sums in another order differ in the last bits: 1e-5 relative).

``--graph`` runs both in GRAPH_MODE: the sharded step is then one compiled graph (with its
collectives as nodes), run again on every later step.

usage: train_model.py --optimizer momentum|adam|adamw [--parallel-optimizer] [--graph]
       [--auto] [--steps K]
"""

import argparse

import numpy as np

from ms_data import NumpySlicesDataset
from ms_nn import Cell
from ms_nn.loss import SoftmaxCrossEntropyWithLogits
from ms_nn.optim import Adam, AdamWeightDecay, Momentum
from ms_nn.train import Callback, Model
from ms_ops import Add, MatMul, ReLU
from ms_parallel.context import ParallelMode, reset_auto_parallel_context, set_auto_parallel_context
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Parameter, Tensor
from ms_tensor.context import GRAPH_MODE, set_context

p = argparse.ArgumentParser()
p.add_argument("--optimizer", choices=("momentum", "adam", "adamw"), default="momentum")
p.add_argument("--parallel-optimizer", action="store_true")
p.add_argument("--steps", type=int, default=3)
p.add_argument("--graph", action="store_true", help="GRAPH_MODE: a compiled sharded step")
p.add_argument("--auto", action="store_true",
               help="AUTO_PARALLEL, recursive programming (the shards pin their operators)")
args = p.parse_args()
init()
rank, n = get_rank(), get_group_size()
BATCH = 8


class Net(Cell):
    def __init__(self, seed=0, d=1):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w1 = Parameter(Tensor(rng.standard_normal((16, 32)) * 0.3), name="w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((32, 8)) * 0.3), name="w2")
        self.b2 = Parameter(Tensor(rng.standard_normal(8) * 0.3), name="b2")
        m = n // d
        self.mm1 = MatMul().shard(((d, 1), (1, m)))  # column parallel
        self.mm2 = MatMul().shard(((d, m), (m, 1)))  # row parallel
        self.relu, self.add = ReLU(), Add()

    def construct(self, x):
        return self.add(self.mm2(self.relu(self.mm1(x, self.w1)), self.w2), self.b2)


def optimizer(params):
    if args.optimizer == "momentum":
        return Momentum(params, learning_rate=0.1, momentum=0.9)
    if args.optimizer == "adam":
        return Adam(params, learning_rate=0.01)
    return AdamWeightDecay(params, learning_rate=0.01, weight_decay=0.1)


class Losses(Callback):
    def __init__(self):
        self.values = []

    def step_end(self, run_context):
        self.values.append(float(np.asarray(run_context.original_args().net_outputs.asnumpy())))


rng = np.random.default_rng(1)
x = rng.standard_normal((BATCH * args.steps, 16))
labels = np.eye(8)[rng.integers(0, 8, BATCH * args.steps)]


model_of = []


def train(net, shards, shard_id):
    data = NumpySlicesDataset({"x": x, "y": labels}, shuffle=False, num_shards=shards,
                              shard_id=shard_id).batch(BATCH // (shards or 1))
    model = Model(net, SoftmaxCrossEntropyWithLogits(reduction="mean"),
                  optimizer(net.trainable_params()))
    model_of.append(model)
    losses = Losses()
    model.train(1, data, callbacks=[losses], dataset_sink_mode=False)
    return losses.values


if args.graph:
    set_context(mode=GRAPH_MODE)
single = train(Net(), None, None)
mode = ParallelMode.AUTO_PARALLEL if args.auto else ParallelMode.SEMI_AUTO_PARALLEL
set_auto_parallel_context(parallel_mode=mode, device_num=n, search_mode="recursive_programming",
                          enable_parallel_optimizer=args.parallel_optimizer)
# batch cut in 2 where possible, so that weights have replicas for the optimizer to shard
sharded = train(Net(d=2 if n >= 4 else 1), n, rank)
reset_auto_parallel_context()
step = model_of[-1].train_network._parallel_step
if args.parallel_optimizer:  # replicated slices are kept as 1/r parts, state included
    assert step.sharded.parts, "no Parameter was split"
    for name, (ranks, shape) in step.sharded.parts.items():
        assert step.sharded.params[name].size * len(ranks) == int(np.prod(shape)), name
if args.graph:
    assert step._run.misses == 1 and step._run.hits == args.steps - 1
    ops = {node.op.name for g in step._run.graphs() for node in g.nodes
           if hasattr(node.op, "name")}
    assert {"AllGather", "AllReduce"} <= ops, sorted(ops)
    if args.parallel_optimizer:
        assert "ReduceScatter" in ops, sorted(ops)
assert len(sharded) == len(single) == args.steps, (sharded, single)
for k, (a, b) in enumerate(zip(sharded, single)):
    if rank == 0:
        print(f"step {k} sharded {a:.10f} single {b:.10f}", flush=True)
    assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (k, a, b)
print(f"rank {rank} ok", flush=True)
