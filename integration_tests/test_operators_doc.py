"""docs/operators.md lists exactly what the framework's packages register."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_operators_doc_matches_the_registry():
    out = subprocess.run([sys.executable, str(ROOT / "tools" / "list_ops.py"), "--check"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
