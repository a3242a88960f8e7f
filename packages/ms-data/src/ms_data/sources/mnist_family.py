"""The datasets that ship in MNIST's IDX format: Fashion-MNIST, Kuzushiji-MNIST (KMNIST)
and EMNIST. They read exactly as ``MnistDataset`` does (the same columns, usages, checks);
only EMNIST's file names differ (``emnist-<name>-train-images-idx3-ubyte``)."""

from __future__ import annotations

from ms_data.sources.mnist import _FILES, MnistDataset

__all__ = ["FashionMnistDataset", "KMnistDataset", "EMnistDataset"]


class FashionMnistDataset(MnistDataset):
    """Fashion-MNIST (28 x 28 clothing images, 10 classes) in MNIST's four IDX files."""


class KMnistDataset(MnistDataset):
    """Kuzushiji-MNIST (28 x 28 cursive Japanese characters, 10 classes) in MNIST's four
    IDX files."""


_EMNIST_NAMES = ("byclass", "bymerge", "balanced", "letters", "digits", "mnist")


class EMnistDataset(MnistDataset):
    """EMNIST split ``name`` (``"byclass"``, ``"bymerge"``, ``"balanced"``, ``"letters"``,
    ``"digits"`` or ``"mnist"``), from ``emnist-<name>-{train,test}-{images,labels}-idx?-ubyte``
    files; images are kept as stored (EMNIST's are transposed relative to MNIST's)."""

    def __init__(self, dataset_dir, name, usage=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None):
        if name not in _EMNIST_NAMES:
            raise ValueError(f"EMnistDataset: name must be one of {', '.join(_EMNIST_NAMES)}, "
                             f"got {name!r}")
        self.name = name
        super().__init__(dataset_dir, usage, num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)

    def _file_names(self, part: str) -> tuple[str, str]:
        images, labels = _FILES[part]
        # EMNIST names its test files "test", not MNIST's "t10k"
        return tuple(f"emnist-{self.name}-" + f.replace("t10k", "test") for f in (images, labels))
