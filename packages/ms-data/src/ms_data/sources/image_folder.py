"""Images in a tree of class folders: ``dataset_dir/<class>/<file>``."""

from __future__ import annotations

import io
import os
import struct

import numpy as np

from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources.base import MappableSource

__all__ = ["ImageFolderDataset", "decode_image", "list_image_folder"]


def list_image_folder(dataset_dir, extensions=None, class_indexing=None):
    """Files and labels of an image folder tree, in MindSpore's order.

    Classes are the sub-folders sorted by name (labelled 0, 1, ... unless ``class_indexing`` maps
    folder names to labels, and then only those folders are read); files are sorted by name
    within each class. ``extensions`` (e.g. ``[".jpg", ".png"]``, matched case-sensitively, as
    MindSpore does) keeps only files that end in one of them; None keeps every file.

    Returns:
        ``(paths, labels)``: a list of file paths and an int32 array.

    Raises:
        ValueError: ``dataset_dir`` is not a directory, or a folder named in ``class_indexing``
            does not exist.
    """
    if not os.path.isdir(dataset_dir):
        raise ValueError(f"ImageFolderDataset: {dataset_dir} is not a directory")
    folders = sorted(e.name for e in os.scandir(dataset_dir) if e.is_dir())
    if class_indexing is None:
        labels_of = {name: i for i, name in enumerate(folders)}
    else:
        missing = sorted(set(class_indexing) - set(folders))
        if missing:
            raise ValueError(f"ImageFolderDataset: class_indexing names folders {missing} that "
                             f"are not in {dataset_dir} (folders: {folders})")
        labels_of = {name: int(class_indexing[name]) for name in folders if name in class_indexing}
    suffixes = None if extensions is None else tuple(extensions)
    paths, labels = [], []
    for name, label in labels_of.items():
        folder = os.path.join(dataset_dir, name)
        files = sorted(e.name for e in os.scandir(folder) if e.is_file())
        for file in files:
            if suffixes is None or file.endswith(suffixes):
                paths.append(os.path.join(folder, file))
                labels.append(label)
    return paths, np.asarray(labels, dtype=np.int32)


def decode_image(data: bytes, path: str = "<bytes>", to_pil: bool = False):
    """Decode an encoded image (JPEG, PNG, BMP, ... anything Pillow reads) to RGB HWC uint8.

    ``to_pil=True`` returns the RGB PIL image instead (``vision.Decode(to_pil=True)``).

    Raises:
        DatasetError: Pillow cannot read it (corrupt, truncated, unknown format, or over
            Pillow's decompression-bomb limit); the message names ``path``.
    """
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            rgb = image.convert("RGB")
        return rgb if to_pil else np.asarray(rgb)
    # Pillow reports malformed files with all of these, not only OSError.
    except (OSError, SyntaxError, ValueError, EOFError, struct.error,
            Image.DecompressionBombError) as err:
        raise DatasetError(f"cannot decode {path} as an image: {type(err).__name__}: "
                           f"{err}") from None


def _read_bytes(path: str) -> np.ndarray:
    with open(path, "rb") as f:
        return np.frombuffer(f.read(), dtype=np.uint8)


class ImageFolderDataset(MappableSource, VisionBaseDataset):
    """Images from ``dataset_dir/<class>/<file>``; one label per class folder.

    Columns: ``image`` and ``label`` (int32 scalar, as MindSpore 2.10 yields). ``image`` holds the
    file's encoded bytes as a 1-D uint8 array (decode later with ``vision.Decode()``) or, with
    ``decode=True``, the RGB image as ``(H, W, 3)`` uint8 decoded by Pillow. Rows follow the order
    of :func:`list_image_folder`. The tree is listed when the dataset is made; files are read
    when their rows are.

    Raises:
        ValueError: see :func:`list_image_folder`.
        DatasetError: a file that cannot be decoded (``decode=True``) fails when read, naming
            the file.
    """

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, extensions=None, class_indexing=None, decode=False,
                 num_shards=None, shard_id=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        self.dataset_dir = dataset_dir
        self.decode = decode
        self._paths, self._labels = list_image_folder(dataset_dir, extensions, class_indexing)

    def _length(self) -> int:
        return len(self._paths)

    def _sample_labels(self, column: str) -> np.ndarray:
        if column != "label":
            raise ValueError(f"ImageFolderDataset: PKSampler's class_column {column!r} is not "
                             f"a column; the labels are in 'label'")
        return self._labels

    def _column_names(self) -> list[str]:
        return ["image", "label"]

    def _read(self, indices: np.ndarray):
        images = np.empty(len(indices), dtype=object)
        for row, i in enumerate(indices):
            path = self._paths[i]
            data = _read_bytes(path)
            images[row] = decode_image(data, path) if self.decode else data
        return batch_from_numpy({"image": images, "label": self._labels[indices]})
