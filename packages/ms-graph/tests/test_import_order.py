"""Every ms-graph module imports first in a fresh interpreter (no import cycle hides
behind the order in which ``ms_graph/__init__`` happens to load things)."""

from __future__ import annotations

import pkgutil
import subprocess
import sys

import ms_graph


def _modules() -> list[str]:
    return sorted(m.name for m in pkgutil.walk_packages(ms_graph.__path__, "ms_graph."))


def test_every_module_imports_first():
    procs = {name: subprocess.Popen([sys.executable, "-c", f"import {name}"],
                                    stderr=subprocess.PIPE, text=True)
             for name in _modules()}
    failed = {}
    for name, proc in procs.items():
        _, err = proc.communicate(timeout=120)
        if proc.returncode:
            failed[name] = err.strip().splitlines()[-1]
    assert not failed, failed
