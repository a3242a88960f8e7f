"""How many OpenMP threads ms-ops' memory-bound kernels (optimizer updates, pooling) use.

``MS_OPS_NUM_THREADS`` when set. Otherwise all of OpenMP's threads when matrix products go
through MKL (``ms_ops.blas``): MKL then runs on the same libgomp team, so nothing else
spins on the other cores, and a Momentum update of an MLP's 670k parameters takes 170 us
on 2 threads instead of 317 on one. With numpy's OpenBLAS doing the products, one thread:
its workers keep spinning for a while after every GEMM, and a second OpenMP thread fights
them (2 cores, MaxPool of 1M floats: 1.1 ms on one thread; on two, 0.6 ms in a process
without GEMMs but 9.8 ms right after one).
"""

from __future__ import annotations

import functools
import os

__all__ = ["kernel_threads"]


@functools.cache
def kernel_threads() -> int:
    """The thread count for a large kernel (decided once per process)."""
    chosen = os.environ.get("MS_OPS_NUM_THREADS")
    if chosen:
        return max(1, int(chosen))
    from ms_ops import blas

    if not blas.backend().startswith("mkl"):
        return 1
    return max(1, int(os.environ.get("OMP_NUM_THREADS", "0") or 0) or os.cpu_count() or 1)
