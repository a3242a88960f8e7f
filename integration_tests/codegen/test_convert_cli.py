"""``microspore lite convert --configFile=micro.cfg`` writes the C project of
``[micro_param]``, and ``--ram-budget`` fails naming the peak tensors.

The CLI runs on an ONNX export with ``--optimize=none``: the fused Conv2DFusion kernel of
the Python runtime cannot yet run an ONNX-imported convolution (its attributes lack
``data_format``), and the golden outputs come from that runtime; the converted and
quantized graphs go through the same hook, ``micro_codegen``, directly.
"""

from __future__ import annotations

import numpy as np
import pytest

from ms_lite import cli
from ms_lite.codegen import targets

pytestmark = pytest.mark.slow
pytest.importorskip("onnx")


@pytest.fixture(scope="module")
def onnx_model(tmp_path_factory):
    from ms_lite.ir import from_cell
    from ms_lite.onnx.export import export_onnx

    from .conftest import lenet5

    path = tmp_path_factory.mktemp("model") / "lenet.onnx"
    export_onnx(from_cell(lenet5(), np.zeros((1, 1, 32, 32), np.float32)), str(path))
    return path


def _config(tmp_path, extra: str = "", target: str = "x86") -> str:
    cfg = tmp_path / "micro.cfg"
    cfg.write_text(f"[micro_param]\nenable_micro=true\ntarget={target}\n"
                   f"codegen_mode=Inference\nsupport_parallel=false\n"
                   f"save_path={tmp_path / 'out'}\nproject_name=lenet\n{extra}")
    return str(cfg)


def _convert(onnx_model, tmp_path, cfg, *extra):
    return cli.main(["convert", "--fmk=ONNX", f"--modelFile={onnx_model}", "--optimize=none",
                     f"--outputFile={tmp_path / 'lenet'}", f"--configFile={cfg}", *extra])


def test_convert_with_micro_param_writes_a_project_that_passes(onnx_model, tmp_path, capsys):
    assert _convert(onnx_model, tmp_path, _config(tmp_path)) == 0
    out = capsys.readouterr().out
    assert "wrote C project" in out and "CONVERT RESULT SUCCESS:0" in out
    project = tmp_path / "out" / "lenet"
    assert (project / "include/net.h").is_file() and (tmp_path / "lenet.ms").is_file()
    if not targets.missing_tools("x86"):
        targets.build(project, "x86")
        assert "golden: PASS" in targets.run_program(project, "x86").stdout


def test_ram_budget_names_the_peak_tensors(onnx_model, tmp_path, capsys):
    assert _convert(onnx_model, tmp_path, _config(tmp_path), "--ram-budget", "8KB") == 1
    err = capsys.readouterr().err
    assert "over the RAM budget of 8192 bytes" in err and "Conv2D_0 (18816 B" in err
    assert "CONVERT RESULT FAILED" in err


def test_int8_lenet_fits_8kb_through_the_hook(lenet_graphs, tmp_path, capsys):
    from ms_lite.codegen.cli import micro_codegen

    graphs, _, _ = lenet_graphs
    cfg = _config(tmp_path, target="Cortex-M")
    assert micro_codegen(graphs["int8"], cfg, "8KB") == 0, capsys.readouterr().err
    header = (tmp_path / "out/lenet/include/net.h").read_text()
    size = int(header.split("#define NET_ARENA_SIZE ")[1].split("u")[0])
    assert size < 8192
    assert micro_codegen(graphs["fp32"], cfg, "8KB") == 1


def test_support_parallel_on_cortex_m_is_refused(onnx_model, tmp_path, capsys):
    cfg = _config(tmp_path, target="Cortex-M")
    path = tmp_path / "p.cfg"
    path.write_text(open(cfg).read().replace("support_parallel=false",
                                             "support_parallel=true"))
    assert _convert(onnx_model, tmp_path, str(path)) == 1
    assert "support_parallel=true is not available for target Cortex-M" in \
        capsys.readouterr().err
