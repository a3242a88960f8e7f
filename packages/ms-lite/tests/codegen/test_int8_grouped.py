"""int8 grouped and depthwise convolutions and per-channel casts in C, bit for bit with
the Python int8 runtime (and the grouped convolution with a per-group numpy GEMM)."""

from __future__ import annotations

import numpy as np
import pytest

from ms_lite.codegen import generate, targets
from ms_lite.ir import Graph, Node, Value
from ms_lite.quant import scheme
from ms_lite.runtime.executor import Executor

needs_gcc = pytest.mark.skipif(bool(targets.missing_tools("x86")),
                               reason="gcc or make is not installed")

_CONV = {"mode": 1, "pad_mode": "pad", "dilation": (1, 1), "data_format": "NCHW"}


def _qconv(rng, name, x, cin, cout, group, s_in, zp_in, s_out, zp_out, **attrs):
    """A QuantConv2D node with its int8 weights, int32 bias and Q31 multipliers."""
    w = rng.standard_normal((cout, cin // group, 3, 3)) * 0.5
    ws = scheme.weight_params(w)
    pairs = [scheme.quantize_multiplier(s_in * s / s_out) for s in ws]
    consts = {f"{name}_w": scheme.quantize(w, ws, np.zeros(cout), axis=0, qmin=-127),
              f"{name}_b": np.round(rng.standard_normal(cout) / (s_in * ws)).astype(np.int32),
              f"{name}_m": np.array([m for m, _ in pairs], np.int32),
              f"{name}_s": np.array([s for _, s in pairs], np.int32)}
    a = {**_CONV, "out_channel": cout, "kernel_size": (3, 3), "group": group,
         "input_zero_point": zp_in, "output_zero_point": zp_out, "act_min": -128,
         "act_max": 127, **attrs}
    return Node("QuantConv2D", [x, *consts], [name], a, name), consts


def grouped_graph(seed: int = 0) -> Graph:
    """x -> per-channel quantize (an output) ; x -> quantize -> depthwise conv (4 -> 8,
    channel multiplier 2) -> grouped strided conv (8 -> 6, 2 groups) -> per-channel
    dequantize along the channels."""
    rng = np.random.default_rng(seed)
    dw, c1 = _qconv(rng, "dw", "q", 4, 8, 4, 0.04, 3, 0.06, -5, pad=(1, 1, 1, 1),
                    stride=(1, 1))
    gc, c2 = _qconv(rng, "gc", "dw", 8, 6, 2, 0.06, -5, 0.1, 9, pad=(0, 1, 1, 0),
                    stride=(2, 2))
    ch_scale = np.array([0.02, 0.05, 0.1, 0.03])
    ch_zp = np.array([0, -10, 7, 100])
    nodes = [
        Node("QuantDTypeCast", ["x"], ["qc"], {"dst_t": "int8", "scale": ch_scale,
                                               "zero_point": ch_zp, "axis": 1}, "qc"),
        Node("QuantDTypeCast", ["x"], ["q"], {"dst_t": "int8", "scale": 0.04,
                                              "zero_point": 3}, "q"),
        dw, gc,
        Node("QuantDTypeCast", ["gc"], ["y"], {"dst_t": "float32",
                                               "scale": np.linspace(0.05, 0.15, 6),
                                               "zero_point": np.arange(6) - 3, "axis": 1},
             "y"),
    ]
    return Graph([Value("x", (2, 4, 9, 9), "float32")],
                 [Value("y", (2, 6, 4, 4), "float32"), Value("qc", (2, 4, 9, 9), "int8"),
                  Value("gc", (2, 6, 4, 4), "int8")], nodes, {**c1, **c2}, "grouped_int8")


def test_the_runtime_grouped_convolution_is_one_gemm_per_group():
    from ms_lite.kernels.quantized import QUANT_CONV2D, im2col, qgemm_reference
    from ms_ops.defs.nn_conv import conv_geometry
    from ms_tensor import registry

    g = grouped_graph()
    node = g.nodes[3]
    x = np.random.default_rng(1).integers(-128, 128, (2, 8, 9, 9)).astype(np.int8)
    w, b, m, s = (g.constants[n] for n in node.inputs[1:])
    conv = registry.load().primitive("Conv2D")
    geo = conv_geometry(x.shape, w.shape, **conv.complete_attrs(
        {k: node.attrs[k] for k in conv.attr_names if k in node.attrs}))
    keys = ("input_zero_point", "output_zero_point", "act_min", "act_max")
    parts = []
    for k in range(2):
        cols = im2col(x[:, 4 * k:4 * k + 4], geo, node.attrs["input_zero_point"])
        o = slice(3 * k, 3 * k + 3)
        parts.append(qgemm_reference(cols, w[o].reshape(3, -1), b[o], m[o], s[o],
                                     *(node.attrs[a] for a in keys)))
    want = np.concatenate(parts, 1).reshape(2, 4, 4, 6).transpose(0, 3, 1, 2)
    got = QUANT_CONV2D.kernel(x, w, b, m, s, **node.attrs)
    np.testing.assert_array_equal(got, want)


@needs_gcc
@pytest.mark.parametrize("parallel", [False, True])
def test_grouped_convolutions_and_per_channel_casts_are_bit_exact(tmp_path, parallel):
    g = grouped_graph()
    x = (np.random.default_rng(2).standard_normal((2, 4, 9, 9)) * 3).astype(np.float32)
    p = generate(g, tmp_path, golden_inputs=[x], support_parallel=parallel, fuse=True)
    targets.build(p.path, "x86")
    run = targets.run_program(p.path, "x86", args=[3] if parallel else [])
    got, passed = targets.parse_golden(run.stdout, p.outputs)
    want = Executor(g).run([x])
    assert passed, run.stdout
    np.testing.assert_array_equal(got[0].view(np.uint32), want[0].view(np.uint32))
    np.testing.assert_array_equal(got[1], want[1])
    np.testing.assert_array_equal(got[2], want[2])
    assert (want[1] == -128).any() and (want[1] == 127).any()  # the clamps are exercised
    assert "quantize_f32_s8_pc" in (p.path / "src/net.c").read_text()


def test_a_cast_with_the_wrong_number_of_scales_is_named(tmp_path):
    g = grouped_graph()
    g.nodes[0].attrs["scale"] = np.array([0.1, 0.2, 0.3])
    with pytest.raises(ValueError, match=r"QuantDTypeCast \(node 'qc'\): 3 scales and 4 zero "
                                         r"points for axis 1 of 4 channels"):
        generate(g, tmp_path)


@needs_gcc
def test_the_converter_quantizes_a_grouped_convolution_that_c_runs(small_cnn, tmp_path):
    from ms_lite.converter.config import QuantConfig
    from ms_lite.converter.pipeline import copy_graph, optimize
    from ms_lite.quant.full import full_quant

    graph, report = optimize(small_cnn())
    calib = tmp_path / "calib.npy"
    np.save(calib, np.random.default_rng(0).standard_normal((8, 3, 12, 12)).astype(np.float32))
    q = full_quant(copy_graph(graph), report, QuantConfig(
        quant_type="FULL_QUANT", calibrate_path={"x": str(calib)}, calibrate_size=8))
    assert ("QuantConv2D", 2) in [(n.op, n.attrs.get("group")) for n in q.nodes]
    p = generate(q, tmp_path, project_name="mixed")
    targets.build(p.path, "x86")
    run = targets.run_program(p.path, "x86")
    assert "golden: PASS" in run.stdout, run.stdout
