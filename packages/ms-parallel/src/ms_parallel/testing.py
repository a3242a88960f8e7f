"""Test helpers that run scripts on several ranks (for ms-parallel's tests, integration
tests and plugins)."""

from __future__ import annotations

import subprocess
import sys

__all__ = ["run_ranks"]


def run_ranks(n: int, script, *args, timeout: float = 120, cwd=None, launcher_args=(),
              env=None) -> subprocess.CompletedProcess:
    """``python -m ms_parallel.run -n N [launcher_args] script args`` with its output
    captured as text; ``timeout`` bounds the whole run (subprocess.TimeoutExpired).

    Unless ``launcher_args`` sets ``--init_timeout``, ranks get half of ``timeout`` to reach
    ``init()``: on a loaded test machine, N interpreters importing the framework at once
    can take longer than the launcher's interactive default."""
    if "--init_timeout" not in launcher_args:
        launcher_args = ("--init_timeout", str(int(timeout // 2)), *launcher_args)
    cmd = [sys.executable, "-m", "ms_parallel.run", "-n", str(n), *launcher_args,
           str(script), *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, cwd=cwd,
                          env=env)
