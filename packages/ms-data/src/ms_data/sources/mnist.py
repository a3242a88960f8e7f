"""MNIST in its IDX files (as MNIST ships them, gzipped or not).

An IDX file is a 4-byte magic number (two zero bytes, a type code, the number of dimensions), one
big-endian uint32 per dimension, then the values in C order. MNIST uses type code 0x08 (unsigned
byte): images have magic 2051 (3 dims: count, rows, cols), labels 2049 (1 dim: count).
"""

from __future__ import annotations

import contextlib
import gzip
import math
import os
import struct
import zlib

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources._once import Once
from ms_data.sources.base import MappableSource

__all__ = ["MnistDataset", "read_idx", "read_idx_header"]

IMAGES_MAGIC = 2051
LABELS_MAGIC = 2049
_FILES = {
    "train": ("train-images-idx3-ubyte", "train-labels-idx1-ubyte"),
    "test": ("t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte"),
}
# MindSpore reads "all" as test then train (the file names in sorted order); so do we.
_USAGE_PARTS = {"train": ("train",), "test": ("test",), "all": ("test", "train")}


@contextlib.contextmanager
def _open(path: str):
    """The file's bytes, gunzipped if it is gzipped; a corrupt gzip stream is a DatasetError."""
    with open(path, "rb") as f:
        gzipped = f.read(2) == b"\x1f\x8b"
    try:
        with gzip.open(path, "rb") if gzipped else open(path, "rb") as f:
            yield f
    except (gzip.BadGzipFile, EOFError, zlib.error) as err:
        raise DatasetError(f"{path}: corrupt gzip file: {type(err).__name__}: {err}") from None


def _read_at_most(f, n: int) -> bytes:
    """Up to ``n`` bytes, in pieces: a header claiming terabytes allocates only what is there."""
    parts, got = [], 0
    while got < n:
        part = f.read(min(n - got, 1 << 24))
        if not part:
            break
        parts.append(part)
        got += len(part)
    return b"".join(parts)


def read_idx_header(path: str, magic: int) -> tuple[int, ...]:
    """Dimensions of the IDX file at ``path``, after checking its magic number.

    Raises:
        DatasetError: if the file is shorter than its header, its magic number is not ``magic``
            or its gzip stream is corrupt; the message names the file.
    """
    with _open(path) as f:
        head = f.read(4)
        if len(head) < 4:
            raise DatasetError(f"{path}: truncated IDX file: {len(head)} bytes, no header")
        found = struct.unpack(">I", head)[0]
        if found != magic:
            raise DatasetError(
                f"{path}: bad magic number {found} (0x{found:08x}), expected {magic} "
                f"(0x{magic:08x}); not an MNIST {'image' if magic == IMAGES_MAGIC else 'label'} "
                "file"
            )
        ndim = magic & 0xFF
        dims = f.read(4 * ndim)
        if len(dims) < 4 * ndim:
            raise DatasetError(f"{path}: truncated IDX header: {ndim} dimensions announced, "
                             f"{len(dims) // 4} present")
        return struct.unpack(f">{ndim}I", dims)


def read_idx(path: str, magic: int) -> np.ndarray:
    """The uint8 array stored in the IDX file at ``path`` (type code 0x08 only, as MNIST).

    Raises:
        DatasetError: bad magic number, corrupt gzip, or the data is shorter or longer than the
            header says; the message names the file and both sizes.
    """
    shape = read_idx_header(path, magic)
    offset = 4 + 4 * len(shape)
    expected = math.prod(shape)
    with _open(path) as f:
        raw = _read_at_most(f, offset + expected + 1)
    found = len(raw) - offset
    if found != expected:
        problem = "truncated" if found < expected else "has trailing bytes"
        raise DatasetError(f"{path}: {problem}: header {shape} needs {expected} bytes of data, "
                         f"file has {found}")
    return np.frombuffer(raw, dtype=np.uint8, offset=offset).reshape(shape)


def _find(dataset_dir: str, name: str, who: str) -> str:
    for candidate in (name, name + ".gz"):
        path = os.path.join(dataset_dir, candidate)
        if os.path.isfile(path):
            return path
    raise FileNotFoundError(f"{who}: {os.path.join(dataset_dir, name)} (or .gz) not found")


class MnistDataset(MappableSource, VisionBaseDataset):
    """MNIST images and labels read from ``dataset_dir``.

    Columns: ``image`` (uint8, ``(28, 28, 1)``) and ``label`` (uint32 scalar), as MindSpore.
    ``usage`` is ``"train"``, ``"test"`` or ``"all"``/None (test rows, then train rows). Files are
    MNIST's four standard names, each optionally gzipped (``name.gz``). Headers are checked when
    the dataset is made; the data is read on first use and kept.

    Raises:
        ValueError: ``dataset_dir`` is not a directory or ``usage`` is unknown.
        DatasetError: a file is corrupt (bad magic number, truncated data, broken gzip) or images
            and labels differ in count; the message names the file.
        FileNotFoundError: a needed file is missing; the message names it.

    >>> from ms_data.bundled import digits_dir
    >>> MnistDataset(digits_dir(), usage="test").get_dataset_size()
    297
    """

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, num_shards=None, shard_id=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        who = type(self).__name__
        usage = "all" if usage is None else usage
        if usage not in _USAGE_PARTS:
            raise ValueError(f"{who}: usage must be 'train', 'test' or 'all', got {usage!r}")
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"{who}: {dataset_dir} is not a directory")
        self.dataset_dir = dataset_dir
        self.usage = usage
        self._parts = []
        for part in _USAGE_PARTS[usage]:
            image_name, label_name = self._file_names(part)
            images = _find(dataset_dir, image_name, who)
            labels = _find(dataset_dir, label_name, who)
            n_images = read_idx_header(images, IMAGES_MAGIC)[0]
            n_labels = read_idx_header(labels, LABELS_MAGIC)[0]
            if n_images != n_labels:
                raise DatasetError(f"{who}: {images} holds {n_images} images but {labels} "
                                   f"holds {n_labels} labels")
            self._parts.append((images, labels, n_images))
        self._data = Once()

    def _file_names(self, part: str) -> tuple[str, str]:
        """The (images, labels) file names of ``part``, "train" or "test"."""
        return _FILES[part]

    def _length(self) -> int:
        return sum(n for _, _, n in self._parts)

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _load(self) -> tuple[np.ndarray, np.ndarray]:
        images = [read_idx(p, IMAGES_MAGIC) for p, _, _ in self._parts]
        labels = [read_idx(p, LABELS_MAGIC) for _, p, _ in self._parts]
        image = images[0] if len(images) == 1 else np.concatenate(images)
        return image[..., None], np.concatenate(labels).astype(np.uint32)

    def _read(self, indices: np.ndarray):
        image, label = self._data.get(self._load)
        return batch_from_numpy({"image": image[indices], "label": label[indices]})
