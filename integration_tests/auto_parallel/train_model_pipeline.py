"""A user script: ``Model.train`` with ``pipeline_stages`` = the rank count, the network an
``nn.PipelineCell(nn.WithLossCell(SequentialCell, loss), micro_size)`` whose cells carry
``pipeline_stage``; checked against the same PipelineCell trained in one process (there it
sums the micro-batches' losses, as MindSpore's does). Rank 0 prints
``step K pipeline L1 single L2``; every rank asserts equal losses (float32 data: 1e-5).

Then the backbone, called on every rank (``Model.predict`` and a plain call), gives the
single-process outputs: each stage's trained Parameters are broadcast from its rank first.

``--stages S`` (fewer than the ranks) also shards each stage's operators over its
``ranks / S`` ranks: Megatron pairs, a column-parallel MatMul then a row-parallel one.

With ``--ckpt DIR`` and sharded stages, each rank saves its stage's strategy
(``DIR/strategies/rank{r}.json``, or ``.ckpt``: MindSpore's protobuf, with
``--strategy-ext .ckpt``) and its checkpoint; ``merge_pipeline_strategys`` joins the
stages' files and ``transform_checkpoints`` to one device gives the single run's Parameters.

``--parallel-optimizer`` (with ``--stages`` fewer than the ranks): the stages' operators are
data parallel (each stage's Parameters replicated over its ranks) and
``enable_parallel_optimizer`` keeps on each rank a ``1/width`` flat part of every Parameter
and of its Momentum state (checked), the gradients reduce-scattered.

``--custom``: the backbone is a Cell whose construct calls the layers in turn (MindSpore's
pipeline tutorial), not a SequentialCell.

usage: train_model_pipeline.py [--micro M] [--steps K] [--stages S] [--ckpt DIR] [--custom]
       [--parallel-optimizer]
"""

import argparse
import os

import numpy as np
from step_losses import Losses

from ms_data import NumpySlicesDataset
from ms_nn import Cell, PipelineCell, SequentialCell, WithLossCell
from ms_nn.loss import MSELoss
from ms_nn.optim import Momentum
from ms_nn.train import Model
from ms_nn.train.checkpoint import load_checkpoint, save_checkpoint
from ms_ops import MatMul, ReLU
from ms_parallel.auto.strategy_file import merge_pipeline_strategys
from ms_parallel.auto.transform import transform_checkpoints
from ms_parallel.context import reset_auto_parallel_context, set_auto_parallel_context
from ms_parallel.management import get_group_size, get_rank, init
from ms_parallel.reduce_ops import AllReduce
from ms_tensor import Parameter, Tensor

p = argparse.ArgumentParser()
p.add_argument("--micro", type=int, default=2)
p.add_argument("--steps", type=int, default=3)
p.add_argument("--stages", type=int, default=0, help="pipeline stages (default: the ranks)")
p.add_argument("--ckpt", default=None, help="a folder for the distributed checkpoints")
p.add_argument("--custom", action="store_true",
               help="the backbone a Cell whose construct calls its layers in turn "
                    "(MindSpore's pipeline tutorial) instead of a SequentialCell")
p.add_argument("--parallel-optimizer", action="store_true",
               help="data-parallel stage operators, each rank keeping parts (ZeRO-1)")
p.add_argument("--strategy-ext", default=".json",
               help="the strategy files': .json for JSON, .ckpt for protobuf")
args = p.parse_args()
init()
rank, n = get_rank(), get_group_size()
stages = args.stages or n
width = n // stages
BATCH = 8


class Linear(Cell):
    def __init__(self, name, rows, cols, seed, relu=True, cut=None):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.w = Parameter(Tensor((rng.standard_normal((rows, cols)) * 0.4).astype(np.float32)),
                           name=name)
        self.mm, self.relu, self.use_relu = MatMul(), ReLU(), relu
        if args.parallel_optimizer:  # data parallel: the weights replicated in the stage
            cut = None
        if cut == "column" and width > 1:
            self.mm.shard(((1, 1), (1, width)))
        elif cut == "row" and width > 1:
            self.mm.shard(((1, width), (width, 1)))

    def construct(self, x):
        y = self.mm(x, self.w)
        return self.relu(y) if self.use_relu else y


class Chain(Cell):
    """MindSpore's tutorial form: the layers are attributes, construct calls them in turn."""

    def __init__(self, cells):
        super().__init__()
        self.l0, self.l1, self.l2, self.l3 = cells

    def construct(self, x):
        x = self.l0(x)
        x = self.l1(x)
        x = self.l2(x)
        return self.l3(x)


def network():
    cells = [Linear("w0", 6, 16, 0, cut="column"), Linear("w1", 16, 16, 1, cut="row"),
             Linear("w2", 16, 16, 2, cut="column"), Linear("w3", 16, 3, 3, False, cut="row")]
    for i, c in enumerate(cells):
        c.pipeline_stage = i * stages // len(cells)
    backbone = Chain(cells) if args.custom else SequentialCell(cells)
    return PipelineCell(WithLossCell(backbone, MSELoss()), args.micro)


rng = np.random.default_rng(7)
x = rng.standard_normal((BATCH * args.steps, 6)).astype(np.float32)
y = rng.standard_normal((BATCH * args.steps, 3)).astype(np.float32)


models = []


def train():
    net = network()
    data = NumpySlicesDataset({"x": x, "y": y}, shuffle=False).batch(BATCH)
    model = Model(net, optimizer=Momentum(net.trainable_params(), 0.05, 0.9))
    losses = Losses()
    model.train(1, data, callbacks=[losses], dataset_sink_mode=False)
    models.append(model)
    backbone = net.network.backbone_network
    with model._whole_parameters():  # what Model.eval/predict hold
        predicted = Model(backbone).predict(Tensor(x[:5])).asnumpy()
    return losses.values, (predicted, backbone(Tensor(x[5:9])).asnumpy())


single, single_out = train()
set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=n,
                          pipeline_stages=stages,
                          enable_parallel_optimizer=args.parallel_optimizer)
if args.ckpt:
    set_auto_parallel_context(strategy_ckpt_config={
        "save_file": os.path.join(args.ckpt, "strategies", f"rank{rank}{args.strategy_ext}")})
piped, piped_out = train()
if args.ckpt:
    backbone = models[-1].train_network.network.network.backbone_network
    os.makedirs(os.path.join(args.ckpt, f"rank_{rank}"), exist_ok=True)
    save_checkpoint(backbone, os.path.join(args.ckpt, f"rank_{rank}", "net.ckpt"))
    AllReduce(Tensor(np.zeros(1)))  # every rank's files are written
    if rank == 0:
        merged = os.path.join(args.ckpt, f"merged{args.strategy_ext}")
        merge_pipeline_strategys(os.path.join(args.ckpt, "strategies"), merged)
        transform_checkpoints(args.ckpt, os.path.join(args.ckpt, "one"), "net", merged, None)
        whole = load_checkpoint(os.path.join(args.ckpt, "one", "rank_0", "net0.ckpt"))
        single_net = models[0].train_network.network.network.backbone_network
        for prm in single_net.trainable_params():
            np.testing.assert_allclose(whole[prm.name].asnumpy(), prm.asnumpy(), rtol=1e-5,
                                       atol=1e-6)
        print("pipeline checkpoints ok", flush=True)
reset_auto_parallel_context()
pipe = models[-1].train_network._parallel_step.pipe
if width > 1:  # the stage's Parameters hold this rank's slices (a width-th of each)
    sizes = {"0.w": 96, "1.w": 256, "2.w": 256, "3.w": 48}  # SequentialCell names them
    assert pipe.sharded is not None and len(pipe.params) == 4 // stages
    for prm in pipe.params:
        assert int(np.prod(prm.shape)) * width == sizes[prm.name], (prm.name, prm.shape)
    if args.parallel_optimizer:  # flat parts of replicated slices, the moments alike
        moments = models[-1].train_network.optimizer.moments
        assert sorted(pipe.sharded.parts) == sorted(prm.name for prm in pipe.params)
        for prm in pipe.params:
            ranks, shape = pipe.sharded.parts[prm.name]
            assert len(ranks) == width and int(np.prod(shape)) == sizes[prm.name], shape
            assert prm.shape == (sizes[prm.name] // width,), (prm.name, prm.shape)
            moment = [m for m in moments if m.name.endswith(prm.name)]
            assert len(moment) == 1 and moment[0].shape == prm.shape, moment
for a, b in zip(piped_out, single_out):
    np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
assert len(piped) == len(single) == args.steps, (piped, single)
for k, (a, b) in enumerate(zip(piped, single)):
    if rank == 0:
        print(f"step {k} pipeline {a:.10f} single {b:.10f}", flush=True)
    assert abs(a - b) <= 1e-5 * max(1.0, abs(b)), (k, a, b)
print(f"rank {rank} ok", flush=True)
