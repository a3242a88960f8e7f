"""``reshard`` between two MatMuls, trained on the launcher's ranks with TrainOneStepCell and
checked against the same training in one process (where ``reshard`` returns its input).

The first MatMul is sharded by the user; ``reshard`` pins its output's layout, and the second
MatMul, unannotated, is planned from it by sharding propagation (SEMI_AUTO_PARALLEL switches
to it; AUTO_PARALLEL must use it). ``--layout 1d``: rows cut n ways, then the columns by
``Layout((n,), ("mp",))("None", "mp")``, so the second MatMul is row parallel. ``--layout 2d``
(4 ranks): a 2 x 2 cut, then the same device matrix with its axes swapped
(``layout("mp", "dp")``). Every rank asserts: the losses equal the single run's (float32:
1e-5 relative, sums run in another order), the pinned tensor's planned layout is exactly
the given one (also in the saved strategy file), the second MatMul's weight, resharded
too, is kept in slices under its given layout, the redistribution into the pinned tensor is
the expected collectives, the second MatMul's strategy follows from it, in GRAPH_MODE the
one compiled step holds those collectives, and a call of the trained network gives the
single network's outputs. ``--layout 2d`` also moves a 4 MB tensor whose rows are cut by
both axes to its columns: one 4-way AlltoAll.
Rank 0 prints ``step K sharded L1 single L2``.

usage: train_reshard.py --layout 1d|2d [--auto] [--graph] [--steps K] --save FILE
"""

import argparse
import json

import numpy as np

from ms_nn import Cell
from ms_nn.loss import SoftmaxCrossEntropyWithLogits
from ms_nn.optim import Momentum
from ms_nn.wrap import TrainOneStepCell, WithLossCell
from ms_ops import Add, MatMul, ReLU
from ms_parallel.auto.layout import Layout
from ms_parallel.auto.redistribution import plan_redistribution
from ms_parallel.auto.reshard import reshard
from ms_parallel.context import ParallelMode, reset_auto_parallel_context, set_auto_parallel_context
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Parameter, Tensor
from ms_tensor.context import GRAPH_MODE, set_context

p = argparse.ArgumentParser()
p.add_argument("--layout", choices=("1d", "2d"), default="1d")
p.add_argument("--auto", action="store_true", help="AUTO_PARALLEL, sharding_propagation")
p.add_argument("--graph", action="store_true", help="GRAPH_MODE: one compiled sharded step")
p.add_argument("--steps", type=int, default=3)
p.add_argument("--save", required=True, help="the strategy file to write")
args = p.parse_args()
init()
rank, n = get_rank(), get_group_size()
if args.layout == "1d":
    FIRST, LAYOUT = ((n, 1), (1, 1)), Layout((n,), ("mp",))("None", "mp")
    WEIGHT = Layout((n,), ("mp",))("mp", "None")  # w2's rows: what row parallel reads
    INTO = ["AlltoAll"]  # rows cut n ways -> columns cut n ways: one AlltoAll
else:
    assert n == 4, "--layout 2d runs on 4 ranks"
    FIRST, LAYOUT = ((2, 1), (1, 2)), Layout((2, 2), ("dp", "mp"))("mp", "dp")
    WEIGHT = Layout((2, 2), ("dp", "mp"))("mp", "dp")
    INTO = ["AllGather", "AlltoAll", "Split"]  # the axes swap: gather rows, trade, cut


class Net(Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w1 = Parameter(Tensor(np.float32(rng.standard_normal((16, 32)) * 0.3)), name="w1")
        self.w2 = Parameter(Tensor(np.float32(rng.standard_normal((32, 8)) * 0.3)), name="w2")
        self.b2 = Parameter(Tensor(np.float32(rng.standard_normal(8) * 0.3)), name="b2")
        self.mm1 = MatMul().shard(FIRST)
        self.mm2 = MatMul()  # no strategy: planned from the reshard's layout
        self.relu, self.add = ReLU(), Add()

    def construct(self, x):
        h = reshard(self.mm1(x, self.w1), LAYOUT)
        return self.add(self.mm2(self.relu(h), reshard(self.w2, WEIGHT)), self.b2)


rng = np.random.default_rng(1)
batches = [(Tensor(np.float32(rng.standard_normal((8, 16)))),
            Tensor(np.float32(np.eye(8)[rng.integers(0, 8, 8)]))) for _ in range(args.steps)]


def train():
    net = Net()
    step = TrainOneStepCell(WithLossCell(net, SoftmaxCrossEntropyWithLogits(reduction="mean")),
                            Momentum(net.trainable_params(), learning_rate=0.1, momentum=0.9))
    return net, step, [float(step(x, y).asnumpy()) for x, y in batches]


if args.graph:
    set_context(mode=GRAPH_MODE)
single_net, _, single = train()
mode = ParallelMode.AUTO_PARALLEL if args.auto else ParallelMode.SEMI_AUTO_PARALLEL
set_auto_parallel_context(parallel_mode=mode, device_num=n, full_batch=True,
                          search_mode="sharding_propagation",
                          strategy_ckpt_config={"save_file": args.save})
sharded_net, train_net, sharded = train()
# a plain call after training (the slices gathered while it runs) gives the single outputs
np.testing.assert_allclose(sharded_net(batches[0][0]).asnumpy(),
                           single_net(batches[0][0]).asnumpy(), rtol=1e-5, atol=1e-6)
reset_auto_parallel_context()
for k, (a, b) in enumerate(zip(sharded, single)):
    if rank == 0:
        print(f"step {k} sharded {a:.12f} single {b:.12f}", flush=True)
    assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (k, a, b)

plan = train_net._parallel_step.sharded.plan
graph = plan.graph
j = next(i for i, node in enumerate(graph.nodes) if node.spec.op == "Reshard")
ins, outs = plan.model.layouts(j, plan.cuts[j])
assert ins == [LAYOUT] and outs == [LAYOUT], (ins, outs, LAYOUT)
assert plan.search_mode == "sharding_propagation"
for src, o, dst, _ in graph.edges():
    if dst == j:  # the redistribution reshard asks for
        a = plan.model.layouts(src, plan.cuts[src])[1][o]
        steps = plan_redistribution(a, LAYOUT, graph.nodes[src].spec.out_shapes[o], 8,
                                    plan.model.topo).steps
        assert [s.kind for s in steps] == INTO, steps
mm2 = next(k for k, node in enumerate(graph.nodes) if node.spec.op == "MatMul" and k > j)
if args.layout == "1d":  # the columns cut n ways: row parallel, planned from the layout
    assert plan.strategies()[graph.nodes[mm2].name]["in_strategy"] == [[1, n], [n, 1]]
saved = json.load(open(args.save))["operators"][graph.nodes[j].name]
assert saved["layout"] == LAYOUT.to_dict(), saved
# a Parameter pinned by reshard: each rank keeps its slice under that layout
assert plan.param_layouts()["w2"] == ((32, 8), WEIGHT), plan.param_layouts()["w2"]
assert train_net._parallel_step.sharded.param_layout["w2"] == WEIGHT
if args.graph:
    run = train_net._parallel_step._run
    assert run.misses == 1 and run.hits == args.steps - 1, (run.misses, run.hits)
    ops = [node.op.name for g in run.graphs() for node in g.nodes if hasattr(node.op, "name")]
    assert "Reshard" in ops and set(INTO) - {"Split"} <= set(ops), sorted(set(ops))
if args.layout == "2d" and not args.graph:
    # rows cut by both axes -> columns cut by both, 4 MB: one 4-way AlltoAll on the ranks
    from ms_parallel.auto.execute import redistribute
    from ms_parallel.auto.layout import TensorLayout
    from ms_parallel.auto.simulate import local_slice
    from ms_parallel.groups import WORLD

    src, dst = TensorLayout((2, 2), ((0, 1), ())), TensorLayout((2, 2), ((), (0, 1)))
    big = np.arange(1024.0 * 1024, dtype=np.float32).reshape(1024, 1024)
    assert [s.kind for s in plan_redistribution(src, dst, big.shape).steps] == ["AlltoAll"]
    got = redistribute(Tensor(np.ascontiguousarray(local_slice(big, src, rank))), src, dst,
                       big.shape, rank, lambda ranks: WORLD if len(ranks) == n else None)
    np.testing.assert_array_equal(got.asnumpy(), local_slice(big, dst, rank))
print(f"rank {rank} ok", flush=True)
