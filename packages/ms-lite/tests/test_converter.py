import numpy as np
import pytest

import microspore_lite as mslite
from ms_lite.cli import main as cli
from ms_lite.converter.config import ConfigError, read_config
from ms_lite.format import load, save
from ms_lite.ir import Graph, Node, Value


def _model(path):
    rng = np.random.default_rng(0)
    g = Graph([Value("x", (4, 6), "float32")], [Value("y", (4, 3), "float32")],
              [Node("Dense", ["x", "w", "b"], ["d"], {}, "fc"),
               Node("ReLU", ["d"], ["y"], {}, "relu")],
              {"w": rng.standard_normal((3, 6)).astype(np.float32),
               "b": rng.standard_normal(3).astype(np.float32)}, "mlp")
    save(g, path)
    return g


def _predict(path, x):
    m = mslite.Model()
    m.build_from_file(str(path), mslite.ModelType.MINDIR_LITE, mslite.Context())
    inputs = m.get_inputs()
    inputs[0].set_data_from_numpy(x)
    return m.predict(inputs)[0].get_data_to_numpy()


def test_python_converter_writes_ms_and_report(tmp_path):
    g = _model(tmp_path / "mlp.mindir")
    r = mslite.Converter().convert(mslite.FmkType.MINDIR, str(tmp_path / "mlp.mindir"),
                                   str(tmp_path / "out"))
    assert r.path == str(tmp_path / "out.ms") and (tmp_path / "out.ms.report.txt").exists()
    assert [(n.op, n.attrs["activation_type"]) for n in r.graph.nodes] == \
        [("FullConnection", "RELU")]
    x = np.random.default_rng(1).standard_normal((4, 6)).astype(np.float32)
    want = np.maximum(x @ g.constants["w"].T + g.constants["b"], 0)
    np.testing.assert_allclose(_predict(r.path, x), want, rtol=1e-5, atol=1e-6)
    assert load(r.path)[1]["fmk"] == "MINDIR"


def test_weight_quant_and_fp16_shrink_the_file(tmp_path):
    _model(tmp_path / "m.mindir")
    (tmp_path / "wq.cfg").write_text("[common_quant_param]\nquant_type=WEIGHT_QUANT\n")
    assert cli(["convert", "--fmk=MINDIR", f"--modelFile={tmp_path / 'm.mindir'}",
                f"--outputFile={tmp_path / 'wq'}", f"--configFile={tmp_path / 'wq.cfg'}"]) == 0
    assert cli(["convert", "--fmk=MINDIR", f"--modelFile={tmp_path / 'm.mindir'}",
                f"--outputFile={tmp_path / 'h'}", "--fp16=on"]) == 0
    g, _ = load(tmp_path / "wq.ms")
    assert any(c.dtype == np.int8 for c in g.constants.values())
    assert g.nodes[0].op == "QuantDTypeCast"
    x = np.ones((4, 6), np.float32)
    ref = _predict(tmp_path / "m.mindir", x)
    np.testing.assert_allclose(_predict(tmp_path / "wq.ms", x), ref, atol=0.05)
    np.testing.assert_allclose(_predict(tmp_path / "h.ms", x), ref, atol=0.01)


def test_cli_names_a_missing_file_and_bad_flags(tmp_path, capsys):
    assert cli(["convert", "--fmk=MINDIR", f"--modelFile={tmp_path / 'nope'}",
                f"--outputFile={tmp_path / 'o'}"]) == 1
    err = capsys.readouterr().err
    assert "nope" in err and "CONVERT RESULT FAILED" in err
    with pytest.raises(SystemExit):
        cli(["convert", "--fmk=CAFFE", "--modelFile=x", "--outputFile=y"])
    assert cli(["frobnicate"]) == 2


def test_cli_rejects_fp16_with_quantization(tmp_path, capsys):
    _model(tmp_path / "m.mindir")
    (tmp_path / "q.cfg").write_text("[common_quant_param]\nquant_type=WEIGHT_QUANT\n")
    assert cli(["convert", "--fmk=MINDIR", f"--modelFile={tmp_path / 'm.mindir'}",
                f"--outputFile={tmp_path / 'o'}", "--fp16=on",
                f"--configFile={tmp_path / 'q.cfg'}"]) == 1
    assert "exclude each other" in capsys.readouterr().err


@pytest.mark.parametrize("text,match", [
    ("[common_quant_param]\nquant_type=HALF\n", "quant_type 'HALF'"),
    ("[common_quant_param]\nquant_type=FULL_QUANT\n", "needs \\[data_preprocess_param\\]"),
    ("[common_quant_param]\nbit_num=4\n", "only 8-bit"),
    ("[common_quant_param]\nquant_type=FULL_QUANT\n[data_preprocess_param]\n"
     "calibrate_path=nocolon\n", "not input_name:path"),
    ("not an ini file", "cannot read"),
])
def test_config_errors_name_the_file(tmp_path, text, match):
    p = tmp_path / "c.cfg"
    p.write_text(text)
    with pytest.raises(ConfigError, match=match) as e:
        read_config(p)
    assert str(p) in str(e.value)


def test_converter_rejects_unknown_framework(tmp_path):
    _model(tmp_path / "m")
    with pytest.raises(ValueError, match="fmk 'TF' is not supported"):
        mslite.Converter().convert(mslite.FmkType.TF, str(tmp_path / "m"), str(tmp_path / "o"))
