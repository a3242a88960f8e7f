"""Host files: the machines of a job, one ``host`` or ``host:slots`` a line (MPICH
Hydra's format, which ``mpiexec -f`` reads; ``#`` starts a comment).

The launcher checks the file before mpiexec sees it, so a typo is reported with its file
and line instead of an ssh failure, and so ``--worker_num`` can default to the slots.

>>> import tempfile, os
>>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
...     _ = f.write("# two machines\\nnode1:4\\nnode2   # one slot\\n")
>>> read_hostfile(f.name)
[('node1', 4), ('node2', 1)]
>>> os.remove(f.name)
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["read_hostfile"]

_LINE = re.compile(r"^([A-Za-z0-9_.\-]+)(?::([0-9]+))?$")


def read_hostfile(path) -> list[tuple[str, int]]:
    """``[(host, slots), ...]`` in file order; raises ValueError naming a bad line."""
    p = Path(path)
    if not p.is_file():
        raise ValueError(f"no such host file: {path}")
    hosts = []
    for k, raw in enumerate(p.read_text().splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        m = _LINE.match(line)
        if m is None or (m.group(2) is not None and int(m.group(2)) < 1):
            raise ValueError(f"host file {path}, line {k}: expected 'host' or 'host:slots' "
                             f"(slots >= 1), got {raw.strip()!r}")
        hosts.append((m.group(1), int(m.group(2) or 1)))
    if not hosts:
        raise ValueError(f"host file {path} names no host")
    return hosts
