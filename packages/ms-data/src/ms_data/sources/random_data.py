"""``RandomDataset``: rows of random values shaped by a Schema, for trying a pipeline.

As MindSpore 2.10, each tensor is one random value repeated over its shape; without a
schema, 1 to 4 columns ``c0, c1, ...`` of random numeric types, ranks 1 to 4 and sizes 1
to 32 are made up, and without ``total_rows`` 1 to 1024 rows. Row ``i`` is drawn from
its own generator (``ds.config`` seed, ``i``), so a sampler sees the same row for an index.
The values are not MindSpore's (its generator is another).

>>> from ms_data.sources.schema import Schema
>>> s = Schema()
>>> s.add_column("label", de_type="int32", shape=[1])
>>> d = RandomDataset(total_rows=2, schema=s)
>>> [r["label"].dtype.name for r in d.create_dict_iterator(output_numpy=True)]
['int32', 'int32']
"""

from __future__ import annotations

import numpy as np

from ms_data import config
from ms_data.arrow import batch_from_numpy
from ms_data.bases import VisionBaseDataset
from ms_data.sources.base import MappableSource
from ms_data.sources.schema import Schema

__all__ = ["RandomDataset"]

_NUMERIC = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
            "float16", "float32", "float64")


def _made_up_schema(rng: np.random.Generator) -> Schema:
    schema = Schema()
    for i in range(int(rng.integers(1, 5))):
        rank = int(rng.integers(1, 5))
        schema.add_column(f"c{i}", _NUMERIC[int(rng.integers(len(_NUMERIC)))],
                          [int(d) for d in rng.integers(1, 33, rank)])
    return schema


def _value(rng: np.random.Generator, dtype: np.dtype):
    if dtype.kind == "b":
        return bool(rng.integers(2))
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(info.min, info.max, endpoint=True, dtype=dtype)
    return dtype.type(rng.random())


class RandomDataset(MappableSource, VisionBaseDataset):
    """``total_rows`` random rows of the columns of ``schema`` (a Schema or its JSON file)."""

    def __init__(self, total_rows=None, schema=None, columns_list=None, num_samples=None,
                 num_parallel_workers=None, cache=None, shuffle=None, num_shards=None,
                 shard_id=None):
        super().__init__(num_samples=num_samples, shuffle=shuffle, num_shards=num_shards,
                         shard_id=shard_id, num_parallel_workers=num_parallel_workers,
                         cache=cache)
        rng = np.random.default_rng([config.get_seed(), 0x5EED])
        if total_rows is not None and (not isinstance(total_rows, int) or total_rows < 0):
            raise ValueError(f"RandomDataset: total_rows must be a non-negative int, got "
                             f"{total_rows!r}")
        if isinstance(schema, str):
            schema = Schema(schema)
        elif schema is not None and not isinstance(schema, Schema):
            raise TypeError(f"RandomDataset: schema must be a Schema or a JSON file path, got "
                            f"{type(schema).__name__}")
        schema = schema or _made_up_schema(rng)
        columns = {c["name"]: c for c in schema.columns}
        bad = [c for c in columns.values() if c["type"] not in _NUMERIC
               or -1 in c.get("shape", [])]
        if bad:
            raise ValueError(f"RandomDataset: column {bad[0]['name']!r} needs a numeric type "
                             f"and a known shape, got {bad[0]['type']} {bad[0].get('shape')}")
        if columns_list is not None:
            missing = [n for n in columns_list if n not in columns]
            if missing:
                raise ValueError(f"RandomDataset: columns_list {missing} not in the schema's "
                                 f"columns {list(columns)}")
            columns = {n: columns[n] for n in columns_list}
        self._columns = columns
        self.total_rows = total_rows or schema.num_rows or int(rng.integers(1, 1025))
        self._seed = config.get_seed()

    def _length(self) -> int:
        return self.total_rows

    def _column_names(self) -> list[str]:
        return list(self._columns)

    def _read(self, indices: np.ndarray):
        out = {}
        for k, (name, c) in enumerate(self._columns.items()):
            dtype = np.dtype(c["type"])
            shape = tuple(c.get("shape", [1]))
            values = []
            for i in indices:
                rng = np.random.default_rng([self._seed, int(i), k])
                values.append(np.full(shape, _value(rng, dtype), dtype))
            out[name] = np.stack(values) if values else np.empty((0, *shape), dtype)
        return batch_from_numpy(out)
