"""MindSpore 2.10's primitive-function operators whose options are trailing ``Constant``
inputs, in order: one table read by both the writer and the reader.

Each entry: registry operator -> ``(option, ...)`` where an option is the registry
attribute (or static input) name, or a ``(name, fixed value)`` pair for an input MindSpore
wants that the registry operator does not have. ``MULTI``: operators that return a tuple
in MindSpore (the graph reads item 0 through ``TupleGetItem``).
"""

from __future__ import annotations

__all__ = ["OPTIONS", "MULTI", "to_mindspore", "from_mindspore"]

_REDUCE = ("axis", "keep_dims")
OPTIONS = {
    "Transpose": ("input_perm",),
    "ExpandDims": ("axis",),
    "Squeeze": ("axis",),
    "ReduceMean": _REDUCE, "ReduceMax": _REDUCE, "ReduceMin": _REDUCE, "ReduceProd": _REDUCE,
    "ReduceSum": _REDUCE + (("skip_mode", False),),
    "BatchMatMul": ("transpose_a", "transpose_b"),
    "Gather": ("axis", "batch_dims"),
    "StridedSlice": ("begin", "end", "strides", "begin_mask", "end_mask", "ellipsis_mask",
                     "new_axis_mask", "shrink_axis_mask"),
    "BatchNorm": ("is_training", "epsilon", "momentum", ("data_format", 0)),
    "LayerNorm": ("begin_norm_axis", "begin_params_axis", "epsilon"),
}
MULTI = frozenset({"BatchNorm", "LayerNorm"})
# Options MindSpore types more strictly than the registry: tuples, ints, floats.
_TUPLE = frozenset({"input_perm", "begin", "end", "strides"})
_TUPLE_OPS = frozenset({"Squeeze", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd",
                        "ReduceSum"})
_FLOAT = frozenset({"epsilon", "momentum"})


def _tuple(v) -> tuple:
    return tuple(int(x) for x in v) if isinstance(v, (tuple, list)) else (int(v),)


def to_mindspore(op: str, attrs: dict, defaults: dict) -> list:
    """The option values, in MindSpore's input order, for a node of ``op``."""
    values = []
    for opt in OPTIONS[op]:
        if isinstance(opt, tuple):
            values.append(opt[1])
            continue
        v = attrs.get(opt, defaults.get(opt))
        if opt in _TUPLE or (opt == "axis" and op in _TUPLE_OPS):
            v = _tuple(() if v is None else v)
        elif opt in _FLOAT:
            v = float(v)
        elif isinstance(v, bool):
            pass
        elif isinstance(v, int):
            v = int(v)
        values.append(v)
    return values


def from_mindspore(op: str, values: list) -> dict:
    """The registry attributes of a MindSpore node's option inputs (fixed ones checked)."""
    attrs = {}
    for opt, v in zip(OPTIONS[op], values):
        if isinstance(opt, tuple):
            if v != opt[1]:
                raise ValueError(f"{op}: {opt[0]}={v!r} is not read (only {opt[1]!r})")
            continue
        attrs[opt] = v
    return attrs
