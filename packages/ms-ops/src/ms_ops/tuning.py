"""Process-wide tuning that helps the benchmarks, which microspore never applies: it is
your environment, set before Python starts, and ``settings()`` reports what is in force.

Malloc (``MALLOC``): every eager training step allocates and frees the same large
arrays. With glibc's defaults the freed top of the heap goes back to the kernel and the
next step faults those pages in again (LeNet5's PyNative step took 500-900 page faults).
glibc's own variables keep that memory for the next step, as a framework's caching
allocator would::

    export MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=67108864

OpenMP waiting (``OPENMP``): libgomp lets an idle worker spin for milliseconds after each
parallel region: as fast as anything on idle cores, but on a machine shared with other
busy processes the spinning threads hold cores the step needs (docs/benchmarks.md has the
measurements). libgomp reads these once, when it loads, and has no API for them::

    export OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=20000

>>> sorted(settings())
['malloc', 'openmp waiting']
"""

from __future__ import annotations

import os

__all__ = ["MALLOC", "OPENMP", "settings"]

MALLOC = {"MALLOC_MMAP_THRESHOLD_": "33554432", "MALLOC_TRIM_THRESHOLD_": "67108864"}
OPENMP = {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "20000"}


def settings() -> dict[str, str]:
    """What is in force, read from the environment: ``{name: value}`` for malloc and
    OpenMP waiting (``microspore info`` prints it)."""
    return {"malloc": _exported(MALLOC) or "glibc defaults",
            "openmp waiting": _exported(OPENMP) or "libgomp defaults"}


def _exported(names) -> str:
    return ", ".join(f"{k}={os.environ[k]}" for k in names if k in os.environ)
