"""glibc malloc settings for eager execution: freed arrays stay in the process.

Every eager training step allocates and frees the same large arrays (activations,
gradients, kernel scratch). With glibc's defaults the freed top of the heap goes back to
the kernel (trim) and the next step faults those pages in again: LeNet5's PyNative step
took 500-900 page faults, most in ReluGrad and Conv2DBackpropFilter, and ran about 1.3x
slower for it. Fixed, higher mmap and trim thresholds keep the memory in the heap for the
next step, the job a framework's own memory pool does (MindSpore's, PyTorch's caching
allocators); the peak footprint stays what the step needs.

A threshold the user set through glibc's own variables (``MALLOC_TRIM_THRESHOLD_``,
``MALLOC_MMAP_THRESHOLD_``) wins, and ``MS_OPS_MALLOC_TUNING=0`` leaves malloc alone.
"""

from __future__ import annotations

import os

__all__ = ["keep_freed_memory"]

_M_TRIM_THRESHOLD = -1  # mallopt parameters, from glibc's malloc.h
_M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # glibc's largest; blocks below it come from the heap
TRIM_THRESHOLD = 64 << 20  # free heap top kept before any is returned
_done = False


def keep_freed_memory() -> bool:
    """Raise glibc's mmap and trim thresholds once per process; True if they were set."""
    global _done
    if _done:
        return False
    _done = True
    if os.environ.get("MS_OPS_MALLOC_TUNING", "1") == "0":
        return False
    try:
        if not os.confstr("CS_GNU_LIBC_VERSION"):
            return False
    except (ValueError, OSError):  # not glibc (macOS, musl, Windows)
        return False
    import ctypes

    mallopt = ctypes.CDLL(None).mallopt
    done = False
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        done = bool(mallopt(_M_MMAP_THRESHOLD, MMAP_THRESHOLD))
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ:
        done = bool(mallopt(_M_TRIM_THRESHOLD, TRIM_THRESHOLD)) or done
    return done
