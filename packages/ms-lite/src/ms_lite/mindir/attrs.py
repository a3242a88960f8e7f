"""Python values <-> MINDIR ``AttributeProto`` (the encoding MindSpore 2.10 writes:
scalars in ``i``/``f``/``s`` with their type, tuples as ``values`` whose items carry one
element in ``ints``/``floats``/``strings``)."""

from __future__ import annotations

import numpy as np

from ms_lite.mindir import mind_ir_pb2 as pb

__all__ = ["to_attr", "from_attr", "DTYPES", "TYPES"]

A = pb.AttributeProto
T = pb.TensorProto
DTYPES = {"float32": T.FLOAT, "float16": T.FLOAT16, "float64": T.FLOAT64, "int8": T.INT8,
          "int16": T.INT16, "int32": T.INT32, "int64": T.INT64, "uint8": T.UINT8,
          "bool": T.BOOL}
TYPES = {v: k for k, v in DTYPES.items()} | {T.DOUBLE: "float64"}


def to_attr(name: str, value, item: bool = False) -> pb.AttributeProto:
    """``value`` (None, bool, int, float, str, or a tuple/list of them) as an attribute.

    ``item``: an element of a tuple (MindSpore stores those in the repeated fields).
    """
    a = A(name=name) if name else A()
    if value is None:
        a.type = A.NONE
    elif isinstance(value, (bool, np.bool_)):
        a.type, a.i = A.BOOL, int(value)
    elif isinstance(value, (int, np.integer)):
        a.type = A.INT64
        if item:
            a.ints.append(int(value))
        else:
            a.i = int(value)
    elif isinstance(value, (float, np.floating)):
        a.type = A.FLOAT
        if item:
            a.floats.append(float(value))
        else:
            a.f = float(value)
    elif isinstance(value, str):
        a.type = A.STRING
        if item:
            a.strings.append(value.encode())
        else:
            a.s = value.encode()
    elif isinstance(value, (tuple, list)):
        a.type = A.TUPLE if isinstance(value, tuple) else A.LIST
        a.values.extend(to_attr("", v, item=True) for v in value)
    else:
        raise TypeError(f"attribute {name!r}: {type(value).__name__} {value!r} has no MINDIR "
                        "encoding")
    return a


def from_attr(a: pb.AttributeProto):
    """The Python value of an attribute written by ``to_attr`` or by MindSpore."""
    t = a.type
    if t in (A.TUPLE, A.LIST):
        items = tuple(from_attr(v) for v in a.values)
        return items if t == A.TUPLE else list(items)
    if t == A.BOOL:
        return bool(a.i)
    if t in (A.INT8, A.INT16, A.INT32, A.INT64, A.UINT8, A.UINT16, A.UINT32, A.UINT64):
        return int(a.ints[0]) if len(a.ints) else int(a.i)
    if t in (A.FLOAT, A.DOUBLE):
        if len(a.floats):
            return float(a.floats[0])
        if len(a.doubles):
            return float(a.doubles[0])
        return float(a.f if t == A.FLOAT else a.d)
    if t == A.STRING:
        return (a.strings[0] if len(a.strings) else a.s).decode()
    if t == A.NONE:
        return None
    if t in (A.TENSOR, A.TENSORS):  # a constant tensor (MindSpore writes scalars this way)
        tensor = a.t if t == A.TENSOR else a.tensors[0]
        dtype = np.dtype(TYPES[tensor.data_type]).newbyteorder("<")
        return np.frombuffer(tensor.raw_data, dtype).astype(dtype.newbyteorder("=")).reshape(
            tuple(tensor.dims))
    raise ValueError(f"MINDIR attribute {a.name!r}: type {A.AttributeType.Name(t)} is not "
                     "read by microspore")
