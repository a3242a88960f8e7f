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


def _requant_consts(in_scale, w_scales, out_scale):
    from ms_lite.quant import scheme

    pairs = [scheme.quantize_multiplier(in_scale * s / out_scale) for s in w_scales]
    return (np.array([m for m, _ in pairs], np.int32), np.array([s for _, s in pairs], np.int32))


def int8_cnn(seed: int = 0, conv_attrs=None, fc_in: int = 6 * 4 * 4) -> Graph:
    """A quantized graph of ms-lite's int8 operators, built with ``ms_lite.quant.scheme``:
    quantize -> QuantConv2D (padded, strided, ReLU range) -> QuantMaxPool -> QuantReLU ->
    Reshape -> QuantFullConnection -> dequantize."""
    from ms_lite.quant import scheme

    rng = np.random.default_rng(seed)
    s_in, zp_in, s_c, zp_c, s_fc, zp_fc = 0.03, -7, 0.05, -20, 0.08, 4
    w = rng.standard_normal((6, 2, 3, 3)) * 0.4
    ws = scheme.weight_params(w)
    fw = rng.standard_normal((10, fc_in)) * 0.3
    fws = scheme.weight_params(fw)
    cm, cs = _requant_consts(s_in, ws, s_c)
    fm, fs = _requant_consts(s_c, fws, s_fc)
    c = {
        "w": scheme.quantize(w, ws, np.zeros(6), axis=0),
        "b": np.round(rng.standard_normal(6) / (s_in * ws)).astype(np.int32),
        "cm": cm, "cs": cs,
        "fw": scheme.quantize(fw, fws, np.zeros(10), axis=0),
        "fb": np.round(rng.standard_normal(10) / (s_c * fws)).astype(np.int32),
        "fm": fm, "fs": fs,
    }
    conv = {"out_channel": 6, "kernel_size": (3, 3), "mode": 1, "pad_mode": "pad",
            "pad": (1, 1, 1, 1), "stride": (2, 2), "dilation": (1, 1), "group": 1,
            "data_format": "NCHW", "input_zero_point": zp_in, "output_zero_point": zp_c,
            "act_min": zp_c, "act_max": 127, **(conv_attrs or {})}
    nodes = [
        Node("QuantDTypeCast", ["x"], ["q"], {"dst_t": "int8", "scale": s_in,
                                              "zero_point": zp_in}, "q"),
        Node("QuantConv2D", ["q", "w", "b", "cm", "cs"], ["c"], conv, "c"),
        Node("QuantMaxPool", ["c"], ["p"], {"kernel_size": (2, 2), "strides": (2, 2),
                                            "pad_mode": "SAME", "data_format": "NCHW"}, "p"),
        Node("QuantReLU", ["p"], ["r"], {"zero_point": zp_c + 3}, "r"),
        Node("Reshape", ["r"], ["f"], {"input_shape": (2, -1)}, "f"),
        Node("QuantFullConnection", ["f", "fw", "fb", "fm", "fs"], ["fc"],
             {"input_zero_point": zp_c, "output_zero_point": zp_fc, "act_min": -128,
              "act_max": 127}, "fc"),
        Node("QuantDTypeCast", ["fc"], ["y"], {"dst_t": "float32", "scale": s_fc,
                                               "zero_point": zp_fc}, "y"),
    ]
    return Graph([Value("x", (2, 2, 15, 15), "float32")],
                 [Value("y", (2, 10), "float32"), Value("fc", (2, 10), "int8")],
                 nodes, c, "int8_cnn")


@pytest.fixture(name="int8_cnn", scope="session")
def int8_cnn_fixture():
    return int8_cnn
