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

``--eval`` then runs ``Model.eval`` (loss and accuracy), ``Model.predict`` and a plain call of
the network after training; each must give the single-process values on every rank (the
Parameters hold slices: the network gathers them while it runs outside the training step).
``--loss-scale fixed|dynamic`` trains through ``TrainOneStepWithLossScaleCell`` (Model's
``loss_scale_manager``); a NaN in the second step's batch makes that step overflow, so both
runs skip its update (and the dynamic scale halves).

``--ckpt DIR`` saves the strategy (``strategy_ckpt_config``; JSON, or protobuf for a
``--strategy-file`` not ending in .json), each rank's group information
(``group_ckpt_save_file``: ``restore_group_info_list`` names the ranks whose checkpoint equals
its own) and every rank's checkpoint of its slices (``DIR/rank_r/net.ckpt``);
``transform_checkpoints`` to one device then gives the single run's Parameters, and
``load_distributed_checkpoint`` with the run's own strategy as the prediction strategy gives
each rank its slices back.

usage: train_model.py --optimizer momentum|adam|adamw [--parallel-optimizer] [--graph]
       [--auto] [--steps K] [--eval] [--loss-scale fixed|dynamic] [--ckpt DIR] [--recompute]
"""

import argparse
import os

import numpy as np
from step_losses import Losses

from ms_data import NumpySlicesDataset
from ms_nn import Cell
from ms_nn.amp import DynamicLossScaleManager, FixedLossScaleManager
from ms_nn.loss import SoftmaxCrossEntropyWithLogits
from ms_nn.optim import Adam, AdamWeightDecay, Momentum
from ms_nn.train import Model
from ms_nn.train.checkpoint import load_checkpoint, save_checkpoint
from ms_ops import Add, MatMul, ReLU
from ms_parallel.auto.algo import reset_algo_parameters, set_algo_parameters
from ms_parallel.auto.group_info import restore_group_info_list
from ms_parallel.auto.transform import load_distributed_checkpoint, transform_checkpoints
from ms_parallel.context import ParallelMode, reset_auto_parallel_context, set_auto_parallel_context
from ms_parallel.management import get_group_size, get_rank, init
from ms_parallel.reduce_ops import AllReduce
from ms_tensor import Parameter, Tensor
from ms_tensor.context import GRAPH_MODE, set_context

p = argparse.ArgumentParser()
p.add_argument("--optimizer", choices=("momentum", "adam", "adamw"), default="momentum")
p.add_argument("--parallel-optimizer", action="store_true")
p.add_argument("--steps", type=int, default=3)
p.add_argument("--graph", action="store_true", help="GRAPH_MODE: a compiled sharded step")
p.add_argument("--auto", action="store_true",
               help="AUTO_PARALLEL, recursive programming (the shards pin their operators)")
p.add_argument("--eval", action="store_true", help="then eval, predict and call the network")
p.add_argument("--loss-scale", choices=("fixed", "dynamic"), default=None)
p.add_argument("--ckpt", default=None, help="a folder for the distributed checkpoints")
p.add_argument("--recompute", action="store_true",
               help="Cell.recompute() on the sharded run's network (docs/recompute.md)")
p.add_argument("--strategy-file", default="strategy.json",
               help="its name: .json for JSON, any other (strategy.ckpt) for protobuf")
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


rng = np.random.default_rng(1)
x = rng.standard_normal((BATCH * args.steps, 16))
labels = np.eye(8)[rng.integers(0, 8, BATCH * args.steps)]
if args.loss_scale:
    x[BATCH + 3, 5] = np.nan


model_of = []


def train(net, shards, shard_id):
    data = NumpySlicesDataset({"x": x, "y": labels}, shuffle=False, num_shards=shards,
                              shard_id=shard_id).batch(BATCH // (shards or 1))
    scaler = {None: None, "fixed": FixedLossScaleManager(128.0, drop_overflow_update=True),
              "dynamic": DynamicLossScaleManager(2.0 ** 20, 2, 2)}[args.loss_scale]
    model = Model(net, SoftmaxCrossEntropyWithLogits(reduction="mean"),
                  optimizer(net.trainable_params()), metrics={"loss", "acc"},
                  **({} if scaler is None else {"loss_scale_manager": scaler}))
    model_of.append(model)
    losses = Losses()
    model.train(1, data, callbacks=[losses], dataset_sink_mode=False)
    return losses.values


if args.graph:
    set_context(mode=GRAPH_MODE)
single = train(Net(), None, None)
mode = ParallelMode.AUTO_PARALLEL if args.auto else ParallelMode.SEMI_AUTO_PARALLEL
if args.auto:  # every operator on both ranks, so that replicas exist for the optimizer
    set_algo_parameters(fully_use_devices=True)
set_auto_parallel_context(parallel_mode=mode, device_num=n, search_mode="recursive_programming",
                          enable_parallel_optimizer=args.parallel_optimizer)
if args.ckpt:
    set_auto_parallel_context(strategy_ckpt_config={
        "save_file": os.path.join(args.ckpt, args.strategy_file)},
        group_ckpt_save_file=os.path.join(args.ckpt, f"group_{rank}.pb"))
# batch cut in 2 where possible, so that weights have replicas for the optimizer to shard
sharded = train(Net(d=2 if n >= 4 else 1).recompute() if args.recompute else
                Net(d=2 if n >= 4 else 1), n, rank)
step = model_of[-1].train_network._parallel_step
if args.recompute:  # the marked network's operators (not the loss's): one recomputed region
    assert {nd.recompute and nd.recompute[0] for nd in step.sharded.graph.nodes
            if nd.name.startswith("MatMul")} == {"Net"}
if args.eval:
    # the last rows: no NaN there (--loss-scale)
    valid = NumpySlicesDataset({"x": x[-12:], "y": labels[-12:]}, shuffle=False).batch(6)
    for single_model, name in ((model_of[0], "single"), (model_of[1], "sharded")):
        got = (single_model.eval(valid, dataset_sink_mode=False),
               single_model.predict(Tensor(x[-5:])).asnumpy(),
               single_model.predict_network(Tensor(x[-9:-5])).asnumpy())
        if name == "single":
            want = got
    assert got[0].keys() == want[0].keys() == {"loss", "acc"}, got[0]
    for k in want[0]:
        assert abs(got[0][k] - want[0][k]) <= 1e-5 * max(1.0, abs(want[0][k])), (k, got, want)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(got[2], want[2], rtol=1e-5, atol=1e-6)
    # the Parameters hold slices again, and training goes on from them
    assert step.sharded.params["w1"].shape != (16, 32) or n == 1
    if rank == 0:
        print(f"eval sharded {got[0]} single {want[0]}", flush=True)
if args.ckpt:
    strategy = os.path.join(args.ckpt, args.strategy_file)
    net = model_of[1].predict_network
    os.makedirs(os.path.join(args.ckpt, f"rank_{rank}"), exist_ok=True)
    save_checkpoint(net, os.path.join(args.ckpt, f"rank_{rank}", "net.ckpt"))
    AllReduce(Tensor(np.zeros(1)))  # every rank's file is written
    files = [os.path.join(args.ckpt, f"rank_{r}", "net.ckpt") for r in range(n)]
    mine = load_distributed_checkpoint(None, files, strategy, strategy, rank_id=rank,
                                       return_param_dict=True)
    for prm in net.trainable_params():
        np.testing.assert_array_equal(mine[prm.name].asnumpy(), prm.asnumpy())
    # the ranks whose checkpoint equals this one's: the other half of the 2 x 2 hybrid (none
    # with optimizer parallel, whose ranks keep different parts)
    same = restore_group_info_list(os.path.join(args.ckpt, f"group_{rank}.pb"))
    assert same == ([rank] if args.parallel_optimizer or n < 4 else
                    sorted({rank % 2, rank % 2 + 2})), same
    own = load_checkpoint(files[rank])
    for r in same:
        other = load_checkpoint(files[r])
        for prm in net.trainable_params():
            np.testing.assert_array_equal(other[prm.name].asnumpy(), own[prm.name].asnumpy())
    if rank == 0:
        transform_checkpoints(args.ckpt, os.path.join(args.ckpt, "one"), "net", strategy, None)
        whole = load_checkpoint(os.path.join(args.ckpt, "one", "rank_0", "net0.ckpt"))
        for prm in model_of[0].predict_network.trainable_params():
            np.testing.assert_allclose(whole[prm.name].asnumpy(), prm.asnumpy(), rtol=1e-5,
                                       atol=1e-6)
        print("distributed checkpoints ok", flush=True)
reset_auto_parallel_context()
reset_algo_parameters()
if args.parallel_optimizer:  # replicated slices are kept as 1/r parts, state included
    assert step.sharded.parts, "no Parameter was split"
    for name, (ranks, shape) in step.sharded.parts.items():
        assert step.sharded.params[name].size * len(ranks) == int(np.prod(shape)), name
if args.graph:
    run = step._grads if args.loss_scale else step._run  # loss scaling: gradients only
    assert run.misses == 1 and run.hits == args.steps - 1
    ops = {node.op.name for g in run.graphs() for node in g.nodes
           if hasattr(node.op, "name")}
    assert {"AllGather", "AllReduce"} <= ops, sorted(ops)
    if args.parallel_optimizer:
        assert "ReduceScatter" in ops, sorted(ops)
assert len(sharded) == len(single) == args.steps, (sharded, single)
for k, (a, b) in enumerate(zip(sharded, single)):
    if rank == 0:
        print(f"step {k} sharded {a:.10f} single {b:.10f}", flush=True)
    assert abs(a - b) <= 1e-5 * max(1.0, abs(b)) or np.isnan(a) and np.isnan(b), (k, a, b)
print(f"rank {rank} ok", flush=True)
