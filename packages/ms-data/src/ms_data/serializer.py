"""``serialize``/``deserialize``/``show``/``compare``: a pipeline as a JSON description.

As MindSpore's, a node is ``{"op_type", "children": [...], <arguments>}``, the leaf last.
Here the arguments are those the node was made with (``ms_data._recorded``), and samplers
and transforms are ``{"op_type", "python_module", <arguments>}`` the same way, so
``deserialize(serialize(d))`` rebuilds the same pipeline. A plain function is stored by its
module and name; one that cannot be imported by name (a lambda, a local function), a
generator source or another Python object makes ``deserialize`` raise, naming it
(MindSpore writes such pipelines too, and cannot read them back either). The JSON is
microspore's own: MindSpore's files name C++ operations and are not read here.

>>> import ms_data as ds
>>> d = ds.NumpySlicesDataset([1, 2, 3], column_names=["x"], shuffle=False).batch(2)
>>> same = ds.deserialize(input_dict=ds.serialize(d))
>>> [x[0].asnumpy().tolist() for x in same], ds.compare(d, same)
([[1, 2], [3]], True)
"""

from __future__ import annotations

import enum
import importlib
import json
import types

import numpy as np

from ms_data._recorded import Recorded
from ms_data.dataset import Dataset
from ms_data.sources.schema import Schema

__all__ = ["serialize", "deserialize", "show", "compare"]


def _op_type(obj) -> str:
    name = type(obj).__name__
    if isinstance(obj, Dataset) and type(obj).__module__.startswith("ms_data.ops."):
        return name.removesuffix("Dataset")  # Map, Batch, Repeat... as MindSpore names them
    return name


def _encode(value, children: list):
    if isinstance(value, Dataset):
        children.append(_node(value))
        return {"__child__": len(children) - 1}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, enum.Enum):
        return {"__enum__": type(value).__qualname__, "python_module": type(value).__module__,
                "value": value.value}
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, (list, tuple)):
        items = [_encode(v, children) for v in value]
        return items if isinstance(value, list) else {"__tuple__": items}
    if isinstance(value, dict):
        return {"__dict__": [[_encode(k, children), _encode(v, children)]
                             for k, v in value.items()]}
    if isinstance(value, Schema):
        return {"__schema__": json.loads(value.to_json())}
    if isinstance(value, Recorded):
        return _call(value, children)
    if isinstance(value, (types.FunctionType, type)) and "<" not in value.__qualname__:
        return {"python_module": value.__module__, "tensor_op_name": value.__qualname__}
    return {"__unserializable__": f"{type(value).__name__}: {value!r}"[:200]}


def _call(obj, children: list) -> dict:
    args, kwargs = obj.__dict__.get("_init_call", ((), {}))  # none: made without arguments
    out = {"op_type": _op_type(obj), "python_module": type(obj).__module__,
           "__class__": type(obj).__qualname__,
           "args": [_encode(a, children) for a in args],
           **{k: _encode(v, children) for k, v in sorted(kwargs.items())}}
    if getattr(obj, "child_sampler", None) is not None:  # a sampler's add_child
        out["__child_sampler__"] = _encode(obj.child_sampler, children)
    return out


def _node(dataset: Dataset) -> dict:
    children: list = []
    node = _call(dataset, children)
    node["children"] = children
    return node


def serialize(dataset, json_filepath=""):
    """The pipeline ending at ``dataset`` as a dict; also written to ``json_filepath``."""
    if not isinstance(dataset, Dataset):
        raise TypeError(f"serialize: expected a Dataset, got {type(dataset).__name__}")
    if not isinstance(json_filepath, str):
        raise TypeError(f"serialize: json_filepath must be a str, got {json_filepath!r}")
    description = _node(dataset)
    if json_filepath:
        with open(json_filepath, "w", encoding="utf-8") as f:
            json.dump(description, f, indent=2)
    return description


def _decode(value, children: list):
    if isinstance(value, list):
        return [_decode(v, children) for v in value]
    if not isinstance(value, dict):
        return value
    if "__child__" in value:
        return children[value["__child__"]]
    if "__tuple__" in value:
        return tuple(_decode(v, children) for v in value["__tuple__"])
    if "__dict__" in value:
        return {_decode(k, children): _decode(v, children) for k, v in value["__dict__"]}
    if "__ndarray__" in value:
        return np.asarray(value["__ndarray__"], dtype=np.dtype(value["dtype"]))
    if "__schema__" in value:
        schema = Schema()
        schema.from_json(value["__schema__"])
        return schema
    if "__enum__" in value:
        return _find(value["python_module"], value["__enum__"])(value["value"])
    if "__unserializable__" in value:
        raise ValueError(f"deserialize: the pipeline holds a Python object that cannot be "
                         f"described in JSON ({value['__unserializable__']})")
    if "__class__" in value:
        return _rebuild(value, children)
    if "tensor_op_name" in value:
        return _find(value["python_module"], value["tensor_op_name"])
    return {k: _decode(v, children) for k, v in value.items()}


def _find(module: str, qualname: str):
    try:
        obj = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
    except (ImportError, AttributeError) as e:
        raise ValueError(f"deserialize: cannot find {module}.{qualname}: {e}") from None
    return obj


def _rebuild(value: dict, children: list):
    cls = _find(value["python_module"], value["__class__"])
    skip = {"op_type", "python_module", "__class__", "args", "children", "__child_sampler__"}
    args = [_decode(a, children) for a in value.get("args", [])]
    kwargs = {k: _decode(v, children) for k, v in value.items() if k not in skip}
    obj = cls(*args, **kwargs)
    if "__child_sampler__" in value:
        obj.add_child(_decode(value["__child_sampler__"], children))
    return obj


def _build(node: dict) -> Dataset:
    if not isinstance(node, dict) or "__class__" not in node:
        raise ValueError(f"deserialize: not a pipeline description written by serialize: "
                         f"{str(node)[:200]}")
    children = [_build(c) for c in node.get("children", [])]
    return _rebuild(node, children)


def deserialize(input_dict=None, json_filepath=None):
    """The pipeline described by ``input_dict`` or the JSON file ``json_filepath``."""
    if (input_dict is None) == (json_filepath is None):
        raise ValueError("deserialize: give exactly one of input_dict and json_filepath")
    if json_filepath is not None:
        with open(json_filepath, encoding="utf-8") as f:
            input_dict = json.load(f)
    return _build(input_dict)


def show(dataset, indentation=2) -> None:
    """Print the pipeline's description (``indentation`` spaces per level; None: one line)."""
    if indentation is not None and (not isinstance(indentation, int) or indentation < 0):
        raise ValueError(f"show: indentation must be a non-negative int or None, got "
                         f"{indentation!r}")
    print(json.dumps(serialize(dataset), indent=indentation))


def compare(pipeline1, pipeline2) -> bool:
    """Whether two pipelines have the same description."""
    return serialize(pipeline1) == serialize(pipeline2)
