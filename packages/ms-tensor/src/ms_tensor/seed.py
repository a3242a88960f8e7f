"""The global random seed (``set_seed``), shared by random operators and initializers."""

from __future__ import annotations

import numpy as np

__all__ = ["set_seed", "get_seed", "next_generator", "manual_seed", "initial_seed", "seed",
           "get_rng_state", "set_rng_state"]

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


def manual_seed(seed: int) -> None:
    """``ms.manual_seed``: the same as ``set_seed``."""
    set_seed(seed)


def initial_seed() -> int:
    """The seed set last (0 when none was)."""
    return _global_seed or 0


def seed() -> int:
    """Seed with a fresh random number from the operating system and return it."""
    value = int(np.random.SeedSequence().entropy % (2 ** 63))
    set_seed(value)
    return value


def get_rng_state():
    """The random state, ``[seed, generators drawn since]``, as an int64 tensor: with
    ``set_rng_state`` it replays the random numbers drawn after it was taken."""
    from ms_tensor.tensor import Tensor

    return Tensor(np.array([_global_seed if _global_seed is not None else -1, _counter],
                           np.int64))


def set_rng_state(state) -> None:
    """Restore a state from ``get_rng_state``."""
    global _global_seed, _counter
    values = np.asarray(state.asnumpy() if hasattr(state, "asnumpy") else state).ravel()
    if values.shape != (2,):
        raise ValueError(f"set_rng_state: expected the 2 values get_rng_state gives, got "
                         f"{values.tolist()}")
    _global_seed = None if values[0] < 0 else int(values[0])
    _counter = int(values[1])
