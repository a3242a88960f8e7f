"""Record files in MindRecord's role: ``FileWriter`` writes them, ``MindDataset`` reads them.

The files are plain Parquet (default) or Arrow IPC files, readable by any Arrow tool. Each shard
carries the record schema, description, index fields and the names of all its sibling shards in
its Arrow schema metadata (key ``ms_data.record``), so one shard finds the others, as with
MindRecord. With ``shard_num=1`` the file is ``file_name``; with more it is ``file_name0`` ..
``file_name{shard_num-1}`` (MindRecord's naming). Shards are written under a temporary name and
renamed by ``commit()``, so a crash never leaves a half-written file under the final name.
"""

from __future__ import annotations

import contextlib
import json
import os

import numpy as np
import pyarrow as pa

from ms_data.arrow import batch_from_numpy
from ms_data.bases import UnionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources._once import Once
from ms_data.sources._record_schema import (
    arrow_fields,
    check_schema,
    column_values,
    rows_to_table,
)
from ms_data.sources.base import MappableSource

__all__ = ["FileWriter", "MindDataset", "read_record_metadata"]

META_KEY = b"ms_data.record"
FORMATS = ("parquet", "arrow", "mindrecord")
_ARROW_MAGIC = b"ARROW1"


class FileWriter:
    """Writes rows of a schema to ``shard_num`` record files (MindRecord's ``FileWriter``).

    Call ``add_schema``, optionally ``add_index``, then ``write_raw_data`` any number of times and
    ``commit()`` once. Each ``write_raw_data`` call splits its rows into ``shard_num`` contiguous
    parts, one per shard, so a reader going shard by shard sees them grouped by shard.

    Args:
        file_name: path of the file (``shard_num == 1``) or prefix of the shards.
        shard_num: number of files, 1..1000.
        overwrite: replace existing files instead of refusing.
        file_format: ``"parquet"`` (default; compressed, readable everywhere), ``"mindrecord"``
            (MindSpore's own format, read by MindSpore's MindDataset too; written at
            ``commit``, ``ms_data.sources.mindrecord_writer``) or ``"arrow"``
            (Arrow IPC file; memory-mapped without copies when read).

    >>> import tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.parquet")
    >>> w = FileWriter(path)
    >>> w.add_schema({"label": {"type": "int32"}, "x": {"type": "float32", "shape": [2]}}, "toy")
    >>> w.write_raw_data([{"label": 1, "x": np.array([0.5, 1.5], np.float32)}])
    >>> w.commit()
    >>> MindDataset(path).get_dataset_size()
    1
    """

    def __init__(self, file_name, shard_num=1, overwrite=False, file_format="parquet"):
        if not isinstance(shard_num, int) or not 1 <= shard_num <= 1000:
            raise ValueError(f"FileWriter: shard_num must be an int in [1, 1000], got {shard_num}")
        if file_format not in FORMATS:
            raise ValueError(f"FileWriter: file_format must be one of {FORMATS}, "
                             f"got {file_format!r}")
        file_name = os.fspath(file_name)
        self.paths = ([file_name] if shard_num == 1
                      else [f"{file_name}{i}" for i in range(shard_num)])
        if not overwrite:
            existing = [p for p in self.paths if os.path.exists(p)]
            if existing:
                raise FileExistsError(f"FileWriter: {existing[0]} exists; pass overwrite=True "
                                      "to replace it")
        self.file_format = file_format
        self._schema = None
        self._desc = ""
        self._index = []
        self._writers = None
        self._shard_rows = [[] for _ in self.paths]  # file_format="mindrecord"

    def add_schema(self, content, desc=None):
        """Set the schema ``{field: {"type": T, "shape": [...]}}``; ValueError names a bad field."""
        if self._writers is not None:
            raise RuntimeError("FileWriter: add_schema must come before write_raw_data")
        self._schema = check_schema(content)
        self._desc = "" if desc is None else str(desc)

    def add_index(self, index_fields):
        """Record fields to index: scalar int, float or string fields of the schema."""
        if self._schema is None:
            raise RuntimeError("FileWriter: add_schema must come before add_index")
        if self._writers is not None:
            raise RuntimeError("FileWriter: add_index must come before write_raw_data")
        if isinstance(index_fields, str) or not isinstance(index_fields, (list, tuple)):
            raise ValueError(f"FileWriter: index_fields must be a list of field names, "
                             f"got {index_fields!r}")
        for name in index_fields:
            spec = self._schema.get(name)
            if spec is None:
                raise ValueError(f"FileWriter: index field {name!r} is not in the schema")
            if "shape" in spec or spec["type"] == "bytes":
                raise ValueError(f"FileWriter: index field {name!r} must be a scalar int, float "
                                 "or string field")
        self._index = list(index_fields)

    def _open(self):
        names = [os.path.basename(p) for p in self.paths]
        fields = arrow_fields(self._schema)
        writers = []
        for shard_id, path in enumerate(self.paths):
            meta = {"schema": self._schema, "desc": self._desc, "index_fields": self._index,
                    "shard_files": names, "shard_id": shard_id, "format": self.file_format}
            schema = pa.schema(fields, metadata={META_KEY: json.dumps(meta).encode()})
            tmp = path + ".tmp"
            if self.file_format == "parquet":
                import pyarrow.parquet as pq

                writers.append((pq.ParquetWriter(tmp, schema), tmp, path))
            else:
                writers.append((pa.ipc.new_file(tmp, schema), tmp, path))
        self._writers = writers

    def write_raw_data(self, raw_data, parallel_writer=False):
        """Check and write a list of row dicts; ValueError names the row and field at fault."""
        del parallel_writer  # Accepted for MindSpore compatibility; writing is one pass.
        if self._schema is None:
            raise RuntimeError("FileWriter: add_schema must come before write_raw_data")
        table = rows_to_table(self._schema, raw_data)  # checks every row and field
        if self.file_format == "mindrecord":
            bounds = np.linspace(0, len(raw_data), len(self.paths) + 1).astype(int)
            for rows, start, stop in zip(self._shard_rows, bounds[:-1], bounds[1:]):
                rows.extend(raw_data[start:stop])
            return
        if self._writers is None:
            self._open()
        bounds = np.linspace(0, table.num_rows, len(self._writers) + 1).astype(int)
        for (writer, _, _), start, stop in zip(self._writers, bounds[:-1], bounds[1:]):
            if stop > start:
                writer.write_table(table.slice(start, stop - start))

    def commit(self):
        """Finish every shard and move it to its final name."""
        if self._schema is None:
            raise RuntimeError("FileWriter: add_schema must come before commit")
        if self.file_format == "mindrecord":
            from ms_data.sources.mindrecord_writer import write_mindrecord_shard

            names = [os.path.basename(p) for p in self.paths]
            for shard_id, (path, rows) in enumerate(zip(self.paths, self._shard_rows)):
                write_mindrecord_shard(path, shard_id, names, self._schema, self._desc, rows)
            self._shard_rows = [[] for _ in self.paths]
            return
        if self._writers is None:
            self._open()
        for writer, tmp, path in self._writers:
            writer.close()
            os.replace(tmp, path)
        self._writers = []


@contextlib.contextmanager
def _reading(path: str):
    """pyarrow's and the OS's errors on a bad file, as a DatasetError naming it."""
    try:
        yield
    except FileNotFoundError:
        raise
    except (pa.ArrowException, OSError, UnicodeDecodeError) as err:
        raise DatasetError(f"MindDataset: {path} is not a Parquet or Arrow IPC file (or is "
                           f"corrupt): {type(err).__name__}: {err}") from None


def _is_arrow(path: str) -> bool:
    with open(path, "rb") as f:
        return f.read(6) == _ARROW_MAGIC


def _open_table(path: str) -> pa.Table:
    with _reading(path):
        if _is_arrow(path):
            table = pa.ipc.open_file(pa.memory_map(path, "r")).read_all()
        else:
            import pyarrow.parquet as pq

            table = pq.read_table(path)
        # A corrupt IPC file can hold offsets past its buffers: reading those would crash.
        table.validate(full=True)
    return table


def _file_schema(path: str) -> pa.Schema:
    with _reading(path):
        if _is_arrow(path):
            schema = pa.ipc.open_file(pa.memory_map(path, "r")).schema
        else:
            import pyarrow.parquet as pq

            schema = pq.read_schema(path)
        schema.names  # noqa: B018 -- names that are not UTF-8 fail here, inside the guard
        return schema


def _num_rows(path: str) -> int:
    with _reading(path):
        if _is_arrow(path):
            reader = pa.ipc.open_file(pa.memory_map(path, "r"))
            return sum(reader.get_batch(i).num_rows for i in range(reader.num_record_batches))
        import pyarrow.parquet as pq

        return pq.read_metadata(path).num_rows


def _check_metadata(raw: bytes, schema: pa.Schema, path: str) -> dict:
    """The record metadata, after checking it and that the columns match its schema."""
    def bad(why):
        return DatasetError(f"MindDataset: {path} has corrupt record metadata: {why}")

    try:
        meta = json.loads(raw)
    except (ValueError, RecursionError) as err:  # UnicodeDecodeError is a ValueError
        raise bad(f"{type(err).__name__}: {err}") from None
    if not isinstance(meta, dict) or not {"schema", "shard_files"} <= set(meta):
        raise bad("not an object with 'schema' and 'shard_files'")
    try:
        meta["schema"] = check_schema(meta["schema"])
    except ValueError as err:
        raise bad(err) from None
    names = meta["shard_files"]
    # Plain names only: a shard never points outside its own folder.
    if (not isinstance(names, list) or not names or not all(
            isinstance(n, str) and n not in ("", ".", "..") and os.path.basename(n) == n
            for n in names)):
        raise bad(f"shard_files must be a list of file names, got {names!r}")
    meta["desc"] = str(meta.get("desc", ""))
    index = meta.get("index_fields", [])
    meta["index_fields"] = index if isinstance(index, list) else []
    for field in arrow_fields(meta["schema"]):
        found = schema.field(field.name).type if field.name in schema.names else None
        if found is None or not found.equals(field.type):
            raise DatasetError(f"MindDataset: {path}: column {field.name!r} is "
                               f"{found or 'missing'}, its record schema needs {field.type}")
    return meta


def read_record_metadata(path) -> dict:
    """The record metadata (schema, desc, index_fields, shard_files, ...) of one shard.

    Raises:
        FileNotFoundError: no such file.
        DatasetError: the file is not Parquet/Arrow IPC, was not written by ``FileWriter``, or
            its metadata or columns are corrupt; the message names the file.
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise FileNotFoundError(f"MindDataset: {path} not found")
    schema = _file_schema(path)
    raw = (schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise DatasetError(f"MindDataset: {path} has no record metadata (not written by "
                           "FileWriter); read plain files with ParquetDataset or ArrowDataset")
    return _check_metadata(raw, schema, path)


class MindDataset(MappableSource, UnionBaseDataset):
    """Rows of record files written by :class:`FileWriter` (MindSpore's ``MindDataset``).

    ``dataset_files`` is one shard's path (its sibling shards are found from its metadata, as
    MindRecord does) or a list of shard paths (exactly those are read). Shards are read in order.
    Columns are the schema's fields in schema order, or ``columns_list``. Numeric scalars are
    numpy scalars of their type, strings ``str``, bytes ``bytes``, shaped fields numpy arrays.

    Raises:
        FileNotFoundError: a shard is missing.
        DatasetError: a file is not a record file or is corrupt, or shards disagree on the schema.
        ValueError: ``columns_list`` names an unknown field.
    """

    def __new__(cls, dataset_files=None, *args, **kwargs):
        # A file MindSpore's FileWriter wrote is read by ms_data.sources.mindrecord.
        from ms_data.sources.mindrecord import MindRecordDataset, is_mindrecord

        first = dataset_files if isinstance(dataset_files, (str, os.PathLike)) else \
            next(iter(dataset_files or ()), None)
        if cls is MindDataset and isinstance(first, (str, os.PathLike)) and \
                is_mindrecord(os.fspath(first)):
            return MindRecordDataset(dataset_files, *args, **kwargs)
        return super().__new__(cls)

    def __init__(self, dataset_files, columns_list=None, num_parallel_workers=None, shuffle=None,
                 num_shards=None, shard_id=None, sampler=None, num_samples=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, sampler=sampler,
                         num_shards=num_shards, shard_id=shard_id,
                         num_parallel_workers=num_parallel_workers)
        if isinstance(dataset_files, (str, os.PathLike)):
            first = os.fspath(dataset_files)
            meta = read_record_metadata(first)
            folder = os.path.dirname(first)
            files = [os.path.join(folder, name) for name in meta["shard_files"]]
            missing = [f for f in files if not os.path.isfile(f)]
            if missing:
                raise FileNotFoundError(f"MindDataset: {missing[0]} not found (a shard listed "
                                        f"in {first})")
        else:
            files = [os.fspath(f) for f in dataset_files]
            if not files:
                raise ValueError("MindDataset: dataset_files is empty")
        metas = [read_record_metadata(f) for f in files]
        self.schema = metas[0]["schema"]
        for path, meta in zip(files[1:], metas[1:]):
            if meta["schema"] != self.schema:
                raise DatasetError(f"MindDataset: {path} has schema {meta['schema']}, but "
                                 f"{files[0]} has {self.schema}")
        columns = list(self.schema) if columns_list is None else list(columns_list)
        unknown = [c for c in columns if c not in self.schema]
        if unknown:
            raise ValueError(f"MindDataset: columns_list names {unknown}, not in the schema "
                             f"{list(self.schema)}")
        self.files = files
        self.desc = metas[0]["desc"]
        self.index_fields = metas[0]["index_fields"]
        self._columns = columns
        self._rows = sum(_num_rows(f) for f in files)
        self._table = Once()

    def _length(self) -> int:
        return self._rows

    def _column_names(self) -> list[str]:
        return list(self._columns)

    def _load(self) -> pa.Table:
        needed = [f.name for f in arrow_fields({c: self.schema[c] for c in self._columns})]
        tables = []
        for path in self.files:
            table = _open_table(path).select(needed)
            nulls = [c for c in needed if table.column(c).null_count]
            if nulls:
                raise DatasetError(f"MindDataset: {path} has null values in {nulls}; record "
                                   f"files have none")
            tables.append(table)
        return pa.concat_tables(tables)

    def _read(self, indices: np.ndarray):
        table = self._data_table().take(pa.array(indices, type=pa.int64()))
        numpy_cols, arrays = {}, {}
        for name in self._columns:
            try:
                values = column_values(table, name, self.schema[name])
            except ValueError as err:  # per-row shapes that do not fit the values
                raise DatasetError(f"MindDataset: field {name!r} of {', '.join(self.files)} "
                                   f"does not fit its schema {self.schema[name]}: {err}") from None
            if isinstance(values, np.ndarray):
                numpy_cols[name] = values
            else:
                arrays[name] = values
        converted = batch_from_numpy(numpy_cols) if numpy_cols else None
        out = [arrays[n] if n in arrays else converted.column(n) for n in self._columns]
        return pa.RecordBatch.from_arrays(out, names=self._columns)

    def _data_table(self) -> pa.Table:
        return self._table.get(self._load)
