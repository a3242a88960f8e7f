"""Packages use only the public names of the packages below them.

Next to the layering test, and read the same way (every ``.py`` file under
``packages/*/src`` and ``plugins/*/src`` through its AST). A name is private when it
starts with one underscore. Flagged, in a file of package A, for another microspore
package B:

* ``from B.mod import _x`` and imports of B's private modules (``B._mod``, ``B.x._mod``);
* ``_x`` read from a name bound to B or to one of its modules or objects
  (``dispatch._make_plan`` after ``from ms_ops import dispatch``, ``ms_tensor.registry._x``);
* the private attributes of ms-tensor's ``Tensor`` and ``Parameter`` (``t._data``,
  ``t._node``, ...) read or written on anything but ``self``, since any value may be a
  Tensor.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# The one exception, and why: ms-ops' dispatch reads two Tensors' arrays and builds a
# Tensor on every operator call. Through ``array_of``/``wrap`` its fast path cost 10,926
# instructions per op of bench_ops' eager chain, with the slots 9,803 (callgrind; numpy's
# own ``+`` is 3,819), so there, and only for these two slots, it uses them directly.
ALLOWED = {"packages/ms-ops/src/ms_ops/dispatch.py": {"_data", "_node"}}
TENSOR_CLASSES = ("packages/ms-tensor/src/ms_tensor/tensor.py:Tensor",
                  "packages/ms-tensor/src/ms_tensor/parameter.py:Parameter")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def tensor_private_attrs(root: Path) -> set[str]:
    """The private attributes of ms-tensor's Tensor and Parameter (slots and ``self._x``)."""
    names: set[str] = set()
    for spec in TENSOR_CLASSES:
        rel, cls_name = spec.split(":")
        path = root / rel
        if not path.exists():
            continue
        for cls in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(cls, ast.ClassDef) and cls.name == cls_name):
                continue
            for node in ast.walk(cls):
                if isinstance(node, ast.Assign) and any(
                        isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
                    names.update(c.value for c in ast.walk(node.value)
                                 if isinstance(c, ast.Constant) and isinstance(c.value, str))
                elif (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                      and node.value.id == "self"):
                    names.add(node.attr)
    return {n for n in names if _private(n)}


def _packages(root: Path) -> dict[str, Path]:
    out = {}
    for pattern in ("packages/*/src/*", "plugins/*/src/*"):
        for p in root.glob(pattern):
            if p.is_dir() and p.name.isidentifier():
                out[p.name] = p
    return out


def _foreign(module: str, own: str, packages) -> bool:
    top = module.split(".")[0]
    return top != own and top in packages


def _private_module(module: str) -> str | None:
    return next((part for part in module.split(".")[1:] if _private(part)), None)


def _dotted(expr) -> str | None:
    """``a.b.c`` for a chain of attribute reads on a name, else None."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if not isinstance(expr, ast.Name):
        return None
    return ".".join([expr.id, *reversed(parts)])


def check_file(path: Path, own: str, packages, tensor_attrs: set[str]) -> list[str]:
    """``line: message`` for each private name of another package used in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    bound: dict[str, str] = {}  # local name -> what of another package it is bound to
    problems = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if _foreign(alias.name, own, packages):
                    bad = _private_module(alias.name)
                    if bad:
                        problems.append((node.lineno, f"imports private module {alias.name}"))
                    top = alias.name.split(".")[0]
                    bound[alias.asname or top] = alias.name if alias.asname else top
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module \
                and _foreign(node.module, own, packages):
            bad = _private_module(node.module)
            if bad:
                problems.append((node.lineno, f"imports from private module {node.module}"))
            for alias in node.names:
                if _private(alias.name):
                    problems.append((node.lineno, f"imports {alias.name} from {node.module}"))
                bound[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not _private(node.attr):
            continue
        base = node.value
        path = _dotted(base)
        root_name = path and path.split(".")[0]
        if root_name in bound:
            full = bound[root_name] + path[len(root_name):]
            problems.append((node.lineno, f"uses {full}.{node.attr}"))
        elif node.attr in tensor_attrs and not (isinstance(base, ast.Name)
                                                and base.id in ("self", "cls")):
            problems.append((node.lineno, f"uses Tensor's private attribute .{node.attr}"))
    return [f"{line}: {msg}" for line, msg in sorted(set(problems))]


def check_public_names(root: Path) -> list[str]:
    """Every use of another package's private name as ``file:line: message``."""
    packages = _packages(root)
    tensor_attrs = tensor_private_attrs(root)
    problems = []
    for own, pkg_dir in sorted(packages.items()):
        if own == "ms_tensor":
            continue  # Tensor's own package may use its attributes
        for path in sorted(pkg_dir.rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for p in check_file(path, own, packages, tensor_attrs - ALLOWED.get(rel, set())):
                problems.append(f"{rel}:{p}")
    return problems


def test_packages_use_only_public_names_of_others():
    problems = check_public_names(ROOT)
    assert not problems, "private names used across packages:\n" + "\n".join(problems)


def test_tensor_private_attributes_are_found():
    assert {"_data", "_node"} <= tensor_private_attrs(ROOT)


def test_the_allowed_exception_names_existing_files_only():
    assert all((ROOT / rel).exists() for rel in ALLOWED)


def _write(root: Path, rel: str, text: str) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def test_checker_catches_planted_violations(tmp_path):
    _write(tmp_path, "packages/ms-tensor/src/ms_tensor/tensor.py",
           "class Tensor:\n    __slots__ = ('_data', '_node', 'x')\n\n"
           "    def f(self):\n        self._cache = 1\n        return self._data\n")
    _write(tmp_path, "packages/ms-tensor/src/ms_tensor/registry.py",
           "_generation = 0\n\n\ndef f(t):\n    return t._data\n")
    _write(tmp_path, "packages/ms-ops/src/ms_ops/bad.py",
           "from ms_tensor import registry as _registry\nimport ms_tensor.registry\n"
           "from ms_tensor.registry import _generation, load\n"
           "from ms_tensor._format import tensor_repr\n\n\n"
           "def f(t, x):\n    _registry._generation\n    ms_tensor.registry._generation\n"
           "    t._cache = 2\n    load._x\n    x._private_of_my_own\n    return t._data\n")
    _write(tmp_path, "packages/ms-graph/src/ms_graph/ok.py",
           "from ms_ops import dispatch\nfrom ms_graph import _mine\nimport numpy as np\n\n\n"
           "class A:\n    def f(self):\n        self._data = np._NoValue\n"
           "        return dispatch.plan, _mine._x\n")
    _write(tmp_path, "plugins/ms-plugin-x/src/ms_plugin_x/p.py",
           "import ms_ops.dispatch as d\n\n\ndef f(t):\n    d._make_plan(t._node)\n")

    assert check_public_names(tmp_path) == [
        "packages/ms-ops/src/ms_ops/bad.py:3: imports _generation from ms_tensor.registry",
        "packages/ms-ops/src/ms_ops/bad.py:4: imports from private module "
        "ms_tensor._format",
        "packages/ms-ops/src/ms_ops/bad.py:8: uses ms_tensor.registry._generation",
        "packages/ms-ops/src/ms_ops/bad.py:9: uses ms_tensor.registry._generation",
        "packages/ms-ops/src/ms_ops/bad.py:10: uses Tensor's private attribute ._cache",
        "packages/ms-ops/src/ms_ops/bad.py:11: uses ms_tensor.registry.load._x",
        "packages/ms-ops/src/ms_ops/bad.py:13: uses Tensor's private attribute ._data",
        "plugins/ms-plugin-x/src/ms_plugin_x/p.py:5: uses Tensor's private attribute ._node",
        "plugins/ms-plugin-x/src/ms_plugin_x/p.py:5: uses ms_ops.dispatch._make_plan",
    ]
