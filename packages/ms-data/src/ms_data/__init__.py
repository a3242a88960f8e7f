"""ms-data: MindSpore's dataset API (``mindspore.dataset``) on pyarrow RecordBatches.

Light to import: sources, operations and transforms load their modules on first use.

>>> import numpy as np, ms_data as ds
>>> [int(x[0]) for x in ds.NumpySlicesDataset([1, 2, 3], shuffle=False)]
[1, 2, 3]
"""

from importlib import import_module

from ms_data import config
from ms_data.dataset import Dataset, EpochContext
from ms_data.errors import DatasetError, PipelineError
from ms_data.samplers import (
    DistributedSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    SubsetSampler,
    WeightedRandomSampler,
)

__version__ = "0.1.0"

# Public name -> module that defines it; imported on first attribute access (PEP 562).
_LAZY = {
    "GeneratorDataset": "ms_data.sources.generator",
    "NumpySlicesDataset": "ms_data.sources.generator",
    "MnistDataset": "ms_data.sources.mnist",
    "FashionMnistDataset": "ms_data.sources.mnist_family",
    "KMnistDataset": "ms_data.sources.mnist_family",
    "EMnistDataset": "ms_data.sources.mnist_family",
    "QMnistDataset": "ms_data.sources.qmnist",
    "Cifar10Dataset": "ms_data.sources.cifar",
    "Cifar100Dataset": "ms_data.sources.cifar100",
    "ImageFolderDataset": "ms_data.sources.image_folder",
    "CSVDataset": "ms_data.sources.csv",
    "TextFileDataset": "ms_data.sources.text_file",
    "Shuffle": "ms_data.sources.text_file",
    "TFRecordDataset": "ms_data.sources.tfrecord",
    "Schema": "ms_data.sources.schema",
    "VOCDataset": "ms_data.sources.voc",
    "CocoDataset": "ms_data.sources.coco",
    "CelebADataset": "ms_data.sources.celeba",
    "PaddedDataset": "ms_data.sources.padded",
    "FakeImageDataset": "ms_data.sources.fake_image",
    "MindDataset": "ms_data.sources.records",
    "FileWriter": "ms_data.sources.records",
    "ParquetDataset": "ms_data.sources.arrow_files",
    "ArrowDataset": "ms_data.sources.arrow_files",
    "HFArrowDataset": "ms_data.sources.arrow_files",
    "MappableSource": "ms_data.sources.base",
    "zip": "ms_data.ops.combine",
    # MindSpore re-exports these settings at the top of mindspore.dataset
    **dict.fromkeys(("set_seed", "get_seed", "get_num_parallel_workers",
                     "get_multiprocessing_start_method"), "ms_data.config"),
    **dict.fromkeys(("get_callback_timeout", "get_debug_mode", "get_enable_watchdog",
                     "get_error_samples_mode", "ErrorSamplesMode",
                     "get_multiprocessing_timeout_interval", "get_video_backend",
                     "set_video_backend"), "ms_data.config"),
    **dict.fromkeys(("SourceDataset", "MappableDataset", "VisionBaseDataset", "TextBaseDataset",
                     "AudioBaseDataset", "UnionBaseDataset"), "ms_data.bases"),
    **dict.fromkeys(("BuiltinSampler", "IterSampler", "PKSampler"), "ms_data.samplers"),
    "RandomDataset": "ms_data.sources.random_data",
    "ManifestDataset": "ms_data.sources.manifest",
    "SBDataset": "ms_data.sources.sbd",
    "DatasetCache": "ms_data.cache",
    "LineReader": "ms_data.utils",
    "utils": "ms_data.utils",
    **dict.fromkeys(("serialize", "deserialize", "show", "compare"), "ms_data.serializer"),
    "text": "ms_data.text",
    "core": "ms_data.core",
    "dataloader": "ms_data.dataloader",
    "engine": "ms_data.engine",
    "DSCallback": "ms_data.callback",
    "WaitedDSCallback": "ms_data.callback",
    "DebugHook": "ms_data.debug",
    "DictIterator": "ms_data.iterators",
    "TupleIterator": "ms_data.iterators",
    "BatchInfo": "ms_data.ops.batch",
    "callback": "ms_data.callback",
    "debug": "ms_data.debug",
    "vision": "ms_data.vision",
    "transforms": "ms_data.transforms",
    "bundled": "ms_data.bundled",
}

__all__ = [
    "config", "Dataset", "DatasetError", "EpochContext", "PipelineError", "Sampler",
    "SequentialSampler", "RandomSampler", "DistributedSampler", "SubsetRandomSampler",
    "SubsetSampler", "WeightedRandomSampler",
    *_LAZY,
]


def __getattr__(name):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'ms_data' has no attribute {name!r}")
    mod = import_module(module)
    value = mod if module.endswith("." + name) else getattr(mod, name)
    globals()[name] = value
    return value
