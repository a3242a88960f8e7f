"""Cython batch kernels of ms-data (built by ``setup.py`` with OpenMP).

``load(name)`` returns the compiled module, or ``None`` when the package was installed
without building them; callers then use the numpy reference, which gives the same numbers.
"""

from __future__ import annotations

import importlib


def load(name: str):
    try:
        return importlib.import_module(f"ms_data.kernels.{name}")
    except ImportError:
        return None
