"""Any Parquet or Arrow IPC file, and Hugging Face ``datasets`` Arrow caches, as datasets.

Arrow data needs no conversion: rows are taken from the files' own columns and passed on as
RecordBatches. Arrow IPC files (and streams) are memory-mapped, so nothing is copied until rows are
taken. A Hugging Face cache directory (``Dataset.save_to_disk`` output or a
``~/.cache/huggingface/datasets/...`` build folder) holds ``*.arrow`` IPC *streams* plus
``dataset_info.json`` (the features) and, for ``save_to_disk``, ``state.json`` (the file list);
it is read directly, without the ``datasets`` package.
"""

from __future__ import annotations

import glob
import json
import os

import numpy as np
import pyarrow as pa

from ms_data.bases import UnionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources._once import Once
from ms_data.sources.base import MappableSource

__all__ = ["ArrowDataset", "HFArrowDataset", "ParquetDataset", "read_arrow_file"]

_ARROW_MAGIC = b"ARROW1"


def _files(dataset_files, kind: str) -> list[str]:
    files = [dataset_files] if isinstance(dataset_files, (str, os.PathLike)) else dataset_files
    files = [os.fspath(f) for f in files]
    if not files:
        raise ValueError(f"{kind}: dataset_files is empty")
    for path in files:
        if not os.path.isfile(path):
            raise FileNotFoundError(f"{kind}: {path} not found")
    return files


def read_arrow_file(path) -> pa.Table:
    """An Arrow IPC file or stream, memory-mapped.

    Raises:
        DatasetError: the file is neither, or is corrupt; the message names it.
    """
    path = os.fspath(path)
    try:
        source = pa.memory_map(path, "r")
        if source.read(6) == _ARROW_MAGIC:
            table = pa.ipc.open_file(source).read_all()
        else:
            source.seek(0)
            table = pa.ipc.open_stream(source).read_all()
        # A corrupt file can hold offsets past its buffers: reading those would crash.
        table.validate(full=True)
        table.column_names  # noqa: B018 -- names that are not UTF-8 fail here, inside the guard
        return table
    except FileNotFoundError:
        raise
    except (pa.ArrowException, OSError, UnicodeDecodeError) as err:
        raise DatasetError(f"{path}: not an Arrow IPC file or stream (or corrupt): "
                           f"{type(err).__name__}: {err}") from None


def _read_parquet(path) -> pa.Table:
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
        table.validate(full=True)
        table.column_names  # noqa: B018 -- names that are not UTF-8 fail here, inside the guard
        return table
    except FileNotFoundError:
        raise
    except (pa.ArrowException, OSError, UnicodeDecodeError) as err:
        raise DatasetError(f"{path}: not a Parquet file (or corrupt): {type(err).__name__}: "
                           f"{err}") from None


class _TableSource(MappableSource, UnionBaseDataset):
    """A source over one Arrow table made from files on first use."""

    _kind = "TableSource"

    def __init__(self, files, columns_list, **options):
        super().__init__(**options)
        self.files = files
        self.columns_list = None if columns_list is None else list(columns_list)
        self._table = Once()

    def _read_file(self, path) -> pa.Table:
        raise NotImplementedError

    def _prepare(self, table: pa.Table) -> pa.Table:
        return table

    def _load(self) -> pa.Table:
        tables = [self._prepare(self._read_file(p)) for p in self.files]
        for path, table in zip(self.files[1:], tables[1:]):
            if table.schema.remove_metadata() != tables[0].schema.remove_metadata():
                raise DatasetError(f"{self._kind}: {path} has schema {table.schema}, but "
                                 f"{self.files[0]} has {tables[0].schema}")
        table = pa.concat_tables(tables) if len(tables) > 1 else tables[0]
        if self.columns_list is not None:
            unknown = [c for c in self.columns_list if c not in table.column_names]
            if unknown:
                raise ValueError(f"{self._kind}: columns_list names {unknown}, not in "
                                 f"{self.files[0]} (columns: {table.column_names})")
            table = table.select(self.columns_list)
        return table

    def _data(self) -> pa.Table:
        return self._table.get(self._load)

    def _length(self) -> int:
        return self._data().num_rows

    def _column_names(self) -> list[str]:
        return self._data().column_names

    def _read(self, indices: np.ndarray):
        taken = self._data().take(pa.array(indices, type=pa.int64()))
        return pa.RecordBatch.from_arrays([c.combine_chunks() for c in taken.columns],
                                          names=taken.column_names)


class ParquetDataset(_TableSource):
    """Rows of one or more Parquet files, with their own columns and types.

    ``columns_list`` picks and orders columns. Fixed-shape tensor columns
    (``pa.fixed_shape_tensor``) come back as numpy arrays per row; strings and binaries as
    ``str``/``bytes``.

    Raises:
        FileNotFoundError: a file is missing.
        DatasetError: a file is not Parquet or is corrupt, or files disagree on the schema.
        ValueError: ``columns_list`` names an unknown column.
    """

    _kind = "ParquetDataset"

    def __init__(self, dataset_files, columns_list=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None):
        super().__init__(_files(dataset_files, self._kind), columns_list,
                         num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)

    def _read_file(self, path) -> pa.Table:
        return _read_parquet(path)


class ArrowDataset(_TableSource):
    """Rows of one or more Arrow IPC files or streams (``.arrow``/``.feather`` v2), memory-mapped.

    Same options and errors as :class:`ParquetDataset`.
    """

    _kind = "ArrowDataset"

    def __init__(self, dataset_files, columns_list=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None):
        super().__init__(_files(dataset_files, self._kind), columns_list,
                         num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)

    def _read_file(self, path) -> pa.Table:
        return read_arrow_file(path)


def _hf_files(dataset_dir: str, split) -> list[str]:
    state = os.path.join(dataset_dir, "state.json")
    if os.path.isfile(state):
        with open(state) as f:
            names = [d["filename"] for d in json.load(f).get("_data_files", [])]
        if not names:
            raise ValueError(f"HFArrowDataset: {state} lists no _data_files")
        files = [os.path.join(dataset_dir, n) for n in names]
        missing = [p for p in files if not os.path.isfile(p)]
        if missing:
            raise FileNotFoundError(f"HFArrowDataset: {missing[0]} (listed in {state}) not found")
        return files
    files = sorted(glob.glob(os.path.join(dataset_dir, "*.arrow")))
    if split is not None:
        # Builder caches name their files "<builder>-<split>.arrow" or
        # "<builder>-<split>-00000-of-00003.arrow".
        files = [p for p in files
                 if os.path.basename(p)[:-6].split("-")[1:2] == [split]]
    if not files:
        wanted = "" if split is None else f" for split {split!r}"
        raise FileNotFoundError(f"HFArrowDataset: no .arrow files{wanted} in {dataset_dir}")
    return files


class HFArrowDataset(_TableSource):
    """A Hugging Face ``datasets`` Arrow directory, read without the ``datasets`` package.

    ``dataset_dir`` is a ``save_to_disk`` folder (files listed in ``state.json``) or a cache build
    folder (every ``*.arrow``; ``split="train"`` keeps ``<builder>-train*.arrow``). Columns whose
    feature in ``dataset_info.json`` is an ``Image`` (stored as ``struct<bytes, path>``) become
    their encoded ``bytes``, ready for ``vision.Decode()``; other columns keep their Arrow types
    (a ``ClassLabel`` is an int64 column).

    Raises:
        ValueError: ``dataset_dir`` is not a directory or a file is not an Arrow stream.
        FileNotFoundError: no ``.arrow`` files, or one listed in ``state.json`` is missing.
    """

    _kind = "HFArrowDataset"

    def __init__(self, dataset_dir, split=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None,
                 shard_id=None):
        if not os.path.isdir(dataset_dir):
            raise ValueError(f"HFArrowDataset: {dataset_dir} is not a directory")
        super().__init__(_hf_files(dataset_dir, split), columns_list,
                         num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        self.dataset_dir = dataset_dir
        info = os.path.join(dataset_dir, "dataset_info.json")
        self.features = {}
        if os.path.isfile(info):
            with open(info) as f:
                self.features = json.load(f).get("features") or {}

    def _read_file(self, path) -> pa.Table:
        return read_arrow_file(path)

    def _prepare(self, table: pa.Table) -> pa.Table:
        for name, feature in self.features.items():
            if (isinstance(feature, dict) and feature.get("_type") == "Image"
                    and name in table.column_names):
                column = table.column(name)
                if pa.types.is_struct(column.type):
                    table = table.set_column(table.column_names.index(name), name,
                                             pa.chunked_array([c.field("bytes")
                                                               for c in column.chunks],
                                                              type=pa.binary()))
        return table
