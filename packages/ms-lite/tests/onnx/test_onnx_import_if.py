"""ONNX If imports: a condition known at import inlines its branch, a run-time one runs
both branches and selects; outputs match onnxruntime. Loop stays reported by name."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
pytest.importorskip("onnxruntime")
from onnx import TensorProto as T  # noqa: E402
from onnx import helper  # noqa: E402

from ms_lite.onnx.importer import UnsupportedOnnxError, import_onnx  # noqa: E402

X = np.random.default_rng(0).standard_normal((2, 3)).astype(np.float32)


def _branch(name, nodes, out, shape=(2, 3)):
    return helper.make_graph(nodes, name, [],
                             [helper.make_tensor_value_info(out, T.FLOAT, list(shape))])


def _if(cond, then_nodes, then_out, else_nodes, else_out, else_shape=(2, 3)):
    return helper.make_node(
        "If", [cond], ["y"], name="choose",
        then_branch=_branch("then", then_nodes, then_out),
        else_branch=_branch("else", else_nodes, else_out, else_shape))


@pytest.mark.parametrize("flag", [True, False])
def test_a_constant_condition_inlines_the_branch_taken(check_onnx, flag):
    node = _if("c", [helper.make_node("Relu", ["x"], ["t"], name="relu")], "t",
               [helper.make_node("Neg", ["x"], ["e"], name="neg")], "e")
    r = check_onnx([node], {"x": X}, ["y"], {"c": np.array(flag)})
    assert [n.op for n in r.graph.nodes] == ["ReLU" if flag else "Neg"]


def test_a_condition_from_shapes_folds_then_inlines(check_onnx):
    # PyTorch's ``if x.shape[0] > 1``: Shape -> Gather -> Greater, all known at import
    nodes = [helper.make_node("Shape", ["x"], ["s"], name="shape"),
             helper.make_node("Gather", ["s", "zero"], ["n"], name="dim0"),
             helper.make_node("Greater", ["n", "one"], ["c"], name="gt"),
             _if("c", [helper.make_node("Mul", ["x", "x"], ["t"], name="sq")], "t",
                 [helper.make_node("Identity", ["x"], ["e"], name="same")], "e")]
    r = check_onnx(nodes, {"x": X}, ["y"], {"zero": np.array(0, np.int64),
                                            "one": np.array(1, np.int64)})
    assert [n.op for n in r.graph.nodes] == ["Mul"]


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_a_run_time_condition_selects_between_both_branches(onnx_tools, sign):
    make_model, run_ort, run_graph = onnx_tools
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["c"], name="positive"),
             _if("c", [helper.make_node("Mul", ["x", "two"], ["t"], name="double")], "t",
                 [helper.make_node("Add", ["x", "w"], ["e"], name="shift")], "e")]
    model = make_model(nodes, {"x": X}, ["y"], {"zero": np.array(0, np.float32),
                                                "two": np.array(2, np.float32),
                                                "w": np.ones((2, 3), np.float32)})
    r = import_onnx(model)
    assert "Select" in [n.op for n in r.graph.nodes]
    x = (np.abs(X) * sign).astype(np.float32)
    (want,) = run_ort(model, {"x": x})
    np.testing.assert_allclose(run_graph(r.graph, {"x": x})[0], want, rtol=1e-6)
    assert "choose [If]: translated" in r.report()


def test_branches_of_other_shapes_under_a_run_time_condition_are_reported(onnx_tools):
    make_model = onnx_tools[0]
    nodes = [helper.make_node("ReduceSum", ["x"], ["s"], name="sum", keepdims=0),
             helper.make_node("Greater", ["s", "zero"], ["c"], name="positive"),
             _if("c", [helper.make_node("Relu", ["x"], ["t"], name="relu")], "t",
                 [helper.make_node("ReduceSum", ["x", "ax"], ["e"], name="rows",
                                   keepdims=1)], "e", else_shape=(2, 1))]
    model = make_model(nodes, {"x": X}, ["y"], {"zero": np.array(0, np.float32),
                                                "ax": np.array([1], np.int64)})
    with pytest.raises(UnsupportedOnnxError, match=r"'choose' \(If\): its branches give "
                                                     r"output 'y' different types"):
        import_onnx(model)


def test_a_branch_node_without_translation_names_itself(onnx_tools):
    make_model = onnx_tools[0]
    node = _if("c", [helper.make_node("Det", ["x"], ["t"], name="det")], "t",
               [helper.make_node("Neg", ["x"], ["e"], name="neg")], "e")
    model = make_model([node], {"x": X}, ["y"], {"c": np.array(True)})
    with pytest.raises(UnsupportedOnnxError, match="then branch's node 'det' \\(Det\\)"):
        import_onnx(model)


def test_loop_is_reported_by_name(onnx_tools):
    make_model = onnx_tools[0]
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Add", ["acc_in", "x"], ["acc_out"])], "body",
        [helper.make_tensor_value_info("i", T.INT64, []),
         helper.make_tensor_value_info("cond_in", T.BOOL, []),
         helper.make_tensor_value_info("acc_in", T.FLOAT, [2, 3])],
        [helper.make_tensor_value_info("cond_out", T.BOOL, []),
         helper.make_tensor_value_info("acc_out", T.FLOAT, [2, 3])])
    node = helper.make_node("Loop", ["n", "", "x"], ["y"], name="repeat", body=body)
    model = make_model([node], {"x": X}, ["y"], {"n": np.array(3, np.int64)})
    r = import_onnx(model, strict=False)
    assert r.graph is None and "repeat [Loop]: unsupported" in r.report()
