"""``reshard`` inside pipeline stages: 2 stages on 4 ranks, each stage sharded over its 2
ranks. In each stage ``reshard`` pins a MatMul's output to its columns cut 2 ways, so the
stage's next MatMul (no strategy) is planned from it by sharding propagation: row parallel,
where SEMI_AUTO_PARALLEL alone would make it data parallel. ``Model.train`` on
``nn.PipelineCell`` must give the one-process losses (float32: 1e-5), and each rank's saved
stage strategy holds the pinned layout and that MatMul's row-parallel strategy. Rank 0
prints ``step K pipeline L1 single L2``.

usage: pipeline_reshard.py --save DIR [--steps K]
"""

import argparse
import json
import os

import numpy as np
from step_losses import Losses

from ms_data import NumpySlicesDataset
from ms_nn import Cell, PipelineCell, SequentialCell, WithLossCell
from ms_nn.loss import MSELoss
from ms_nn.optim import Momentum
from ms_nn.train import Model
from ms_ops import MatMul, ReLU
from ms_parallel.auto.layout import Layout
from ms_parallel.auto.reshard import reshard
from ms_parallel.context import reset_auto_parallel_context, set_auto_parallel_context
from ms_parallel.management import get_group_size, get_rank, init
from ms_tensor import Parameter, Tensor

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=3)
p.add_argument("--save", required=True, help="a folder for the ranks' strategy files")
args = p.parse_args()
init()
rank, n = get_rank(), get_group_size()
assert n == 4, "2 stages of 2 ranks"
BATCH, WIDTH = 8, 2


class Block(Cell):
    """x @ w1 (batch cut 2 ways) -> reshard: columns cut 2 ways -> ReLU -> @ w2 (planned)."""

    def __init__(self, k, seed):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w1 = Parameter(Tensor((rng.standard_normal((k, 16)) * 0.4).astype(np.float32)),
                            name=f"w1_{seed}")
        self.w2 = Parameter(Tensor((rng.standard_normal((16, k)) * 0.4).astype(np.float32)),
                            name=f"w2_{seed}")
        self.mm1, self.mm2, self.relu = MatMul().shard(((WIDTH, 1), (1, 1))), MatMul(), ReLU()
        self.cols = Layout((WIDTH,), ("mp",))("None", "mp")

    def construct(self, x):
        return self.mm2(self.relu(reshard(self.mm1(x, self.w1), self.cols)), self.w2)


rng = np.random.default_rng(7)
x = rng.standard_normal((BATCH * args.steps, 6)).astype(np.float32)
y = rng.standard_normal((BATCH * args.steps, 6)).astype(np.float32)


def train():
    cells = [Block(6, 0), Block(6, 1)]
    for i, c in enumerate(cells):
        c.pipeline_stage = i
    net = PipelineCell(WithLossCell(SequentialCell(cells), MSELoss()), 2)
    model = Model(net, optimizer=Momentum(net.trainable_params(), 0.05, 0.9))
    losses = Losses()
    model.train(1, NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(BATCH),
                callbacks=[losses], dataset_sink_mode=False)
    return losses.values


single = train()
save = os.path.join(args.save, f"rank{rank}.json")
set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n, pipeline_stages=2,
                          strategy_ckpt_config={"save_file": save})
piped = train()
reset_auto_parallel_context()
assert len(piped) == len(single) == args.steps, (piped, single)
for k, (a, b) in enumerate(zip(piped, single)):
    if rank == 0:
        print(f"step {k} pipeline {a:.9f} single {b:.9f}", flush=True)
    assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (k, a, b)
ops = json.load(open(save))["operators"]
pinned = [v for v in ops.values() if v["op"] == "Reshard"]
assert [v["layout"] for v in pinned] == [{"device_matrix": [2], "tensor_map": [-1, 0]}], ops
mms = sorted((k, v["in_strategy"]) for k, v in ops.items() if v["op"] == "MatMul")
assert [s for _, s in mms] == [[[2, 1], [1, 1]], [[1, 2], [2, 1]]], mms  # then row parallel
print(f"rank {rank} ok", flush=True)
