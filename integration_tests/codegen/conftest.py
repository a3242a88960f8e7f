"""The main job's LeNet5 (examples/lenet.py) with its trained weights
(integration_tests/lite/data/lenet5_digits.ckpt, written by the lite tests'
train_lenet.py), captured, converted and quantized once per session for the code
generator's target tests. The int8 model is calibrated on the bundled digits' training
split; the golden inputs are digits of the test split."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ms_nn")
pytest.importorskip("ms_graph")
pytest.importorskip("ms_data")

ROOT = Path(__file__).resolve().parents[2]
CKPT = ROOT / "integration_tests" / "lite" / "data" / "lenet5_digits.ckpt"
CALIBRATION_IMAGES = 64


def _lenet_module():
    if str(ROOT / "examples") not in sys.path:
        sys.path.insert(0, str(ROOT / "examples"))
    import lenet

    return lenet


def lenet5():
    """examples/lenet.py's LeNet5 with the trained checkpoint loaded, in inference mode."""
    import microspore as ms

    net = _lenet_module().LeNet5(10)
    ms.load_param_into_net(net, ms.load_checkpoint(str(CKPT)))
    net.set_train(False)
    return net


def digits(usage: str, count: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``count`` images (N, 1, 32, 32) float32 and labels of a digits split,
    preprocessed by examples/lenet.py's create_dataset."""
    import microspore.dataset as ds

    lenet = _lenet_module()
    data = lenet.create_dataset(ds.bundled.digits_dir(), usage, batch_size=32, training=False)
    xs, ys = [], []
    for x, y in data.create_tuple_iterator(output_numpy=True):
        xs.append(np.asarray(x))
        ys.append(np.asarray(y))
        if sum(len(a) for a in xs) >= count:
            break
    return np.concatenate(xs)[:count], np.concatenate(ys)[:count]


@pytest.fixture(scope="session")
def lenet_graphs(tmp_path_factory):
    """``{"fp32": converted float graph, "int8": FULL_QUANT graph}``, a test digit
    (1, 1, 32, 32) and its label."""
    from ms_lite.converter.config import QuantConfig
    from ms_lite.converter.pipeline import copy_graph, optimize
    from ms_lite.ir import from_cell
    from ms_lite.quant.full import full_quant

    x, y = digits("test", 1)
    graph, report = optimize(from_cell(lenet5(), x))
    calib_dir = tmp_path_factory.mktemp("calib")
    np.save(calib_dir / "calib.npy", digits("train", CALIBRATION_IMAGES)[0])
    cfg = QuantConfig(quant_type="FULL_QUANT",
                      calibrate_path={graph.inputs[0].name: str(calib_dir / "calib.npy")},
                      calibrate_size=CALIBRATION_IMAGES)
    quantized = full_quant(copy_graph(graph), report, cfg)
    return {"fp32": graph, "int8": quantized}, x, int(y[0])
