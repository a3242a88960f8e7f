"""``ManifestDataset``: images listed in a manifest file, with their class names.

A manifest has one JSON object per line::

    {"source": "/data/1.jpg", "usage": "train", "annotation": [{"name": "dog"}]}

As MindSpore 2.10: rows of ``usage`` (matched case-insensitively), in file order; columns
``image`` (the file's bytes, or RGB HWC uint8 with ``decode=True``) and ``label`` (int32: a
scalar for one annotation, a vector for several). Classes are numbered in name order
among the rows of that usage, unless ``class_indexing`` gives the numbers; then rows
whose classes are not all in it are left out.
"""

from __future__ import annotations

import json
import os

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources.base import MappableSource
from ms_data.sources.image_folder import decode_image

__all__ = ["ManifestDataset", "read_manifest"]

_USAGES = ("train", "eval", "inference")


def read_manifest(path: str, usage: str) -> list[tuple[str, list[str]]]:
    """``[(image path, [class names])]`` of the lines of ``usage``."""
    if not os.path.isfile(path):
        raise ValueError(f"The file {path} does not exist or permission denied!")
    rows = []
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                entry = json.loads(line)
                source, names = entry["source"], [a["name"] for a in entry["annotation"]]
            except (json.JSONDecodeError, KeyError, TypeError) as e:
                raise DatasetError(f"ManifestDataset: {path} line {number} is not a manifest "
                                   f"entry ({{\"source\", \"usage\", \"annotation\": "
                                   f"[{{\"name\"}}]}}): {type(e).__name__}: {e}") from None
            if str(entry.get("usage", "")).lower() == usage:
                rows.append((source, names))
    return rows


class ManifestDataset(MappableSource, VisionBaseDataset):
    """The images of a manifest file and their labels (see the module doc)."""

    def __init__(self, dataset_file, usage="train", num_samples=None, num_parallel_workers=None,
                 shuffle=None, sampler=None, class_indexing=None, decode=False, num_shards=None,
                 shard_id=None, cache=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers, cache=cache)
        if usage not in _USAGES:
            raise ValueError(f"ManifestDataset: usage must be one of {list(_USAGES)}, got "
                             f"{usage!r}")
        if class_indexing is not None and not isinstance(class_indexing, dict):
            raise TypeError(f"ManifestDataset: class_indexing must be a dict, got "
                            f"{type(class_indexing).__name__}")
        self.dataset_file, self.usage, self.decode = dataset_file, usage, decode
        rows = read_manifest(dataset_file, usage)
        if class_indexing is None:
            names = sorted({n for _, ns in rows for n in ns})
            class_indexing = {n: i for i, n in enumerate(names)}
        else:
            rows = [r for r in rows if all(n in class_indexing for n in r[1])]
        self._class_indexing = dict(class_indexing)
        self._paths = [p for p, _ in rows]
        self._label_lists = [[int(class_indexing[n]) for n in ns] for _, ns in rows]

    def get_class_indexing(self) -> dict:
        return dict(self._class_indexing)

    def _length(self) -> int:
        return len(self._paths)

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _sample_labels(self, column: str) -> np.ndarray:
        if column != "label":
            raise ValueError(f"ManifestDataset: PKSampler's class_column {column!r} is not a "
                             f"column; the labels are in 'label'")
        return np.asarray([ls[0] if ls else -1 for ls in self._label_lists])

    def _read(self, indices: np.ndarray):
        images = np.empty(len(indices), dtype=object)
        labels = np.empty(len(indices), dtype=object)
        for row, i in enumerate(indices):
            path = self._paths[i]
            try:
                with open(path, "rb") as f:
                    data = np.frombuffer(f.read(), dtype=np.uint8)
            except OSError as e:
                raise DatasetError(f"ManifestDataset: cannot read {path} (listed in "
                                   f"{self.dataset_file}): {e}") from None
            images[row] = decode_image(data, path) if self.decode else data
            ls = self._label_lists[i]
            labels[row] = np.asarray(ls[0] if len(ls) == 1 else ls, dtype=np.int32)
        return batch_from_numpy({"image": images, "label": labels})
