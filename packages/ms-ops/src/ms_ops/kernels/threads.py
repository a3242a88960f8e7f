"""One thread policy for every CPU kernel family: ms-ops' OpenMP kernels, MKL's matrix
products and ms-graph's fused kernels all take their count from here.

The count is ``set_context(runtime_num_threads=N)``. Unset (``None`` or ``0``), it is
``OMP_NUM_THREADS`` where the user exported it (read, never written), else the CPUs this
process may run on. Nothing is written to the environment: every parallel region passes
its count explicitly (``num_threads`` clauses), and MKL is told through its API
(``mkl_set_num_threads``).

Memory-bound kernels (optimizer updates, pooling) use ``kernel_threads()``: the same count
where MKL does the matrix products (its threads are the same libgomp team, so nothing
else spins on the other cores), but one thread beside numpy's OpenBLAS unless the user
set ``runtime_num_threads``: OpenBLAS's workers keep spinning after every product, and a
second OpenMP thread fights them (right after a product, two threads of MaxPool are
slower than one). docs/benchmarks.md has the measurements.

An embedding runtime scopes a count of its own to its calls with ``scoped(n)`` (ms-lite's
``Context.cpu.thread_num``): it holds for the calling thread only, is returned to what it
was when the runtime's call ends, and MKL follows it through its thread-local setting
(``mkl_set_num_threads_local``); ``set_context`` and other threads never see it.

Fork: libgomp's thread pool does not survive ``fork()`` (the child inherits a pool whose
threads do not exist, and its first parallel region waits for them forever). A handler
registered with ``os.register_at_fork`` releases the forking thread's pool just before
the fork (``omp_pause_resource_all``, OpenMP 5.0), so parent and child each start a fresh
one at their next parallel region. Where that is not available the child runs its
kernels, MKL's included, on one thread (PyTorch's rule for forked children), whatever
``runtime_num_threads`` says.
"""

from __future__ import annotations

import ctypes
import functools
import os
import threading

from ms_tensor.context import get_context, on_change

__all__ = ["num_threads", "kernel_threads", "scoped", "openmp_runtime", "describe"]

_state = {"forked_unsafe": False}
_local = threading.local()  # ``scoped``'s count for the calling thread (0: none)


@functools.cache
def _default_threads() -> int:
    chosen = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    if chosen.isdigit() and int(chosen) > 0:
        return int(chosen)
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


def num_threads() -> int:
    """The thread count of a large parallel kernel (and of MKL)."""
    if _state["forked_unsafe"]:
        return 1
    return getattr(_local, "n", 0) or get_context("runtime_num_threads") or _default_threads()


def kernel_threads() -> int:
    """The thread count of a large memory-bound kernel (see the module's docstring)."""
    if getattr(_local, "n", 0) or get_context("runtime_num_threads") or _blas_is_mkl():
        return num_threads()
    return 1


def scoped(n: int) -> int:
    """Make ``n`` (0: none) this thread's count, over ``set_context``'s; returns the count
    it replaces, to be given back with ``scoped(previous)`` when the caller's work ends.

    >>> previous = scoped(1)
    >>> num_threads(), scoped(previous)
    (1, 1)
    """
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise ValueError(f"scoped: a thread count must be an int >= 0, got {n!r}")
    previous = getattr(_local, "n", 0)
    _local.n = n
    from ms_ops import blas

    blas.set_local_num_threads(n)
    return previous


def _blas_is_mkl() -> bool:
    mkl = _state.get("mkl")
    if mkl is None:  # decided once: the BLAS is chosen when it first loads
        from ms_ops import blas

        mkl = _state["mkl"] = blas.backend().startswith("mkl")
    return mkl


def openmp_runtime():
    """The libgomp that ms-ops' kernels run on, if it is loaded (None before the first
    kernel module is imported: nothing here loads it)."""
    try:
        return ctypes.CDLL("libgomp.so.1", mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
    except (OSError, AttributeError):
        return None


def _release_pool() -> None:
    """Before a fork: end this thread's OpenMP workers, so no child inherits them."""
    gomp = openmp_runtime()
    _state["gomp_loaded"] = gomp is not None  # the child must not dlopen to find out
    if gomp is None:
        return
    pause = getattr(gomp, "omp_pause_resource_all", None)
    # omp_pause_hard = 2: threads are ended and the pool freed (soft keeps them).
    _state["paused"] = pause is not None and pause(2) == 0


def _after_fork_in_child() -> None:
    if _state.get("gomp_loaded") and not _state.get("paused", False):
        _state["forked_unsafe"] = True
        from ms_ops import blas

        blas.set_num_threads(1)


def _threads_changed(value) -> None:
    from ms_ops import blas

    blas.set_num_threads(num_threads())


def describe() -> str:
    """One line for ``microspore info``: the count and where it comes from."""
    n = get_context("runtime_num_threads")
    source = ("set_context(runtime_num_threads)" if n else
              "OMP_NUM_THREADS" if _default_threads() != _affinity() else
              "CPUs available to this process")
    if _state["forked_unsafe"]:
        source = "a forked child of a process whose OpenMP pool could not be released"
    return f"{num_threads()} ({source}); memory-bound kernels: {kernel_threads()}"


def _affinity() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0)) or 1
    return os.cpu_count() or 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_release_pool, after_in_child=_after_fork_in_child)
on_change("runtime_num_threads", _threads_changed)
