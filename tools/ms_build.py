"""The one build script of the packages with Cython kernels (ms-ops, ms-graph, ms-data).

Each of those packages has a three-line ``setup.py`` that calls
``cython_setup("ms_ops")``: every ``src/ms_ops/kernels/_*.pyx`` becomes an extension
module built with OpenMP, ``-O3`` and no debug information. Why a file found by path and
copied into each sdist, rather than a build requirement: docs/packaging.md.

``MS_OPS_BOUNDSCHECK=1`` (``MS_GRAPH_``, ``MS_DATA_``) turns bounds, wraparound and
initialization checks back on and keeps debug information; ``MS_OPS_ONLY=_conv,_pool``
builds only those modules (``python setup.py build_ext --inplace`` while working on one
kernel).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.sdist import sdist

HELPER = Path(__file__).resolve()
COMPILE_ARGS = ["-O3", "-fopenmp"]
LINK_ARGS = ["-fopenmp"]
# Python's own CFLAGS hold -g; -g0 after them wins, and -s drops the symbol table the
# loader does not need (ms-ops' _conv: 1.7 MB with them, about 0.3 MB without).
RELEASE_COMPILE_ARGS = ["-g0"]
RELEASE_LINK_ARGS = ["-s"]


def directives(debug: bool) -> dict:
    """Cython's compiler directives: the checks are off unless debugging."""
    return {"language_level": 3, "boundscheck": debug, "wraparound": debug,
            "cdivision": True, "initializedcheck": debug}


def extensions(package: str, debug: bool, only: list[str] | None = None,
               optional: bool = False) -> list[Extension]:
    """One extension per ``src/<package>/kernels/_*.pyx`` (relative to the project);
    ``optional``: one that fails to compile is left out (the package falls back)."""
    import numpy as np

    compile_args = COMPILE_ARGS + ([] if debug else RELEASE_COMPILE_ARGS)
    link_args = LINK_ARGS + ([] if debug else RELEASE_LINK_ARGS)
    return [
        Extension(
            f"{package}.kernels.{pyx.stem}",
            [pyx.as_posix()],
            include_dirs=[np.get_include()],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=compile_args,
            extra_link_args=link_args,
            optional=optional,
        )
        for pyx in sorted(Path("src", package, "kernels").glob("_*.pyx"))
        if not only or pyx.stem in only
    ]


class SdistWithHelper(sdist):
    """An sdist that carries this file beside ``setup.py``, so it builds alone."""

    def make_release_tree(self, base_dir, files):
        super().make_release_tree(base_dir, files)
        shutil.copyfile(HELPER, Path(base_dir) / HELPER.name)


def cython_setup(package: str, optional: bool = False) -> None:
    """``setup()`` for ``package`` (an import name) with its Cython kernels; ``optional``:
    kernels with a Python fallback, so a build without Cython or a compiler still installs."""
    try:
        from Cython.Build import cythonize
    except ImportError:
        if not optional:
            raise
        cythonize = None

    prefix = package.upper()
    debug = os.environ.get(f"{prefix}_BOUNDSCHECK") == "1"
    only = [m for m in os.environ.get(f"{prefix}_ONLY", "").split(",") if m]
    modules = extensions(package, debug, only, optional) if cythonize else []
    if modules:
        modules = cythonize(modules, compiler_directives=directives(debug))
        for m in modules:
            m.optional = optional  # cythonize's copies drop the flag
    setup(
        ext_modules=modules,
        cmdclass={"sdist": SdistWithHelper},
    )
