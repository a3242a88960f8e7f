"""``zip`` (columns side by side) and ``concat`` / ``+`` (rows one after another)."""

from __future__ import annotations

from collections import deque

from ms_data.arrow import batch_from_numpy, batch_numpy
from ms_data.bases import UnionBaseDataset
from ms_data.dataset import Dataset, EpochContext
from ms_data.ops.batch import BatchDataset

__all__ = ["ZipDataset", "ConcatDataset", "zip"]


class _Rows:
    """Rows pulled from one child stream, handed out in runs of any length."""

    def __init__(self, stream):
        self.stream = stream
        self.parts: deque = deque()
        self.have = 0
        self.done = False

    def fill(self) -> bool:
        """Pull one more non-empty chunk; False when the stream is exhausted."""
        for chunk in self.stream:
            if chunk.num_rows:
                self.parts.append(batch_numpy(chunk))
                self.have += chunk.num_rows
                return True
        self.done = True
        return False

    def take(self, n: int) -> dict:
        self.have -= n
        return BatchDataset._take(self.parts, n)


class ZipDataset(UnionBaseDataset):
    """The node made by ``Dataset.zip``: as many rows as the shortest input."""

    def __init__(self, datasets):
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"zip: expected datasets, got {type(d).__name__}")
        super().__init__(datasets)
        seen: dict[str, int] = {}
        for i, d in enumerate(datasets):
            for name in d._column_names():
                if name in seen:
                    raise ValueError(f"zip: column name {name!r} is in dataset {seen[name]} and "
                                     f"dataset {i}; rename one of them first")
                seen[name] = i
        self._names = list(seen)

    def _column_names(self) -> list[str]:
        return list(self._names)

    def _num_rows(self) -> int | None:
        sizes = [c._num_rows() for c in self.children]
        if any(n is None for n in sizes):
            return None
        finite = [n for n in sizes if n != -1]
        return min(finite) if finite else -1

    def _batches(self, ctx: EpochContext):
        streams = [c._batches(ctx.derive("zip", self._depth, i))
                   for i, c in enumerate(self.children)]
        rows = [_Rows(s) for s in streams]
        try:
            while True:
                for r in rows:
                    if r.have == 0 and not r.fill():
                        return
                n = min(r.have for r in rows)
                merged: dict = {}
                for r in rows:
                    merged.update(r.take(n))
                yield batch_from_numpy(merged)
        finally:
            for s in streams:
                s.close()


class ConcatDataset(UnionBaseDataset):
    """The node made by ``Dataset.concat`` and ``+``."""

    def __init__(self, datasets):
        for d in datasets:
            if not isinstance(d, Dataset):
                raise TypeError(f"concat: expected datasets, got {type(d).__name__}")
        super().__init__(datasets)
        names = datasets[0]._column_names()
        for i, d in enumerate(datasets[1:], 1):
            if d._column_names() != names:
                raise ValueError(f"concat: dataset {i} has columns {d._column_names()}, "
                                 f"dataset 0 has {names}; they must match")

    def _num_rows(self) -> int | None:
        sizes = [c._num_rows() for c in self.children]
        if any(n is None for n in sizes):
            return None
        return -1 if -1 in sizes else sum(sizes)

    def _batches(self, ctx: EpochContext):
        for i, child in enumerate(self.children):
            yield from child._batches(ctx.derive("concat", self._depth, i))


def zip(datasets):
    """``ds.zip((a, b, ...))``: the rows of two or more datasets side by side, as
    ``a.zip((b, ...))`` (MindSpore's function form)."""
    if not isinstance(datasets, tuple):
        raise TypeError(f"zip: datasets must be a tuple of datasets, got "
                        f"{type(datasets).__name__}")
    if len(datasets) < 2:
        raise ValueError(f"zip: needs at least two datasets, got {len(datasets)}")
    return ZipDataset(datasets)
