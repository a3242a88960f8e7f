"""Build ms-parallel's optional Cython module (``src/ms_parallel/kernels/_mpi_direct.pyx``,
the eager collectives' C path) with the one build script of the packages,
tools/ms_build.py. Optional: where it cannot be built, the collectives use mpi4py."""

import sys
from pathlib import Path

# ms_build.py lies beside this file in an sdist, in the repository's tools/ otherwise.
_here = Path(__file__).resolve().parent
sys.path[:0] = [str(_here), str(_here.parents[1] / "tools")]

from ms_build import cython_setup  # noqa: E402

cython_setup("ms_parallel", optional=True)
