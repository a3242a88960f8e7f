"""A data-parallel training script, written as a MindSpore user writes one; run by
test_data_parallel.py with 1, 2 and 4 ranks through the launcher, and without one.

The global batch is fixed (``--batch``); each rank takes ``batch / ranks`` rows of its
shard, so every step sees the same rows as the single-process run. Prints one
``step K loss L`` line per step from rank 0 (L: the mean over ranks of their shard's
loss, which is the global batch's loss), and rank 0 writes the final parameters to
``--out`` (an .npz). Every rank also checks that all ranks hold identical parameters and
saves a checkpoint named with its rank.

usage: train_dp.py --model mlp|lenet --steps K --batch B --out params.npz [--graph]
       [--model_train] [--sampler]
"""

import argparse
import os

import numpy as np

import microspore as ms
import microspore.dataset as ds
import microspore.dataset.transforms as transforms
import microspore.dataset.vision as vision
import microspore.nn as nn
import microspore.ops as ops
from microspore.communication import get_group_size, get_rank, init
from ms_data.bundled import digits_dir

p = argparse.ArgumentParser()
p.add_argument("--model", choices=("mlp", "lenet"), default="mlp")
p.add_argument("--steps", type=int, default=4)
p.add_argument("--batch", type=int, default=16)
p.add_argument("--out", required=True)
p.add_argument("--graph", action="store_true")
p.add_argument("--model_train", action="store_true", help="train with Model.train")
p.add_argument("--sampler", action="store_true", help="shard with DistributedSampler")
args = p.parse_args()

ms.set_seed(1)
if args.graph:
    ms.set_context(mode=ms.GRAPH_MODE)
init()
rank, size = get_rank(), get_group_size()
ms.context.set_auto_parallel_context(parallel_mode=ms.context.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True, device_num=size)
assert args.batch % size == 0, "the global batch must divide among the ranks"

if args.sampler:
    data = ds.MnistDataset(digits_dir(), sampler=ds.DistributedSampler(size, rank, shuffle=False))
else:
    data = ds.MnistDataset(digits_dir(), num_shards=size, shard_id=rank, shuffle=False)
data = data.map(operations=[vision.Rescale(1 / 255.0, 0.0), vision.HWC2CHW()],
                input_columns="image")
data = data.map(operations=transforms.TypeCast(ms.int32), input_columns="label")
data = data.batch(args.batch // size, drop_remainder=True).take(args.steps)


class MLP(nn.Cell):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Dense(28 * 28, 32)
        self.relu = nn.ReLU()
        self.fc2 = nn.Dense(32, 10)

    def construct(self, x):
        return self.fc2(self.relu(self.fc1(self.flatten(x))))


class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(16 * 4 * 4, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(kernel_size=2, stride=2)
        self.flatten = nn.Flatten()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


net = MLP() if args.model == "mlp" else LeNet5()
loss_fn = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), learning_rate=0.05, momentum=0.9)
all_reduce = ops.AllReduce()
losses = []


def record(loss):
    """The global batch's loss: the mean of the ranks' shard losses."""
    losses.append(float(all_reduce(loss).asnumpy().reshape(-1)[0]) / size)
    if rank == 0:
        print(f"step {len(losses)} loss {losses[-1]:.8f}", flush=True)


if args.model_train:
    class Record(ms.Callback):
        def on_train_step_end(self, run_context):
            record(run_context.original_args().net_outputs)

    model = ms.Model(net, loss_fn, opt)
    ckpt = ms.ModelCheckpoint(prefix=f"{args.model}_rank_{rank}",
                              directory=os.path.dirname(os.path.abspath(args.out)),
                              config=ms.CheckpointConfig(save_checkpoint_steps=args.steps))
    model.train(1, data, callbacks=[Record(), ckpt], dataset_sink_mode=False)
else:
    step = nn.TrainOneStepCell(nn.WithLossCell(net, loss_fn), opt)
    step.set_train()
    for image, label in data.create_tuple_iterator():
        record(step(image, label))
    ms.save_checkpoint(net, os.path.join(os.path.dirname(os.path.abspath(args.out)),
                                         f"{args.model}_rank_{rank}.ckpt"))
assert len(losses) == args.steps, f"ran {len(losses)} steps, expected {args.steps}"

# every rank holds the same parameters: compare with rank 0's, bit for bit
params = {p.name: p.asnumpy() for p in net.trainable_params()}
for name, value in params.items():
    root = ops.Broadcast(0)(ms.Tensor(value)).asnumpy()
    assert np.array_equal(root, value), f"rank {rank}: parameter {name} differs from rank 0's"
if rank == 0:
    np.savez(args.out, losses=np.array(losses), **params)
