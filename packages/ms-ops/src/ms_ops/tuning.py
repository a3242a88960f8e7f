"""Process-wide tuning that microspore never applies by itself: call it, or export it.

``keep_freed_memory()``: glibc malloc keeps freed memory in the heap for the next step.
Every eager training step allocates and frees the same large arrays (activations,
gradients, kernel scratch). With glibc's defaults the freed top of the heap goes back to
the kernel (trim) and the next step faults those pages in again: LeNet5's PyNative step
took 500-900 page faults, most in ReluGrad and Conv2DBackpropFilter, and ran up to 1.3x
slower for it. Fixed, higher mmap and trim thresholds keep the memory for the next step,
the job a framework's own memory pool does (MindSpore's, PyTorch's caching allocators);
the peak footprint stays what the step needs. It changes malloc for the whole process,
so it is the program's decision: ``ms_ops.tuning.keep_freed_memory()`` once at start, or
glibc's own ``MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=67108864``.

OpenMP waiting: libgomp reads ``OMP_WAIT_POLICY`` and ``GOMP_SPINCOUNT`` once, from the
environment, when it loads, and has no API for them. Its default lets an idle worker
spin for a few milliseconds after each parallel region, which is fastest when the cores
are otherwise idle; on a machine shared with other busy processes,
``OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=20000`` (exported before Python starts) makes
waiting threads sleep after a short spin instead of holding a core.

``settings()`` reports both (``microspore info`` prints it).
"""

from __future__ import annotations

import os

__all__ = ["keep_freed_memory", "settings"]

_M_TRIM_THRESHOLD = -1  # mallopt parameters, from glibc's malloc.h
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # glibc's largest; blocks below it come from the heap
TRIM_THRESHOLD = 64 << 20  # free heap top kept before any is returned
_applied: dict = {}


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds for this process (see the module's
    docstring); True if they were set, False where malloc is not glibc's."""
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
    except (ValueError, OSError):  # not glibc (macOS, musl, Windows)
        return False
    import ctypes

    mallopt = ctypes.CDLL(None).mallopt
    ok = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    ok = bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)) and ok
    if ok:
        _applied.update(mmap_threshold=MMAP_THRESHOLD, trim_threshold=TRIM_THRESHOLD)
    return ok


def settings() -> dict[str, str]:
    """What is in force: ``{name: value}`` for malloc and OpenMP waiting."""
    env = os.environ
    if _applied:
        malloc = (f"keep_freed_memory() (mmap threshold {_applied['mmap_threshold'] >> 20} "
                  f"MiB, trim threshold {_applied['trim_threshold'] >> 20} MiB)")
    elif "MALLOC_MMAP_THRESHOLD_" in env or "MALLOC_TRIM_THRESHOLD_" in env:
        malloc = (f"from the environment (MALLOC_MMAP_THRESHOLD_="
                  f"{env.get('MALLOC_MMAP_THRESHOLD_', 'unset')}, MALLOC_TRIM_THRESHOLD_="
                  f"{env.get('MALLOC_TRIM_THRESHOLD_', 'unset')})")
    else:
        malloc = "glibc defaults"
    wait = ", ".join(f"{k}={env[k]}" for k in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT") if k in env)
    return {"malloc": malloc, "openmp waiting": wait or "libgomp defaults"}
