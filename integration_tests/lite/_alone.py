"""A Python environment holding only some distributions and their declared dependencies:
a directory of links to exactly those packages, run with ``python -S`` so nothing else
of the developer's environment (ms-graph, ms-nn, ...) can be imported or found by the
registry's entry points."""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _name(req: str) -> str | None:
    if "extra ==" in req or "extra==" in req:
        return None
    return re.split(r"[\s<>=!~;\[(]", req.strip(), maxsplit=1)[0]


def closure(names) -> set[str]:
    """The distributions ``names`` need, by their metadata, themselves included."""
    seen, todo = set(), list(names)
    while todo:
        n = md.distribution(todo.pop()).metadata["Name"]
        if n.lower() in {s.lower() for s in seen}:
            continue
        seen.add(n)
        todo += [r for r in map(_name, md.distribution(n).requires or []) if r]
    return seen


def _top_levels(dist) -> set[str]:
    tops = set()
    for f in dist.files or []:
        first = f.parts[0]
        if first.endswith((".dist-info", ".pth")) or first in ("..", "__pycache__") \
                or first.startswith("__editable__"):
            continue
        tops.add(first)
    return tops


def make_site(tmp: Path, names) -> tuple[Path, list[str]]:
    """Link ``names`` and their dependencies into ``tmp/site``; returns it and the
    source directories of the repository's own (editable) packages."""
    site = tmp / "site"
    site.mkdir()
    sources = []
    for n in sorted(closure(names)):
        dist = md.distribution(n)
        info = Path(dist._path)  # the .dist-info directory (its entry points, metadata)
        (site / info.name).symlink_to(info)
        src = [ROOT / "packages" / n / "src", ROOT / "plugins" / n / "src"]
        own = [s for s in src if s.is_dir()]
        if own:
            sources.append(str(own[0]))
            continue
        base = info.parent
        for top in _top_levels(dist):
            if (base / top).exists() and not (site / top).exists():
                (site / top).symlink_to(base / top)
    return site, sources


def run_alone(tmp: Path, names, code: str, timeout: float = 120) -> str:
    site, sources = make_site(tmp, names)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = os.pathsep.join([str(site), *sources])
    r = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True,
                       env=env, timeout=timeout, cwd=tmp)
    assert r.returncode == 0, f"stdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return r.stdout
