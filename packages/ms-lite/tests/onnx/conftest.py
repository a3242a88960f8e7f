"""Helpers for the ONNX tests: build a model with onnx.helper, run it in onnxruntime and
through the imported lite graph (each node run eagerly by its registry operator)."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")


def make_model(nodes, inputs: dict, outputs, initializers: dict | None = None, opset=17):
    """An ONNX model of ``nodes``; input types from the example arrays, outputs untyped."""
    from onnx import helper, numpy_helper

    ins = [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(a.dtype), a.shape)
           for n, a in inputs.items()]
    outs = [onnx.ValueInfoProto(name=n) for n in outputs]
    inits = [numpy_helper.from_array(np.asarray(v), k) for k, v in (initializers or {}).items()]
    g = helper.make_graph(nodes, "test", ins, outs, initializer=inits)
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def run_ort(model, feeds: dict) -> list[np.ndarray]:
    sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def run_graph(graph, feeds: dict) -> list[np.ndarray]:
    """Run a lite graph node by node through the registry's eager operators."""
    from ms_ops.opdef import TENSOR
    from ms_tensor import Tensor, registry

    reg = registry.load()
    env = {k: Tensor(np.asarray(v)) for k, v in graph.constants.items()}
    env.update({v.name: Tensor(np.asarray(feeds[v.name])) for v in graph.inputs})
    for n in graph.nodes:
        op = reg.primitive(n.op)
        tensors, args = iter(n.inputs), []
        for a in op.inputs:  # in the operator's argument order, statics from the attrs
            if a.kind == TENSOR:
                name = next(tensors, "")
                args.append(env[name] if name else None)
            else:
                args.append(n.attrs.get(a.name, a.default))
        static = {a.name for a in op.inputs if a.kind != TENSOR}
        out = op(*args, **{k: v for k, v in n.attrs.items() if k not in static})
        outs = out if isinstance(out, tuple) else (out,)
        for name, t in zip(n.outputs, outs):
            env[name] = t
    return [env[v.name].asnumpy() for v in graph.outputs]


@pytest.fixture
def check_onnx():
    """check(nodes, inputs, outputs, initializers=None, opset=17, atol=1e-5) -> ImportResult:
    onnxruntime's outputs equal the imported graph's."""
    from ms_lite.onnx.importer import import_onnx

    def check(nodes, inputs, outputs, initializers=None, opset=17, atol=1e-5, rtol=1e-5):
        model = make_model(nodes, inputs, outputs, initializers, opset)
        want = run_ort(model, inputs)
        result = import_onnx(model)
        got = run_graph(result.graph, inputs)
        assert len(got) == len(want)
        for g, w, name in zip(got, want, outputs):
            assert g.shape == w.shape, f"{name}: shape {g.shape} != onnxruntime's {w.shape}"
            np.testing.assert_allclose(g, w, rtol=rtol, atol=atol, err_msg=name)
        return result

    return check


@pytest.fixture
def onnx_tools():
    return make_model, run_ort, run_graph
