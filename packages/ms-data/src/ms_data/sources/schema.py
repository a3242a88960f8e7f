"""``Schema``: the columns a file source yields (name, type, shape), as MindSpore's
``mindspore.dataset.Schema`` and its JSON file (``{"columns": {...}}`` or a list).

>>> s = Schema()
>>> s.add_column("label", de_type="int64", shape=[1])
>>> s.add_column("image", de_type="uint8")
>>> [(c["name"], c["type"], c.get("shape")) for c in s.columns]
[('label', 'int64', [1]), ('image', 'uint8', None)]
"""

from __future__ import annotations

import json
import os

import numpy as np

__all__ = ["Schema", "type_name"]

_TYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
          "float16", "float32", "float64", "string", "bytes")


def type_name(de_type) -> str:
    """A column type given as a string, numpy dtype or framework dtype, as Schema's name."""
    np_name = getattr(de_type, "np", None)  # a microspore dtype carries its numpy name
    name = str(np_name if np_name is not None else de_type).lower()
    if isinstance(de_type, (np.dtype, type)) and np_name is None:
        name = np.dtype(de_type).name
    name = {"str": "string", "float": "float32", "int": "int64"}.get(name, name)
    if name not in _TYPES:
        raise ValueError(f"Schema: unknown column type {de_type!r}; expected one of "
                         f"{', '.join(_TYPES)}")
    return name


class Schema:
    """Columns of a dataset file: ``add_column``, ``from_json``/``to_json``, or a JSON file.

    Args:
        schema_file: path of a JSON schema (``{"columns": {name: {"type", "shape"}}}``, a
            list of ``{"name", ...}`` also accepted, optional ``"numRows"``).
    """

    def __init__(self, schema_file=None):
        self.columns: list[dict] = []
        self.num_rows = None
        if schema_file is not None:
            if not os.path.isfile(schema_file):
                raise ValueError(f"Schema: the schema file {schema_file} does not exist")
            with open(schema_file, encoding="utf-8") as f:
                try:
                    self.from_json(json.load(f))
                except json.JSONDecodeError as e:
                    raise ValueError(f"Schema: {schema_file} is not JSON: {e}") from None

    def add_column(self, name, de_type, shape=None) -> None:
        if not isinstance(name, str) or not name:
            raise TypeError(f"Schema.add_column: name must be a non-empty str, got {name!r}")
        column = {"name": name, "type": type_name(de_type), "rank": 1}
        if shape is not None:
            if not all(isinstance(d, int) and (d > 0 or d == -1) for d in shape):
                raise ValueError(f"Schema.add_column({name!r}): shape must be positive ints "
                                 f"(or -1), got {shape!r}")
            column.update(shape=list(shape), rank=len(shape))
        self.columns.append(column)

    def from_json(self, obj) -> None:
        columns = obj.get("columns") if isinstance(obj, dict) else None
        if columns is None:
            raise ValueError(f"Schema: the JSON has no 'columns': {str(obj)[:200]}")
        # a dict of columns comes out in name order, as MindSpore's (a list keeps its order)
        items = sorted(columns.items()) if isinstance(columns, dict) else \
            [(c.get("name"), c) for c in columns]
        self.columns = []
        for name, c in items:
            if "type" not in c:
                raise ValueError(f"Schema: column {name!r} has no 'type'")
            self.add_column(name, c["type"], c.get("shape"))
        self.num_rows = obj.get("numRows")

    def to_json(self) -> str:
        out: dict = {"columns": self.columns}
        if self.num_rows is not None:
            out["numRows"] = self.num_rows
        return json.dumps(out, indent=2, sort_keys=True)

    def __repr__(self) -> str:
        return self.to_json()
