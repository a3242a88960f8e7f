"""``mindspore.dataset.engine``: the pipeline machinery under ``mindspore.dataset``.

The node classes of the operations (``MapDataset``, ``BatchDataset``...), iterators,
samplers, callbacks and serialization; any other name (the sources) is looked up in
``ms_data`` itself, as MindSpore's ``engine`` holds them too.

>>> from ms_data import engine
>>> engine.BatchDataset.__name__, engine.MnistDataset.__name__
('BatchDataset', 'MnistDataset')
"""

import ms_data
from ms_data.bases import (
    AudioBaseDataset,
    MappableDataset,
    SourceDataset,
    TextBaseDataset,
    UnionBaseDataset,
    VisionBaseDataset,
)
from ms_data.callback import DSCallback, WaitedDSCallback
from ms_data.dataset import Dataset
from ms_data.iterators import DictIterator, TupleIterator
from ms_data.ops.batch import BatchDataset, BatchInfo
from ms_data.ops.bucket import BucketBatchByLengthDataset
from ms_data.ops.columns import ProjectDataset, RenameDataset
from ms_data.ops.combine import ConcatDataset, ZipDataset
from ms_data.ops.filter import FilterDataset
from ms_data.ops.map import MapDataset
from ms_data.ops.repeat import RepeatDataset, SkipDataset, TakeDataset
from ms_data.ops.shuffle import ShuffleDataset
from ms_data.samplers import (
    BuiltinSampler,
    DistributedSampler,
    IterSampler,
    PKSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    SubsetSampler,
    WeightedRandomSampler,
)
from ms_data.serializer import compare, deserialize, serialize, show

__all__ = [
    "Dataset", "SourceDataset", "MappableDataset", "VisionBaseDataset", "TextBaseDataset",
    "AudioBaseDataset", "UnionBaseDataset", "DSCallback", "WaitedDSCallback", "DictIterator",
    "TupleIterator", "BatchDataset", "BatchInfo", "BucketBatchByLengthDataset",
    "ProjectDataset", "RenameDataset", "ConcatDataset", "ZipDataset", "FilterDataset",
    "MapDataset", "RepeatDataset", "SkipDataset", "TakeDataset", "ShuffleDataset",
    "BuiltinSampler", "Sampler", "IterSampler", "PKSampler", "SequentialSampler",
    "RandomSampler", "DistributedSampler", "SubsetRandomSampler", "SubsetSampler",
    "WeightedRandomSampler", "serialize", "deserialize", "show", "compare",
]


def __getattr__(name):
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(ms_data, name)
