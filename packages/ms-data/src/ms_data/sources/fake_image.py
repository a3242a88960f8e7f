"""``FakeImageDataset``: random images and labels, for trying a pipeline or timing a network
without data.

As MindSpore 2.10: columns ``image`` (uint8, ``image_size`` HWC) and ``label`` (uint32
scalar in ``[0, num_classes)``), the same rows for the same ``base_seed`` (each row drawn
from its own seed ``base_seed + index``, so any sampler sees the same row for an index).
The values are not MindSpore's (its generator is another).

>>> d = FakeImageDataset(num_images=2, image_size=(4, 4, 3), num_classes=5, shuffle=False)
>>> [(r["image"].shape, r["label"].dtype.name) for r in d.create_dict_iterator(output_numpy=True)]
[((4, 4, 3), 'uint32'), ((4, 4, 3), 'uint32')]
"""

from __future__ import annotations

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.sources.base import MappableSource

__all__ = ["FakeImageDataset"]

_INT_MAX = 2147483647


def _positive(name: str, value) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= _INT_MAX:
        raise ValueError(f"FakeImageDataset: {name} must be an int in [1, {_INT_MAX}], got "
                         f"{value!r}")
    return value


class FakeImageDataset(MappableSource, VisionBaseDataset):
    """``num_images`` random ``image_size`` images with labels (see the module doc)."""

    def __init__(self, num_images=1000, image_size=(224, 224, 3), num_classes=10, base_seed=0,
                 num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        self.num_images = _positive("num_images", num_images)
        self.num_classes = _positive("num_classes", num_classes)
        if not isinstance(image_size, (list, tuple)) or len(image_size) != 3:
            raise ValueError(f"FakeImageDataset: image_size should be a list or tuple of length "
                             f"3, but got {image_size!r}")
        self.image_size = tuple(_positive("image_size", int(d)) for d in image_size)
        if isinstance(base_seed, bool) or not isinstance(base_seed, int) or base_seed < 0:
            raise ValueError(f"FakeImageDataset: base_seed must be an int >= 0, got "
                             f"{base_seed!r}")
        self.base_seed = base_seed

    def _length(self) -> int:
        return self.num_images

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _read(self, indices: np.ndarray):
        images = np.empty((len(indices), *self.image_size), np.uint8)
        labels = np.empty(len(indices), np.uint32)
        for k, i in enumerate(indices):
            rng = np.random.default_rng(self.base_seed + int(i))
            images[k] = rng.integers(0, 256, self.image_size, dtype=np.uint8)
            labels[k] = rng.integers(0, self.num_classes)
        return batch_from_numpy({"image": images, "label": labels})
