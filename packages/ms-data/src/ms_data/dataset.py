"""``Dataset``: a node of a pipeline tree, and the MindSpore dataset API on it.

Every operation returns a new node whose child is ``self``; nothing runs until an iterator
is created. A node produces its rows as a stream of ``pa.RecordBatch`` chunks
(``_batches(ctx)``); after ``batch`` one chunk row is one batch. Subclasses implement:

- ``_batches(self, ctx) -> Iterator[pa.RecordBatch]``: this node's chunks for one epoch;
- ``_column_names(self) -> list[str]``;
- ``_num_rows(self) -> int | None``: rows per epoch, ``None`` when only iterating can tell.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from ms_data import config
from ms_data._recorded import Recorded

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = ["Dataset", "EpochContext"]


def _key_int(key) -> int:
    if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
        return int(key) & 0xFFFFFFFF
    return zlib.crc32(str(key).encode())


class EpochContext:
    """What a node needs to know while it produces one epoch: the seed, the epoch, its resources.

    ``rng(*keys)`` gives a numpy Generator that depends only on the seed, the epoch, the keys of
    this context (``derive`` adds keys, e.g. one per repeat) and the keys passed in — never on
    thread timing or the worker count — so a pipeline gives the same rows in every run.
    """

    def __init__(self, epoch: int = 0, seed: int | None = None, keys: tuple = (),
                 resources=None):
        self.epoch = epoch
        self.seed = config.pipeline_seed() if seed is None else seed
        self.keys = tuple(keys)
        self.resources = resources

    def rng(self, *keys) -> np.random.Generator:
        words = [self.seed & 0xFFFFFFFF, self.epoch & 0xFFFFFFFF]
        words += [_key_int(k) for k in (*self.keys, *keys)]
        return np.random.default_rng(words)

    def derive(self, *keys) -> EpochContext:
        """A context for a sub-stream (one repetition, one zip input) sharing the resources."""
        return EpochContext(self.epoch, self.seed, self.keys + keys, self.resources)

    def pool(self, owner, kind: str, workers: int, fn):
        """The pool of ``owner`` running ``fn`` (one per iterator); None when ``workers <= 1``.

        ``kind`` is ``"thread"`` or ``"process"``; see ``ms_data.workers``.
        """
        if self.resources is None or workers <= 1:
            return None
        return self.resources.pool(owner, kind, workers, fn)


class Dataset(Recorded):
    """A dataset pipeline node (MindSpore's ``mindspore.dataset.Dataset``)."""

    def __init__(self, children=(), num_parallel_workers: int | None = None):
        self.children = list(children)
        if num_parallel_workers is not None:
            if not isinstance(num_parallel_workers, int) or num_parallel_workers < 1:
                raise ValueError(f"num_parallel_workers must be a positive int, "
                                 f"got {num_parallel_workers!r}")
        self.num_parallel_workers = num_parallel_workers

    # -- subclass protocol ------------------------------------------------------------------
    def _batches(self, ctx: EpochContext) -> Iterator[pa.RecordBatch]:
        raise NotImplementedError(f"{type(self).__name__} does not implement _batches")

    def _column_names(self) -> list[str]:
        return self.children[0]._column_names()

    def _num_rows(self) -> int | None:
        return self.children[0]._num_rows()

    @property
    def _depth(self) -> int:
        """Distance from the deepest leaf: a per-node rng key stable across runs."""
        return 1 + max((c._depth for c in self.children), default=0)

    def _open(self, ctx: EpochContext) -> None:
        """Called on the iterator's thread before it starts: create process pools here."""

    def _workers(self) -> int:
        n = self.num_parallel_workers
        return config.get_num_parallel_workers() if n is None else n

    def _walk(self):
        yield self
        for c in self.children:
            yield from c._walk()

    # -- operations -------------------------------------------------------------------------
    def map(self, operations, input_columns=None, output_columns=None, column_order=None,
            num_parallel_workers=None, python_multiprocessing=False, cache=None, callbacks=None,
            max_rowsize=None, offload=None):
        """Apply ``operations`` (a transform or a list, run in order) to ``input_columns``."""
        from ms_data.ops.map import MapDataset
        if column_order is not None:
            raise TypeError("map: column_order was removed in MindSpore 2.x; use project()")
        merged = None if callbacks or cache is not None else MapDataset.merged(
            self, operations, input_columns, output_columns, num_parallel_workers,
            python_multiprocessing)
        if merged is not None:
            return merged
        return MapDataset(self, operations, input_columns, output_columns, num_parallel_workers,
                          python_multiprocessing, callbacks, cache)

    def batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
              per_batch_map=None, input_columns=None, output_columns=None,
              python_multiprocessing=False, max_rowsize=None, pad_info=None, **kwargs):
        """Stack ``batch_size`` consecutive rows into one row of every column."""
        from ms_data.ops.batch import BatchDataset
        if "column_order" in kwargs:
            raise TypeError("batch: column_order was removed in MindSpore 2.x; use project()")
        if kwargs:
            raise TypeError(f"batch: unexpected arguments {sorted(kwargs)}")
        return BatchDataset(self, batch_size, drop_remainder, num_parallel_workers, per_batch_map,
                            input_columns, output_columns, pad_info, python_multiprocessing)

    def padded_batch(self, batch_size, drop_remainder=False, num_parallel_workers=None,
                     pad_info=None):
        """``batch`` with padding (MindSpore 2.3+ spelling)."""
        return self.batch(batch_size, drop_remainder, num_parallel_workers,
                          pad_info=pad_info if pad_info is not None else {})

    def bucket_batch_by_length(self, column_names, bucket_boundaries, bucket_batch_sizes,
                               element_length_function=None, pad_info=None,
                               pad_to_bucket_boundary=False, drop_remainder=False):
        """Batch rows of similar length together (one bucket per boundary interval)."""
        from ms_data.ops.bucket import BucketBatchByLengthDataset
        return BucketBatchByLengthDataset(self, column_names, bucket_boundaries,
                                          bucket_batch_sizes, element_length_function, pad_info,
                                          pad_to_bucket_boundary, drop_remainder)

    def shuffle(self, buffer_size):
        """Shuffle through a buffer of ``buffer_size`` rows (a full shuffle when it holds all)."""
        from ms_data.ops.shuffle import ShuffleDataset
        return ShuffleDataset(self, buffer_size)

    def repeat(self, count=None):
        """Repeat the rows ``count`` times; ``None`` or -1 repeats forever."""
        from ms_data.ops.repeat import RepeatDataset
        return RepeatDataset(self, count)

    def take(self, count=-1):
        """The first ``count`` rows (-1: all)."""
        from ms_data.ops.repeat import TakeDataset
        return TakeDataset(self, count)

    def skip(self, count):
        """All rows but the first ``count``."""
        from ms_data.ops.repeat import SkipDataset
        return SkipDataset(self, count)

    def zip(self, datasets):
        """Rows side by side with those of ``datasets`` (a Dataset or tuple of them)."""
        from ms_data.ops.combine import ZipDataset
        if isinstance(datasets, Dataset):
            datasets = (datasets,)
        return ZipDataset((self, *datasets))

    def concat(self, datasets):
        """The rows of ``self`` followed by those of ``datasets`` (a Dataset or list)."""
        from ms_data.ops.combine import ConcatDataset
        if isinstance(datasets, Dataset):
            datasets = [datasets]
        return ConcatDataset([self, *datasets])

    def __add__(self, other):
        return self.concat(other)

    def project(self, columns):
        """Keep only ``columns``, in that order."""
        from ms_data.ops.columns import ProjectDataset
        return ProjectDataset(self, columns)

    def rename(self, input_columns, output_columns):
        """Rename ``input_columns`` to ``output_columns``."""
        from ms_data.ops.columns import RenameDataset
        return RenameDataset(self, input_columns, output_columns)

    def filter(self, predicate, input_columns=None, num_parallel_workers=None):
        """Keep the rows for which ``predicate(*columns)`` is true."""
        from ms_data.ops.filter import FilterDataset
        return FilterDataset(self, predicate, input_columns, num_parallel_workers)

    def split(self, sizes, randomize=True):
        """Split into datasets of ``sizes`` rows (ints) or fractions (floats summing to 1)."""
        from ms_data.ops.split import split
        return split(self, sizes, randomize)

    # -- information ------------------------------------------------------------------------
    def get_dataset_size(self) -> int:
        """Rows (batches after ``batch``) per epoch; iterates the pipeline when it must."""
        n = self._num_rows()
        if n is None:
            from ms_data.iterators import count_rows
            n = count_rows(self)
        return n

    def get_batch_size(self) -> int:
        for node in self._walk():
            size = getattr(node, "_batch_size_info", None)
            if size is not None:
                return size
        return 1

    def get_repeat_count(self) -> int:
        for node in self._walk():
            if hasattr(node, "_repeat_count_info"):
                return node._repeat_count_info
        return 1

    def get_col_names(self) -> list[str]:
        return list(self._column_names())

    def output_shapes(self, estimate=False) -> list[list[int]]:
        """Shapes of the first row of every column (MindSpore runs the pipeline for these)."""
        from ms_data.iterators import first_row
        return [list(v.shape) for v in first_row(self)]

    def output_types(self) -> list[np.dtype]:
        """Numpy dtypes of the first row of every column."""
        from ms_data.iterators import first_row
        return [v.dtype for v in first_row(self)]

    # -- iterators --------------------------------------------------------------------------
    def create_dict_iterator(self, num_epochs=-1, output_numpy=False, do_copy=True):
        """Iterator of ``{column: Tensor}`` rows, ``num_epochs`` passes (-1: unlimited)."""
        from ms_data.iterators import DictIterator
        return DictIterator(self, num_epochs, output_numpy)

    def create_tuple_iterator(self, columns=None, num_epochs=-1, output_numpy=False,
                              do_copy=True):
        """Iterator of ``[Tensor, ...]`` rows in column order (or ``columns`` order)."""
        from ms_data.iterators import TupleIterator
        return TupleIterator(self, columns, num_epochs, output_numpy)

    def __iter__(self):
        return iter(self.create_tuple_iterator(num_epochs=1))

    def to_json(self, filename=""):
        """The pipeline's description (``ds.serialize``), also written to ``filename``."""
        from ms_data.serializer import serialize
        return serialize(self, filename)
