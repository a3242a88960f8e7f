"""Every Python example in README.md and docs/ runs as written.

A ```python block runs alone in a fresh interpreter (in a temporary directory), unless
the line before it holds a marker:

- ``<!-- example: setup NAME -->``: ``doc_examples/NAME.py`` runs first (an example that
  continues a story: a trained ``net``, a batch ``x``);
- ``<!-- example: after -->``: the file's previous example runs first (with its own setup);
- ``<!-- example: raises ValueError -->``: the example ends in that error, and its message
  is the one its last ``# ValueError: ...`` comment shows;
- ``<!-- example: tested-by integration_tests/test_x.py -->``: a file of a tutorial, run by
  that test (which must name the document);
- ``<!-- example: ranks 2 -->``: run by the launcher (``python -m ms_parallel.run -n 2``).

Clauses combine with ``;`` (``<!-- example: setup mlp; ranks 2 -->``).

A new example therefore either runs or says what runs it; none is silently skipped.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SETUPS = Path(__file__).resolve().parent / "doc_examples"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

_BLOCK = re.compile(r"^```python\n(?P<code>.*?)^```$", re.M | re.S)
_MARKER = re.compile(r"<!-- example: (?P<clauses>.*?) -->\s*$")
KINDS = {"setup", "after", "raises", "tested-by", "ranks"}

pytestmark = pytest.mark.slow


@dataclass(frozen=True)
class Example:
    doc: Path
    line: int
    code: str
    marks: dict[str, str | None]
    previous: Example | None

    @property
    def id(self) -> str:
        return f"{self.doc.relative_to(ROOT)}:{self.line}"

    def source(self) -> str:
        """The example with what runs before it."""
        code = self.code
        if "after" in self.marks:
            code = self.previous.source() + "\n" + code
        if "setup" in self.marks:
            code = (SETUPS / f"{self.marks['setup']}.py").read_text() + "\n" + code
        return code


def examples(doc: Path) -> list[Example]:
    text = doc.read_text()
    found, previous = [], None
    for m in _BLOCK.finditer(text):
        before = text[:m.start()].rstrip("\n").rsplit("\n", 1)[-1]
        marker = _MARKER.search(before)
        clauses = [c.strip().split(" ", 1) for c in marker["clauses"].split(";")] if marker else []
        marks = {c[0]: (c[1] if len(c) > 1 else None) for c in clauses}
        previous = Example(doc, text[:m.start()].count("\n") + 1, m["code"], marks, previous)
        found.append(previous)
    return found


ALL = [e for doc in DOCS for e in examples(doc)]


def _bad(e: Example) -> bool:
    m = e.marks
    return (not set(m) <= KINDS
            or ("setup" in m and not (SETUPS / f"{m['setup']}.py").is_file())
            or ("after" in m and e.previous is None)
            or ("ranks" in m and not str(m["ranks"]).isdigit())
            or ("tested-by" in m and e.doc.name not in (ROOT / str(m["tested-by"])).read_text()))


def test_every_marker_is_known():
    bad = [f"{e.id}: {e.marks}" for e in ALL if _bad(e)]
    assert not bad, f"examples with a bad marker: {bad}"


@pytest.mark.parametrize("example", [e for e in ALL if "tested-by" not in e.marks],
                         ids=lambda e: e.id)
def test_example_runs(example, tmp_path):
    env = {**os.environ, "MS_REPO": str(ROOT), "PYTHONUNBUFFERED": "1"}
    (tmp_path / "example.py").write_text(example.source())
    cmd = [sys.executable, "example.py"]
    if "ranks" in example.marks:
        cmd = [sys.executable, "-m", "ms_parallel.run", "-n", example.marks["ranks"],
               "example.py"]
    proc = subprocess.run(cmd, cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=600)
    error = example.marks.get("raises")
    if error:
        shown = re.findall(rf"^# ({error}: .*)$", example.code, re.M)
        assert proc.returncode != 0, f"{example.id} was to raise {error}"
        assert shown and proc.stderr.rstrip().endswith(shown[-1]), proc.stderr[-2000:]
    else:
        assert proc.returncode == 0, (f"{example.id} failed:\n{proc.stdout[-2000:]}\n"
                                      f"{proc.stderr[-3000:]}")
