"""Record-file schemas (MindRecord's schema dictionaries) and their Arrow layout.

A schema maps field names to ``{"type": T}`` or ``{"type": T, "shape": [d0, d1, ...]}``. ``T`` is
one of int32, int64, float32, float64, string, bytes; only the four numeric types take a shape,
whose entries are positive or -1 (any length). A shaped field holds one numpy array per row.

In the file, a scalar field is a plain Arrow column, a fixed-shape field a fixed-size list of its
flattened values, and a field with -1 in its shape a list of flattened values plus, when more than
one dimension is unknown, a ``<field>.shape`` column of per-row shapes.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

NUMERIC = {"int32": np.int32, "int64": np.int64, "float32": np.float32, "float64": np.float64}
TYPES = (*NUMERIC, "string", "bytes")


def check_schema(content) -> dict:
    """A normalised copy of ``content``; ValueError naming the field if anything is wrong."""
    if not isinstance(content, dict) or not content:
        raise ValueError(f"schema must be a non-empty dict of fields, got {content!r}")
    out = {}
    for name, spec in content.items():
        if not isinstance(name, str) or not name or name.endswith(".shape"):
            raise ValueError(f"schema field name {name!r} must be a non-empty str not ending in "
                             "'.shape'")
        if not isinstance(spec, dict) or "type" not in spec or set(spec) - {"type", "shape"}:
            raise ValueError(f"schema field {name!r}: expected {{'type': ..., 'shape': [...]}} "
                             f"(shape optional), got {spec!r}")
        kind = spec["type"]
        if kind not in TYPES:
            raise ValueError(f"schema field {name!r}: type {kind!r} is not one of {list(TYPES)}")
        entry = {"type": kind}
        if "shape" in spec:
            shape = spec["shape"]
            if kind not in NUMERIC:
                raise ValueError(f"schema field {name!r}: type {kind!r} takes no shape")
            if (not isinstance(shape, (list, tuple)) or not shape
                    or not all(isinstance(d, int) and (d > 0 or d == -1) for d in shape)):
                raise ValueError(f"schema field {name!r}: shape must be a non-empty list of "
                                 f"positive ints or -1, got {shape!r}")
            entry["shape"] = [int(d) for d in shape]
        out[name] = entry
    return out


def _value_type(kind: str) -> pa.DataType:
    return pa.from_numpy_dtype(np.dtype(NUMERIC[kind]))


def arrow_fields(schema: dict) -> list[pa.Field]:
    """The Arrow columns that store ``schema`` (see the module docstring)."""
    fields = []
    for name, spec in schema.items():
        kind, shape = spec["type"], spec.get("shape")
        if shape is None:
            arrow = {"string": pa.string(), "bytes": pa.binary()}.get(kind) or _value_type(kind)
            fields.append(pa.field(name, arrow, nullable=False))
        elif -1 not in shape:
            size = int(np.prod(shape))
            fields.append(pa.field(name, pa.list_(_value_type(kind), size), nullable=False))
        else:
            fields.append(pa.field(name, pa.list_(_value_type(kind)), nullable=False))
            if shape.count(-1) > 1:
                fields.append(pa.field(name + ".shape", pa.list_(pa.int32()), nullable=False))
    return fields


def _row_array(name, spec, value):
    kind, shape = spec["type"], spec["shape"]
    try:
        array = np.asarray(value)
    except (TypeError, ValueError) as err:
        raise ValueError(f"field {name!r}: cannot make an array of {type(value).__name__}: "
                         f"{err}") from None
    dtype = np.dtype(NUMERIC[kind])
    if not (np.can_cast(array.dtype, dtype, "same_kind")
            or (array.dtype.kind in "iub" and dtype.kind == "f")):
        raise ValueError(f"field {name!r}: {array.dtype} values do not fit type {kind}")
    if len(shape) != array.ndim or any(d not in (-1, n) for d, n in zip(shape, array.shape)):
        raise ValueError(f"field {name!r}: shape {array.shape} does not match schema shape "
                         f"{shape}")
    return np.ascontiguousarray(array, dtype=dtype)


def _scalar(name, spec, value):
    kind = spec["type"]
    if kind == "string":
        ok = isinstance(value, str)
    elif kind == "bytes":
        ok = isinstance(value, (bytes, bytearray, memoryview))
    elif kind.startswith("int"):
        ok = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        if ok:
            info = np.iinfo(NUMERIC[kind])
            if not info.min <= int(value) <= info.max:
                raise ValueError(f"field {name!r}: {value} is out of range for {kind}")
    else:
        ok = isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value,
                                                                                         bool)
    if not ok:
        raise ValueError(f"field {name!r}: expected a {kind} value, got "
                         f"{type(value).__name__} {value!r:.60}")
    return bytes(value) if kind == "bytes" else value


def rows_to_table(schema: dict, rows) -> pa.Table:
    """Check ``rows`` (a list of dicts) against ``schema`` and lay them out as Arrow columns.

    Raises:
        ValueError: a row misses a field, has one the schema lacks, or a value of the wrong type
            or shape; the message names the row and the field.
    """
    if isinstance(rows, dict) or not isinstance(rows, (list, tuple)):
        raise ValueError(f"raw_data must be a list of dicts, got {type(rows).__name__}")
    columns = {name: [] for name in schema}
    shapes = {name: [] for name, s in schema.items() if s.get("shape", []).count(-1) > 1}
    for i, row in enumerate(rows):
        if not isinstance(row, dict):
            raise ValueError(f"raw_data[{i}]: expected a dict, got {type(row).__name__}")
        missing = [name for name in schema if name not in row]
        extra = [name for name in row if name not in schema]
        if missing or extra:
            raise ValueError(f"raw_data[{i}]: fields {missing or extra} "
                             f"{'missing' if missing else 'not in the schema'}")
        for name, spec in schema.items():
            try:
                if "shape" in spec:
                    array = _row_array(name, spec, row[name])
                    columns[name].append(array.reshape(-1))
                    if name in shapes:
                        shapes[name].append(list(array.shape))
                else:
                    columns[name].append(_scalar(name, spec, row[name]))
            except ValueError as err:
                raise ValueError(f"raw_data[{i}]: {err}") from None
    arrays = []
    for field in arrow_fields(schema):
        base = field.name.removesuffix(".shape")
        values = shapes[base] if field.name.endswith(".shape") else columns[field.name]
        if pa.types.is_fixed_size_list(field.type) and values:
            flat = pa.array(np.concatenate(values))
            arrays.append(pa.FixedSizeListArray.from_arrays(flat, field.type.list_size))
        else:
            arrays.append(pa.array(values, type=field.type))
    return pa.Table.from_arrays(arrays, schema=pa.schema(arrow_fields(schema)))


def column_values(table: pa.Table, name: str, spec: dict):
    """One field of ``table`` as MindDataset yields it: an Arrow array or a numpy array.

    Scalars, strings and bytes stay Arrow arrays; a fixed-shape field becomes ``(rows, *shape)``
    (a zero-copy view of the flattened values); a field with -1 in its shape becomes an object
    array holding one array per row.
    """
    column = table.column(name).combine_chunks()
    shape = spec.get("shape")
    if shape is None:
        return column
    dtype = NUMERIC[spec["type"]]
    rows = len(column)
    if -1 not in shape:
        flat = column.flatten().to_numpy(zero_copy_only=False)
        return flat.astype(dtype, copy=False).reshape(rows, *shape)
    out = np.empty(rows, dtype=object)
    per_row = None
    if shape.count(-1) > 1:
        per_row = table.column(name + ".shape").to_pylist()
    known = int(np.prod([d for d in shape if d != -1]))
    offsets = column.offsets.to_numpy()
    values = column.values.to_numpy(zero_copy_only=False).astype(dtype, copy=False)
    for i in range(rows):
        row = values[offsets[i]:offsets[i + 1]]
        if per_row is not None:
            out[i] = row.reshape(per_row[i])
        else:
            out[i] = row.reshape([d if d != -1 else row.size // known for d in shape])
    return out
