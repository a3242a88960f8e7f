"""``mindspore.dataset.dataloader``: PyTorch-style ``DataLoader`` over Python datasets.

>>> import numpy as np
>>> from ms_data.dataloader import DataLoader, TensorDataset
>>> data = TensorDataset(np.arange(5), np.arange(5) * 10)
>>> [[t.asnumpy().tolist() for t in batch] for batch in DataLoader(data, batch_size=2)]
[[[0, 1], [0, 10]], [[2, 3], [20, 30]], [[4], [40]]]
"""

from ms_data.dataloader._workers import get_worker_info
from ms_data.dataloader.collate import default_collate, default_convert
from ms_data.dataloader.dataset import Dataset, IterableDataset, TensorDataset
from ms_data.dataloader.loader import DataLoader
from ms_data.dataloader.sampler import (
    BatchSampler,
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
)

__all__ = ["DataLoader", "Dataset", "IterableDataset", "TensorDataset", "Sampler",
           "SequentialSampler", "RandomSampler", "BatchSampler", "DistributedSampler",
           "default_collate", "default_convert", "get_worker_info"]
