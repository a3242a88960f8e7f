"""Property: convolution and pooling geometry (kernel, stride, dilation, pads, auto_pad,
ceil_mode) imports to what onnxruntime computes, for drawn shapes."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

onnx = pytest.importorskip("onnx")
ort = pytest.importorskip("onnxruntime")
from onnx import helper  # noqa: E402

from ms_lite.onnx.importer import UnsupportedOnnxError  # noqa: E402

SETTINGS = settings(max_examples=15, deadline=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture])


@st.composite
def geometry(draw, dilated=True):
    k = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    s = (draw(st.integers(1, 3)), draw(st.integers(1, 3)))
    d = (draw(st.integers(1, 2)), draw(st.integers(1, 2))) if dilated else (1, 1)
    size = (draw(st.integers(5, 9)), draw(st.integers(5, 9)))
    auto = draw(st.sampled_from(["NOTSET", "VALID", "SAME_UPPER", "SAME_LOWER"]))
    pads = [draw(st.integers(0, k[i % 2] - 1)) for i in range(4)]
    if auto.startswith("SAME"):  # onnxruntime refuses dilation with SAME padding
        d = (1, 1)
    return k, s, d, size, auto, pads


def _attrs(k, s, d, auto, pads, dilated=True):
    a = {"kernel_shape": list(k), "strides": list(s), "auto_pad": auto}
    if dilated:
        a["dilations"] = list(d)
    if auto == "NOTSET":
        a["pads"] = pads
    return a


@SETTINGS
@given(geometry(), st.integers(1, 2), st.booleans())
def test_conv_geometry(check_onnx, g, group, bias):
    k, s, d, size, auto, pads = g
    rng = np.random.default_rng(0)
    x = rng.standard_normal((1, 2 * group, *size)).astype(np.float32)
    inits = {"w": rng.standard_normal((2, 2, *k)).astype(np.float32)}
    ins = ["x", "w"]
    if bias:
        inits["b"] = rng.standard_normal(2).astype(np.float32)
        ins.append("b")
    a = _attrs(k, s, d, auto, pads)
    a.pop("kernel_shape")
    node = helper.make_node("Conv", ins, ["y"], group=group, **a)
    check_onnx([node], {"x": x}, ["y"], inits, 17)


@SETTINGS
@given(geometry(), st.sampled_from(["MaxPool", "AveragePool"]), st.booleans(), st.booleans())
def test_pool_geometry(check_onnx, onnx_tools, g, op, ceil, include_pad):
    k, s, d, size, auto, pads = g
    x = np.random.default_rng(1).standard_normal((1, 2, *size)).astype(np.float32)
    attrs = _attrs(k, s, d, auto, pads, dilated=op == "MaxPool")
    if op == "AveragePool":
        attrs["count_include_pad"] = int(include_pad)
    if auto == "NOTSET":
        attrs["ceil_mode"] = int(ceil)
    node = helper.make_node(op, ["x"], ["y"], name="pool", **attrs)
    make_model, run_ort, _ = onnx_tools
    try:  # some geometries onnxruntime itself refuses (SAME with a 1-wide kernel, stride 2)
        run_ort(make_model([node], {"x": x}, ["y"], {}, 17), {"x": x})
    except ort.capi.onnxruntime_pybind11_state.RuntimeException:
        reject()
    try:
        check_onnx([node], {"x": x}, ["y"], {}, 17)
    except UnsupportedOnnxError as e:  # a form the importer refuses must say why
        detail = e.result.nodes[0].detail
        assert any(w in detail for w in ("asymmetric pads", "count_include_pad",
                                         "ceil_mode=1", "dilated")), detail
