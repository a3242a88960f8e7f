"""``SBDataset``: the Semantic Boundaries Dataset from its local files.

``dataset_dir`` holds ``img/<name>.jpg``, ``cls/<name>.mat`` (MATLAB files with a
``GTcls`` struct) and the lists ``train.txt``, ``val.txt``, ``train_noval.txt``. As
MindSpore 2.10: columns ``image`` (the JPEG's bytes, or RGB HWC uint8 with ``decode``)
and ``task``: for ``"Boundaries"`` the 20 class boundary maps stacked to ``(20, H, W)``,
for ``"Segmentation"`` the ``(H, W)`` class map. ``usage="all"`` is train then val.
The .mat files are read with SciPy (``pip install scipy``), imported on first use.
"""

from __future__ import annotations

import os

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources.base import MappableSource
from ms_data.sources.image_folder import decode_image

__all__ = ["SBDataset"]

_TASKS = ("Boundaries", "Segmentation")
_USAGES = ("train", "val", "train_noval", "all")
_CATEGORIES = 20


def _loadmat(path: str):
    try:
        from scipy.io import loadmat
    except ImportError:
        raise ImportError("SBDataset reads MATLAB .mat files with SciPy; install it with "
                          "`pip install scipy`") from None
    try:
        return loadmat(path)
    except (OSError, ValueError) as e:
        raise DatasetError(f"SBDataset: cannot read {path}: {e}") from None


class SBDataset(MappableSource, VisionBaseDataset):
    """SBD images with their boundary or segmentation maps (see the module doc)."""

    _read_kind = "process"  # loadmat and sparse-to-dense conversions hold the GIL

    def __init__(self, dataset_dir, task="Boundaries", usage="all", num_samples=None,
                 num_parallel_workers=1, shuffle=None, decode=None, sampler=None,
                 num_shards=None, shard_id=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"The folder {dataset_dir} does not exist or is not a directory "
                             f"or permission denied!")
        if task not in _TASKS:
            raise ValueError(f"Input task is not within the valid set of {list(_TASKS)}.")
        if usage not in _USAGES:
            raise ValueError(f"Input usage is not within the valid set of {list(_USAGES)}.")
        self.dataset_dir, self.task, self.usage = dataset_dir, task, usage
        self.decode = bool(decode)
        names = []
        for part in ("train", "val") if usage == "all" else (usage,):
            path = os.path.join(dataset_dir, part + ".txt")
            if not os.path.exists(path):
                raise FileNotFoundError(f"SBDataset: {path} not found")
            with open(path, encoding="utf-8") as f:
                names += [line.strip() for line in f if line.strip()]
        self._images = [os.path.join(dataset_dir, "img", n + ".jpg") for n in names]
        self._mats = [os.path.join(dataset_dir, "cls", n + ".mat") for n in names]

    def _length(self) -> int:
        return len(self._images)

    def _column_names(self) -> list[str]:
        return ["image", "task"]

    def _label(self, path: str) -> np.ndarray:
        gt = _loadmat(path)["GTcls"][0][self.task][0]
        if self.task == "Segmentation":
            return np.asarray(gt)
        return np.stack([gt[i][0].toarray() for i in range(_CATEGORIES)])

    def _read(self, indices: np.ndarray):
        images = np.empty(len(indices), dtype=object)
        labels = np.empty(len(indices), dtype=object)
        for row, i in enumerate(indices):
            path = self._images[i]
            try:
                data = np.fromfile(path, dtype=np.uint8)
            except OSError as e:
                raise DatasetError(f"SBDataset: cannot read {path}: {e}") from None
            images[row] = decode_image(data.tobytes(), path) if self.decode else data
            labels[row] = self._label(self._mats[i])
        return batch_from_numpy({"image": images, "task": labels})
