"""ONNX export: every operator with an exporter, on its registry samples, runs in
onnxruntime with eager's outputs; an operator without one is named."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")

from ms_lite.ir import Graph, Node, Value  # noqa: E402
from ms_lite.onnx.export import UnsupportedExportError, export_onnx  # noqa: E402
from ms_lite.onnx.export_table import EXPORTERS  # noqa: E402
from ms_tensor import Tensor, registry  # noqa: E402

FIRST_OUTPUT_ONLY = {"BatchNorm", "LayerNorm", "Dropout"}
# What ONNX has no form for, per operator: such samples must fail with a clear error.
NO_ONNX_FORM = ("training-mode", "data_format 'NHWC'", "batch_dims", "begin_norm_axis",
                "softmax over several axes", "masks", "does not divide")


def _single_node_graph(op, args, attrs):
    """A graph of one ``op`` node on float32 inputs, and eager's outputs for it."""
    from ms_ops.opdef import TENSOR

    inputs, node_in, call, attrs = [], [], [], dict(attrs)
    for a, v in zip(op.inputs, args):
        if a.kind != TENSOR:
            attrs[a.name] = v
            call.append(v)
        elif v is None:
            node_in.append("")
            call.append(None)
        else:
            arr = np.asarray(v)
            arr = arr.astype(np.float32) if arr.dtype == np.float64 else arr
            name = f"in{len(inputs)}"
            inputs.append((name, arr))
            node_in.append(name)
            call.append(Tensor(arr))
    static = {a.name for a in op.inputs if a.kind != TENSOR}
    out = op(*call, **{k: v for k, v in attrs.items() if k not in static})
    outs = out if isinstance(out, tuple) else (out,)
    if op.name == "Dropout":  # eager's Dropout drops (training); an exported graph infers
        outs = (call[0],) + outs[1:]
    names = [f"out{j}" for j in range(len(outs))]
    if op.name in FIRST_OUTPUT_ONLY:  # inference graphs use only the normalized output
        outs = outs[:1]
    g = Graph([Value(n, a.shape, a.dtype.name) for n, a in inputs],
              [Value(n, o.shape, o.asnumpy().dtype.name) for n, o in zip(names, outs)],
              [Node(op.name, node_in, names, attrs, "node0")], {}, op.name)
    g.values.update({v.name: v for v in g.outputs})
    return g, dict(inputs), [o.asnumpy() for o in outs]


def _samples():
    reg = registry.load()
    for name in sorted(EXPORTERS):
        op = reg.primitive(name)
        sampler = reg.lookup("op_sample", name)
        if op is None or sampler is None:
            continue
        for k, (args, attrs) in enumerate(sampler(np.random.default_rng(0))):
            yield pytest.param(name, k, args, attrs, id=f"{name}-{k}")


@pytest.mark.parametrize("name,k,args,attrs", list(_samples()))
def test_exported_operator_matches_eager(name, k, args, attrs):
    op = registry.load().primitive(name)
    try:
        g, feeds, want = _single_node_graph(op, args, attrs)
    except (TypeError, ValueError) as e:  # a sample eager itself rejects for float32
        pytest.skip(f"eager rejects this sample: {e}")
    try:
        model = export_onnx(g)
    except UnsupportedExportError as e:
        assert f"node 'node0' ({name})" in str(e)
        assert any(why in str(e) for why in NO_ONNX_FORM), str(e)
        return
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    got = sess.run(None, feeds)
    for gv, wv in zip(got, want):
        assert gv.shape == wv.shape
        np.testing.assert_allclose(gv, wv, rtol=1e-4, atol=1e-5)


def test_operator_without_exporter_is_named():
    g = Graph([Value("x", (2, 2), "float32")], [Value("y", (2,), "float32")],
              [Node("ReLU", ["x"], ["r"], {}, "first"),
               Node("LogSumExp", ["r"], ["y"], {"axis": (1,)}, "lse_node")], {}, "g")
    with pytest.raises(UnsupportedExportError, match="LogSumExp.*'lse_node'"):
        export_onnx(g)


def test_plugin_adds_an_exporter(tmp_path):
    """A plugin's hook registers an exporter for an operator that has none (here: Mish, as
    x * tanh(softplus(x))); export then works, and stops working when it is gone."""
    from ms_tensor.hookspecs import hookimpl

    if registry.load().primitive("Mish") is None:
        pytest.skip("the example plugin (Mish) is not installed")

    def mish(ctx, node):
        sp = ctx.add("Softplus", [node.inputs[0]])[0]
        ctx.add("Mul", [node.inputs[0], ctx.add("Tanh", [sp])[0]], list(node.outputs))

    class Plugin:
        @hookimpl
        def ms_register_onnx(self, registry):
            registry.add_onnx_exporter("Mish", mish)

    x = np.linspace(-3, 3, 8, dtype=np.float32).reshape(2, 4)
    g = Graph([Value("x", x.shape, "float32")], [Value("y", x.shape, "float32")],
              [Node("Mish", ["x"], ["y"], {}, "mish0")], {}, "m")
    if registry.load().lookup("onnx_exporter", "Mish") is None:
        with pytest.raises(UnsupportedExportError, match="Mish"):
            export_onnx(g)
    registry.register_plugin(Plugin(), "test-onnx-mish")
    try:
        model = export_onnx(g, tmp_path / "m.onnx")
        got = ort.InferenceSession(str(tmp_path / "m.onnx")).run(None, {"x": x})[0]
        want = registry.load().primitive("Mish")(Tensor(x)).asnumpy()
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
        assert [n.op_type for n in model.graph.node] == ["Softplus", "Tanh", "Mul"]
    finally:
        registry.unregister_plugin("test-onnx-mish")


def test_opset_and_ir_version_are_pinned():
    g = Graph([Value("x", (2,), "float32")], [Value("y", (2,), "float32")],
              [Node("ReLU", ["x"], ["y"], {}, "r")], {}, "g")
    m = export_onnx(g)
    assert m.ir_version <= 13
    assert [(o.domain, o.version) for o in m.opset_import] == [("", 17)]
