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

``openmp_passive_wait()``: OpenMP threads sleep after a short spin. libgomp reads
``OMP_WAIT_POLICY`` and ``GOMP_SPINCOUNT`` once, from the environment, when it loads, and
has no API for them. Its default lets an idle worker spin for milliseconds after each
parallel region: as fast as anything on idle cores, but on a machine shared with other
busy processes the spinning threads hold cores the step needs (docs/benchmarks.md has
the measurements). Export
``OMP_WAIT_POLICY=PASSIVE GOMP_SPINCOUNT=20000`` before Python starts, or call this before
the first operator runs: it loads libgomp with those two values in the C environment and
removes them again at once, so ``os.environ`` and every subprocess see the environment as
it was. A value the user exported wins.

``settings()`` reports both (``microspore info`` prints it).
"""

from __future__ import annotations

import os

__all__ = ["keep_freed_memory", "openmp_passive_wait", "settings"]

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


PASSIVE_WAIT = {"OMP_WAIT_POLICY": "PASSIVE", "GOMP_SPINCOUNT": "20000"}


def openmp_passive_wait() -> bool:
    """Load libgomp with passive waiting after a short spin (see the module's docstring);
    True if applied, False where there is no libgomp. Raises RuntimeError once libgomp is
    loaded (the first kernel loads it): it reads these values only then."""
    import ctypes

    from ms_ops.kernels.threads import openmp_runtime

    if openmp_runtime() is not None:
        if not _applied.get("openmp"):
            raise RuntimeError("openmp_passive_wait: libgomp is already loaded (an operator "
                               "ran); call it first, or export OMP_WAIT_POLICY=PASSIVE "
                               "GOMP_SPINCOUNT=20000 before starting Python")
        return True
    libc = ctypes.CDLL(None)
    ours = [k for k in PASSIVE_WAIT if k not in os.environ]
    try:
        for k in ours:
            libc.setenv(k.encode(), PASSIVE_WAIT[k].encode(), 0)
        ctypes.CDLL("libgomp.so.1", mode=os.RTLD_GLOBAL)
    except OSError:
        return False
    finally:
        for k in ours:
            libc.unsetenv(k.encode())
    _applied["openmp"] = {k: os.environ.get(k, PASSIVE_WAIT[k]) for k in PASSIVE_WAIT}
    return True


def settings() -> dict[str, str]:
    """What is in force: ``{name: value}`` for malloc and OpenMP waiting."""
    env = os.environ
    if "mmap_threshold" in _applied:
        malloc = (f"keep_freed_memory() (mmap threshold {_applied['mmap_threshold'] >> 20} "
                  f"MiB, trim threshold {_applied['trim_threshold'] >> 20} MiB)")
    elif "MALLOC_MMAP_THRESHOLD_" in env or "MALLOC_TRIM_THRESHOLD_" in env:
        malloc = (f"from the environment (MALLOC_MMAP_THRESHOLD_="
                  f"{env.get('MALLOC_MMAP_THRESHOLD_', 'unset')}, MALLOC_TRIM_THRESHOLD_="
                  f"{env.get('MALLOC_TRIM_THRESHOLD_', 'unset')})")
    else:
        malloc = "glibc defaults"
    if _applied.get("openmp"):
        wait = "openmp_passive_wait() (" + ", ".join(
            f"{k}={v}" for k, v in _applied["openmp"].items()) + ")"
    else:
        wait = ", ".join(f"{k}={env[k]}" for k in PASSIVE_WAIT if k in env)
    return {"malloc": malloc, "openmp waiting": wait or "libgomp defaults"}
