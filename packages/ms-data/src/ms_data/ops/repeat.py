"""``repeat``, ``take`` and ``skip``: how many of the child's rows flow on."""

from __future__ import annotations

import numpy as np

from ms_data.bases import UnionBaseDataset
from ms_data.dataset import EpochContext

__all__ = ["RepeatDataset", "TakeDataset", "SkipDataset"]


def _count(op: str, count, allow_all: bool) -> int:
    if not isinstance(count, (int, np.integer)) or isinstance(count, bool):
        raise TypeError(f"{op}: count must be an int, got {count!r}")
    count = int(count)
    if count == -1 and allow_all:
        return -1
    if count < (1 if op == "repeat" else 0):
        low = "1" if op == "repeat" else "0"
        raise ValueError(f"{op}: count must be -1 or at least {low}, got {count}")
    return count


class RepeatDataset(UnionBaseDataset):
    """The child's rows ``count`` times; each repetition reshuffles (its own rng keys)."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = -1 if count is None else _count("repeat", count, True)
        self._repeat_count_info = self.count

    def _num_rows(self) -> int | None:
        n = self.children[0]._num_rows()
        if self.count == -1:
            return 0 if n == 0 else -1  # -1: endless (MindSpore's answer for repeat())
        return None if n is None or n == -1 else n * self.count

    def _batches(self, ctx: EpochContext):
        r = 0
        while self.count == -1 or r < self.count:
            empty = True
            for chunk in self.children[0]._batches(ctx.derive("repeat", self._depth, r)):
                empty = empty and chunk.num_rows == 0
                yield chunk
            if empty and self.count == -1:  # an empty dataset repeated forever is empty
                return
            r += 1


class TakeDataset(UnionBaseDataset):
    """The first ``count`` rows of the child (all with -1)."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = _count("take", count, True)

    def _num_rows(self) -> int | None:
        n = self.children[0]._num_rows()
        if self.count == -1:
            return n
        if n == -1:
            return self.count
        return None if n is None else min(n, self.count)

    def _batches(self, ctx: EpochContext):
        left = self.count
        if left == 0:
            return
        gen = self.children[0]._batches(ctx)
        try:
            for chunk in gen:
                if left == -1:
                    yield chunk
                    continue
                if chunk.num_rows >= left:
                    yield chunk.slice(0, left)
                    return
                left -= chunk.num_rows
                yield chunk
        finally:
            gen.close()


class SkipDataset(UnionBaseDataset):
    """The child's rows after the first ``count``."""

    def __init__(self, child, count):
        super().__init__([child])
        self.count = _count("skip", count, False)

    def _num_rows(self) -> int | None:
        n = self.children[0]._num_rows()
        return n if n is None or n == -1 else max(n - self.count, 0)

    def _batches(self, ctx: EpochContext):
        left = self.count
        for chunk in self.children[0]._batches(ctx):
            if left >= chunk.num_rows:
                left -= chunk.num_rows
                continue
            yield chunk.slice(left) if left else chunk
            left = 0
