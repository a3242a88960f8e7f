"""Seed 001 across packages: the seed's MNIST pipeline (ms-data) through Model.train's data
sink (ms-nn) and the compiled sink loop (ms-graph), against the plain loop; and
``microspore ascend check`` (ms-device-ascend) on the seed scripts."""

import importlib.util
import os
import threading
from pathlib import Path

import numpy as np
import pytest

from ms_data.bundled import digits_dir
from ms_device_ascend.check import check_script
from ms_tensor.context import GRAPH_MODE, PYNATIVE_MODE, set_context
from ms_tensor.seed import set_seed

SCRIPTS = Path(__file__).resolve().parents[1] / "seed_scripts"
_spec = importlib.util.spec_from_file_location("seed001", SCRIPTS / "seed001_lenet_train.py")
seed001 = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(seed001)


def losses(mode, sink, epochs=2, sink_size=5):
    """The seed's LeNet5 on the bundled digits (no shuffle: both runs see the same batches);
    every loss of the plain run, the last loss of each sink in sink mode."""
    import microspore as ms

    set_context(mode=mode)
    set_seed(1)
    data = _pipeline(digits_dir())
    net = seed001.LeNet5(10)
    loss = ms.nn.SoftmaxCrossEntropyWithLogits(sparse=True, reduction="mean")
    model = ms.Model(net, loss, ms.nn.Momentum(net.trainable_params(), 0.01, 0.9))
    got = []

    class Record(ms.Callback):
        def on_train_step_end(self, run_context):
            got.append(float(run_context.original_args().net_outputs.asnumpy()))

    model.train(epochs, data, callbacks=[Record()], dataset_sink_mode=sink,
                sink_size=sink_size)
    set_context(mode=PYNATIVE_MODE)
    return got


def _pipeline(path):
    """The seed's create_dataset without its shuffle (the order must be reproducible)."""
    import microspore as ms
    import microspore.dataset.transforms as transforms
    import microspore.dataset.vision as vision

    d = ms.dataset.MnistDataset(path, shuffle=False)
    d = d.map(input_columns="label", operations=transforms.TypeCast(ms.int32))
    d = d.map(input_columns="image", operations=[
        vision.Resize((32, 32), interpolation=vision.Inter.LINEAR),
        vision.Rescale(1.0 / 255.0, 0.0), vision.Rescale(1 / 0.3081, -0.1307 / 0.3081),
        vision.HWC2CHW()])
    return d.batch(32, drop_remainder=True).take(8)


@pytest.mark.slow
@pytest.mark.parametrize("mode", [PYNATIVE_MODE, GRAPH_MODE], ids=["pynative", "graph"])
def test_seed_lenet_sink_equals_the_plain_loop(mode):
    plain = losses(mode, sink=False, epochs=2)  # 16 steps over 8 batches
    sunk = losses(mode, sink=True, epochs=3, sink_size=5)  # 15 steps crossing the epoch
    np.testing.assert_allclose(sunk, [plain[4], plain[9], plain[14]], rtol=1e-6)
    assert not [t for t in threading.enumerate() if t.name.startswith("ms-sink-feeder")]


@pytest.mark.slow
@pytest.mark.parametrize("script", ["seed001_lenet_train.py", "seed004_graph_mode.py",
                                    "seed004_jit_construct.py", "seed002_context_switch.py"])
def test_ascend_check_on_the_seed_scripts(script):
    env = {**os.environ, "SEED_MNIST_DIR": digits_dir(), "SEED_EPOCHS": "1",
           "SEED_SINK_SIZE": "2"}
    report = check_script(str(SCRIPTS / script), chip="910A", seconds=90, env=env)
    assert report.status["done"] == "completed", report.status
    assert report.errors == []  # float32 networks with static shapes
    assert report.ops and 0 < report.peak_bytes < 32 << 30
    cube = [f for f in report.findings if f.level == "info"]
    assert cube and all("float32 Cube operator" in f.message for f in cube)
