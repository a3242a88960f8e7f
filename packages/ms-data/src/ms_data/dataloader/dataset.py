"""Map-style and iterable datasets for ``DataLoader`` (PyTorch's ``torch.utils.data`` shapes)."""

from __future__ import annotations

import numpy as np

__all__ = ["Dataset", "IterableDataset", "TensorDataset"]


class Dataset:
    """A map-style dataset: implement ``__getitem__(index)`` and ``__len__``."""

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} must implement __getitem__")


class IterableDataset(Dataset):
    """A stream of samples: implement ``__iter__``. With ``num_workers > 0`` every worker
    iterates its own copy; split the work with ``get_worker_info()``."""

    def __iter__(self):
        raise NotImplementedError(f"{type(self).__name__} must implement __iter__")


class TensorDataset(Dataset):
    """Rows of tensors (or arrays) that share their first dimension."""

    def __init__(self, *tensors):
        sizes = {int(t.shape[0]) for t in tensors}
        if len(sizes) > 1:
            raise ValueError(f"TensorDataset: size mismatch between tensors: "
                             f"{[tuple(t.shape) for t in tensors]}")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return int(self.tensors[0].shape[0]) if self.tensors else 0


def as_array(x) -> np.ndarray:
    return x.asnumpy() if hasattr(x, "asnumpy") else np.asarray(x)
