"""LeNet5 (the main job's network, examples/lenet.py) captured, converted and quantized
once per session for the code generator's target tests."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("ms_nn")
pytest.importorskip("ms_graph")


def lenet5():
    import ms_nn as nn

    class LeNet5(nn.Cell):
        """The seed's LeNet5: two 5x5 convolutions with max pooling, three dense layers."""

        def __init__(self, num_class=10):
            super().__init__()
            self.conv1 = nn.Conv2d(1, 6, 5, pad_mode="valid", has_bias=False)
            self.conv2 = nn.Conv2d(6, 16, 5, pad_mode="valid", has_bias=False)
            self.fc1 = nn.Dense(16 * 5 * 5, 120)
            self.fc2 = nn.Dense(120, 84)
            self.fc3 = nn.Dense(84, num_class)
            self.relu = nn.ReLU()
            self.max_pool2d = nn.MaxPool2d(kernel_size=2, stride=2)

        def construct(self, x):
            x = self.max_pool2d(self.relu(self.conv1(x)))
            x = self.max_pool2d(self.relu(self.conv2(x)))
            x = x.reshape((x.shape[0], -1))
            x = self.relu(self.fc1(x))
            x = self.relu(self.fc2(x))
            return self.fc3(x)

    return LeNet5()


@pytest.fixture(scope="session")
def lenet_graphs(tmp_path_factory):
    """``{"fp32": converted float graph, "int8": FULL_QUANT graph}`` and a test input."""
    from ms_lite.converter.config import QuantConfig
    from ms_lite.converter.pipeline import optimize
    from ms_lite.ir import from_cell
    from ms_lite.quant.full import full_quant

    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 1, 32, 32)).astype(np.float32)
    graph, report = optimize(from_cell(lenet5(), x))
    calib = tmp_path_factory.mktemp("calib")
    for i in range(8):
        np.save(calib / f"{i}.npy", rng.standard_normal((1, 1, 32, 32)).astype(np.float32))
    cfg = QuantConfig(quant_type="FULL_QUANT", calibrate_path={"x": str(calib)},
                      calibrate_size=8)
    from ms_lite.converter.pipeline import copy_graph

    quantized = full_quant(copy_graph(graph), report, cfg)
    return {"fp32": graph, "int8": quantized}, x
