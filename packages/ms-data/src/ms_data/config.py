"""Pipeline-wide settings: the seed, default worker count and prefetch depth (``ds.config``)."""

from __future__ import annotations

import os

import numpy as np

__all__ = [
    "set_seed", "get_seed", "set_num_parallel_workers", "get_num_parallel_workers",
    "set_prefetch_size", "get_prefetch_size",
]

# MindSpore's defaults: std::mt19937's default seed, up to 8 workers, 16 prefetched rows.
_DEFAULT_SEED = 5489
_seed = _DEFAULT_SEED
_seed_set = False
_num_parallel_workers = min(8, os.cpu_count() or 1)
_prefetch_size = 16


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
