"""``mindspore.runtime`` on the CPU: synchronization and device-memory queries.

microspore's CPU kernels finish before they return and keep no device memory pool (a
tensor's data is a numpy array from the host allocator), so ``synchronize`` has nothing
to wait for and the memory counters read 0, as MindSpore's do on its CPU backend. The
functions exist so that scripts written for a device run unchanged on the CPU.

>>> import ms_tensor.runtime as runtime
>>> runtime.synchronize(), runtime.memory_allocated()
(None, 0)
"""

from __future__ import annotations

__all__ = ["synchronize", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "memory_stats", "memory_summary", "reset_peak_memory_stats",
           "reset_max_memory_allocated", "reset_max_memory_reserved", "empty_cache"]

# MindSpore's memory_stats keys; every one is 0 without a device memory pool.
_STAT_KEYS = ("total_reserved_memory", "total_allocated_memory", "total_idle_memory",
              "total_eager_free_memory", "max_reserved_memory", "max_allocated_memory")


def synchronize() -> None:
    """Wait for the device's queued work: CPU kernels are done when they return."""


def memory_stats() -> dict:
    """The device memory pool's counters (bytes): all 0 on the CPU, which has no pool."""
    return dict.fromkeys(_STAT_KEYS, 0)


def memory_allocated() -> int:
    """Bytes the device memory pool has handed out: 0 on the CPU."""
    return memory_stats()["total_allocated_memory"]


def max_memory_allocated() -> int:
    """The peak of ``memory_allocated``: 0 on the CPU."""
    return memory_stats()["max_allocated_memory"]


def memory_reserved() -> int:
    """Bytes the device memory pool holds: 0 on the CPU."""
    return memory_stats()["total_reserved_memory"]


def max_memory_reserved() -> int:
    """The peak of ``memory_reserved``: 0 on the CPU."""
    return memory_stats()["max_reserved_memory"]


def memory_summary() -> str:
    """The counters of ``memory_stats`` as a table."""
    rows = [f"{key:<26}{value:>12}" for key, value in memory_stats().items()]
    return "\n".join(["device memory (bytes): the CPU backend has no memory pool", *rows])


def reset_peak_memory_stats() -> None:
    """Restart the peaks; there are none to restart on the CPU."""


def reset_max_memory_allocated() -> None:
    """Restart ``max_memory_allocated``'s peak; none on the CPU."""


def reset_max_memory_reserved() -> None:
    """Restart ``max_memory_reserved``'s peak; none on the CPU."""


def empty_cache() -> None:
    """Give the pool's idle memory back; the CPU keeps none."""
