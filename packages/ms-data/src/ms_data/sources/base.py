"""``MappableSource``: a source with random access, read through a sampler in row chunks."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from ms_data import samplers as S
from ms_data.bases import MappableDataset
from ms_data.dataset import EpochContext
from ms_data.workers import RAMP_CAP, ordered_map, ramp

__all__ = ["MappableSource", "select_sampler", "CHUNK_ROWS"]

# Rows per RecordBatch read from a source, at most: large enough that vectorized transforms
# amortize their per-call cost. The first chunks are smaller (``ms_data.workers.ramp``).
CHUNK_ROWS = RAMP_CAP


def select_sampler(num_samples, shuffle, sampler, num_shards, shard_id) -> S.BuiltinSampler:
    """Turn MindSpore's source options into one sampler, rejecting contradictory ones."""
    if num_shards is not None and shard_id is None:
        raise RuntimeError("num_shards is specified and currently requires shard_id as well")
    if shard_id is not None and num_shards is None:
        raise RuntimeError("shard_id is specified but num_shards is not")
    if num_shards is not None:
        if not isinstance(num_shards, int) or num_shards < 1:
            raise ValueError(f"num_shards must be a positive int, got {num_shards!r}")
        if not isinstance(shard_id, int) or not 0 <= shard_id < num_shards:
            raise ValueError(f"Input shard_id is not within the required interval of "
                             f"[0, {num_shards - 1}], got {shard_id!r}")
    if shuffle is not None and not isinstance(shuffle, bool):
        raise TypeError(f"shuffle must be a bool, got {shuffle!r}")
    if sampler is not None:
        if shuffle is not None:
            raise RuntimeError("sampler and shuffle cannot be specified at the same time")
        if num_shards is not None:
            raise RuntimeError("sampler and sharding cannot be specified at the same time")
        if num_samples is not None:
            raise ValueError(f"Conflicting arguments during sampler assignments: num_samples "
                             f"{num_samples} with a sampler; give num_samples to the sampler")
        if isinstance(sampler, S.BuiltinSampler):
            return sampler
        if isinstance(sampler, (list, tuple, np.ndarray)):
            return S.SubsetSampler(sampler)
        if hasattr(sampler, "__iter__"):
            return S.IterSampler(sampler)
        raise TypeError(f"sampler must be a Sampler, a list of indices or an iterable, "
                        f"got {type(sampler).__name__}")
    if num_shards is not None:
        return S.DistributedSampler(num_shards, shard_id, shuffle=shuffle is not False,
                                    num_samples=num_samples)
    if shuffle is False:
        return S.SequentialSampler(num_samples=num_samples)
    return S.RandomSampler(num_samples=num_samples)


class MappableSource(MappableDataset):
    """A leaf with random access. Subclasses implement ``_length``, ``_read``, ``_column_names``.

    ``_read(indices)`` returns those rows, in that order, as a RecordBatch (built with
    ``ms_data.arrow.batch_from_numpy``). With ``num_parallel_workers > 1`` chunks are read on
    a thread pool (set ``_read_kind = "process"`` for sources whose reads hold the GIL).
    """

    _read_kind = "thread"

    def __init__(self, num_samples=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None, num_parallel_workers=None, cache=None):
        super().__init__((), num_parallel_workers)
        self.sampler = select_sampler(num_samples, shuffle, sampler, num_shards, shard_id)
        from ms_data.ops.map import _check_cache

        self.cache = _check_cache(cache)

    def _length(self) -> int:
        raise NotImplementedError

    def _read(self, indices: np.ndarray) -> pa.RecordBatch:
        raise NotImplementedError

    def _sample_labels(self, column: str) -> np.ndarray:
        """Every row's label in ``column``, for a PKSampler; sources that can override."""
        raise ValueError(f"{type(self).__name__} doesn't support PKSampler.")

    def _prepared(self):
        """The sampler, with the labels it needs (PKSampler) attached."""
        sampler = self.sampler
        while sampler is not None:
            column = sampler.needs_labels()
            if column is not None:
                sampler.labels = np.asarray(self._sample_labels(column))
            sampler = sampler.child_sampler
        return self.sampler

    def _num_rows(self) -> int:
        return self._prepared().count(self._length())

    def _index_chunks(self, ctx: EpochContext) -> list[np.ndarray]:
        ids = self._prepared().ids(self._length(), ctx)
        bounds = np.cumsum([0, *ramp(0, len(ids), CHUNK_ROWS)])
        return [ids[a:b] for a, b in zip(bounds[:-1], bounds[1:])]

    def _open(self, ctx: EpochContext) -> None:
        if self._read_kind == "process":
            ctx.pool(self, "process", self._workers(), self._read)

    def _batches(self, ctx: EpochContext) -> Iterator[pa.RecordBatch]:
        if self.cache is not None:
            from ms_data.cache import cached_batches

            yield from cached_batches(self.cache, self, lambda: self._read_epoch(ctx))
        else:
            yield from self._read_epoch(ctx)

    def _read_epoch(self, ctx: EpochContext) -> Iterator[pa.RecordBatch]:
        chunks = self._index_chunks(ctx)
        pool = ctx.pool(self, self._read_kind, self._workers(), self._read)
        yield from ordered_map(pool, self._read, chunks, f"reading {type(self).__name__}")
