"""Each converter pass alone on a small graph, checked against running the graph before."""

import numpy as np
import pytest

from ms_lite.converter.passes.activation import fuse_activation
from ms_lite.converter.passes.bias import fuse_bias
from ms_lite.converter.passes.constant_fold import fold_constants
from ms_lite.converter.passes.conv_bn import fold_conv_bn
from ms_lite.converter.passes.conv_pool import fuse_conv_pool
from ms_lite.converter.passes.identity import remove_identity
from ms_lite.converter.passes.layout import choose_layout
from ms_lite.converter.pipeline import copy_graph, finalize, lite_passes, optimize, typed
from ms_lite.converter.report import Report
from ms_lite.ir import Graph, Node, Value
from ms_lite.runtime.executor import Executor

RNG = np.random.default_rng(0)
CONV = {"out_channel": 4, "kernel_size": (3, 3), "pad_mode": "same"}


def _f32(*shape):
    return RNG.standard_normal(shape).astype(np.float32)


def _run(g, x):
    return Executor(g).run([x])[0]


def _apply(fn, g):
    h = copy_graph(g)
    report = Report(h)
    return fn(h, report).validate(), report


def _conv_graph():
    x = Value("x", (2, 3, 6, 6), "float32")
    nodes = [Node("Conv2D", ["x", "w"], ["c"], dict(CONV), "conv"),
             Node("Add", ["c", "b"], ["cb"], {}, "bias"),
             Node("BatchNorm", ["cb", "g", "beta", "m", "v"], ["bn", "bm", "bv", "r1", "r2"],
                  {"is_training": False, "epsilon": 1e-5}, "bn"),
             Node("ReLU", ["bn"], ["y"], {}, "relu")]
    consts = {"w": _f32(4, 3, 3, 3), "b": _f32(1, 4, 1, 1), "g": _f32(4), "beta": _f32(4),
              "m": _f32(4), "v": np.abs(_f32(4)) + 0.5}
    return Graph([x], [Value("y", (2, 4, 6, 6), "float32")], nodes, consts, "convnet")


def test_passes_are_registered_in_order_under_the_lite_stage():
    names = [n for n, _ in lite_passes()]
    assert names == ["remove_identity", "fold_constants", "fuse_bias", "fold_conv_bn",
                     "fuse_activation", "choose_layout"]
    assert [n for n, _ in lite_passes("lite-final")] == ["fuse_conv_pool"]


def test_fuse_bias_then_conv_bn_then_activation_keep_the_numbers():
    g = _conv_graph()
    x = _f32(2, 3, 6, 6)
    want = _run(g, x)
    h, r1 = _apply(fuse_bias, g)
    assert [n.op for n in h.nodes] == ["Conv2DFusion", "BatchNorm", "ReLU"]
    np.testing.assert_allclose(_run(h, x), want, rtol=1e-5, atol=1e-5)
    h2, _ = _apply(fold_conv_bn, h)
    assert [n.op for n in h2.nodes] == ["Conv2DFusion", "ReLU"]
    np.testing.assert_allclose(_run(h2, x), want, rtol=1e-4, atol=1e-5)
    h3, r3 = _apply(fuse_activation, h2)
    assert [(n.op, n.attrs["activation_type"]) for n in h3.nodes] == [("Conv2DFusion", "RELU")]
    np.testing.assert_allclose(_run(h3, x), want, rtol=1e-4, atol=1e-5)
    assert r1.entries["bias"].became.startswith("Conv2DFusion")


def test_conv_bn_keeps_a_batchnorm_whose_statistics_are_read():
    g = _conv_graph()
    g.outputs.append(Value("bm", (4,), "float32"))
    h, _ = _apply(fold_conv_bn, _apply(fuse_bias, g)[0])
    assert "BatchNorm" in [n.op for n in h.nodes]


def test_matmul_plus_bias_becomes_full_connection():
    w, b = _f32(5, 3), _f32(3)
    g = Graph([Value("x", (4, 5), "float32")], [Value("y", (4, 3), "float32")],
              [Node("MatMul", ["x", "w"], ["mm"], {"transpose_a": False, "transpose_b": False},
                    "mm"), Node("Add", ["mm", "b"], ["y"], {}, "add")],
              {"w": w, "b": b})
    x = _f32(4, 5)
    h, report = _apply(fuse_bias, g)
    assert [n.op for n in h.nodes] == ["FullConnection"]
    np.testing.assert_allclose(_run(h, x), x @ w + b, rtol=1e-5, atol=1e-6)
    assert "Add of a constant bias" in report.entries["add"].why


def test_constant_folding_runs_registry_kernels():
    g = Graph([Value("x", (3,), "float32")], [Value("y", (3,), "float32")],
              [Node("Exp", ["c"], ["e"], {}, "exp"), Node("Mul", ["x", "e"], ["y"], {}, "mul")],
              {"c": np.zeros(3, np.float32)})
    h, report = _apply(fold_constants, g)
    assert [n.op for n in h.nodes] == ["Mul"] and "c" not in h.constants
    np.testing.assert_array_equal(h.constants["e"], np.ones(3, np.float32))
    assert report.entries["exp"].became == "folded into a constant"


def test_identity_removal_rewires_graph_outputs():
    g = Graph([Value("x", (3,), "float32")], [Value("y", (3,), "float32")],
              [Node("Neg", ["x"], ["n"], {}, "neg"), Node("Identity", ["n"], ["y"], {}, "id")],
              {})
    h, report = _apply(remove_identity, g)
    assert [n.op for n in h.nodes] == ["Neg"] and h.outputs[0].name == "n"
    assert report.entries["id"].became == "removed"


def test_layout_removes_transposes_that_undo_each_other():
    g = Graph([Value("x", (1, 2, 3, 4), "float32")], [Value("y", (1, 2, 3, 4), "float32")],
              [Node("Transpose", ["x"], ["t"], {"input_perm": (0, 2, 3, 1)}, "to_nhwc"),
               Node("Transpose", ["t"], ["u"], {"input_perm": (0, 3, 1, 2)}, "to_nchw"),
               Node("Neg", ["u"], ["y"], {}, "neg")], {})
    x = _f32(1, 2, 3, 4)
    h, report = _apply(choose_layout, g)
    assert [n.op for n in h.nodes] == ["Neg"]
    np.testing.assert_array_equal(_run(h, x), -x)
    assert report.entries["to_nhwc"].became == "removed"


def test_report_lists_every_input_node():
    g = _conv_graph()
    out, report = optimize(g)
    assert set(report.entries) == {n.name for n in g.nodes}
    assert [n.op for n in out.nodes] == ["Conv2DFusion"]
    text = report.text()
    for name in ("conv", "bias", "bn", "relu"):
        assert name in text
    assert "BatchNorm bn folded" in report.entries["bn"].why


@pytest.mark.parametrize("skip", [(), ("fuse_bias",)])
def test_optimize_never_changes_the_result(skip):
    g = _conv_graph()
    x = _f32(2, 3, 6, 6)
    out, _ = optimize(g, skip=skip)
    np.testing.assert_allclose(_run(out, x), _run(g, x), rtol=1e-4, atol=1e-5)


def _pooled(g, pool_attrs=None):
    """``g`` (one output) with a max pooling of its output as the new output."""
    y = g.outputs[0]
    attrs = pool_attrs or {"kernel_size": (2, 2), "strides": (2, 2), "pad_mode": "VALID"}
    g.nodes.append(Node("MaxPool", [y.name], ["pooled"], attrs, "pool"))
    g.outputs = [Value("pooled", (), "float32")]
    return g


def test_conv_bn_relu_pool_become_one_node_and_the_report_says_so():
    g = _pooled(_conv_graph())
    x = _f32(2, 3, 6, 6)
    want = _run(g, x)
    h, report = optimize(g)
    assert [n.op for n in h.nodes] == ["Conv2DFusion", "MaxPool"]
    h = finalize(h, report)
    (node,) = h.nodes
    assert node.op == "Conv2DPoolFusion" and node.attrs["activation_type"] == "RELU"
    assert node.attrs["pool"]["kernel_size"] == (2, 2) and node.attrs["conv_shape"] == (
        2, 4, 6, 6)
    np.testing.assert_allclose(_run(h, x), want, rtol=1e-4, atol=1e-5)
    for name in ("conv", "bias", "bn", "relu", "pool"):  # every input node, what it became
        assert report.entries[name].became == "Conv2DPoolFusion 'conv+pool'", name
    assert "pooled in the convolution's kernel" in report.entries["pool"].why


@pytest.mark.parametrize("case", ["padded pool", "two readers", "avg pool", "int8"])
def test_conv_pool_fusion_leaves_what_it_cannot_fuse(case):
    g = _conv_graph()
    if case == "padded pool":
        g = _pooled(g, {"kernel_size": (2, 2), "strides": (2, 2), "pad_mode": "SAME"})
    elif case == "avg pool":
        g = _pooled(g)
        g.nodes[-1].op = "AvgPool"
    else:
        g = _pooled(g)
    h, report = optimize(g)
    if case == "two readers":  # the convolution's output is a graph output too
        h.outputs.append(Value("y", (2, 4, 6, 6), "float32"))
    if case == "int8":  # what the quantizer writes is not float32: left to the int8 kernels
        h = typed(h)
        h.values[h.nodes[0].outputs[0]] = Value(h.nodes[0].outputs[0], (2, 4, 6, 6), "int8")
    out, _ = _apply(fuse_conv_pool, typed(h))
    assert [n.op for n in out.nodes] == [n.op for n in h.nodes]
