"""Build ms-lite's Cython kernels (``src/ms_lite/kernels/_*.pyx``) with the one build
script of the packages, tools/ms_build.py (its docstring has the debug switches)."""

import sys
from pathlib import Path

# ms_build.py lies beside this file in an sdist, in the repository's tools/ otherwise.
_here = Path(__file__).resolve().parent
sys.path[:0] = [str(_here), str(_here.parents[1] / "tools")]

from ms_build import cython_setup  # noqa: E402

cython_setup("ms_lite")
