"""Cython batch kernels of ms-data (built by ``setup.py`` with OpenMP).

``load(name)`` returns the compiled module, or ``None`` when the package was installed
without building them; callers then use the numpy reference, which gives the same numbers.
"""

from __future__ import annotations

import importlib
import os

from ms_tensor.context import get_context

#: Output elements below which a kernel runs on the calling thread: waking OpenMP threads
#: costs more than a small batch, and ``map`` workers already run batches side by side.
PARALLEL_MIN = 1 << 20
_CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()


def load(name: str):
    try:
        return importlib.import_module(f"ms_data.kernels.{name}")
    except ImportError:
        return None


def threads_for(elements: int) -> int:
    """OpenMP threads for a kernel writing ``elements`` values: 1 for small batches, else
    ``set_context(runtime_num_threads)`` (microspore's one thread policy) or every CPU."""
    if elements < PARALLEL_MIN:
        return 1
    return get_context("runtime_num_threads") or max(1, _CPUS or 1)
