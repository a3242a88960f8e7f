"""CIFAR-100, binary version (``train.bin``, ``test.bin``).

Each record is 3,074 bytes: the coarse label (0..19), the fine label (0..99), then a 32x32
image as 1,024 red, 1,024 green and 1,024 blue bytes (channel-major), turned to HWC as
MindSpore yields it. ``usage="all"`` reads the files in name order (``test.bin`` first), as
MindSpore 2.10 does.
"""

from __future__ import annotations

import os

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources._once import Once
from ms_data.sources.base import MappableSource

__all__ = ["Cifar100Dataset", "read_cifar100_file"]

RECORD_BYTES = 2 + 3 * 32 * 32
_USAGE_FILES = {"train": ("train.bin",), "test": ("test.bin",), "all": ("test.bin", "train.bin")}


def _count(path: str) -> int:
    size = os.path.getsize(path)
    if size % RECORD_BYTES:
        raise DatasetError(f"{path}: truncated or not CIFAR-100 binary: {size} bytes is not a "
                           f"multiple of the {RECORD_BYTES}-byte record")
    return size // RECORD_BYTES


def read_cifar100_file(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Coarse labels, fine labels (``(n,)`` uint8) and channel-major images ``(n, 3, 32,
    32)`` uint8 of one file.

    Raises:
        DatasetError: not whole records, or a label out of range; the message names the
            file and the record.
    """
    n = _count(path)
    records = np.fromfile(path, dtype=np.uint8).reshape(n, RECORD_BYTES)
    for column, name, top in ((0, "coarse", 19), (1, "fine", 99)):
        bad = np.flatnonzero(records[:, column] > top)
        if bad.size:
            raise DatasetError(f"{path}: record {bad[0]} has {name} label "
                               f"{records[bad[0], column]}, expected 0..{top}; not CIFAR-100 "
                               "binary")
    return records[:, 0], records[:, 1], records[:, 2:].reshape(n, 3, 32, 32)


class Cifar100Dataset(MappableSource, VisionBaseDataset):
    """CIFAR-100 images and labels read from ``dataset_dir`` (the binary version).

    Columns: ``image`` (uint8, ``(32, 32, 3)`` HWC), ``coarse_label`` and ``fine_label``
    (uint32 scalars), as MindSpore. ``usage``: ``"train"``, ``"test"`` or ``"all"``/None.

    Raises:
        ValueError: ``dataset_dir`` is not a directory or ``usage`` is unknown.
        FileNotFoundError: a needed file is missing; the message names it.
        DatasetError: a file is corrupt; the message names it.
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        usage = "all" if usage is None else usage
        if usage not in _USAGE_FILES:
            raise ValueError(f"Cifar100Dataset: usage must be 'train', 'test' or 'all', "
                             f"got {usage!r}")
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"Cifar100Dataset: {dataset_dir} is not a directory")
        self.dataset_dir, self.usage = dataset_dir, usage
        self._files = []
        for name in _USAGE_FILES[usage]:
            path = os.path.join(dataset_dir, name)
            if not os.path.isfile(path):
                raise FileNotFoundError(f"Cifar100Dataset: {path} not found (CIFAR-100 binary "
                                        f"version expected: {', '.join(_USAGE_FILES[usage])})")
            self._files.append((path, _count(path)))
        self._data = Once()

    def _length(self) -> int:
        return sum(n for _, n in self._files)

    def _column_names(self) -> list[str]:
        return ["image", "coarse_label", "fine_label"]

    def _load(self):
        parts = [read_cifar100_file(path) for path, _ in self._files]
        coarse, fine, images = (p[0] if len(parts) == 1 else np.concatenate(p)
                                for p in zip(*parts))
        return images, coarse.astype(np.uint32), fine.astype(np.uint32)

    def _read(self, indices: np.ndarray):
        images, coarse, fine = self._data.get(self._load)
        hwc = np.ascontiguousarray(images[indices].transpose(0, 2, 3, 1))
        return batch_from_numpy({"image": hwc, "coarse_label": coarse[indices],
                                 "fine_label": fine[indices]})
