"""CIFAR-10, binary version (``data_batch_1.bin`` .. ``data_batch_5.bin``, ``test_batch.bin``).

Each record is 3,073 bytes: one label byte (0..9), then a 32x32 image as 1,024 red, 1,024 green and
1,024 blue bytes (channel-major). Records are turned to HWC, as MindSpore yields them.
"""

from __future__ import annotations

import os

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources._once import Once
from ms_data.sources.base import MappableSource

__all__ = ["Cifar10Dataset", "read_cifar10_file"]

RECORD_BYTES = 1 + 3 * 32 * 32
_FILES = {
    "train": tuple(f"data_batch_{i}.bin" for i in range(1, 6)),
    "test": ("test_batch.bin",),
}
_USAGE_FILES = {"train": _FILES["train"], "test": _FILES["test"],
                "all": _FILES["train"] + _FILES["test"]}


def _count(path: str) -> int:
    size = os.path.getsize(path)
    if size % RECORD_BYTES:
        raise DatasetError(f"{path}: truncated or not CIFAR-10 binary: {size} bytes is not a "
                         f"multiple of the {RECORD_BYTES}-byte record ({size // RECORD_BYTES} "
                         f"whole records and {size % RECORD_BYTES} bytes more)")
    return size // RECORD_BYTES


def read_cifar10_file(path: str) -> tuple[np.ndarray, np.ndarray]:
    """Labels ``(n,)`` uint8 and channel-major images ``(n, 3, 32, 32)`` uint8 of one file.

    Raises:
        DatasetError: the size is not whole records, or a label is outside 0..9; the message names
            the file (and the record).
    """
    n = _count(path)
    records = np.fromfile(path, dtype=np.uint8).reshape(n, RECORD_BYTES)
    labels = records[:, 0]
    bad = np.flatnonzero(labels > 9)
    if bad.size:
        raise DatasetError(f"{path}: record {bad[0]} has label {labels[bad[0]]}, expected 0..9; "
                         "not CIFAR-10 binary")
    return labels, records[:, 1:].reshape(n, 3, 32, 32)


class Cifar10Dataset(MappableSource, VisionBaseDataset):
    """CIFAR-10 images and labels read from ``dataset_dir`` (the binary version).

    Columns: ``image`` (uint8, ``(32, 32, 3)`` HWC) and ``label`` (uint32 scalar), as MindSpore.
    ``usage`` is ``"train"`` (the five data batches), ``"test"`` or ``"all"``/None (train, then
    test). Sizes are checked when the dataset is made; the data is read on first use and kept.

    Raises:
        ValueError: ``dataset_dir`` is not a directory or ``usage`` is unknown.
        DatasetError: a file is corrupt (not whole records, label outside 0..9); the message
            names the file.
        FileNotFoundError: a needed file is missing; the message names it.
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        usage = "all" if usage is None else usage
        if usage not in _USAGE_FILES:
            raise ValueError(f"Cifar10Dataset: usage must be 'train', 'test' or 'all', "
                             f"got {usage!r}")
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"Cifar10Dataset: {dataset_dir} is not a directory")
        self.dataset_dir = dataset_dir
        self.usage = usage
        self._files = []
        for name in _USAGE_FILES[usage]:
            path = os.path.join(dataset_dir, name)
            if not os.path.isfile(path):
                raise FileNotFoundError(f"Cifar10Dataset: {path} not found (CIFAR-10 binary "
                                        f"version expected: {', '.join(_USAGE_FILES[usage])})")
            self._files.append((path, _count(path)))
        self._data = Once()

    def _length(self) -> int:
        return sum(n for _, n in self._files)

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        parts = [read_cifar10_file(path) for path, _ in self._files]
        labels = np.concatenate([p[0] for p in parts]).astype(np.uint32)
        images = parts[0][1] if len(parts) == 1 else np.concatenate([p[1] for p in parts])
        return images, labels

    def _read(self, indices: np.ndarray):
        images, labels = self._data.get(self._load)
        # Gather first, then transpose only the selected rows to HWC.
        hwc = np.ascontiguousarray(images[indices].transpose(0, 2, 3, 1))
        return batch_from_numpy({"image": hwc, "label": labels[indices]})
