"""Dataset worker processes work after the parent has trained LeNet5 (issue 11, item 5: a
forked child inherited a dead OpenMP pool and its first convolution waited forever).

Each source type runs in its own interpreter: LeNet5 trains a few steps there (convolution,
pooling, matrix products, Momentum: every kernel family's thread pool is live), then the
source runs with 2 worker processes and a map whose Python function runs a convolution in
the workers. A subprocess with a timeout makes a hang a failure instead of a stuck CI job.
"""

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.slow

_SCRIPT = r'''
import os, sys, time
import numpy as np
import microspore as ms
import microspore.dataset as ds
import microspore.nn as nn
import microspore.ops as ops
from microspore import Tensor

# -- LeNet5 trains a few steps in this (parent) process ---------------------------------------
class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1, self.fc2, self.fc3 = nn.Dense(400, 120), nn.Dense(120, 84), nn.Dense(84, 10)
        self.relu, self.pool = nn.ReLU(), nn.MaxPool2d(kernel_size=2, stride=2)

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = x.reshape((x.shape[0], -1))
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))

net = LeNet5()
loss = nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
opt = nn.Momentum(net.trainable_params(), 0.01, 0.9)
step = nn.TrainOneStepCell(nn.WithLossCell(net, loss), opt)
digits = ds.MnistDataset(ds.bundled.digits_dir(), usage="train", shuffle=False)
digits = digits.map(ds.vision.Resize((32, 32)), "image").map(ds.vision.HWC2CHW(), "image")
digits = digits.batch(32, drop_remainder=True)
for i, (x, y) in enumerate(digits.create_tuple_iterator(num_epochs=1)):
    step(x.astype(ms.float32) / 255, y.astype(ms.int32))
    if i == 4:
        break

# -- then a source with worker processes and a map that runs a convolution in them ------------
WEIGHT = np.ones((2, 1, 3, 3), np.float32)

def conv_row(x):
    """A Python map function that runs ms-ops' convolution in the worker process."""
    x = np.asarray(x, np.float32).reshape(1, 1, -1)
    image = np.broadcast_to(x[..., :1], (1, 1, 8, 8)).copy()
    out = ops.conv2d(Tensor(image), Tensor(WEIGHT)).asnumpy()
    return np.float32(out.sum())

class Squares:  # random access: each row runs the trained network, as in the issue
    def __len__(self):
        return 40
    def __getitem__(self, i):
        image = np.full((1, 1, 32, 32), i / 40, np.float32)
        return (net(Tensor(image)).asnumpy()[0], np.int64(i))

def rows_of(n):
    for i in range(n):
        yield (np.full(3, i, np.float32), np.int64(i))

kind, folder = sys.argv[1], sys.argv[2]
if kind == "issue_reproducer":  # issue 11's snippet as written: default worker settings
    conv = nn.SequentialCell(nn.Conv2d(3, 8, 3), nn.ReLU())
    conv(Tensor(np.ones((2, 3, 32, 32), np.float32)))

    class Src:
        def __len__(self):
            return 64
        def __getitem__(self, i):
            x = Tensor(np.random.rand(1, 3, 32, 32).astype(np.float32))
            return (conv(x).asnumpy()[0],)
    out = list(ds.GeneratorDataset(Src(), ["x"], num_parallel_workers=2))
    assert len(out) == 64 and tuple(out[0][0].shape) == (8, 32, 32), out[0][0].shape
    print(f"ok {kind} 64 rows", flush=True)
    sys.exit(0)
if kind == "generator_random_access":
    d = ds.GeneratorDataset(Squares(), ["x", "i"], shuffle=False, num_parallel_workers=2,
                            python_multiprocessing=True)
elif kind == "generator_iterable":
    d = ds.GeneratorDataset(lambda: rows_of(40), ["x", "i"], num_parallel_workers=2,
                            python_multiprocessing=True)
elif kind == "mnist":
    d = ds.MnistDataset(ds.bundled.digits_dir(), usage="test", num_samples=40,
                        num_parallel_workers=2, shuffle=False)
elif kind == "cifar":
    rng = np.random.default_rng(0)
    records = np.concatenate([rng.integers(0, 10, (40, 1)), rng.integers(0, 256, (40, 3072))], 1)
    records.astype(np.uint8).tofile(os.path.join(folder, "test_batch.bin"))
    d = ds.Cifar10Dataset(folder, usage="test", num_parallel_workers=2, shuffle=False)
elif kind == "image_folder":
    from PIL import Image
    for c in ("a", "b"):
        os.makedirs(os.path.join(folder, c))
        for i in range(20):
            image = Image.fromarray(np.full((6, 5, 3), i, np.uint8))
            image.save(os.path.join(folder, c, f"{i}.png"))
    d = ds.ImageFolderDataset(folder, decode=True, num_parallel_workers=2, shuffle=False)
elif kind == "records":
    path = os.path.join(folder, "r.rec")
    w = ds.FileWriter(path)
    w.add_schema({"x": {"type": "float32", "shape": [3]}, "i": {"type": "int64"}}, "r")
    w.write_raw_data([{"x": np.full(3, i, np.float32), "i": i} for i in range(40)])
    w.commit()
    d = ds.MindDataset(path, num_parallel_workers=2, shuffle=False)
elif kind == "csv":
    with open(os.path.join(folder, "t.csv"), "w") as f:
        f.write("x,i\n" + "".join(f"{i / 2},{i}\n" for i in range(40)))
    d = ds.CSVDataset(os.path.join(folder, "t.csv"), column_defaults=[0.0, 0],
                      num_parallel_workers=2, shuffle=False)
first = d.get_col_names()[0]
d = d.map(conv_row, first, "conv", num_parallel_workers=2, python_multiprocessing=True)
start = time.monotonic()
out = [float(r[0]) for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]
assert len(out) == 40 and all(np.isfinite(out)), out
print(f"ok {kind} {len(out)} rows in {time.monotonic() - start:.2f} s "
      f"({ds.config.get_multiprocessing_start_method()})", flush=True)
'''

KINDS = ["issue_reproducer", "generator_random_access", "generator_iterable", "mnist", "cifar",
         "image_folder", "records", "csv"]


@pytest.mark.parametrize("kind", KINDS)
def test_source_runs_in_worker_processes_after_lenet5_trained(kind, tmp_path):
    try:
        done = subprocess.run([sys.executable, "-c", textwrap.dedent(_SCRIPT), kind,
                               str(tmp_path)], capture_output=True, text=True, timeout=180)
    except subprocess.TimeoutExpired:
        pytest.fail(f"{kind}: the pipeline hung after training (no result in 180 s)")
    assert done.returncode == 0, done.stderr[-4000:]
    rows = 64 if kind == "issue_reproducer" else 40
    assert done.stdout.startswith(f"ok {kind} {rows} rows"), done.stdout
