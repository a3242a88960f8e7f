"""``TFRecordDataset``: ``tf.train.Example`` records of TFRecord files, without TensorFlow.

Columns, as MindSpore 2.10 yields them (checked there on files written here): without a
schema, every feature of the first record, in name order; an ``int64_list`` is an int64
array, a ``float_list`` float32, a ``bytes_list`` holding one value its bytes as uint8 (an
encoded image, ready for ``vision.Decode``). A ``schema`` (a ``Schema`` or its JSON file)
picks and types the columns and reshapes them; ``columns_list`` picks columns. Without
shuffling the rows come in MindSpore's reader order (``text_file.reader_order``: files
split among ``num_parallel_workers`` readers taking turns); shards take whole files
(``shard_equal_rows=False``, file ``i`` to shard ``i % num_shards``) or equal runs of rows.
Records are read, CRC-checked and parsed on first use.
"""

from __future__ import annotations

import gzip
import zlib

import numpy as np

from ms_data import config
from ms_data.arrow import batch_from_numpy
from ms_data.bases import UnionBaseDataset
from ms_data.errors import DatasetError
from ms_data.sources._example_proto import ProtoError, parse_example
from ms_data.sources._once import Once
from ms_data.sources._tfrecord_file import TFRecordError, index_tfrecords
from ms_data.sources.base import MappableSource, select_sampler
from ms_data.sources.schema import Schema
from ms_data.sources.text_file import _files, reader_order, shuffle_flag

__all__ = ["TFRecordDataset"]

_KIND_DTYPE = {"int64": np.int64, "float": np.float32}
_DECOMPRESS = {None: None, "": None, "GZIP": gzip.decompress, "ZLIB": zlib.decompress}


def _column(kind: str, values: list, path: str, name: str, want: dict | None):
    """One feature's values as the row's array (typed and shaped by ``want``)."""
    if kind == "bytes":
        if want is not None and want["type"] in ("string", "bytes"):
            return np.array([v.decode("utf-8") if want["type"] == "string" else v
                             for v in values]).reshape(want.get("shape", -1))
        if len(values) != 1:
            raise DatasetError(f"TFRecordDataset: {path}: feature {name!r} holds {len(values)} "
                               "byte strings; give it a 'string' or 'bytes' schema type")
        arr = np.frombuffer(values[0], dtype=np.uint8)
    else:
        arr = np.asarray(values, dtype=_KIND_DTYPE[kind])
    if want is None:
        return arr
    arr = arr.view(np.uint8) if arr.dtype == np.uint8 else arr.astype(want["type"])
    shape = want.get("shape")
    if shape is not None:
        try:
            arr = arr.reshape(shape)
        except ValueError:
            raise DatasetError(f"TFRecordDataset: {path}: feature {name!r} has {arr.size} "
                               f"values, the schema's shape {shape} needs "
                               f"{int(np.prod(shape))}") from None
    return arr


class TFRecordDataset(MappableSource, UnionBaseDataset):
    """Rows of ``tf.train.Example`` records (see the module doc).

    Raises:
        ValueError: no files or a missing one, an unknown ``compression_type``, a column
            that is in no record.
        DatasetError: a file is corrupt (CRC, truncation, not an Example), a feature has
            no value the schema can take; the message names the file.
    """

    def __init__(self, dataset_files, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, shuffle=True, num_shards=None, shard_id=None,
                 shard_equal_rows=False, compression_type=None):
        shuffled = shuffle_flag(shuffle, "TFRecordDataset")
        super().__init__(num_samples=num_samples, shuffle=shuffled,
                         num_parallel_workers=num_parallel_workers)
        select_sampler(None, None, None, num_shards, shard_id)  # the usual argument checks
        if compression_type not in _DECOMPRESS:
            raise ValueError(f"TFRecordDataset: compression_type must be None, '', 'GZIP' or "
                             f"'ZLIB', got {compression_type!r}")
        self.files = _files(dataset_files, "TFRecordDataset")
        if isinstance(schema, str):
            schema = Schema(schema)
        if schema is not None and not isinstance(schema, Schema):
            raise TypeError(f"TFRecordDataset: schema must be a Schema or a JSON file path, "
                            f"got {type(schema).__name__}")
        self.schema, self.columns_list = schema, columns_list
        self.compression_type = compression_type
        self.num_shards, self.shard_id, self.shard_equal_rows = \
            num_shards, shard_id, shard_equal_rows
        if num_shards is not None and not shard_equal_rows and len(self.files) < num_shards:
            raise ValueError(f"TFRecordDataset: {len(self.files)} files cannot make "
                             f"{num_shards} shards (each shard reads whole files); give "
                             "shard_equal_rows=True")
        self._ordered = not shuffled
        self._rows = Once()

    def _records(self, path: str) -> list[dict]:
        with open(path, "rb") as f:
            data = f.read()
        unpack = _DECOMPRESS[self.compression_type]
        if unpack is not None:
            try:
                data = unpack(data)
            except (OSError, zlib.error) as e:
                raise DatasetError(f"TFRecordDataset: {path} is not {self.compression_type}-"
                                   f"compressed: {e}") from None
        buf = memoryview(data)
        try:
            spans = index_tfrecords(path, buf)
        except TFRecordError as e:
            raise DatasetError(f"TFRecordDataset: {e}") from None
        try:
            return [parse_example(buf[a:a + n]) for a, n in spans]
        except ProtoError as e:
            raise DatasetError(f"TFRecordDataset: {path}: not a tf.train.Example: {e}") \
                from None

    def _files_of_shard(self) -> list[str]:
        if self.num_shards is None or self.shard_equal_rows:
            return self.files
        return self.files[self.shard_id::self.num_shards]

    def _load(self):
        files = self._files_of_shard()
        per_file = [self._records(p) for p in files]
        rows = [(p, r) for p, recs in zip(files, per_file) for r in recs]
        file_of = np.repeat(np.arange(len(files)), [len(r) for r in per_file])
        picked = np.arange(len(rows))
        if self.num_shards is not None and self.shard_equal_rows and rows:
            size = -(-len(rows) // self.num_shards)
            picked = np.arange(self.shard_id * size, (self.shard_id + 1) * size) % len(rows)
        if self.schema is not None and self.schema.num_rows:
            picked = picked[:self.schema.num_rows]
        if self._ordered and picked.size:
            f = file_of[picked]
            runs = np.diff(np.flatnonzero(np.r_[True, f[1:] != f[:-1], True]))
            workers = self.num_parallel_workers or config.get_num_parallel_workers()
            picked = picked[reader_order(list(runs), workers)]
        return [rows[i] for i in picked], self._names(rows)

    def _names(self, rows) -> list[str]:
        if self.schema is not None and self.schema.columns:
            names = [c["name"] for c in self.schema.columns]
        else:
            names = sorted(rows[0][1]) if rows else []
        if self.columns_list is not None:
            missing = [c for c in self.columns_list if c not in names]
            if missing:
                raise ValueError(f"TFRecordDataset: columns_list names {missing}, which are "
                                 f"not among the columns {names}")
            names = list(self.columns_list)
        return names

    def _length(self) -> int:
        return len(self._rows.get(self._load)[0])

    def _column_names(self) -> list[str]:
        return self._rows.get(self._load)[1]

    def _read(self, indices: np.ndarray):
        rows, names = self._rows.get(self._load)
        wants = {c["name"]: c for c in self.schema.columns} if self.schema else {}
        out = {}
        for name in names:
            col = np.empty(len(indices), dtype=object)
            for k, i in enumerate(indices):
                path, features = rows[i]
                if name not in features:
                    raise DatasetError(f"TFRecordDataset: {path}: a record has no feature "
                                       f"{name!r} (it has {sorted(features)})")
                col[k] = _column(*features[name], path, name, wants.get(name))
            out[name] = col
        return batch_from_numpy(out)
