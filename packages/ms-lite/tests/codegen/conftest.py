"""Small lite graphs built by hand (ms-lite's own tests run without ms-graph/ms-nn)."""

from __future__ import annotations

import numpy as np
import pytest

from ms_lite.ir import Graph, Node, Value


def small_cnn(seed: int = 0) -> Graph:
    """Conv (SAME) -> Sigmoid -> AvgPool -> grouped strided conv -> ReLU6 -> MaxPool (SAME)
    -> Flatten -> Dense -> Tanh -> Add (broadcast) -> Mul (scalar) -> MatMul -> Softmax."""
    rng = np.random.default_rng(seed)
    c = {
        "w1": rng.standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3,
        "w2": rng.standard_normal((8, 2, 3, 3)).astype(np.float32) * 0.3,
        "fw": rng.standard_normal((16, 32)).astype(np.float32) * 0.2,
        "fb": rng.standard_normal(16).astype(np.float32),
        "shift": rng.standard_normal(16).astype(np.float32),
        "half": np.array(0.5, np.float32),
        "mm": rng.standard_normal((16, 5)).astype(np.float32),
    }
    conv = {"out_channel": 4, "kernel_size": (3, 3), "mode": 1, "pad_mode": "same",
            "pad": (0, 0, 0, 0), "stride": (1, 1), "dilation": (1, 1), "group": 1,
            "data_format": "NCHW"}
    conv2 = dict(conv, out_channel=8, pad_mode="pad", pad=(1, 1, 1, 1), stride=(2, 2),
                 group=2)
    nodes = [
        Node("Conv2D", ["x", "w1"], ["c1"], conv, "c1"),
        Node("Sigmoid", ["c1"], ["s1"], {}, "s1"),
        Node("AvgPool", ["s1"], ["p1"], {"kernel_size": (2, 2), "strides": (2, 2),
                                         "pad_mode": "VALID", "data_format": "NCHW"}, "p1"),
        Node("Conv2D", ["p1", "w2"], ["c2"], conv2, "c2"),
        Node("ReLU6", ["c2"], ["r2"], {}, "r2"),
        Node("MaxPool", ["r2"], ["p2"], {"kernel_size": (3, 3), "strides": (2, 2),
                                         "pad_mode": "SAME", "data_format": "NCHW"}, "p2"),
        Node("Flatten", ["p2"], ["f"], {}, "f"),
        Node("Dense", ["f", "fw", "fb"], ["d"], {}, "d"),
        Node("Tanh", ["d"], ["t"], {}, "t"),
        Node("Add", ["t", "shift"], ["a"], {}, "a"),
        Node("Mul", ["a", "half"], ["m"], {}, "m"),
        Node("MatMul", ["m", "mm"], ["mm_out"], {"transpose_a": False,
                                                 "transpose_b": False}, "mm_out"),
        Node("Softmax", ["mm_out"], ["y"], {"axis": -1}, "y"),
    ]
    g = Graph([Value("x", (2, 3, 12, 12), "float32")], [], nodes, c, "small_cnn")
    g.outputs = [Value("y", (2, 5), "float32"), Value("a", (2, 16), "float32")]
    return g


@pytest.fixture(name="small_cnn", scope="session")
def small_cnn_fixture():
    """``small_cnn(seed)`` builds a fresh graph."""
    return small_cnn
