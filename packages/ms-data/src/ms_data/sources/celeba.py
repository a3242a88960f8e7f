"""CelebA (``CelebADataset``): images with their 40 binary attributes.

``list_attr_celeba.txt`` (a count line, the attribute names, then ``file v1 v2 ...`` with
1/-1) gives the rows in its order; ``list_eval_partition.txt`` (``file 0|1|2``) picks the
``usage`` (train / valid / test; ``all`` needs no partition file). As MindSpore 2.10
(checked there on files written here): ``image`` is the file's bytes (RGB HWC with
``decode=True``) read from ``dataset_dir`` (here also from ``img_align_celeba/``, the
official layout, when it is not there), ``attr`` is uint32 with -1 turned to 0.
"""

from __future__ import annotations

import os

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources.base import MappableSource
from ms_data.sources.image_folder import decode_image

__all__ = ["CelebADataset", "read_celeba_attributes"]

_USAGES = {"train": "0", "valid": "1", "test": "2", "all": None}


def read_celeba_attributes(path: str) -> tuple[list[str], list[str], np.ndarray]:
    """``(attribute names, file names, attrs (n, k) uint32 of 0/1)`` of the attribute file."""
    with open(path, encoding="utf-8") as f:
        lines = [line.split() for line in f if line.strip()]
    if len(lines) < 2:
        raise DatasetError(f"CelebADataset: {path} has no attribute-name line")
    names, files, values = lines[1], [], []
    for i, parts in enumerate(lines[2:], start=3):
        if len(parts) != len(names) + 1:
            raise DatasetError(f"CelebADataset: {path}:{i} has {len(parts) - 1} values for "
                               f"{len(names)} attributes")
        try:
            row = [int(v) for v in parts[1:]]
        except ValueError:
            raise DatasetError(f"CelebADataset: {path}:{i}: attributes must be 1 or -1, got "
                               f"{parts[1:]}") from None
        files.append(parts[0])
        values.append(row)
    attrs = np.asarray(values, dtype=np.int64).reshape(len(files), len(names))
    return names, files, np.where(attrs > 0, attrs, 0).astype(np.uint32)


class CelebADataset(MappableSource, VisionBaseDataset):
    """CelebA rows ``image``, ``attr`` (see the module doc).

    Raises:
        ValueError: ``dataset_dir`` is not a directory, an unknown ``usage``, or a missing
            attribute or partition file (named).
        DatasetError: a list file is malformed; the message names file and line.
        FileNotFoundError: an image is missing (when its row is read).
    """

    def __init__(self, dataset_dir, num_parallel_workers=None, shuffle=None, usage="all",
                 sampler=None, decode=False, num_samples=None, num_shards=None,
                 shard_id=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        if usage not in _USAGES:
            raise ValueError(f"CelebADataset: usage must be one of {', '.join(_USAGES)}, "
                             f"got {usage!r}")
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"CelebADataset: {dataset_dir} is not a directory")
        attr_file = os.path.join(dataset_dir, "list_attr_celeba.txt")
        if not os.path.isfile(attr_file):
            raise ValueError(f"CelebADataset: {attr_file} does not exist")
        self.attr_names, files, attrs = read_celeba_attributes(attr_file)
        if _USAGES[usage] is not None:
            part_file = os.path.join(dataset_dir, "list_eval_partition.txt")
            if not os.path.isfile(part_file):
                raise ValueError(f"CelebADataset: {part_file} does not exist (needed for "
                                 f"usage {usage!r})")
            with open(part_file, encoding="utf-8") as f:
                part = dict(line.split()[:2] for line in f if len(line.split()) >= 2)
            keep = [i for i, name in enumerate(files) if part.get(name) == _USAGES[usage]]
            files, attrs = [files[i] for i in keep], attrs[keep]
        self.dataset_dir, self.decode = dataset_dir, decode
        self._files, self._attrs = files, attrs

    def _length(self) -> int:
        return len(self._files)

    def _column_names(self) -> list[str]:
        return ["image", "attr"]

    def _image(self, name: str):
        path = os.path.join(self.dataset_dir, name)
        if not os.path.isfile(path):
            path = os.path.join(self.dataset_dir, "img_align_celeba", name)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"CelebADataset: image {name} not found in "
                                    f"{self.dataset_dir} or its img_align_celeba/")
        with open(path, "rb") as f:
            data = f.read()
        return decode_image(data, path) if self.decode else np.frombuffer(data, np.uint8)

    def _read(self, indices: np.ndarray):
        images = np.empty(len(indices), dtype=object)
        for k, i in enumerate(indices):
            images[k] = self._image(self._files[i])
        return batch_from_numpy({"image": images, "attr": self._attrs[indices]})
