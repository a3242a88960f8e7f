"""PASCAL VOC (``VOCDataset``): detection boxes from ``Annotations/*.xml`` or segmentation
masks from ``SegmentationClass/*.png``, the images from ``JPEGImages``, the ids from
``ImageSets/{Main,Segmentation}/<usage>.txt``.

Rows as MindSpore 2.10 gives them (checked there on a tree written here):

* ``task="Detection"``: ``image`` (the JPEG's bytes, or RGB HWC with ``decode=True``),
  ``bbox`` float32 ``(n, 4)`` as ``[xmin, ymin, xmax - xmin, ymax - ymin]``, ``label``,
  ``difficult``, ``truncate`` uint32 ``(n, 1)``. Labels follow ``class_indexing``, by
  default the sorted class names of all the annotations numbered from 0; with a given
  ``class_indexing``, objects of other classes are dropped, and so are images left with
  none.
* ``task="Segmentation"``: ``image`` and ``target`` (the PNG; decoded to RGB, as
  MindSpore's decode does).
"""

from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources.base import MappableSource
from ms_data.sources.image_folder import decode_image

__all__ = ["VOCDataset", "read_voc_annotation"]

_TASKS = {"Detection": "Main", "Segmentation": "Segmentation"}


def _number(obj, path: str, tag: str) -> float:
    node = obj.find(tag)
    try:
        return float(node.text)
    except (AttributeError, TypeError, ValueError):
        raise DatasetError(f"VOCDataset: {path}: an object has no number <{tag}>") from None


def read_voc_annotation(path: str) -> list[tuple]:
    """``(class name, [xmin, ymin, w, h], difficult, truncated)`` of each object."""
    try:
        root = ET.parse(path).getroot()
    except (ET.ParseError, OSError) as e:
        raise DatasetError(f"VOCDataset: cannot read the annotation {path}: {e}") from None
    out = []
    for obj in root.iter("object"):
        name = obj.findtext("name")
        box = obj.find("bndbox")
        if name is None or box is None:
            raise DatasetError(f"VOCDataset: {path}: an object has no <name> or <bndbox>")
        x0, y0, x1, y1 = (_number(box, path, t) for t in ("xmin", "ymin", "xmax", "ymax"))
        flags = [int(_number(obj, path, t)) if obj.find(t) is not None else 0
                 for t in ("difficult", "truncated")]
        out.append((name.strip(), [x0, y0, x1 - x0, y1 - y0], *flags))
    return out


def _read(path: str) -> np.ndarray:
    with open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8)


class VOCDataset(MappableSource, VisionBaseDataset):
    """PASCAL VOC detection or segmentation rows (see the module doc).

    Raises:
        ValueError: an unknown ``task``, a missing ``ImageSets`` list (named), a
            ``class_indexing`` that is not a dict of str to int, or given for Segmentation.
        FileNotFoundError: an image, annotation or mask the list names is missing.
        DatasetError: an annotation is not VOC XML; the message names it.
    """

    def __init__(self, dataset_dir, task="Segmentation", usage="train", class_indexing=None,
                 num_samples=None, num_parallel_workers=None, shuffle=None, decode=False,
                 sampler=None, num_shards=None, shard_id=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        if task not in _TASKS:
            raise ValueError(f"VOCDataset: task must be 'Detection' or 'Segmentation', "
                             f"got {task!r}")
        if class_indexing is not None:
            if task != "Detection":
                raise ValueError("VOCDataset: class_indexing is for task='Detection' only")
            if not isinstance(class_indexing, dict) or not all(
                    isinstance(k, str) and isinstance(v, int) for k, v in class_indexing.items()):
                raise ValueError(f"VOCDataset: class_indexing must map str to int, got "
                                 f"{class_indexing!r}")
        listing = os.path.join(dataset_dir, "ImageSets", _TASKS[task], f"{usage}.txt")
        if not os.path.isfile(listing):
            raise ValueError(f"VOCDataset: the file {listing} does not exist (usage {usage!r})")
        with open(listing, encoding="utf-8") as f:
            ids = [line.strip() for line in f if line.strip()]
        self.task, self.decode = task, decode
        image = os.path.join(dataset_dir, "JPEGImages", "{}.jpg")
        if task == "Segmentation":
            mask = os.path.join(dataset_dir, "SegmentationClass", "{}.png")
            self._rows = [(image.format(i), mask.format(i)) for i in ids]
            self._check([p for row in self._rows for p in row])
            return
        notes = [os.path.join(dataset_dir, "Annotations", f"{i}.xml") for i in ids]
        self._check(notes + [image.format(i) for i in ids])
        objects = [read_voc_annotation(p) for p in notes]
        if class_indexing is None:
            names = sorted({o[0] for objs in objects for o in objs})
            class_indexing = {n: k for k, n in enumerate(names)}
        self.class_indexing = dict(class_indexing)
        self._rows = []
        for i, objs in zip(ids, objects):
            kept = [o for o in objs if o[0] in self.class_indexing]
            if kept:
                self._rows.append((image.format(i), kept))

    @staticmethod
    def _check(paths) -> None:
        for p in paths:
            if not os.path.isfile(p):
                raise FileNotFoundError(f"VOCDataset: {p} not found")

    def get_class_indexing(self) -> dict:
        if self.task != "Detection":
            raise RuntimeError("VOCDataset: get_class_indexing is for task='Detection' only")
        return dict(self.class_indexing)

    def _length(self) -> int:
        return len(self._rows)

    def _column_names(self) -> list[str]:
        if self.task == "Segmentation":
            return ["image", "target"]
        return ["image", "bbox", "label", "difficult", "truncate"]

    def _image(self, path: str):
        data = _read(path)
        return decode_image(data.tobytes(), path) if self.decode else data

    def _read(self, indices: np.ndarray):
        cols = {n: np.empty(len(indices), dtype=object) for n in self._column_names()}
        for k, i in enumerate(indices):
            first, second = self._rows[i]
            cols["image"][k] = self._image(first)
            if self.task == "Segmentation":
                cols["target"][k] = self._image(second)
                continue
            cols["bbox"][k] = np.array([o[1] for o in second], np.float32)
            cols["label"][k] = np.array([[self.class_indexing[o[0]]] for o in second],
                                        np.uint32)
            cols["difficult"][k] = np.array([[o[2]] for o in second], np.uint32)
            cols["truncate"][k] = np.array([[o[3]] for o in second], np.uint32)
        return batch_from_numpy(cols)
