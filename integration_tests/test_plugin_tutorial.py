"""docs/plugins.md works as written: its snippets make a plugin that installs, registers,
runs, passes its own tests and uninstalls without a trace.

The plugin goes into a fresh virtual environment that sees this interpreter's packages,
so the environment running the tests is never changed. plugins/ms-plugin-example is
installed beside it the same way, and runs its own tests from the installed copy.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "plugins.md"
EXAMPLE = ROOT / "plugins" / "ms-plugin-example"

pytestmark = pytest.mark.slow

_SNIPPET = re.compile(r"^```\w*\n# file: (?P<path>\S+)\n(?P<body>.*?)^```$", re.M | re.S)


def tutorial_files(text: str) -> dict[str, str]:
    """The ``# file: <path>`` snippets of the tutorial, by path."""
    return {m["path"]: m["body"] for m in _SNIPPET.finditer(text)}


def _run(*cmd, timeout=60, check=True):
    out = subprocess.run([str(c) for c in cmd], capture_output=True, text=True,
                         timeout=timeout)
    if check and out.returncode != 0:
        raise AssertionError(f"{' '.join(map(str, cmd))} failed:\n{out.stdout}\n{out.stderr}")
    return out


class Env:
    """A virtual environment layered over the running interpreter's packages."""

    def __init__(self, path: Path):
        venv.create(path, system_site_packages=True, with_pip=False)
        self.python = path / "bin" / "python"
        purelib = _run(self.python, "-c",
                       "import sysconfig; print(sysconfig.get_path('purelib'))").stdout.strip()
        self.site = Path(purelib)
        # A venv made from inside a venv sees the base interpreter, not ours: add our
        # site directories (with their .pth files, where editable installs live).
        parents = dict.fromkeys(sysconfig.get_path(k) for k in ("purelib", "platlib"))
        lines = [f"import site; site.addsitedir({p!r})" for p in parents if p]
        (self.site / "_parent_env.pth").write_text("\n".join(lines) + "\n")

    def pip(self, *args):
        return _run(sys.executable, "-m", "pip", "--python", self.python,
                    "--disable-pip-version-check", "--no-input", *args, timeout=120)

    def install(self, project: Path):
        self.pip("install", "--no-deps", "--no-build-isolation", "--no-index", "-q", project)

    def py(self, *args, **kw):
        return _run(self.python, *args, **kw)

    def registry_lines(self) -> list[str]:
        return self.py("-m", "ms_tensor.registry").stdout.splitlines()

    def leftovers(self, *fragments: str) -> list[str]:
        return [str(p.relative_to(self.site)) for p in self.site.rglob("*")
                if any(f in p.name for f in fragments)]


def _copy_project(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns(
        "build", "*.egg-info", "__pycache__", ".pytest_cache"))
    return dst


HELLO_ENTRIES = [
    "bprop Squareplus - hello",
    "function Squareplus - hello",
    "function squareplus - hello",
    "kernel Squareplus CPU hello",
    "op_sample Squareplus - hello",
    "primitive Squareplus - hello",
    "tensor_method squareplus - hello",
]

# The installed operator eagerly, under grad, and compiled by ms_graph.jit.
_USE_HELLO = """
import numpy as np
import ms_autodiff
import ms_graph
import ms_ops
from ms_tensor import Tensor
x = Tensor(np.array([-2.0, 0.0, 2.0], np.float32))
assert "squareplus" in dir(ms_ops.functional)
print(ms_ops.squareplus(x).asnumpy().astype(float).round(5).tolist(), x.squareplus(b=1.0).dtype,
      ms_ops.Squareplus(b=1.0)(x).shape)
g = ms_autodiff.grad(lambda t: ms_ops.squareplus(t).sum())(x)
print(g.asnumpy().astype(float).round(4).tolist())
f = ms_graph.jit(lambda t: ms_ops.squareplus(t) * 2)
print(f(x).asnumpy().astype(float).round(5).tolist(), f(x + 1).shape)


def total(t):
    return ms_ops.squareplus(t).sum()


grad_total = ms_autodiff.grad(total)


@ms_graph.jit
def step(t):  # the gradient rule compiled into the graph
    return grad_total(t)


print(step(x).asnumpy().astype(float).round(4).tolist())
"""

_GONE = """
import ms_ops
from ms_tensor import Tensor
try:
    ms_ops.functional.squareplus
except AttributeError as e:
    print("gone:", e)
try:
    Tensor([1.0]).squareplus()
except AttributeError:
    print("no method")
"""


def test_tutorial_snippets_make_a_complete_package():
    files = tutorial_files(DOC.read_text(encoding="utf-8"))
    assert set(files) == {"pyproject.toml", "src/ms_plugin_hello/__init__.py",
                          "src/ms_plugin_hello/squareplus.py", "src/ms_plugin_hello/plugin.py",
                          "tests/test_squareplus.py"}
    assert 'hello = "ms_plugin_hello.plugin"' in files["pyproject.toml"]


def test_plugin_tutorial_install_use_uninstall(tmp_path):
    pkg = tmp_path / "ms-plugin-hello"
    for rel, body in tutorial_files(DOC.read_text(encoding="utf-8")).items():
        (pkg / rel).parent.mkdir(parents=True, exist_ok=True)
        (pkg / rel).write_text(body, encoding="utf-8")
    env = Env(tmp_path / "venv")
    before = env.registry_lines()
    assert "backend CPU - tensor" in before
    assert not [line for line in before if line.endswith(" hello")]

    env.install(pkg)
    example = _copy_project(EXAMPLE, tmp_path / "ms-plugin-example")
    env.install(example)

    lines = env.registry_lines()
    assert sorted(line for line in lines if line.endswith(" hello")) == HELLO_ENTRIES
    assert "primitive Mish - example" in lines and "tensor_method mish - example" in lines
    assert set(before) <= set(lines)  # the plugins add; they replace nothing

    script = tmp_path / "use_hello.py"  # a file: graph mode reads the source it compiles
    script.write_text(_USE_HELLO, encoding="utf-8")
    out = env.py(script).stdout.splitlines()
    assert out[0].split() == ["[0.41421,", "1.0,", "2.41421]", "Float32", "(3,)"]
    assert out[1] == out[3] == "[0.1464, 0.5, 0.8536]"  # (1 + x / sqrt(x**2 + 4)) / 2
    assert out[2] == "[0.82843, 2.0, 4.82843] (3,)"

    # the tutorial's tests and the example's tests, run against the installed plugins
    shutil.rmtree(example / "src")
    for tests in (pkg / "tests", example / "tests"):
        result = env.py("-m", "pytest", "-q", "-p", "no:cacheprovider", "--rootdir", tests,
                        tests, timeout=120)
        assert re.search(r"\d+ passed", result.stdout), result.stdout

    env.pip("uninstall", "-y", "-q", "ms-plugin-hello", "ms-plugin-example")
    after = env.registry_lines()
    assert after == before
    gone = env.py("-c", _GONE).stdout
    assert "gone: ms_ops.functional has no operator 'squareplus'" in gone
    assert "no method" in gone
    assert env.leftovers("plugin_hello", "plugin-hello", "plugin_example",
                         "plugin-example") == []
    assert _run(sys.executable, "-c", "import ms_plugin_hello", check=False).returncode != 0
