"""The tree as CI sees it: ruff's rules hold and no source module outgrows the budget."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
MAX_MODULE_LINES = 600  # STYLE.md: modules of 100-300 lines; split a family before this


def _sz():
    spec = importlib.util.spec_from_file_location("sz", ROOT / "tools" / "sz.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_source_module_is_over_the_line_budget():
    assert _sz().over_budget(MAX_MODULE_LINES) == []


def test_the_budget_counts_every_line(tmp_path, monkeypatch):
    sz = _sz()
    module = tmp_path / "packages" / "ms-toy" / "src" / "ms_toy" / "big.py"
    module.parent.mkdir(parents=True)
    (tmp_path / "packages" / "ms-toy" / "pyproject.toml").write_text("")
    module.write_text("x = 1\n\n# a comment\n" * 3)
    monkeypatch.setattr(sz, "ROOT", tmp_path)
    assert sz.over_budget(9) == []
    assert sz.over_budget(8) == [f"{module.relative_to(tmp_path)}: 9 > 8 lines"]


def test_ruff_finds_nothing():
    pytest.importorskip("ruff", reason="ruff is pinned in requirements-dev.txt")
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "--no-cache", str(ROOT)],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stdout + out.stderr
