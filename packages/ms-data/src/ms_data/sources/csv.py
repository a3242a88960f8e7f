"""CSV files, parsed by ``pyarrow.csv``."""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa

from ms_data.bases import UnionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources._once import Once
from ms_data.sources.base import MappableSource

__all__ = ["CSVDataset", "read_csv_file"]


def _default_type(value) -> pa.DataType:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise TypeError(f"CSVDataset: column_defaults entries must be int, float or str, got "
                        f"{type(value).__name__} {value!r}")
    if isinstance(value, int):
        return pa.int32()
    return pa.float32() if isinstance(value, float) else pa.string()


def read_csv_file(path, field_delim=",", column_defaults=None, column_names=None) -> pa.Table:
    """One CSV file as an Arrow table, with MindSpore's CSVDataset rules.

    Without ``column_names`` the file's first line is its header; with them, every line is data.
    Without ``column_defaults`` every column is a string column. With them, each default's type
    sets its column's type (int -> int32, float -> float32, str -> string) and an empty numeric
    field takes the default.

    Raises:
        FileNotFoundError: no such file.
        DatasetError: a line has the wrong number of fields, a value does not parse as its
            column's type, or ``column_defaults`` has the wrong length; the message names the file.
    """
    import pyarrow.csv as pcsv

    if not os.path.isfile(path):
        raise FileNotFoundError(f"CSVDataset: {path} not found")
    read = pcsv.ReadOptions(column_names=None if column_names is None else list(column_names))
    parse = pcsv.ParseOptions(delimiter=field_delim)
    try:
        if column_names is None:
            with open(path, "rb") as f:
                first = f.readline() or b"\n"
            header = pcsv.read_csv(pa.BufferReader(first), parse_options=parse)
            names = header.column_names
        else:
            names = list(column_names)
        if column_defaults is not None and len(column_defaults) != len(names):
            raise DatasetError(f"CSVDataset: {path} has {len(names)} columns {names} but "
                             f"column_defaults has {len(column_defaults)} entries")
        defaults = column_defaults or [""] * len(names)
        types = {n: _default_type(d) for n, d in zip(names, defaults)}
        convert = pcsv.ConvertOptions(column_types=types, strings_can_be_null=False)
        table = pcsv.read_csv(path, read_options=read, parse_options=parse,
                              convert_options=convert)
    except (pa.ArrowInvalid, UnicodeDecodeError) as err:
        raise DatasetError(f"CSVDataset: cannot parse {path}: {err}") from None
    columns = [col.fill_null(pa.scalar(d, type=col.type)) if col.null_count else col
               for col, d in zip(table.columns, defaults)]
    return pa.table(columns, names=names)


class CSVDataset(MappableSource, UnionBaseDataset):
    """Rows of one or more CSV files (MindSpore's ``CSVDataset``).

    Files are read in the given order into one table (on first use; their existence is checked
    now). Without ``column_names``, each file's first line is its header and all headers must
    match. Columns are strings unless ``column_defaults`` types them (see :func:`read_csv_file`).
    ``shuffle`` takes True/False or MindSpore's ``Shuffle`` values: ``GLOBAL`` (the default,
    every row) and ``FILES``/``INFILE`` are all read as a shuffle of every row.

    Raises:
        FileNotFoundError: a file is missing.
        DatasetError: a file cannot be parsed or its header differs from the first file's.
    """

    def __init__(self, dataset_files, field_delim=",", column_defaults=None, column_names=None,
                 num_samples=None, num_parallel_workers=None, shuffle=True, num_shards=None,
                 shard_id=None):
        if not isinstance(shuffle, bool):
            shuffle = str(getattr(shuffle, "value", shuffle)).lower() in ("global", "files",
                                                                           "infile")
        super().__init__(num_samples=num_samples, shuffle=shuffle, num_shards=num_shards,
                         shard_id=shard_id, num_parallel_workers=num_parallel_workers)
        files = [dataset_files] if isinstance(dataset_files, (str, os.PathLike)) else dataset_files
        self.files = [os.fspath(f) for f in files]
        if not self.files:
            raise ValueError("CSVDataset: dataset_files is empty")
        for path in self.files:
            if not os.path.isfile(path):
                raise FileNotFoundError(f"CSVDataset: {path} not found")
        self.field_delim = field_delim
        self.column_defaults = column_defaults
        self.column_names = column_names
        self._table = Once()

    def _load(self) -> pa.Table:
        tables = [read_csv_file(p, self.field_delim, self.column_defaults, self.column_names)
                  for p in self.files]
        for path, table in zip(self.files[1:], tables[1:]):
            if table.schema != tables[0].schema:
                raise DatasetError(f"CSVDataset: {path} has columns {table.schema} but "
                                 f"{self.files[0]} has {tables[0].schema}")
        return pa.concat_tables(tables)

    def _data(self) -> pa.Table:
        return self._table.get(self._load)

    def _length(self) -> int:
        return self._data().num_rows

    def _column_names(self) -> list[str]:
        if self.column_names is not None:
            return list(self.column_names)
        return self._data().column_names

    def _read(self, indices: np.ndarray):
        taken = self._data().take(pa.array(indices, type=pa.int64()))
        return pa.RecordBatch.from_arrays([c.combine_chunks() for c in taken.columns],
                                          names=taken.column_names)
