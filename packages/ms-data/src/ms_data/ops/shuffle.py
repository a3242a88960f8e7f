"""``shuffle``: MindSpore's buffer shuffle, seeded and new every epoch.

The first ``buffer_size`` rows fill a buffer; each later row replaces a randomly chosen buffered
row, which is emitted; at the end the buffer is emitted in random order. With a buffer at
least as large as the dataset this is a uniform permutation.
"""

from __future__ import annotations

import numpy as np

from ms_data.arrow import batch_from_numpy, batch_numpy, concat_columns
from ms_data.bases import UnionBaseDataset
from ms_data.dataset import EpochContext
from ms_data.sources.base import CHUNK_ROWS

__all__ = ["ShuffleDataset", "RowStore"]


class RowStore:
    """Incoming chunks addressed by global row number, freed once all their rows are taken."""

    def __init__(self):
        self._chunks: dict[int, list] = {}  # start -> [columns, rows not yet taken]
        self.next_id = 0

    def add(self, cols: dict, rows: int) -> np.ndarray:
        start = self.next_id
        self._chunks[start] = [cols, rows]
        self.next_id += rows
        return np.arange(start, start + rows, dtype=np.int64)

    def take(self, ids: np.ndarray) -> dict:
        """The rows ``ids`` (each taken once) as one column dict, in the order given."""
        starts = np.fromiter(self._chunks, dtype=np.int64, count=len(self._chunks))
        chunk_of = starts[np.searchsorted(starts, ids, side="right") - 1]
        order = np.argsort(chunk_of, kind="stable")
        grouped = chunk_of[order]
        bounds = np.flatnonzero(np.diff(grouped)) + 1
        groups = np.split(order, bounds)
        pieces = []
        for g in groups:
            start = int(chunk_of[g[0]])
            entry = self._chunks[start]
            local = ids[g] - start
            pieces.append({k: v[local] for k, v in entry[0].items()})
            entry[1] -= len(g)
            if entry[1] == 0:
                del self._chunks[start]
        names = list(pieces[0])
        merged = {k: concat_columns([p[k] for p in pieces]) for k in names}
        inverse = np.argsort(order, kind="stable")
        return {k: v[inverse] for k, v in merged.items()}


class ShuffleDataset(UnionBaseDataset):
    """The node made by ``Dataset.shuffle``."""

    def __init__(self, child, buffer_size):
        super().__init__([child])
        if not isinstance(buffer_size, (int, np.integer)) or isinstance(buffer_size, bool) \
                or not 2 <= buffer_size <= 2**31 - 1:
            raise ValueError(f"shuffle: buffer_size must be an int in [2, 2147483647], "
                             f"got {buffer_size!r}")
        self.buffer_size = int(buffer_size)

    def _batches(self, ctx: EpochContext):
        rng = ctx.rng("shuffle", self._depth)
        store = RowStore()
        size = self.buffer_size
        buffer = np.empty(size, dtype=np.int64)
        filled = 0
        out: list[int] = []
        for chunk in self.children[0]._batches(ctx):
            if chunk.num_rows == 0:
                continue
            ids = store.add(batch_numpy(chunk), chunk.num_rows)
            take = min(size - filled, len(ids))
            buffer[filled:filled + take] = ids[:take]
            filled += take
            rest = ids[take:]
            if len(rest):
                picks = rng.integers(0, size, len(rest))
                for new, j in zip(rest.tolist(), picks.tolist()):
                    out.append(int(buffer[j]))
                    buffer[j] = new
            while len(out) >= CHUNK_ROWS:
                yield batch_from_numpy(store.take(np.array(out[:CHUNK_ROWS], dtype=np.int64)))
                out = out[CHUNK_ROWS:]
        out.extend(buffer[:filled][rng.permutation(filled)].tolist())
        for i in range(0, len(out), CHUNK_ROWS):
            yield batch_from_numpy(store.take(np.array(out[i:i + CHUNK_ROWS], dtype=np.int64)))
