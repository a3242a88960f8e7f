"""Imports go down the layers of DESIGN.md; packages never import plugins or microspore.

Every ``.py`` and ``.pyx`` file under ``packages/*/src`` is read (Python files through
their AST, so imports inside functions count; Cython files line by line, ``cimport``
included) and each import of a microspore package is checked against ``LAYERS``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# A package may import packages on strictly lower layers only (nothing sideways).
LAYERS = {
    "ms_tensor": 0,
    "ms_ops": 1,
    "ms_ops_scipy": 2,  # SciPy-backed operators: above ms-ops, beside ms-autodiff
    "ms_autodiff": 2,
    "ms_graph": 3,
    "ms_nn": 4,
    "ms_data": 4,
    "ms_insight": 5,
    "ms_lite": 5,
    "microspore_lite": 6,  # MindSpore Lite's name for ms_lite: an alias above it
    "microspore_xai": 6,  # MindSpore XAI's name for ms_insight's explainers: an alias above it
    "ms_parallel": 5,
    "ms_device_ascend": 5,
    "microspore": 6,
}
# Narrower than its layer allows: ms-data needs ms-tensor only.
ONLY = {"ms_data": {"ms_tensor"}}
# Nothing imports the meta-package; plugins may import any ms_* package, but no package
# imports a plugin.
NOT_IMPORTABLE = {"microspore"}
PLUGIN_PREFIX = "ms_plugin_"

_PYX_IMPORT = re.compile(
    r"^\s*(?:from\s+(?P<src>[\w.]+)\s+c?import\b|c?import\s+(?P<names>[\w.]+(?:\s*,\s*[\w.]+)*))")


def plugin_modules(root: Path) -> set[str]:
    """Top-level import names of the plugins under ``plugins/*/src``."""
    return {p.name for p in root.glob("plugins/*/src/*") if p.is_dir() and p.name.isidentifier()}


def _imports_py(path: Path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.lineno, node.module
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and ((isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
                   or (isinstance(node.func, ast.Name)
                       and node.func.id in ("__import__", "import_module")))):
            yield node.lineno, node.args[0].value


def _imports_pyx(path: Path):
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = _PYX_IMPORT.match(line)
        if m is None:
            continue
        if m["src"]:
            if not m["src"].startswith("."):
                yield lineno, m["src"]
        else:
            for name in m["names"].split(","):
                yield lineno, name.strip()


def _why_not(importer: str, target: str, plugins: set[str]) -> str | None:
    if target == importer:
        return None
    if target in plugins or target.startswith(PLUGIN_PREFIX):
        return "packages never import plugins"
    if target in NOT_IMPORTABLE:
        return f"nothing imports {target}"
    if target not in LAYERS:
        return None  # numpy, pluggy, ...: not a microspore package
    if importer in ONLY:
        allowed = ONLY[importer]
        return None if target in allowed else \
            f"{importer} may import only {', '.join(sorted(allowed))}"
    if LAYERS[target] >= LAYERS[importer]:
        side = "sideways" if LAYERS[target] == LAYERS[importer] else "upward"
        return f"{side}: {target} is not below {importer}"
    return None


def check_layering(root: Path) -> list[str]:
    """Every layering violation under ``root/packages`` as ``file:line: message``."""
    plugins = plugin_modules(root)
    problems = []
    for src in sorted(root.glob("packages/*/src")):
        for pkg_dir in sorted(p for p in src.iterdir() if p.is_dir() and p.name.isidentifier()):
            importer = pkg_dir.name
            if importer not in LAYERS:
                problems.append(f"{pkg_dir.relative_to(root)}: package {importer!r} has no "
                                "layer; add it to LAYERS in integration_tests/test_layering.py")
                continue
            for path in sorted(pkg_dir.rglob("*")):
                if path.suffix == ".py":
                    found = _imports_py(path)
                elif path.suffix == ".pyx":
                    found = _imports_pyx(path)
                else:
                    continue
                for lineno, module in found:
                    target = module.split(".")[0]
                    why = _why_not(importer, target, plugins)
                    if why:
                        problems.append(f"{path.relative_to(root)}:{lineno}: {importer} "
                                        f"imports {module} ({why})")
    return problems


def test_packages_import_only_lower_layers():
    problems = check_layering(ROOT)
    assert not problems, "layering violations:\n" + "\n".join(problems)


def test_the_scan_sees_the_packages():
    scanned = {p.name for p in ROOT.glob("packages/*/src/*") if p.is_dir()}
    assert {"ms_tensor", "ms_ops"} <= scanned


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_checker_catches_planted_violations(tmp_path):
    _write(tmp_path, "packages/ms-tensor/src/ms_tensor/__init__.py", "import numpy as np\n")
    _write(tmp_path, "packages/ms-tensor/src/ms_tensor/bad.py",
           "import os\n\n\ndef f():\n    from ms_ops import functional\n    return functional\n")
    _write(tmp_path, "packages/ms-ops/src/ms_ops/ok.py",
           "from ms_tensor import Tensor\nfrom . import sibling\nimport ms_ops.defs\n")
    _write(tmp_path, "packages/ms-ops/src/ms_ops/lazy.py",
           "import importlib\nm = importlib.import_module('ms_nn.cell')\n")
    _write(tmp_path, "packages/ms-ops/src/ms_ops/kernels/_k.pyx",
           "cimport numpy as cnp\nfrom ms_autodiff.tape cimport Node\nfrom .x cimport y\n")
    _write(tmp_path, "packages/ms-data/src/ms_data/source.py",
           "from ms_tensor import Tensor\nimport ms_ops\n")
    _write(tmp_path, "packages/ms-nn/src/ms_nn/model.py", "from ms_data import Dataset\n")
    _write(tmp_path, "packages/ms-lite/src/ms_lite/run.py", "import ms_parallel.comm, ms_nn\n")
    _write(tmp_path, "packages/ms-graph/src/ms_graph/p.py", "from ms_plugin_example import x\n")
    _write(tmp_path, "packages/ms-nn/src/ms_nn/gpu.py", "import cupy_ext.ops\n")
    _write(tmp_path, "plugins/ms-device-gpu/src/cupy_ext/__init__.py", "import ms_nn\n")
    _write(tmp_path, "packages/microspore/src/microspore/__init__.py", "import ms_lite\n")
    _write(tmp_path, "packages/ms-insight/src/ms_insight/x.py", "import microspore as ms\n")
    _write(tmp_path, "packages/ms-new/src/ms_new/__init__.py", "")

    assert check_layering(tmp_path) == [
        "packages/ms-data/src/ms_data/source.py:2: ms_data imports ms_ops "
        "(ms_data may import only ms_tensor)",
        "packages/ms-graph/src/ms_graph/p.py:1: ms_graph imports ms_plugin_example "
        "(packages never import plugins)",
        "packages/ms-insight/src/ms_insight/x.py:1: ms_insight imports microspore "
        "(nothing imports microspore)",
        "packages/ms-lite/src/ms_lite/run.py:1: ms_lite imports ms_parallel.comm "
        "(sideways: ms_parallel is not below ms_lite)",
        "packages/ms-new/src/ms_new: package 'ms_new' has no layer; add it to LAYERS in "
        "integration_tests/test_layering.py",
        "packages/ms-nn/src/ms_nn/gpu.py:1: ms_nn imports cupy_ext.ops "
        "(packages never import plugins)",
        "packages/ms-nn/src/ms_nn/model.py:1: ms_nn imports ms_data "
        "(sideways: ms_data is not below ms_nn)",
        "packages/ms-ops/src/ms_ops/kernels/_k.pyx:2: ms_ops imports ms_autodiff.tape "
        "(upward: ms_autodiff is not below ms_ops)",
        "packages/ms-ops/src/ms_ops/lazy.py:2: ms_ops imports ms_nn.cell "
        "(upward: ms_nn is not below ms_ops)",
        "packages/ms-tensor/src/ms_tensor/bad.py:5: ms_tensor imports ms_ops "
        "(upward: ms_ops is not below ms_tensor)",
    ]


@pytest.mark.parametrize("importer,target,ok", [
    ("ms_nn", "ms_graph", True),
    ("ms_nn", "ms_tensor", True),
    ("microspore", "ms_data", True),
    ("ms_parallel", "ms_data", True),
    ("ms_data", "ms_tensor", True),
    ("ms_ops", "numpy", True),
    ("ms_ops", "ms_ops", True),
    ("ms_autodiff", "ms_graph", False),
    ("ms_data", "ms_ops", False),
    ("ms_device_ascend", "ms_insight", False),
    ("ms_ops", "microspore", False),
])
def test_layer_table(importer, target, ok):
    assert (_why_not(importer, target, set()) is None) is ok
