"""The main job's LeNet5 on the bundled digits with SummaryCollector: two runs, their
event files read back by TensorBoard's reader, and ``microspore insight lineage``
comparing them (hyperparameters, dataset path and size, network, metrics, checkpoint)."""

import subprocess
import sys

import numpy as np
import pytest

import microspore as ms
import microspore.dataset as ds
import microspore.dataset.vision as vision
import microspore.nn as nn


def _digits(usage: str, n: int):
    data = ds.MnistDataset(ds.bundled.digits_dir(), usage=usage, num_samples=n, shuffle=False)
    data = data.map(input_columns="label", operations=ds.transforms.TypeCast(ms.int32))
    data = data.map(input_columns="image", operations=[
        vision.Resize((32, 32)), vision.Rescale(1 / 255.0, 0.0), vision.HWC2CHW()])
    return data.batch(32, drop_remainder=True)


class LeNet5(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid")
        self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid")
        self.fc1 = nn.Dense(400, 120)
        self.fc2 = nn.Dense(120, 84)
        self.fc3 = nn.Dense(84, 10)
        self.relu = nn.ReLU()
        self.pool = nn.MaxPool2d(2, 2)
        self.flatten = nn.Flatten()
        self.summary = ms.ops.ScalarSummary()

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.fc3(self.relu(self.fc2(self.relu(self.fc1(self.flatten(x))))))
        self.summary("logit_mean", x.mean())
        return x


def _run(base, name: str, lr: float):
    ms.set_seed(0)
    net = LeNet5()
    model = ms.Model(net, nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean"),
                     nn.Momentum(net.trainable_params(), lr, 0.9), metrics={"accuracy"})
    ckpt = ms.ModelCheckpoint(name, str(base / "ckpt"), ms.CheckpointConfig(
        save_checkpoint_steps=4))
    collector = ms.SummaryCollector(str(base / name), collect_freq=2)
    model.train(1, _digits("train", 256), callbacks=[collector, ckpt])
    model.eval(_digits("test", 64), callbacks=[collector])


@pytest.mark.slow
def test_two_runs_are_summarized_and_compared(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    _run(tmp_path / "summary", "lr_small", 0.01)
    _run(tmp_path / "summary", "lr_large", 0.05)
    ea = EventAccumulator(str(tmp_path / "summary" / "lr_small"))
    ea.Reload()
    tags = ea.Tags()
    assert {"loss", "learning_rate", "logit_mean", "eval/accuracy"} <= set(tags["scalars"])
    assert tags["images"] == ["input_data/auto"] and len(tags["histograms"]) == 5
    assert tags["graph"]
    # the summary operator inside construct ran at every recorded step
    assert [e.step for e in ea.Scalars("logit_mean")] == [e.step for e in ea.Scalars("loss")]

    done = subprocess.run([sys.executable, "-m", "microspore", "insight", "lineage",
                           str(tmp_path / "summary")], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    header, *rows = done.stdout.splitlines()
    for column in ("network", "optimizer", "hyper_parameters.learning_rate",
                   "train_dataset.path", "train_dataset.size", "metrics.accuracy",
                   "checkpoint"):
        assert column in header
    assert [r.split()[0] for r in rows] == ["lr_large", "lr_small"]
    assert all(ds.bundled.digits_dir() in r and "LeNet5" in r and "Momentum" in r
               for r in rows)
    assert " 0.05 " in rows[0] and " 0.01 " in rows[1] and ".ckpt" in rows[0]
    # the dataset pipeline (collect_dataset_graph, on by default), one line per run
    assert "dataset_graph" in header and all(
        "MnistDataset -> MapDataset[TypeCast] -> MapDataset[Resize, Rescale, HWC2CHW] -> "
        "BatchDataset(batch_size=32)" in r for r in rows)


def test_summary_operator_in_graph_mode_through_the_meta_package(tmp_path):
    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.histogram = ms.ops.HistogramSummary()

        def construct(self, x):
            self.histogram("x", x)
            return x * 2

    ms.set_context(mode=ms.GRAPH_MODE)
    try:
        net = Net()
        with ms.SummaryRecord(str(tmp_path)) as record:
            for step in (1, 2):
                net(ms.Tensor(np.arange(4, dtype=np.float32) * step))
                record.record(step)
    finally:
        ms.set_context(mode=ms.PYNATIVE_MODE)
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ea = EventAccumulator(str(tmp_path), size_guidance={"histograms": 0})
    ea.Reload()
    assert [e.histogram_value.max for e in ea.Histograms("x")] == [3.0, 6.0]
