"""Semi-auto parallel training on the ranks of the launcher, checked against one process.

The network is written with ops Primitives and Megatron-style ``shard`` strategies on
``N`` = the world size: the first MatMul cuts its weight's columns, the second its rows (its
output is then a partial sum, all-reduced). Every rank captures the network, plans it with
sharding propagation, keeps only its slices (``ShardedNet``) and trains with plain SGD;
the same steps also run unsharded in the process. ``--optimizer momentum`` trains with
Momentum, ``parallel`` with Momentum under optimizer parallel (ZeRO-1); ``--hybrid`` cuts the
MLP's batch in 2 as well, so that its weights have replicas. Rank 0 prints
``step K sharded L1 single L2`` per step; every rank asserts its losses and its final
Parameter slices equal the unsharded run's (float64, so to 1e-10).

usage: train_sharded.py --model mlp|block --steps K [--optimizer sgd|momentum|parallel]
       [--hybrid]
"""

import argparse

import numpy as np

from ms_autodiff import value_and_grad
from ms_nn import Cell
from ms_ops import (
    Add,
    BatchMatMul,
    GeLU,
    LayerNorm,
    MatMul,
    ReduceMean,
    ReLU,
    Reshape,
    Softmax,
    SoftmaxCrossEntropyWithLogits,
    Transpose,
)
from ms_parallel.auto.execute import ShardedNet
from ms_parallel.auto.graph import capture
from ms_parallel.auto.optimizer_parallel import ShardedMomentum
from ms_parallel.auto.planner import plan
from ms_parallel.auto.topology import Topology
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Parameter, Tensor

p = argparse.ArgumentParser()
p.add_argument("--model", choices=("mlp", "block"), default="mlp")
p.add_argument("--steps", type=int, default=3)
p.add_argument("--optimizer", choices=("sgd", "momentum", "parallel"), default="sgd",
               help="parallel: Momentum with optimizer parallel (ZeRO-1)")
p.add_argument("--hybrid", action="store_true",
               help="MLP: batch cut in 2 and the weights in n/2 (replicas to shard state over)")
p.add_argument("--ckpt", help="save the slices here, merge them, and load a whole checkpoint back")
args = p.parse_args()
init()
rank, n = get_rank(), get_group_size()
rng = np.random.default_rng(0)


def param(name, *shape):
    return Parameter(Tensor(rng.standard_normal(shape) * 0.3), name=name)


class MLP(Cell):
    def __init__(self):
        super().__init__()
        self.w1, self.w2 = param("w1", 16, 32), param("w2", 32, 8)
        self.b2 = param("b2", 8)
        d, m = (2, n // 2) if args.hybrid else (1, n)
        self.mm1 = MatMul().shard(((d, 1), (1, m)))  # column parallel
        self.relu = ReLU()
        self.mm2 = MatMul().shard(((d, m), (m, 1)))  # row parallel: partial sums
        self.add = Add()
        self.loss = SoftmaxCrossEntropyWithLogits()
        self.mean = ReduceMean()

    def construct(self, x, labels):
        logits = self.add(self.mm2(self.relu(self.mm1(x, self.w1)), self.w2), self.b2)
        return self.mean(self.loss(logits, labels)[0])


class Block(Cell):
    """A transformer block on (batch*seq, hidden) rows: attention with heads cut over the
    ranks (column-parallel q/k/v, row-parallel projection), then the feed-forward block."""

    def __init__(self, batch=2, seq=4, hidden=8, heads=4):
        super().__init__()
        self.shape = (batch, seq, heads, hidden // heads)
        self.rows = (batch * seq, hidden)
        self.g, self.b = param("ln.gamma", hidden), param("ln.beta", hidden)
        self.wq, self.wk, self.wv = (param(f"w{c}", hidden, hidden) for c in "qkv")
        self.wo = param("wo", hidden, hidden)
        self.w1, self.w2 = param("ffn1", hidden, 4 * hidden), param("ffn2", 4 * hidden, hidden)
        self.ln = LayerNorm(-1, -1)
        self.q, self.k, self.v = (MatMul().shard(((1, 1), (1, n))) for _ in range(3))
        self.reshape, self.t = Reshape(), Transpose()
        self.scores = BatchMatMul().shard(((1, n, 1, 1), (1, n, 1, 1)))
        self.softmax = Softmax()
        self.ctx = BatchMatMul().shard(((1, n, 1, 1), (1, n, 1, 1)))
        self.proj = MatMul().shard(((1, n), (n, 1)))
        self.ffn1 = MatMul().shard(((1, 1), (1, n)))
        self.gelu = GeLU()
        self.ffn2 = MatMul().shard(((1, n), (n, 1)))
        self.add = Add()
        self.mean = ReduceMean()

    def construct(self, x, labels):
        h = self.ln(x, self.g, self.b)[0]
        q = self.t(self.reshape(self.q(h, self.wq), self.shape), (0, 2, 1, 3))
        k = self.t(self.reshape(self.k(h, self.wk), self.shape), (0, 2, 3, 1))
        v = self.t(self.reshape(self.v(h, self.wv), self.shape), (0, 2, 1, 3))
        a = self.ctx(self.softmax(self.scores(q, k)), v)
        a = self.reshape(self.t(a, (0, 2, 1, 3)), self.rows)
        x = self.add(x, self.proj(a, self.wo))
        x = self.add(x, self.ffn2(self.gelu(self.ffn1(x, self.w1)), self.w2))
        return self.mean(self.mean(x * x, -1) * labels)


net = MLP() if args.model == "mlp" else Block()
rows = 8
x = Tensor(rng.standard_normal((rows, 16 if args.model == "mlp" else 8)))
labels = Tensor(np.eye(8)[rng.integers(0, 8, rows)]) if args.model == "mlp" else \
    Tensor(rng.uniform(0.5, 1.5, rows))
full = {p.name: p.asnumpy().copy() for p in net.trainable_params()}

result = plan(capture(net, x, labels), Topology(device_num=n), "sharding_propagation")
sharded = ShardedNet(result, rank, full)
# Each rank holds only its slices: the column-parallel weight's columns, the row-parallel's rows.
first, second = ("w1", "w2") if args.model == "mlp" else ("ffn1", "ffn2")
m = n // 2 if args.hybrid else n
assert sharded.params[first].shape == (full[first].shape[0], full[first].shape[1] // m)
assert sharded.params[second].shape == (full[second].shape[0] // m, full[second].shape[1])
optimizer = ShardedMomentum(sharded, 0.1, 0.9 if args.optimizer != "sgd" else 0.0,
                            parallel_optimizer=args.optimizer == "parallel")
if args.optimizer == "parallel":  # each holder of a replicated slice keeps 1/r of its state
    for name, prm in sharded.params.items():
        r = len(sharded.replica_ranks(name))
        assert optimizer.state[name].size == prm.asnumpy().size // r, name
accum = {p.name: np.zeros(p.shape) for p in net.trainable_params()}
names = sorted(sharded.params)
step = value_and_grad(sharded.loss_for_grad, None, [sharded.params[k] for k in names])
single = value_and_grad(net, None, net.trainable_params())
lr, mom = 0.1, (0.0 if args.optimizer == "sgd" else 0.9)
for k in range(args.steps):
    share, grads = step(x, labels)
    loss_ref, grads_ref = single(x, labels)
    loss = float(share.asnumpy()) * n
    assert abs(loss - float(loss_ref.asnumpy())) < 1e-10, (k, loss, loss_ref)
    if rank == 0:
        print(f"step {k} sharded {loss:.12f} single {float(loss_ref.asnumpy()):.12f}", flush=True)
    optimizer.step(dict(zip(names, grads)))
    for prm, g in zip(net.trainable_params(), grads_ref):
        accum[prm.name] = mom * accum[prm.name] + g.asnumpy()
        prm.set_data(Tensor(prm.asnumpy() - lr * accum[prm.name]))

from ms_parallel.auto.simulate import local_slice  # noqa: E402

for prm in net.trainable_params():
    want = local_slice(prm.asnumpy(), sharded.param_layout[prm.name], rank)
    np.testing.assert_allclose(sharded.params[prm.name].asnumpy(), want, atol=1e-10)
print(f"rank {rank} ok", flush=True)
if args.ckpt:
    import os

    from ms_nn.train.checkpoint import load_checkpoint, save_checkpoint
    from ms_parallel.auto.checkpoint import load_sharded, merge_checkpoints, save_sharded
    from ms_parallel.comm_func import barrier

    save_sharded(sharded, args.ckpt)
    barrier()
    if rank == 0:
        merge_checkpoints(args.ckpt, os.path.join(args.ckpt, "merged.ckpt"))
        merged = load_checkpoint(os.path.join(args.ckpt, "merged.ckpt"))
        for prm in net.trainable_params():
            np.testing.assert_allclose(merged[prm.name].asnumpy(), prm.asnumpy(), atol=1e-10)
        save_checkpoint(net, os.path.join(args.ckpt, "single.ckpt"))
        print("merged ok", flush=True)
    barrier()
    for prm in sharded.params.values():
        prm.set_data(Tensor(np.zeros(prm.shape)))
    load_sharded(sharded, os.path.join(args.ckpt, "single.ckpt"))
    for prm in net.trainable_params():
        want = local_slice(prm.asnumpy(), sharded.param_layout[prm.name], rank)
        np.testing.assert_array_equal(sharded.params[prm.name].asnumpy(), want)
    print(f"rank {rank} loaded ok", flush=True)
