"""``split``: divide a dataset into several by row counts or fractions."""

from __future__ import annotations

import copy
import math

import numpy as np

from ms_data import config
from ms_data.samplers import DistributedSampler, SubsetRandomSampler, SubsetSampler

__all__ = ["split", "absolute_sizes"]


def absolute_sizes(sizes, total: int) -> list[int]:
    """Row counts from ``sizes``: ints summing to ``total``, or fractions summing to 1.

    Fractions are rounded; the first split absorbs the rounding difference (MindSpore's rule).
    """
    if not isinstance(sizes, (list, tuple)) or not sizes:
        raise TypeError(f"split: sizes must be a non-empty list, got {sizes!r}")
    if all(isinstance(s, int) and not isinstance(s, bool) for s in sizes):
        if any(s < 1 for s in sizes):
            raise ValueError(f"split: sizes must be positive, got {list(sizes)}")
        if sum(sizes) != total:
            raise RuntimeError(f"split: sizes {list(sizes)} sum to {sum(sizes)}, but the dataset "
                               f"has {total} rows")
        return list(sizes)
    if all(isinstance(s, float) for s in sizes):
        if any(not 0 < s <= 1 for s in sizes) or not math.isclose(sum(sizes), 1.0):
            raise ValueError(f"split: fractions must be in (0, 1] and sum to 1, got "
                             f"{list(sizes)}")
        counts = [round(s * total) for s in sizes]
        counts[0] += total - sum(counts)
        if any(c < 1 for c in counts):
            raise RuntimeError(f"split: fractions {list(sizes)} of {total} rows give an empty "
                               f"split: {counts}")
        return counts
    raise TypeError(f"split: sizes must be all ints or all floats, got {list(sizes)}")


def split(dataset, sizes, randomize: bool = True) -> list:
    from ms_data.sources.base import MappableSource

    total = dataset.get_dataset_size()
    counts = absolute_sizes(sizes, total)
    if not isinstance(dataset, MappableSource):
        if randomize:
            raise RuntimeError("split: randomize=True needs a mappable source (split it "
                               "before map, batch, ...); pass randomize=False to split "
                               "in order")
        out, start = [], 0
        for n in counts:
            out.append(dataset.skip(start).take(n))
            start += n
        return out
    if isinstance(dataset.sampler, DistributedSampler):
        raise RuntimeError("split: a sharded dataset cannot be split; split first, then shard")
    # Split the rows the source's sampler reads, in their unshuffled order.
    rows = np.arange(dataset._length(), dtype=np.int64)[:total]
    if randomize:
        rows = np.random.default_rng([config.get_seed(), 0x5B117]).permutation(rows)
    out, start = [], 0
    for n in counts:
        part = copy.copy(dataset)
        ids = np.sort(rows[start:start + n]) if not randomize else rows[start:start + n]
        part.sampler = SubsetRandomSampler(ids) if randomize else SubsetSampler(ids)
        out.append(part)
        start += n
    return out
