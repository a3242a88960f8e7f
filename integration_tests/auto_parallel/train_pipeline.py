"""Pipeline parallel on the launcher's ranks (one stage per rank), checked against one
process: a SequentialCell of Dense layers marked with ``pipeline_stage``, ``micro_size``
micro-batches in the 1F1B order, SGD. The last stage prints ``step K pipeline L1 single L2``;
every rank asserts its stage's Parameters equal the unsplit run's after the steps (float32,
to 1e-6).

``--recompute`` marks every cell (the whole stage is recomputed), ``--recompute-dense`` the
Dense cells only (each recomputes its own activations inside the stage).

usage: train_pipeline.py --micro M --steps K [--rows R] [--recompute | --recompute-dense]
"""

import argparse

import numpy as np

from ms_autodiff import value_and_grad
from ms_nn import Dense, MSELoss, ReLU, SequentialCell
from ms_parallel.auto.pipeline import PipelineCell
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Tensor

p = argparse.ArgumentParser()
p.add_argument("--micro", type=int, default=2)
p.add_argument("--steps", type=int, default=3)
p.add_argument("--rows", type=int, default=8, help="batch rows (8192: 128 KB messages)")
p.add_argument("--recompute", action="store_true", help="Cell.recompute() on every cell")
p.add_argument("--recompute-dense", action="store_true", help="Cell.recompute() on Dense cells")
args = p.parse_args()
init()
rank, n = get_rank(), get_group_size()


def build():
    layers = []
    for i in range(2 * n):
        dense = Dense(8, 8, weight_init="normal")
        r = np.random.default_rng(i)
        dense.weight.set_data(Tensor((r.standard_normal((8, 8)) * 0.4).astype(np.float32)))
        dense.bias.set_data(Tensor((r.standard_normal(8) * 0.1).astype(np.float32)))
        layers += [dense, ReLU()] if i < 2 * n - 1 else [dense]
    net = SequentialCell(layers)
    for i, c in enumerate(net.cells()):
        c.pipeline_stage = min(i // 4, n - 1)
    return net


def mark_recompute(net):
    for c in net.cells():
        c.recompute()


rng = np.random.default_rng(1)
x = Tensor(rng.standard_normal((args.rows, 8)).astype(np.float32))
y = Tensor(rng.standard_normal((args.rows, 8)).astype(np.float32))
loss_fn = MSELoss()
piped, single = build(), build()
if args.recompute:
    mark_recompute(piped)
if args.recompute_dense:
    for c in piped.cells():
        if isinstance(c, Dense):
            c.recompute()
stage = PipelineCell(piped, loss_fn, args.micro, rank, n)
assert stage.recompute == args.recompute
assert sum("_recompute" in vars(c) for c in stage.cells) == \
    (len(stage.cells) if args.recompute else 2 if args.recompute_dense else 0)
ref = value_and_grad(lambda a, b: loss_fn(single(a), b), None, single.trainable_params())
lr = 0.1
for k in range(args.steps):
    loss, grads = stage.step(x, y)
    loss_ref, grads_ref = ref(x, y)
    if rank == n - 1:
        assert abs(float(loss.asnumpy()) - float(loss_ref.asnumpy())) < 1e-6, (k, loss)
        print(f"step {k} pipeline {float(loss.asnumpy()):.12f} single "
              f"{float(loss_ref.asnumpy()):.12f}", flush=True)
    for prm, g in zip(stage.params, grads):
        prm.set_data(Tensor(prm.asnumpy() - lr * g.asnumpy()))
    for prm, g in zip(single.trainable_params(), grads_ref):
        prm.set_data(Tensor(prm.asnumpy() - lr * g.asnumpy()))
mine = {prm.name: prm for prm in stage.params}
for prm in single.trainable_params():
    if prm.name in mine:
        np.testing.assert_allclose(mine[prm.name].asnumpy(), prm.asnumpy(), atol=1e-6)
print(f"rank {rank} ok ({len(mine)} parameters)", flush=True)
