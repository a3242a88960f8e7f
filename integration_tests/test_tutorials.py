"""Scripts in the shape of MindSpore's official tutorials run on microspore with only
``mindspore`` renamed, and give MindSpore 2.10's numbers.

Each script in ``tutorials/`` is written against ``mindspore`` (tensors, dataset, model
building, autograd, training, save/load, static graph, mixed precision) and ends with one
``RESULT`` line of JSON. The test renames the word ``mindspore`` to ``microspore`` (what a
user does), runs it, and checks what the script itself asserts. Where MindSpore 2.10 is
installed in a side venv (``MS_PYTHON``, else ``/tmp/msenv/bin/python``), it also runs the
original there and compares every reported value, dtype and shape.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ms_data.bundled import digits_dir

HERE = Path(__file__).resolve().parent / "tutorials"
SCRIPTS = sorted(p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_"))
MS_PYTHON = os.environ.get("MS_PYTHON", "/tmp/msenv/bin/python")
#: relative tolerance by the script's own precision: float16 results round at 1e-3
RTOL = {"amp": 2e-3}

pytestmark = pytest.mark.slow


def _run(python: str, script: Path, cwd: Path) -> dict:
    env = {**os.environ, "DIGITS_DIR": str(digits_dir()), "GLOG_v": "3",
           "PYTHONUNBUFFERED": "1"}
    proc = subprocess.run([python, script.name], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, (f"{script.name} failed:\n{proc.stdout[-2000:]}\n"
                                  f"{proc.stderr[-3000:]}")
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")]
    assert len(lines) == 1, proc.stdout[-2000:]
    return json.loads(lines[0][len("RESULT "):])


def renamed(name: str, cwd: Path) -> Path:
    shutil.copy(HERE / "_common.py", cwd)
    text = re.sub(r"\bmindspore\b", "microspore", (HERE / f"{name}.py").read_text())
    (cwd / f"{name}.py").write_text(text)
    return cwd / f"{name}.py"


def _same(a, b, rtol, where="result"):
    if isinstance(a, dict) and {"dtype", "shape", "value"} <= set(a):
        assert isinstance(b, dict) and a["shape"] == b["shape"], f"{where}: shape {a} vs {b}"
        assert a["dtype"] == b["dtype"], f"{where}: dtype {a['dtype']} vs {b['dtype']}"
        np.testing.assert_allclose(np.asarray(a["value"], float), np.asarray(b["value"], float),
                                   rtol=rtol, atol=rtol, err_msg=where)
    elif isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), f"{where}: keys {set(a) ^ set(b)}"
        for k in a:
            _same(a[k], b[k], rtol, f"{where}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), f"{where}: {a} vs {b}"
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, rtol, f"{where}[{i}]")
    elif isinstance(a, float) or isinstance(b, float):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol, err_msg=where)
    else:
        assert a == b, f"{where}: {a!r} vs {b!r}"


@pytest.mark.parametrize("name", SCRIPTS)
def test_tutorial_runs_renamed(name, tmp_path):
    """The script's own asserts hold and it reports its numbers."""
    assert _run(sys.executable, renamed(name, tmp_path), tmp_path)


@pytest.mark.skipif(not Path(MS_PYTHON).exists(), reason="MindSpore 2.10 side venv absent")
@pytest.mark.parametrize("name", SCRIPTS)
def test_tutorial_gives_mindspores_numbers(name, tmp_path):
    ours_dir, theirs_dir = tmp_path / "ours", tmp_path / "theirs"
    ours_dir.mkdir()
    theirs_dir.mkdir()
    ours = _run(sys.executable, renamed(name, ours_dir), ours_dir)
    shutil.copy(HERE / "_common.py", theirs_dir)
    shutil.copy(HERE / f"{name}.py", theirs_dir)
    theirs = _run(MS_PYTHON, theirs_dir / f"{name}.py", theirs_dir)
    _same(ours, theirs, RTOL.get(name, 1e-5))
