"""MindSpore's SummaryLandscape workflow on the main job's LeNet5 and the bundled digits,
through microspore's names: SummaryCollector saves checkpoints at the interval's steps,
SummaryLandscape draws the PCA landscape of the interval and a random one around the
last weights. The landscape's loss at the last weights equals the loss Model.eval
computes with those weights loaded, and the event file holds the grids."""

import numpy as np
import pytest

import microspore as ms
import microspore.dataset as ds
import microspore.dataset.vision as vision
import microspore.nn as nn
from microspore.train import Loss, Model, SummaryCollector, SummaryLandscape


def _digits(n: int):
    data = ds.MnistDataset(ds.bundled.digits_dir(), usage="train", num_samples=n,
                           shuffle=False)
    data = data.map(input_columns="label", operations=ds.transforms.TypeCast(ms.int32))
    data = data.map(input_columns="image", operations=[
        vision.Resize((32, 32)), vision.Rescale(1 / 255.0, 0.0), vision.HWC2CHW()])
    return data.batch(16, drop_remainder=True)


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

    def construct(self, x):
        x = self.pool(self.relu(self.conv1(x)))
        x = self.pool(self.relu(self.conv2(x)))
        x = self.flatten(x)
        return self.fc3(self.relu(self.fc2(self.relu(self.fc1(x)))))


def _loss():
    return nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")


def test_lenet5_landscape(tmp_path):
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    ms.set_seed(1)
    net = LeNet5()
    model = Model(net, _loss(), nn.Momentum(net.trainable_params(), 0.05, 0.9))
    collector = SummaryCollector(str(tmp_path), collect_specified_data={"collect_landscape": {
        "landscape_size": 3, "unit": "step", "num_samples": 32,
        "create_landscape": {"train": True, "result": True}, "intervals": [[1, 2, 3, 4]]}})
    model.train(1, _digits(64), callbacks=[collector])

    def callback_fn():
        network = LeNet5()
        metrics = {"Loss": Loss()}
        return Model(network, _loss(), metrics=metrics), network, _digits(32), metrics

    np.random.seed(0)
    pca, rand = SummaryLandscape(str(tmp_path)).gen_landscapes_with_multi_process(
        callback_fn, device_ids=[0])
    assert pca["loss"].shape == rand["loss"].shape == (3, 3)
    assert np.isfinite(pca["loss"]).all() and np.isfinite(rand["loss"]).all()
    # the last weights, loaded and evaluated by Model.eval, give the landscape's centre
    check = LeNet5()
    ms.load_param_into_net(check, ms.load_checkpoint(str(tmp_path / "ckpt_dir" /
                                                         "LeNet5_4_step.ckpt")))
    expected = Model(check, _loss(), metrics={"loss"}).eval(_digits(32))["loss"]
    assert pca["convergence"][2] == pytest.approx(expected, rel=1e-5)
    assert rand["convergence"][2] == pytest.approx(expected, rel=1e-5)
    assert pca["path"].shape == (3, 4)
    # a random direction as large as the weights moves the loss away from the centre
    assert rand["loss"].max() > expected
    ea = EventAccumulator(str(tmp_path), size_guidance={"tensors": 0, "images": 0})
    ea.Reload()
    assert {"landscape_[1, 4]/loss", "landscape_[4]/loss"} <= set(ea.Tags()["tensors"])
    assert {"landscape_[1, 4]/image", "landscape_[4]/image"} <= set(ea.Tags()["images"])
