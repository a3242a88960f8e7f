"""The global random seed (``set_seed``), shared by random operators and initializers."""

from __future__ import annotations

import numpy as np

__all__ = ["set_seed", "get_seed", "next_generator"]

_global_seed: int | None = None
_counter = 0


def set_seed(seed: int) -> None:
    """Make every random operator and initializer created afterwards reproducible."""
    global _global_seed, _counter
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"set_seed: seed must be a non-negative int, got {seed!r}")
    _global_seed = seed
    _counter = 0


def get_seed() -> int | None:
    return _global_seed


def next_generator(seed: int = 0, seed2: int = 0) -> np.random.Generator:
    """A numpy Generator for one random operator or initializer.

    With the global seed set, the n-th generator created after ``set_seed`` is the same in
    every run; an explicit positive ``seed``/``seed2`` pins it regardless of creation order
    (zero or negative means "not set", as MindSpore's -1 default does).
    """
    global _counter
    seed, seed2 = max(seed, 0), max(seed2, 0)
    if seed or seed2:
        return np.random.default_rng([_global_seed or 0, seed, seed2])
    if _global_seed is None:
        return np.random.default_rng()
    _counter += 1
    return np.random.default_rng([_global_seed, _counter])
