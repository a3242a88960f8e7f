"""Samplers: which source rows an epoch reads, in which order (MindSpore's sampler classes).

A sampler maps a source length to an index array: ``indices(length, ctx)``. Random ones draw
from ``ctx.rng("sampler", ...)``, so every epoch (``ctx.epoch``) gets a new, reproducible order.
"""

from __future__ import annotations

import math

import numpy as np

from ms_data import config

__all__ = [
    "Sampler", "SequentialSampler", "RandomSampler", "DistributedSampler",
    "SubsetRandomSampler", "SubsetSampler", "WeightedRandomSampler", "IterableSampler",
]


def _check_num_samples(name, num_samples):
    if num_samples is None:
        return None
    if not isinstance(num_samples, (int, np.integer)) or isinstance(num_samples, bool) \
            or num_samples < 0:
        raise ValueError(f"{name}: num_samples must be a non-negative int, got {num_samples!r}")
    return int(num_samples) or None  # MindSpore reads 0 as "all rows"


def _limit(n: int, num_samples: int | None) -> int:
    return n if num_samples is None else min(n, num_samples)


class Sampler:
    """Base class: ``indices(length, ctx)`` and ``get_num_samples(length)``."""

    num_samples: int | None = None

    def indices(self, length: int, ctx) -> np.ndarray:
        raise NotImplementedError

    def get_num_samples(self, length: int) -> int:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Rows ``start_index, start_index + 1, ...`` in order."""

    def __init__(self, start_index=None, num_samples=None):
        if start_index is not None and (not isinstance(start_index, int) or start_index < 0):
            raise ValueError(f"SequentialSampler: start_index must be a non-negative int, "
                             f"got {start_index!r}")
        self.start_index = start_index or 0
        self.num_samples = _check_num_samples("SequentialSampler", num_samples)

    def get_num_samples(self, length: int) -> int:
        return _limit(max(length - self.start_index, 0), self.num_samples)

    def indices(self, length: int, ctx) -> np.ndarray:
        return np.arange(self.start_index, self.start_index + self.get_num_samples(length),
                         dtype=np.int64)


class RandomSampler(Sampler):
    """A random permutation of the rows (or draws with replacement), new every epoch."""

    def __init__(self, replacement=False, num_samples=None):
        if not isinstance(replacement, bool):
            raise TypeError(f"RandomSampler: replacement must be a bool, got {replacement!r}")
        self.replacement = replacement
        self.num_samples = _check_num_samples("RandomSampler", num_samples)

    def get_num_samples(self, length: int) -> int:
        if self.replacement and self.num_samples is not None:
            return self.num_samples
        return _limit(length, self.num_samples)

    def indices(self, length: int, ctx) -> np.ndarray:
        rng = ctx.rng("sampler", "random")
        n = self.get_num_samples(length)
        if self.replacement:
            return rng.integers(0, length, n, dtype=np.int64) if length else \
                np.empty(0, np.int64)
        return rng.permutation(length).astype(np.int64)[:n]


class DistributedSampler(Sampler):
    """Shard ``shard_id`` of ``num_shards``: rows ``shard_id, shard_id + num_shards, ...``.

    Every shard gets ``ceil(length / num_shards)`` rows, wrapping around to the first rows, so
    that all ranks run the same number of steps. With ``shuffle`` the rows are permuted first,
    with the same permutation on every shard (it depends on the seed and the epoch only).
    """

    def __init__(self, num_shards, shard_id, shuffle=True, num_samples=None, offset=-1):
        if not isinstance(num_shards, int) or num_shards < 1:
            raise ValueError(f"DistributedSampler: num_shards must be a positive int, "
                             f"got {num_shards!r}")
        if not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
            raise ValueError(f"DistributedSampler: shard_id must be in [0, {num_shards - 1}], "
                             f"got {shard_id!r}")
        self.num_shards = num_shards
        self.shard_id = shard_id
        self.shuffle = bool(shuffle)
        self.offset = offset
        self.num_samples = _check_num_samples("DistributedSampler", num_samples)

    def get_num_samples(self, length: int) -> int:
        return _limit(math.ceil(length / self.num_shards), self.num_samples) if length else 0

    def indices(self, length: int, ctx) -> np.ndarray:
        n = self.get_num_samples(length)
        if n == 0:
            return np.empty(0, np.int64)
        shift = self.offset if self.offset >= 0 else 0
        ids = (np.arange(n, dtype=np.int64) * self.num_shards + self.shard_id + shift) % length
        if self.shuffle:
            # Every rank must draw the same permutation, or shards overlap: seed it with
            # ds.config's seed (its default when unset) and the epoch, never fresh entropy.
            perm = np.random.default_rng([config.get_seed() & 0xFFFFFFFF, ctx.epoch & 0xFFFFFFFF])
            ids = perm.permutation(length).astype(np.int64)[ids]
        return ids


class SubsetSampler(Sampler):
    """Exactly the rows ``indices``, in that order."""

    def __init__(self, indices, num_samples=None):
        self._indices = _check_indices(type(self).__name__, indices)
        self.num_samples = _check_num_samples(type(self).__name__, num_samples)

    def get_num_samples(self, length: int) -> int:
        return _limit(len(self._indices), self.num_samples)

    def _checked(self, length: int) -> np.ndarray:
        ids = self._indices[:self.get_num_samples(length)]
        bad = ids[(ids >= length) | (ids < -length)]
        if len(bad):
            raise IndexError(f"{type(self).__name__}: index {int(bad[0])} out of range for a "
                             f"dataset of {length} rows")
        return ids % length if length else ids

    def indices(self, length: int, ctx) -> np.ndarray:
        return self._checked(length)


class SubsetRandomSampler(SubsetSampler):
    """The rows ``indices`` in a random order, new every epoch."""

    def indices(self, length: int, ctx) -> np.ndarray:
        ids = self._indices
        ids = ids[ctx.rng("sampler", "subset_random").permutation(len(ids))]
        n = self.get_num_samples(length)
        out = ids[:n]
        bad = out[(out >= length) | (out < -length)]
        if len(bad):
            raise IndexError(f"SubsetRandomSampler: index {int(bad[0])} out of range for a "
                             f"dataset of {length} rows")
        return out % length if length else out


class WeightedRandomSampler(Sampler):
    """``num_samples`` rows drawn with probabilities proportional to ``weights``."""

    def __init__(self, weights, num_samples=None, replacement=True):
        w = np.asarray(weights, dtype=np.float64)
        if w.ndim != 1 or len(w) == 0 or (w < 0).any() or w.sum() <= 0:
            raise ValueError(f"WeightedRandomSampler: weights must be a non-empty list of "
                             f"non-negative numbers with a positive sum, got {weights!r}")
        self.weights = w
        self.replacement = bool(replacement)
        self.num_samples = _check_num_samples("WeightedRandomSampler", num_samples)

    def get_num_samples(self, length: int) -> int:
        return _limit(len(self.weights), self.num_samples)

    def indices(self, length: int, ctx) -> np.ndarray:
        n = self.get_num_samples(length)
        p = self.weights / self.weights.sum()
        rng = ctx.rng("sampler", "weighted")
        return rng.choice(len(p), size=n, replace=self.replacement, p=p).astype(np.int64)


class IterableSampler(Sampler):
    """A user sampler: any object whose ``__iter__`` yields row indices (re-read each epoch)."""

    def __init__(self, source):
        self.source = source

    def get_num_samples(self, length: int) -> int:
        try:
            return len(self.source)
        except TypeError:
            return len(self.indices(length, None))

    def indices(self, length: int, ctx) -> np.ndarray:
        return np.fromiter((int(i) for i in self.source), dtype=np.int64)


def _check_indices(name, indices) -> np.ndarray:
    ids = np.asarray(indices)
    if ids.ndim != 1 or (len(ids) and ids.dtype.kind not in "iu"):
        raise TypeError(f"{name}: indices must be a 1-D sequence of ints, got {indices!r}")
    return ids.astype(np.int64)
