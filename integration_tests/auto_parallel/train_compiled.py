"""A compiled sharded training step: ``ms_graph.jit`` captures one rank's whole step (the
sharded forward, its backward, the gradient reduction over replicas and the SGD update) as
one graph whose collectives are graph nodes; it must equal the eager sharded step for step.

The MLP has Megatron shards (column- then row-parallel MatMul) with the batch cut in 2 on 4
ranks (``--hybrid``), so the graph holds redistributions and gradient AllReduces. Each step
feeds new data (the graph slices it: nothing is baked in). Rank 0 prints
``step K eager L1 compiled L2``; every rank asserts equal losses and Parameter slices
(float64, 1e-12) and that the compiled graph holds the collectives.

usage: train_compiled.py --steps K [--hybrid]
"""

import argparse

import numpy as np
from ms_graph import jit

from ms_autodiff import value_and_grad
from ms_nn import Cell
from ms_nn.optim.optimizer import assign
from ms_ops import Add, MatMul, ReduceMean, ReLU, SoftmaxCrossEntropyWithLogits
from ms_parallel.auto.execute import ShardedNet
from ms_parallel.auto.graph import capture
from ms_parallel.auto.planner import plan
from ms_parallel.auto.topology import Topology
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Parameter, Tensor

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=3)
p.add_argument("--hybrid", action="store_true")
args = p.parse_args()
init()
rank, n = get_rank(), get_group_size()
rng = np.random.default_rng(0)
LR = 0.1


class MLP(Cell):
    def __init__(self):
        super().__init__()
        self.w1 = Parameter(Tensor(rng.standard_normal((16, 32)) * 0.3), name="w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((32, 8)) * 0.3), name="w2")
        self.b2 = Parameter(Tensor(rng.standard_normal(8) * 0.3), name="b2")
        d, m = (2, n // 2) if args.hybrid else (1, n)
        self.mm1 = MatMul().shard(((d, 1), (1, m)))
        self.mm2 = MatMul().shard(((d, m), (m, 1)))
        self.relu, self.add = ReLU(), Add()
        self.loss, self.mean = SoftmaxCrossEntropyWithLogits(), ReduceMean()

    def construct(self, x, labels):
        logits = self.add(self.mm2(self.relu(self.mm1(x, self.w1)), self.w2), self.b2)
        return self.mean(self.loss(logits, labels)[0])


def batch():
    return (Tensor(rng.standard_normal((8, 16))),
            Tensor(np.eye(8)[rng.integers(0, 8, 8)]))


net = MLP()
full = {q.name: q.asnumpy().copy() for q in net.trainable_params()}
result = plan(capture(net, *batch()), Topology(device_num=n), "sharding_propagation")


def trainer(sharded):
    names = sorted(sharded.params)
    weights = [sharded.params[k] for k in names]
    grad = value_and_grad(sharded.loss_for_grad, None, weights)

    def step(x, labels):
        loss, grads = grad(x, labels)
        grads = sharded.reduce_gradients(dict(zip(names, grads)))
        for k, w in zip(names, weights):
            assign(w, w - LR * grads[k])
        return loss
    return step


eager_net, compiled_net = ShardedNet(result, rank, full), ShardedNet(result, rank, full)
eager, compiled = trainer(eager_net), jit(trainer(compiled_net), capture_mode="trace")
for k in range(args.steps):
    x, labels = batch()
    a, b = float(eager(x, labels).asnumpy()), float(compiled(x, labels).asnumpy())
    if rank == 0:
        print(f"step {k} eager {a:.12f} compiled {b:.12f}", flush=True)
    assert abs(a - b) <= 1e-12 * max(1.0, abs(a)), (k, a, b)
for name in eager_net.params:
    np.testing.assert_allclose(compiled_net.params[name].asnumpy(),
                               eager_net.params[name].asnumpy(), rtol=0, atol=1e-12)
assert compiled.misses == 1 and compiled.hits == args.steps - 1, (compiled.misses, compiled.hits)
ops = {node.op.name for g in compiled.graphs() for node in g.nodes if hasattr(node.op, "name")}
assert "AllReduce" in ops, sorted(ops)
print(f"rank {rank} collectives {sorted(o for o in ops if o.startswith('All'))}", flush=True)
print(f"rank {rank} ok", flush=True)
