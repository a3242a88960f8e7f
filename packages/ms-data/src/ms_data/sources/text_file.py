"""Lines of text files (MindSpore's ``TextFileDataset``), and MindSpore's ``Shuffle`` modes.

One column, ``text``: each non-empty line as a string (the ``\\n`` removed, a ``\\r``
kept, empty lines skipped), as MindSpore 2.10 reads them. Without shuffling, MindSpore's
order comes from its parallel file readers: the rows (of this shard) are split into runs by
file, run ``j`` goes to reader ``j % num_parallel_workers``, and the readers take turns,
one row each. ``TextFileDataset(files, shuffle=False)`` gives that same order, so a
pipeline sees the lines as it would under MindSpore. Sharding takes the shard's rows in
file order first (padded by wrapping to equal shards), as MindSpore does.
"""

from __future__ import annotations

import enum
import os

import numpy as np
import pyarrow as pa

from ms_data import config
from ms_data.bases import TextBaseDataset
from ms_data.sources._once import Once
from ms_data.sources.base import MappableSource

__all__ = ["TextFileDataset", "Shuffle", "read_text_lines", "shuffle_flag"]


class Shuffle(str, enum.Enum):
    """How a file source shuffles (``mindspore.dataset.Shuffle``)."""

    FALSE = "false"
    ADAPTIVE = "adaptive"
    GLOBAL = "global"
    PARTIAL = "partial"
    FILES = "files"
    INFILE = "infile"


def shuffle_flag(shuffle, who: str) -> bool:
    """True/False, or a ``Shuffle`` value: every mode but ``FALSE`` shuffles all the rows
    (MindSpore's FILES/INFILE shuffle whole files or within files; here, a superset)."""
    if isinstance(shuffle, bool):
        return shuffle
    if isinstance(shuffle, Shuffle) or getattr(type(shuffle), "__name__", "") == "Shuffle":
        return str(getattr(shuffle, "value", shuffle)).lower() != "false"
    raise TypeError(f"{who}: shuffle must be a bool or a Shuffle value, got {shuffle!r}")


def read_text_lines(path: str) -> list[str]:
    """The non-empty lines of ``path`` (UTF-8), without their ``\\n``."""
    with open(path, encoding="utf-8", newline="") as f:
        return [line for line in f.read().split("\n") if line]


def _files(dataset_files, who: str) -> list[str]:
    files = [dataset_files] if isinstance(dataset_files, (str, os.PathLike)) \
        else list(dataset_files)
    if not files:
        raise ValueError(f"{who}: dataset_files is empty")
    files = [os.fspath(f) for f in files]
    missing = [f for f in files if not os.path.isfile(f)]
    if missing:
        raise ValueError(f"{who}: the following patterns did not match any files: {missing}")
    return files


def reader_order(runs: list[int], workers: int) -> np.ndarray:
    """Positions (in run order) of the rows as ``workers`` readers give them: run ``j``
    to reader ``j % workers``, the readers taking turns one row at a time."""
    starts = np.cumsum([0, *runs])
    queues = [[] for _ in range(max(1, min(workers, len(runs))))]
    for j, n in enumerate(runs):
        queues[j % len(queues)].extend(range(starts[j], starts[j] + n))
    out, depth = [], max(len(q) for q in queues)
    for i in range(depth):
        out.extend(q[i] for q in queues if i < len(q))
    return np.asarray(out, dtype=np.int64)


class TextFileDataset(MappableSource, TextBaseDataset):
    """Lines of ``dataset_files`` as the column ``text`` (see the module doc).

    ``shuffle``: True (the default, as MindSpore's ``Shuffle.GLOBAL``), False or a
    ``Shuffle`` value. The files are read on first use; their existence is checked now.

    Raises:
        ValueError: no files, or a file is missing (the message names it).
        UnicodeDecodeError: a file is not UTF-8 (raised when it is read).
    """

    def __init__(self, dataset_files, num_samples=None, num_parallel_workers=None,
                 shuffle=True, num_shards=None, shard_id=None):
        shuffled = shuffle_flag(shuffle, "TextFileDataset")
        super().__init__(num_samples=num_samples, shuffle=shuffled,
                         num_parallel_workers=num_parallel_workers)
        if num_shards is not None or shard_id is not None:  # checked as every source does
            from ms_data.sources.base import select_sampler

            select_sampler(None, None, None, num_shards, shard_id)
        self.files = _files(dataset_files, "TextFileDataset")
        self.num_shards, self.shard_id = num_shards, shard_id
        self._ordered = not shuffled
        self._rows = Once()

    def _load(self) -> np.ndarray:
        per_file = [read_text_lines(f) for f in self.files]
        lines = [line for rows in per_file for line in rows]
        file_of = np.repeat(np.arange(len(per_file)), [len(r) for r in per_file])
        picked = np.arange(len(lines))
        if self.num_shards is not None and lines:
            size = -(-len(lines) // self.num_shards)
            picked = np.arange(self.shard_id * size, (self.shard_id + 1) * size) % len(lines)
        if self._ordered and picked.size:
            files = file_of[picked]
            runs = np.diff(np.flatnonzero(np.r_[True, files[1:] != files[:-1], True]))
            workers = self.num_parallel_workers or config.get_num_parallel_workers()
            picked = picked[reader_order(list(runs), workers)]
        return np.asarray([lines[i] for i in picked], dtype=object)

    def _length(self) -> int:
        return len(self._rows.get(self._load))

    def _column_names(self) -> list[str]:
        return ["text"]

    def _read(self, indices: np.ndarray):
        rows = self._rows.get(self._load)[indices]
        return pa.RecordBatch.from_arrays([pa.array(list(rows), type=pa.string())],
                                          names=["text"])
