"""Pipeline-wide settings: the seed, default worker count and prefetch depth (``ds.config``)."""

from __future__ import annotations

import os
import sys

import numpy as np

__all__ = [
    "set_seed", "get_seed", "set_num_parallel_workers", "get_num_parallel_workers",
    "set_prefetch_size", "get_prefetch_size", "set_multiprocessing_start_method",
    "get_multiprocessing_start_method",
]

# MindSpore's defaults: std::mt19937's default seed, up to 8 workers, 16 prefetched rows.
_DEFAULT_SEED = 5489
_seed = _DEFAULT_SEED
_seed_set = False
_num_parallel_workers = min(8, os.cpu_count() or 1)
_prefetch_size = 16
# MindSpore forks on Linux; elsewhere fork is unsafe (macOS) or missing (Windows).
_START_METHODS = ("fork", "spawn")
_start_method = "fork" if sys.platform.startswith("linux") else "spawn"


def _check_int(name: str, value, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name}: expected an int, got {type(value).__name__} {value!r}")
    if not low <= value <= high:
        raise ValueError(f"{name}: expected a value in [{low}, {high}], got {value}")
    return value


def set_seed(seed: int) -> None:
    """Seed every random choice of later iterators: shuffles, samplers, random transforms."""
    global _seed, _seed_set
    _seed = _check_int("set_seed", seed, 0, 2**32 - 1)
    _seed_set = True


def get_seed() -> int:
    return _seed


def pipeline_seed() -> int:
    """The seed for one new iterator: the user's seed, or fresh entropy if none was set.

    MindSpore shuffles differently in every run until ``set_seed`` is called, although
    ``get_seed`` reports its default meanwhile.
    """
    if _seed_set:
        return _seed
    return int(np.random.SeedSequence().entropy % 2**32)


def set_num_parallel_workers(num: int) -> None:
    """Default worker count for ``map``, ``batch`` and sources that do not give one."""
    global _num_parallel_workers
    _num_parallel_workers = _check_int("set_num_parallel_workers", num, 1, 1024)


def get_num_parallel_workers() -> int:
    return _num_parallel_workers


def set_prefetch_size(size: int) -> None:
    """How many row chunks the background thread of an iterator reads ahead."""
    global _prefetch_size
    _prefetch_size = _check_int("set_prefetch_size", size, 1, 2**31 - 1)


def get_prefetch_size() -> int:
    return _prefetch_size


def set_multiprocessing_start_method(start_method: str = "fork") -> None:
    """How worker processes start (``"fork"`` or ``"spawn"``), for sources, map and batch.

    ``"spawn"`` starts a fresh interpreter per worker (slower to start, nothing inherited)
    and needs operations that pickle; ``"fork"`` copies the parent and runs anything.
    """
    global _start_method
    if not isinstance(start_method, str):
        raise TypeError(f"set_multiprocessing_start_method: expected a str, got "
                        f"{type(start_method).__name__} {start_method!r}")
    if start_method not in _START_METHODS:
        raise ValueError(f"set_multiprocessing_start_method: expected one of {_START_METHODS}, "
                         f"got {start_method!r}")
    _start_method = start_method


def get_multiprocessing_start_method() -> str:
    return _start_method
