"""``ms_lite.onnx.convert`` of a model with a GRU and a Resize: the generated microspore
package (model.py + safetensors) reproduces onnxruntime's outputs."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper, numpy_helper  # noqa: E402

import microspore as ms  # noqa: E402
from ms_lite.onnx.convert import convert  # noqa: E402


def _model():
    rng = np.random.default_rng(0)
    seq, batch, inp, hid = 3, 2, 4, 6
    inits = {"W": rng.standard_normal((1, 3 * hid, inp)) * 0.4,
             "R": rng.standard_normal((1, 3 * hid, hid)) * 0.4,
             "B": rng.standard_normal((1, 6 * hid)) * 0.1,
             "roi": np.array([], np.float32), "scales": np.array([1, 1, 2, 1.5], np.float32)}
    nodes = [helper.make_node("GRU", ["x", "W", "R", "B"], ["y", "yh"], name="gru",
                              hidden_size=hid, linear_before_reset=1),
             helper.make_node("Resize", ["y", "roi", "scales"], ["up"], name="resize",
                              mode="linear")]
    g = helper.make_graph(
        nodes, "rnn_resize",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, (seq, batch, inp))],
        [onnx.ValueInfoProto(name="up"), onnx.ValueInfoProto(name="yh")],
        initializer=[numpy_helper.from_array(np.asarray(v, np.float32), k)
                     for k, v in inits.items()])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)


def _load(directory: Path):
    name = f"converted_rnn_{abs(hash(str(directory)))}"
    spec = importlib.util.spec_from_file_location(name, directory / "__init__.py",
                                                  submodule_search_locations=[str(directory)])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod.load()


def test_gru_and_resize_convert_to_a_network_that_matches_onnxruntime(tmp_path):
    model = _model()
    path = tmp_path / "rnn.onnx"
    onnx.save(model, path)
    x = np.random.default_rng(1).standard_normal((3, 2, 4)).astype(np.float32)
    want = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})
    convert(str(path), str(tmp_path / "pkg"))
    got = _load(tmp_path / "pkg")(ms.Tensor(x))
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w, rtol=1e-5, atol=1e-5)
