"""QMNIST (``QMnistDataset``): MNIST's images with the extended labels of
``qmnist-{train,test}-labels-idx2-int`` (8 int32 columns per image: the class first) and the
``xnist`` NIST extension.

As MindSpore 2.10 (checked there on files written here): ``image`` uint8 ``(28, 28, 1)``;
``label`` uint32, the class with ``compat=True`` or all 8 columns with ``compat=False``;
``usage`` ``train``, ``test``, ``test10k`` (the test file's first 10,000), ``test50k`` (the
rest), ``nist``, or ``all`` / None (train, test, nist).
"""

from __future__ import annotations

import math

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources._once import Once
from ms_data.sources.base import MappableSource
from ms_data.sources.mnist import (
    IMAGES_MAGIC,
    _find,
    _open,
    _read_at_most,
    read_idx,
    read_idx_header,
)

__all__ = ["QMnistDataset", "read_int_labels"]

LABELS_MAGIC = 0x0C02  # IDX, int32, two dimensions
_PREFIX = {"train": "qmnist-train", "test": "qmnist-test", "nist": "xnist"}
_USAGES = {"train": ("train",), "test": ("test",), "test10k": ("test",), "test50k": ("test",),
           "nist": ("nist",), "all": ("train", "test", "nist")}


def read_int_labels(path: str) -> np.ndarray:
    """The ``(n, 8)`` int32 label table of a QMNIST ``idx2-int`` file."""
    shape = read_idx_header(path, LABELS_MAGIC)
    offset, expected = 4 + 4 * len(shape), 4 * math.prod(shape)
    with _open(path) as f:
        raw = _read_at_most(f, offset + expected + 1)
    if len(raw) - offset != expected:
        raise DatasetError(f"{path}: header {shape} needs {expected} bytes of data, file has "
                           f"{len(raw) - offset}")
    return np.frombuffer(raw, dtype=">i4", offset=offset).reshape(shape).astype(np.int64)


class QMnistDataset(MappableSource, VisionBaseDataset):
    """QMNIST rows ``image``, ``label`` (see the module doc).

    Raises:
        ValueError: an unknown ``usage``.
        FileNotFoundError: a needed file is missing (named).
        DatasetError: a file is corrupt, or images and labels disagree in number (named).
    """

    def __init__(self, dataset_dir, usage=None, compat=True, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        usage = "all" if usage is None else usage
        if usage not in _USAGES:
            raise ValueError(f"QMnistDataset: usage must be one of {', '.join(_USAGES)}, got "
                             f"{usage!r}")
        if not isinstance(compat, bool):
            raise TypeError(f"QMnistDataset: compat must be a bool, got {compat!r}")
        self.usage, self.compat = usage, compat
        self._parts = []
        for part in _USAGES[usage]:
            images = _find(dataset_dir, f"{_PREFIX[part]}-images-idx3-ubyte", "QMnistDataset")
            labels = _find(dataset_dir, f"{_PREFIX[part]}-labels-idx2-int", "QMnistDataset")
            n_images = read_idx_header(images, IMAGES_MAGIC)[0]
            n_labels = read_idx_header(labels, LABELS_MAGIC)[0]
            if n_images != n_labels:
                raise DatasetError(f"QMnistDataset: {images} has {n_images} images but {labels} "
                                   f"has {n_labels} labels")
            self._parts.append((images, labels))
        self._data = Once()

    def _load(self):
        images = np.concatenate([read_idx(p, IMAGES_MAGIC) for p, _ in self._parts])
        labels = np.concatenate([read_int_labels(p) for _, p in self._parts])
        if self.usage == "test10k":
            images, labels = images[:10000], labels[:10000]
        elif self.usage == "test50k":
            images, labels = images[10000:], labels[10000:]
        labels = labels[:, 0] if self.compat else labels
        return images[..., None], labels.astype(np.uint32)

    def _length(self) -> int:
        return len(self._data.get(self._load)[0])

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _read(self, indices: np.ndarray):
        images, labels = self._data.get(self._load)
        return batch_from_numpy({"image": images[indices], "label": labels[indices]})
