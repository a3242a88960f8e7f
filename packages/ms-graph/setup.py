"""Build ms-graph's Cython kernels (``src/ms_graph/kernels/_*.pyx``) with OpenMP.

``MS_GRAPH_BOUNDSCHECK=1`` turns bounds and wraparound checks back on for debugging;
``MS_GRAPH_ONLY=_fused`` builds only those modules (``python setup.py build_ext
--inplace`` while working on one kernel).
"""

import os
from pathlib import Path

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

_debug = os.environ.get("MS_GRAPH_BOUNDSCHECK") == "1"
DIRECTIVES = {
    "language_level": 3,
    "boundscheck": _debug,
    "wraparound": _debug,
    "cdivision": True,
    "initializedcheck": _debug,
}

extensions = [
    Extension(
        f"ms_graph.kernels.{pyx.stem}",
        [str(pyx)],
        include_dirs=[np.get_include()],
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
        extra_compile_args=["-O3", "-fopenmp"],
        extra_link_args=["-fopenmp"],
    )
    for pyx in sorted(Path("src/ms_graph/kernels").glob("_*.pyx"))
    if not os.environ.get("MS_GRAPH_ONLY")
    or pyx.stem in os.environ["MS_GRAPH_ONLY"].split(",")
]

setup(ext_modules=cythonize(extensions, compiler_directives=DIRECTIVES) if extensions else [])
