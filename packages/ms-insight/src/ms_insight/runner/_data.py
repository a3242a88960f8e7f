"""Batches of ``(images, labels[, masks])`` as numpy arrays, from a microspore dataset
(anything with ``create_tuple_iterator``) or any iterable of tuples."""

from __future__ import annotations

import numpy as np

__all__ = ["batches"]


def _np(v):
    return v.asnumpy() if hasattr(v, "asnumpy") else np.asarray(v)


def batches(dataset):
    """Yield ``(images (N, C, H, W) float32, labels (N,) int64, masks (N, H, W) bool or
    None)``; a dataset of single samples is batched one by one."""
    if hasattr(dataset, "create_tuple_iterator"):
        rows = dataset.create_tuple_iterator(num_epochs=1, output_numpy=True)
    else:
        rows = dataset
    for k, row in enumerate(rows):
        if not isinstance(row, (tuple, list)) or len(row) not in (2, 3):
            raise ValueError(f"ImageClassificationRunner: each dataset row must be (images, "
                             f"labels) or (images, labels, masks); row {k} is a "
                             f"{type(row).__name__}")
        images = _np(row[0]).astype(np.float32)
        labels = _np(row[1])
        if images.ndim == 3:
            images, labels = images[None], np.reshape(labels, (1,))
        if images.ndim != 4:
            raise ValueError(f"ImageClassificationRunner: images must be (N, C, H, W), row {k} "
                             f"has shape {images.shape}")
        labels = labels.reshape(-1).astype(np.int64)
        if len(labels) != len(images):
            raise ValueError(f"ImageClassificationRunner: row {k} has {len(images)} images and "
                             f"{len(labels)} labels (one int label per image expected)")
        masks = None
        if len(row) == 3:
            masks = _np(row[2]).astype(bool)
            if masks.ndim == len(images.shape) - 1 and masks.shape[0] != len(images):
                masks = masks[None]
            if masks.ndim == 4:
                masks = masks[:, 0]
            if masks.shape != (len(images),) + images.shape[2:]:
                raise ValueError(f"ImageClassificationRunner: masks of row {k} must be (N, 1, H, "
                                 f"W) like the images {images.shape}, got {masks.shape}")
        yield images, labels, masks
