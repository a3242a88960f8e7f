"""MindSpore's protobuf strategy and group-information files (``node_strategy.proto``).

MindSpore saves a strategy file as JSON when its name ends in ``.json`` and as a protobuf
``ParallelStrategyMap`` otherwise (``strategy_ckpt_config``, ``build_searched_strategy``:
the test is ``name[-5:] == ".json"``); a group-information file
(``group_ckpt_save_file``) is always a protobuf ``ParallelGroupMap``. The messages are
built here from their field names, numbers and types (proto2, package
``mindspore.straspb``) in a private descriptor pool, so the bytes are MindSpore's and
MindSpore's own classes parse them.

``to_strategy_bytes``/``from_strategy_bytes`` convert between those bytes and the
dictionary a JSON strategy file holds (``operators``: name -> ``in_strategy`` and
``stage``; ``parallel_layout_item``: name -> layout fields).

>>> data = {"operators": {"MatMul-0": {"in_strategy": [[2, 1], [1, 1]]}},
...         "parallel_layout_item": {"w": {"dev_matrix": [2, 1], "tensor_map": [-1, -1],
...                                        "field": 0, "opt_weight_shard_size": 0,
...                                        "opt_weight_shard_step": 0}}}
>>> back = from_strategy_bytes(to_strategy_bytes(data), "s.ckpt")
>>> back["operators"]["MatMul-0"]["in_strategy"], back["parallel_layout_item"]["w"]["tensor_map"]
([[2, 1], [1, 1]], [-1, -1])
"""

from __future__ import annotations

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from google.protobuf.message import DecodeError

__all__ = ["is_json", "message", "parse", "to_strategy_bytes", "from_strategy_bytes",
           "to_group_bytes", "from_group_bytes"]

PACKAGE = "mindspore.straspb"

# message -> (field, number, label, type or message); node_strategy.proto's facts
_SCHEMA = {
    "ParallelStrategy": [("dim", 1, "repeated", "uint32")],
    "ParallelStrategys": [("stage", 1, "required", "uint32"),
                          ("parallel_strategy", 2, "repeated", "ParallelStrategy")],
    "ParallelStrategyItem": [("node_name", 1, "required", "string"),
                             ("parallel_strategys", 2, "required", "ParallelStrategys")],
    "DevMatrix": [("dim", 1, "repeated", "uint32")],
    "TensorMap": [("dim", 1, "repeated", "int32")],
    "ParamSplitShape": [("dim", 1, "repeated", "int64")],
    "IndicesOffset": [("dim", 1, "repeated", "int64")],
    "ParallelLayouts": [("dev_matrix", 1, "repeated", "DevMatrix"),
                        ("tensor_map", 2, "repeated", "TensorMap"),
                        ("param_split_shape", 3, "repeated", "ParamSplitShape"),
                        ("indices_offset", 4, "repeated", "IndicesOffset"),
                        ("field", 5, "required", "int32"),
                        ("opt_weight_shard_step", 6, "required", "int32"),
                        ("opt_weight_shard_size", 7, "required", "int32")],
    "ParallelLayoutItem": [("param_name", 1, "required", "string"),
                           ("parallel_layouts", 2, "required", "ParallelLayouts")],
    "ParallelGroupRanks": [("dim", 1, "repeated", "uint32")],
    "ParallelGroupItem": [("group_name", 1, "required", "string"),
                          ("parallel_group_ranks", 2, "required", "ParallelGroupRanks")],
    "ParallelGroupMap": [("parallel_group_item", 1, "repeated", "ParallelGroupItem"),
                         ("ckpt_restore_rank_list", 2, "required", "ParallelGroupRanks")],
    "ParallelStrategyMap": [("current_stage", 1, "required", "uint32"),
                            ("parallel_strategy_item", 2, "repeated", "ParallelStrategyItem"),
                            ("parallel_layout_item", 3, "repeated", "ParallelLayoutItem")],
}


def _classes() -> dict:
    f = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="microspore/node_strategy.proto",
                                               package=PACKAGE, syntax="proto2")
    for name, fields in _SCHEMA.items():
        msg = proto.message_type.add(name=name)
        for field, number, label, kind in fields:
            entry = msg.field.add(name=field, number=number,
                                  label=getattr(f, "LABEL_" + label.upper()))
            if kind in _SCHEMA:
                entry.type, entry.type_name = f.TYPE_MESSAGE, f".{PACKAGE}.{kind}"
            else:
                entry.type = getattr(f, "TYPE_" + kind.upper())
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return {name: message_factory.GetMessageClass(pool.FindMessageTypeByName(
        f"{PACKAGE}.{name}")) for name in _SCHEMA}


_CLASSES = _classes()


def message(name: str):
    """A new, empty message ``name`` of node_strategy.proto."""
    return _CLASSES[name]()


def is_json(path) -> bool:
    """MindSpore's choice: a strategy file whose name ends in ``.json`` is JSON, any other
    is protobuf."""
    return str(path)[-5:] == ".json"


_NAMES = {"strategy file": "; a name not ending in .json means protobuf"}


def parse(data: bytes, name: str, path, what: str):
    """``data`` parsed as message ``name``; a ValueError naming ``path`` if it is not one."""
    msg = message(name)
    try:
        msg.ParseFromString(data)
        missing = msg.FindInitializationErrors()  # proto2's required fields
        if not data or missing:
            raise DecodeError(f"required fields missing: {', '.join(missing) or 'all'}")
    except (DecodeError, RuntimeError, ValueError) as e:
        raise ValueError(f"{path} is not a {what} (a protobuf {name} of MindSpore's "
                         f"node_strategy.proto{_NAMES.get(what, '')}): {e}") from None
    return msg


def _tensor_map(layouts, tensor_map) -> None:
    """One TensorMap of ints, or (a dimension cut by several axes) one per dimension, as
    MindSpore's readers take them; an empty one keeps a single dimension's apart."""
    if all(not isinstance(v, (list, tuple)) for v in tensor_map):
        layouts.tensor_map.add().dim.extend(int(v) for v in tensor_map)
        return
    for v in tensor_map:
        layouts.tensor_map.add().dim.extend(int(a) for a in (v if isinstance(v, (list, tuple))
                                                             else [v]))
    if len(tensor_map) == 1:
        layouts.tensor_map.add()


def _stage(data: dict) -> int:
    stages = {int(item.get("pipeline_stage") or 0)
              for item in (data.get("parallel_layout_item") or {}).values()}
    return stages.pop() if len(stages) == 1 else 0


def to_strategy_bytes(data: dict) -> bytes:
    """A ``ParallelStrategyMap`` of a JSON strategy file's dictionary (its operators'
    strategies, at the pipeline stage of its Parameters, and its layouts)."""
    out = message("ParallelStrategyMap")
    out.current_stage = 1  # as MindSpore's saves
    stage = _stage(data)
    for name, entry in sorted((data.get("operators") or {}).items()):
        item = out.parallel_strategy_item.add(node_name=name)
        item.parallel_strategys.stage = int(entry.get("stage", stage))
        for dims in entry["in_strategy"]:
            item.parallel_strategys.parallel_strategy.add().dim.extend(int(d) for d in dims)
    for name, lay in sorted((data.get("parallel_layout_item") or {}).items()):
        item = out.parallel_layout_item.add(param_name=name)
        layouts = item.parallel_layouts
        layouts.dev_matrix.add().dim.extend(int(d) for d in lay["dev_matrix"])
        _tensor_map(layouts, lay["tensor_map"])
        layouts.param_split_shape.add().dim.extend(lay.get("param_split_shape") or ())
        layouts.indices_offset.add().dim.extend(lay.get("indices_offset") or ())
        layouts.field = int(lay.get("field") or 0)
        layouts.opt_weight_shard_step = int(lay.get("opt_weight_shard_step") or 0)
        layouts.opt_weight_shard_size = int(lay.get("opt_weight_shard_size") or 0)
    return out.SerializeToString()


def _layout_item(layouts, path, name) -> dict:
    if not layouts.dev_matrix:
        raise ValueError(f"{path}: Parameter {name!r} has no dev_matrix")
    maps = [list(m.dim) for m in layouts.tensor_map]
    if len(maps) > 1:  # one per dimension (MindSpore's reader drops empty ones)
        tensor_map = [m[0] if len(m) == 1 else m for m in maps if m]
    else:
        tensor_map = maps[0] if maps else []
    return {"dev_matrix": list(layouts.dev_matrix[0].dim), "tensor_map": tensor_map,
            "param_split_shape": list(layouts.param_split_shape[0].dim)
            if layouts.param_split_shape else [],
            "indices_offset": list(layouts.indices_offset[0].dim)
            if layouts.indices_offset else [],
            "field": layouts.field, "opt_weight_shard_step": layouts.opt_weight_shard_step,
            "opt_weight_shard_size": layouts.opt_weight_shard_size}


def _text(value, path) -> str:
    """A proto2 string field: protobuf hands back bytes where they are not UTF-8."""
    if isinstance(value, bytes):
        raise ValueError(f"{path}: the name {value[:40]!r} is not UTF-8 text (a damaged "
                         "file?)")
    return value


def from_strategy_bytes(data: bytes, path) -> dict:
    """The JSON strategy dictionary of a ``ParallelStrategyMap`` (names as in the file)."""
    msg = parse(data, "ParallelStrategyMap", path, "strategy file")
    operators = {_text(item.node_name, path): {
        "in_strategy": [list(s.dim) for s in item.parallel_strategys.parallel_strategy],
        "stage": item.parallel_strategys.stage} for item in msg.parallel_strategy_item}
    items = {_text(entry.param_name, path): _layout_item(entry.parallel_layouts, path,
                                                         entry.param_name)
             for entry in msg.parallel_layout_item}
    return {"current_stage": msg.current_stage, "operators": operators,
            "parallel_layout_item": items}


def to_group_bytes(groups: dict, restore_ranks) -> bytes:
    """A ``ParallelGroupMap``: group name -> its world ranks, and the restore rank list."""
    out = message("ParallelGroupMap")
    for name, ranks in groups.items():
        out.parallel_group_item.add(group_name=name).parallel_group_ranks.dim.extend(ranks)
    out.ckpt_restore_rank_list.dim.extend(int(r) for r in restore_ranks)
    return out.SerializeToString()


def from_group_bytes(data: bytes, path) -> tuple[dict, list]:
    """``(group name -> ranks, restore rank list)`` of a ``ParallelGroupMap``."""
    msg = parse(data, "ParallelGroupMap", path, "group information file")
    return ({_text(g.group_name, path): list(g.parallel_group_ranks.dim)
             for g in msg.parallel_group_item},
            list(msg.ckpt_restore_rank_list.dim))
