"""Small functions of MindSpore's ``ops`` that are about values rather than arithmetic:
dtype queries and casts (``dtype``, ``is_tensor``, ``type_as``, ``scalar_cast``,
``scalar_to_tensor``, ``mixed_precision_cast``), ``move_to`` (the CPU is the only place
here), ``depend``, ``partial``, and the sequence combinators ``HyperMap``/``Map`` and
``MultitypeFuncGraph`` (a function chosen by its arguments' types).
"""

from __future__ import annotations

import functools

from ms_ops.defs import array
from ms_ops.opdef import functional, primitive_class
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor


@functional("dtype")
def dtype(input):
    """``ops.dtype``: the tensor's dtype."""
    if not isinstance(input, Tensor):
        raise TypeError(f"dtype: expected a Tensor, got {type(input).__name__}")
    return input.dtype


DType = primitive_class("DType", dtype)


@functional("is_tensor")
def is_tensor(input):
    """``ops.is_tensor``: whether ``input`` is a Tensor (a Parameter is one)."""
    return isinstance(input, Tensor)


@functional("type_as")
def type_as(input, other):
    """``ops.type_as``: ``input`` cast to ``other``'s dtype."""
    return array.Cast(input, other.dtype)


_PY = {mstype.bool_: bool, mstype.int64: int, mstype.int32: int, mstype.float64: float,
       mstype.float32: float}


@functional("scalar_cast")
def scalar_cast(input_x, input_y):
    """``ops.scalar_cast``: a Python number converted to the Python type of dtype
    ``input_y`` (bool, int or float)."""
    if not isinstance(input_x, (int, float, bool)):
        raise TypeError(f"scalar_cast: input_x must be a Python number, got "
                        f"{type(input_x).__name__}")
    if input_y not in _PY:
        raise ValueError(f"scalar_cast: input_y must be one of {sorted(map(str, _PY))}, "
                         f"got {input_y}")
    return _PY[input_y](input_x)


@functional("scalar_to_tensor")
def scalar_to_tensor(input_x, dtype=mstype.float32):
    """``ops.scalar_to_tensor``: a 0-d tensor of ``dtype`` (float32 by default)."""
    if not isinstance(input_x, (int, float, bool)):
        raise TypeError(f"scalar_to_tensor: input_x must be a Python number, got "
                        f"{type(input_x).__name__}")
    return Tensor(input_x, dtype)


ScalarToTensor = primitive_class("ScalarToTensor", scalar_to_tensor)


@functional("mixed_precision_cast")
def mixed_precision_cast(dst_type, input_x):
    """``ops.mixed_precision_cast``: every floating tensor in ``input_x`` (a tensor, or a
    tuple/list/dict of them) cast to ``dst_type``; other values unchanged."""
    if isinstance(input_x, Tensor):
        return array.Cast(input_x, dst_type) if input_x.dtype in mstype.float_types \
            else input_x
    if isinstance(input_x, (tuple, list)):
        return type(input_x)(mixed_precision_cast(dst_type, v) for v in input_x)
    if isinstance(input_x, dict):
        return {k: mixed_precision_cast(dst_type, v) for k, v in input_x.items()}
    return input_x


@functional("move_to")
def move_to(input, to="CPU", blocking=True):
    """``ops.move_to``: the tensor on device ``to``; microspore's tensors live in host
    memory, so "CPU" returns it and other targets are refused by name."""
    if to != "CPU":
        raise ValueError(f"move_to: microspore keeps tensors in host memory; to must be "
                         f"'CPU', got {to!r}")
    return input


MoveTo = primitive_class("MoveTo", move_to)


@functional("depend")
def depend(value, expr):
    """``ops.depend``: ``value``, after ``expr`` (operators run in program order here, so
    the ordering MindSpore's graph needs is already given)."""
    return value


Depend = primitive_class("Depend", depend)


@functional("partial")
def partial(func, *args):
    """``ops.partial``: ``func`` with its first arguments bound."""
    return functools.partial(func, *args)


Partial = primitive_class("Partial", partial)


def _hyper_map(fn, *sequences):
    if not sequences:
        raise ValueError("HyperMap: needs at least one sequence")
    if all(isinstance(s, (tuple, list)) for s in sequences):
        lengths = {len(s) for s in sequences}
        if len(lengths) != 1:
            raise ValueError(f"HyperMap: the sequences have different lengths {sorted(lengths)}")
        return tuple(_hyper_map(fn, *items) for items in zip(*sequences))
    return fn(*sequences)


class HyperMap:
    """``ops.HyperMap(ops=None)(fn, *sequences)``: ``fn`` applied to the leaves of nested
    tuples/lists, element by element (``fn`` bound at construction when given)."""

    ms_functional = (("HyperMap",), (), False)

    def __init__(self, ops=None, reverse=False):
        self.fn = ops

    def __call__(self, *args):
        return _hyper_map(self.fn, *args) if self.fn is not None else _hyper_map(*args)


class Map(HyperMap):
    """``ops.Map(ops=None)(fn, *sequences)``: ``fn`` applied across the sequences' items."""

    ms_functional = (("Map",), (), False)

    def __call__(self, *args):
        fn, seqs = (self.fn, args) if self.fn is not None else (args[0], args[1:])
        return tuple(fn(*items) for items in zip(*seqs))


_TYPE_NAMES = {"Tensor": Tensor, "Number": (int, float), "Bool": bool, "Int": int,
               "Float": float, "Tuple": tuple, "List": list, "String": str, "Dict": dict,
               "None": type(None)}


class MultitypeFuncGraph:
    """``ops.MultitypeFuncGraph(name)``: a function with one implementation per signature
    of argument types, registered with ``@f.register("Tensor", "Number")``."""

    ms_functional = (("MultitypeFuncGraph",), (), False)

    def __init__(self, name, read_value=False, doc_url=""):
        self.name = name
        self.entries: list[tuple[tuple, object]] = []

    def register(self, *type_names):
        types = []
        for t in type_names:
            if isinstance(t, str):
                if t not in _TYPE_NAMES:
                    raise ValueError(f"{self.name}.register: unknown type name {t!r}; known: "
                                     f"{', '.join(_TYPE_NAMES)}")
                types.append(_TYPE_NAMES[t])
            else:
                types.append(t)

        def deco(fn):
            self.entries.append((tuple(types), fn))
            return fn
        return deco

    def __call__(self, *args):
        for types, fn in self.entries:
            if len(types) == len(args) and all(isinstance(a, t) for a, t in zip(args, types)):
                return fn(*args)
        got = ", ".join(type(a).__name__ for a in args)
        raise TypeError(f"{self.name}: no implementation registered for argument types "
                        f"({got})")
