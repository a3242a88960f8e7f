"""COCO (``CocoDataset``): images of ``dataset_dir`` with the annotations of one COCO JSON
file, for the tasks Detection, Stuff and Keypoint.

Rows as MindSpore 2.10 gives them (checked there on a file written here): the images of the
JSON's ``images`` list, in its order, that have at least one annotation; ``image`` is the
file's bytes (RGB HWC with ``decode=True``), and per task:

* Detection: ``bbox`` float32 ``(n, 4)`` (COCO's ``[x, y, w, h]``), ``category_id`` and
  ``iscrowd`` uint32 ``(n, 1)``;
* Stuff: ``segmentation`` float32, one row per polygon (or per RLE ``counts`` of a crowd
  annotation), padded with -1 to the longest; ``iscrowd`` uint32 ``(n, 1)``;
* Keypoint: ``keypoints`` float32 ``(n, 3k)``, ``num_keypoints`` uint32 ``(n, 1)``.

``get_class_indexing()`` (Detection) maps each category name to ``[id]``. MindSpore's
Panoptic and Captioning tasks are not read here (a clear error).
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

__all__ = ["CocoDataset"]

_COLUMNS = {"Detection": ["image", "bbox", "category_id", "iscrowd"],
            "Stuff": ["image", "segmentation", "iscrowd"],
            "Keypoint": ["image", "keypoints", "num_keypoints"]}
_NEEDS = {"Detection": ("bbox", "category_id"), "Stuff": ("segmentation",),
          "Keypoint": ("keypoints", "num_keypoints")}


def _segmentation_rows(ann, path) -> list[list[float]]:
    seg = ann["segmentation"]
    if ann.get("iscrowd", 0):
        if not isinstance(seg, dict) or "counts" not in seg:
            raise DatasetError(f"CocoDataset: {path}: annotation {ann.get('id')} is a crowd "
                               "but its segmentation has no RLE 'counts'")
        return [list(seg["counts"])]
    if not isinstance(seg, list):
        raise DatasetError(f"CocoDataset: {path}: annotation {ann.get('id')}: segmentation "
                           f"must be a list of polygons, got {type(seg).__name__}")
    return [list(p) for p in seg]


def _padded(rows: list[list[float]]) -> np.ndarray:
    width = max(len(r) for r in rows)
    out = np.full((len(rows), width), -1, np.float32)
    for i, r in enumerate(rows):
        out[i, :len(r)] = r
    return out


class CocoDataset(MappableSource, VisionBaseDataset):
    """COCO images and annotations (see the module doc).

    Raises:
        ValueError: an unknown or unsupported ``task``, a missing annotation file.
        DatasetError: the JSON is not COCO (a missing key, an annotation of an unknown
            image, an annotation without the task's fields); the message names the file.
        FileNotFoundError: an image file is missing (when its row is read).
    """

    def __init__(self, dataset_dir, annotation_file, task="Detection", num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None,
                 num_shards=None, shard_id=None, extra_metadata=False):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        if task not in _COLUMNS:
            raise ValueError(f"CocoDataset: task must be one of {', '.join(_COLUMNS)} here "
                             f"(MindSpore's Panoptic and Captioning are not read), got {task!r}")
        if extra_metadata:
            raise ValueError("CocoDataset: extra_metadata=True is not supported")
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"CocoDataset: {dataset_dir} is not a directory")
        if not os.path.isfile(annotation_file):
            raise ValueError(f"CocoDataset: the annotation file {annotation_file} does not exist")
        self.dataset_dir, self.task, self.decode = dataset_dir, task, decode
        path = annotation_file
        try:
            with open(path, encoding="utf-8") as f:
                coco = json.load(f)
            images, annotations = coco["images"], coco["annotations"]
            self._categories = {c["name"]: [c["id"]] for c in coco.get("categories", [])}
            by_image: dict = {}
            known = {im["id"] for im in images}
            for ann in annotations:
                if ann["image_id"] not in known:
                    raise DatasetError(f"CocoDataset: {path}: annotation {ann.get('id')} names "
                                       f"image {ann['image_id']}, which is not in 'images'")
                missing = [k for k in _NEEDS[task] if k not in ann]
                if missing:
                    raise DatasetError(f"CocoDataset: {path}: annotation {ann.get('id')} has "
                                       f"no {missing} (needed by task {task!r})")
                by_image.setdefault(ann["image_id"], []).append(ann)
            self._rows = [(im["file_name"], by_image[im["id"]]) for im in images
                          if im["id"] in by_image]
        except (json.JSONDecodeError, KeyError, TypeError) as e:
            raise DatasetError(f"CocoDataset: {path} is not a COCO annotation file: "
                               f"{type(e).__name__}: {e}") from None
        self._path = path

    def get_class_indexing(self) -> dict:
        if self.task != "Detection":
            raise NotImplementedError("CocoDataset: only 'Detection' supports "
                                      "get_class_indexing here")
        return dict(self._categories)

    def _length(self) -> int:
        return len(self._rows)

    def _column_names(self) -> list[str]:
        return list(_COLUMNS[self.task])

    def _image(self, name: str):
        path = os.path.join(self.dataset_dir, name)
        if not os.path.isfile(path):
            raise FileNotFoundError(f"CocoDataset: image {path} not found")
        with open(path, "rb") as f:
            data = f.read()
        return decode_image(data, path) if self.decode else np.frombuffer(data, np.uint8)

    def _read(self, indices: np.ndarray):
        cols = {n: np.empty(len(indices), dtype=object) for n in self._column_names()}
        for k, i in enumerate(indices):
            name, anns = self._rows[i]
            cols["image"][k] = self._image(name)
            crowd = np.array([[a.get("iscrowd", 0)] for a in anns], np.uint32)
            if self.task == "Detection":
                cols["bbox"][k] = np.array([a["bbox"] for a in anns], np.float32).reshape(-1, 4)
                cols["category_id"][k] = np.array([[a["category_id"]] for a in anns], np.uint32)
                cols["iscrowd"][k] = crowd
            elif self.task == "Stuff":
                cols["segmentation"][k] = _padded(
                    [r for a in anns for r in _segmentation_rows(a, self._path)])
                cols["iscrowd"][k] = crowd
            else:
                cols["keypoints"][k] = np.array([a["keypoints"] for a in anns], np.float32)
                cols["num_keypoints"][k] = np.array([[a["num_keypoints"]] for a in anns],
                                                    np.uint32)
        return batch_from_numpy(cols)
