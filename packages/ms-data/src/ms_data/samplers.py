"""Samplers: which source rows an epoch reads, in which order (MindSpore's sampler classes).

A sampler maps a source length to an index array: ``indices(length, ctx)``. Random ones draw
from ``ctx.rng("sampler", ...)``, so every epoch (``ctx.epoch``) gets a new, reproducible order.
Sources read ``sampler.ids(length, ctx)``, which applies a child sampler (``add_child``)
first: the parent then picks among the child's rows, as MindSpore chains them.
"""

from __future__ import annotations

import math

import numpy as np

from ms_data import config
from ms_data._recorded import Recorded

__all__ = [
    "BuiltinSampler", "Sampler", "IterSampler", "PKSampler", "SequentialSampler",
    "RandomSampler", "DistributedSampler", "SubsetRandomSampler", "SubsetSampler",
    "WeightedRandomSampler",
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


class BuiltinSampler(Recorded):
    """Base of all samplers: ``indices(length, ctx)``, ``get_num_samples(length)``, a child."""

    num_samples: int | None = None
    child_sampler: BuiltinSampler | None = None

    def indices(self, length: int, ctx) -> np.ndarray:
        raise NotImplementedError

    def get_num_samples(self, length: int) -> int:
        raise NotImplementedError

    def add_child(self, sampler) -> None:
        """Sample from what ``sampler`` picks instead of from the whole dataset."""
        if not isinstance(sampler, BuiltinSampler):
            raise TypeError(f"add_child: expected a sampler, got {type(sampler).__name__}")
        if self.child_sampler is not None:
            raise RuntimeError("Cannot add child sampler, this sampler already has a child "
                               "sampler.")
        self.child_sampler = sampler

    def get_child(self):
        return self.child_sampler

    def ids(self, length: int, ctx) -> np.ndarray:
        """The rows of one epoch, through the child sampler when there is one."""
        if self.child_sampler is None:
            return self.indices(length, ctx)
        picked = self.child_sampler.ids(length, ctx)
        return picked[self.indices(len(picked), ctx)]

    def count(self, length: int) -> int:
        if self.child_sampler is not None:
            length = self.child_sampler.count(length)
        return self.get_num_samples(length)

    def needs_labels(self) -> str | None:
        """The label column this sampler reads (PKSampler), else None."""
        return None


class Sampler(BuiltinSampler):
    """Base of user samplers: override ``__iter__`` to yield row indices; it may read
    ``self.dataset_size`` (set before every epoch) and ``self.num_samples``."""

    def __init__(self, num_samples=None):
        self.num_samples = _check_num_samples(type(self).__name__, num_samples)
        self.dataset_size = 0

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__}: a Sampler subclass must define "
                                  f"__iter__ yielding row indices")

    def indices(self, length: int, ctx) -> np.ndarray:
        self.dataset_size = length
        ids = np.fromiter((int(i) for i in self), dtype=np.int64)
        return ids[:self.num_samples] if self.num_samples is not None else ids

    def get_num_samples(self, length: int) -> int:
        return len(self.indices(length, None))


class SequentialSampler(BuiltinSampler):
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


class RandomSampler(BuiltinSampler):
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


class DistributedSampler(BuiltinSampler):
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


class SubsetSampler(BuiltinSampler):
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


class WeightedRandomSampler(BuiltinSampler):
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


class IterSampler(Sampler):
    """Any object whose ``__iter__`` yields row indices (re-read each epoch), as a sampler."""

    def __init__(self, sampler, num_samples=None):
        super().__init__(num_samples)
        if not hasattr(sampler, "__iter__"):
            raise TypeError(f"IterSampler: sampler must be iterable, got "
                            f"{type(sampler).__name__}")
        self.sampler = sampler

    def __iter__(self):
        return iter(self.sampler)

    def get_num_samples(self, length: int) -> int:
        try:
            n = len(self.sampler)
        except TypeError:
            return len(self.indices(length, None))
        return _limit(n, self.num_samples)


IterableSampler = IterSampler  # the name select_sampler used before MindSpore's


class PKSampler(BuiltinSampler):
    """``num_val`` rows of every class (P classes, K rows each: metric learning batches).

    The rows of a class are drawn uniformly with replacement; the classes come in sorted
    order, or shuffled every epoch with ``shuffle``. Only sources that know their labels
    without decoding rows take it (ImageFolderDataset, ManifestDataset), as in MindSpore.
    """

    def __init__(self, num_val, num_class=None, shuffle=False, class_column="label",
                 num_samples=None):
        if not isinstance(num_val, int) or isinstance(num_val, bool):
            raise TypeError(f"num_val must be integer but was: {num_val}.")
        if num_val < 0:
            raise ValueError(f"PKSampler: num_val must be non-negative, got {num_val}")
        if num_class is not None:
            raise NotImplementedError("Not supported to specify num_class for PKSampler.")
        if not isinstance(shuffle, bool):
            raise TypeError(f"shuffle must be a bool value but was: {shuffle}.")
        if not isinstance(class_column, str):
            raise TypeError(f"class_column must be a str value but was: {class_column}.")
        self.num_val, self.shuffle, self.class_column = num_val, shuffle, class_column
        self.num_samples = _check_num_samples("PKSampler", num_samples)
        self.labels: np.ndarray | None = None  # set by the source before sampling

    def needs_labels(self) -> str:
        return self.class_column

    def _classes(self) -> np.ndarray:
        if self.labels is None:
            raise RuntimeError("PKSampler: the source did not give its labels")
        return np.unique(self.labels)

    def get_num_samples(self, length: int) -> int:
        return _limit(self.num_val * len(self._classes()), self.num_samples)

    def indices(self, length: int, ctx) -> np.ndarray:
        classes = self._classes()
        rng = ctx.rng("sampler", "pk") if ctx is not None else np.random.default_rng(0)
        if self.shuffle:
            classes = rng.permutation(classes)
        out = []
        for c in classes:
            members = np.flatnonzero(self.labels == c)
            out.append(members[rng.integers(0, len(members), self.num_val)])
        ids = np.concatenate(out).astype(np.int64) if out else np.empty(0, np.int64)
        return ids[:self.get_num_samples(length)]


def _check_indices(name, indices) -> np.ndarray:
    ids = np.asarray(indices)
    if ids.ndim != 1 or (len(ids) and ids.dtype.kind not in "iu"):
        raise TypeError(f"{name}: indices must be a 1-D sequence of ints, got {indices!r}")
    return ids.astype(np.int64)
