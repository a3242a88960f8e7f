"""ONNX import's report, errors and command line (the generated package itself runs in
integration_tests/onnx, which has the meta-package)."""

from __future__ import annotations

import numpy as np
import pytest

onnx = pytest.importorskip("onnx")
from onnx import helper  # noqa: E402

from ms_lite.onnx.cli import main  # noqa: E402
from ms_lite.onnx.importer import OnnxFileError, UnsupportedOnnxError, import_onnx  # noqa: E402


def _model(onnx_tools, nodes, inits=None, shape=(2, 4)):
    make_model, _, _ = onnx_tools
    return make_model(nodes, {"x": np.zeros(shape, np.float32)}, [nodes[-1].output[0]],
                      inits or {})


def test_unsupported_operator_is_reported_by_node_name(onnx_tools):
    nodes = [helper.make_node("Relu", ["x"], ["a"], name="ok"),
             helper.make_node("Det", ["a"], ["b"], name="the_det"),
             helper.make_node("Relu", ["b"], ["y"], name="after")]
    model = _model(onnx_tools, nodes, shape=(2, 3, 3))
    with pytest.raises(UnsupportedOnnxError, match="node 'the_det' \\(Det\\)"):
        import_onnx(model)
    result = import_onnx(model, strict=False)
    assert result.graph is None
    assert [(r.name, r.status) for r in result.nodes] == [
        ("ok", "translated"), ("the_det", "unsupported"), ("after", "skipped")]
    text = result.report()
    assert "unsupported operators:\n  the_det [Det]: unsupported" in text
    assert "after [Relu]: skipped -> needs the output of unsupported node 'the_det'" in text


def test_runtime_shape_input_is_reported(onnx_tools):
    make_model, _, _ = onnx_tools
    nodes = [helper.make_node("Reshape", ["x", "s"], ["y"], name="dyn")]
    model = make_model(nodes, {"x": np.zeros((2, 4), np.float32),
                               "s": np.array([4, 2], np.int64)}, ["y"])
    result = import_onnx(model, strict=False)
    assert "its shape (input 1, 's') is computed at run time" in result.nodes[0].detail


def test_foreign_domain_is_reported(onnx_tools):
    node = helper.make_node("Foo", ["x"], ["y"], name="custom", domain="com.example")
    result = import_onnx(_model(onnx_tools, [node]), strict=False)
    assert result.nodes[0].status == "unsupported"
    assert "domain 'com.example'" in result.nodes[0].detail


def test_symbolic_dimension_is_noted_and_can_be_set(onnx_tools):
    make_model, _, _ = onnx_tools
    model = make_model([helper.make_node("Relu", ["x"], ["y"])],
                       {"x": np.zeros((1, 4), np.float32)}, ["y"])
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_param = "N"
    r = import_onnx(model)
    assert r.graph.inputs[0].shape == (1, 4)
    assert "dimension 0 (N) taken as 1" in r.notes[0]
    assert import_onnx(model, {"x": (8, 4)}).graph.outputs[0].shape == (8, 4)


def test_corrupt_and_missing_files_name_the_file(tmp_path, onnx_tools):
    good = _model(onnx_tools, [helper.make_node("Relu", ["x"], ["y"])]).SerializeToString()
    with pytest.raises(OnnxFileError, match="nope.onnx: cannot read"):
        import_onnx(str(tmp_path / "nope.onnx"))
    rng = np.random.default_rng(0)
    for k in range(30):  # truncations and byte flips: an error naming the file, never a crash
        data = bytearray(good[: rng.integers(0, len(good))])
        if k % 2 and data:
            data[rng.integers(0, len(data))] ^= 0xFF
        path = tmp_path / f"bad{k}.onnx"
        path.write_bytes(bytes(data))
        try:
            import_onnx(str(path))
        except (OnnxFileError, UnsupportedOnnxError) as e:
            assert f"bad{k}.onnx" in str(e)


def test_cli_writes_report_only_when_unsupported(tmp_path, onnx_tools, capsys):
    nodes = [helper.make_node("Det", ["x"], ["y"], name="d0")]
    path = tmp_path / "m.onnx"
    onnx.save(_model(onnx_tools, nodes, shape=(3, 3)), str(path))
    out = tmp_path / "pkg"
    assert main([str(path), "--out", str(out)]) == 1
    assert sorted(p.name for p in out.iterdir()) == ["report.txt"]
    assert "d0 [Det]: unsupported" in (out / "report.txt").read_text()
    assert "see" in capsys.readouterr().err


def test_cli_bad_arguments(tmp_path, capsys):
    assert main([str(tmp_path / "missing.onnx"), "--out", str(tmp_path / "o")]) == 2
    assert "missing.onnx" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main([str(tmp_path / "m.onnx"), "--out", "o", "--input-shape", "x:1,a"])


def test_external_weight_data_is_read(tmp_path, onnx_tools):
    make_model, run_ort, run_graph = onnx_tools
    w = np.arange(24, dtype=np.float32).reshape(4, 6)
    model = make_model([helper.make_node("MatMul", ["x", "w"], ["y"])],
                       {"x": np.ones((2, 4), np.float32)}, ["y"], {"w": w})
    onnx.save(model, str(tmp_path / "m.onnx"), save_as_external_data=True,
              all_tensors_to_one_file=True, location="m.weights", size_threshold=0)
    assert (tmp_path / "m.weights").exists()
    g = import_onnx(str(tmp_path / "m.onnx")).graph
    x = np.ones((2, 4), np.float32)
    np.testing.assert_allclose(run_graph(g, {"x": x})[0], x @ w)
    (tmp_path / "m.weights").unlink()
    with pytest.raises(OnnxFileError, match="m.onnx: cannot read its external weight data"):
        import_onnx(str(tmp_path / "m.onnx"))
