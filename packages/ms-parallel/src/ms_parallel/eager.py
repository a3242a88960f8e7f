"""The eager paths of AllReduce, AllGather, ReduceScatter and Broadcast: what
``CollectiveDef.eager`` (``Op(t, ...)``) and ``eager_attrs`` (``ops.Op(...)(t)``) run
when nothing records the call.

A call finds its plan in ``groups.runners`` under ``(name, *attributes)``: made once per
attributes, after the operator's inference accepted them, and dropped with its group. The
plan takes the Tensor and returns the new Tensor, or NotImplemented for an input it does
not take as it is (16-bit floats, strided arrays...), which then goes through dispatch.
Plans are the C path's (ms_parallel.direct) where it is available; otherwise AllReduce
keeps a Python plan over mpi4py and the other three have none (dispatch).
"""

from __future__ import annotations

import numpy as np

from ms_ops import TensorSpec
from ms_parallel.groups import WORLD, runners
from ms_parallel.groups import group as find_group
from ms_parallel.reduce_ops import _FAST, AllGather, AllReduce, Broadcast, ReduceScatter
from ms_tensor import Tensor
from ms_tensor import dtype as mstype
from ms_tensor.tensor import array_of, wrap

__all__ = ["plan"]

# Each operator's attributes, in its signature's order, with their defaults.
_ATTRS = {AllReduce: (("op", "group"), ("sum", WORLD)),
          AllGather: (("group",), (WORLD,)),
          ReduceScatter: (("op", "group"), ("sum", WORLD)),
          Broadcast: (("root_rank", "group"), (0, WORLD))}


def plan(opdef, *values):
    """The plan of ``opdef`` for attribute ``values`` (made and kept on first use), or
    None: no plan (then dispatch runs it, and raises for attributes it rejects)."""
    key = (opdef.name, *values)
    try:
        return runners[key]
    except KeyError:
        pass
    if any(type(v) not in (str, int) for v in values):
        return None
    attrs = dict(zip(_ATTRS[opdef][0], values))
    g = find_group(attrs["group"])
    # Inference checks the attributes (an input of the group's size fits every operator).
    opdef.abstract_eval(TensorSpec((g.size,), mstype.float32), **attrs)
    made = g.direct_plan(opdef.name, op=attrs.get("op", "sum"),
                         root=attrs.get("root_rank", 0))
    if made is None and opdef is AllReduce:
        made = _python_allreduce(g.allreduce_runner(attrs["op"]))
    runners[key] = made
    return made


def _python_allreduce(run):
    """AllReduce's plan without the C path: the group's mpi4py runner on the array."""
    def call(x):
        if type(x) is Tensor:
            arr = array_of(x)
            if type(arr) is np.ndarray and arr.dtype in _FAST and arr.flags.c_contiguous:
                return wrap(run(arr))
        return NotImplemented

    return call


def _run(opdef, values, x):
    """``opdef(x, *values)`` on its plan, made now; NotImplemented where there is none."""
    try:
        made = plan(opdef, *values)
    except TypeError:  # an unhashable attribute: dispatch says what is wrong
        made = None
    return NotImplemented if made is None else made(x)


# One entry per operator and form, spelled out: at 1 KB a generic entry's argument
# juggling (tuples, comprehensions) costs a visible share of the allreduce.
def _allreduce(x, op="sum", group=WORLD):
    try:
        made = runners["AllReduce", op, group]
    except (KeyError, TypeError):
        return _run(AllReduce, (op, group), x)
    return made(x)


def _allgather(x, group=WORLD):
    try:
        made = runners["AllGather", group]
    except (KeyError, TypeError):
        return _run(AllGather, (group,), x)
    return NotImplemented if made is None else made(x)


def _reduce_scatter(x, op="sum", group=WORLD):
    try:
        made = runners["ReduceScatter", op, group]
    except (KeyError, TypeError):
        return _run(ReduceScatter, (op, group), x)
    return NotImplemented if made is None else made(x)


def _broadcast(x, root_rank=0, group=WORLD):
    try:
        made = runners["Broadcast", root_rank, group]
    except (KeyError, TypeError):
        return _run(Broadcast, (root_rank, group), x)
    return NotImplemented if made is None else made(x)


def _allreduce_attrs(inputs, attrs):
    """``ops.AllReduce(op, group)(t)`` (the benchmarked Primitive: one frame fewer)."""
    if len(inputs) != 1:
        return NotImplemented
    try:
        made = runners["AllReduce", attrs["op"], attrs["group"]]
    except (KeyError, TypeError):
        return _allreduce(inputs[0], attrs["op"], attrs["group"])
    return made(inputs[0])


AllReduce.eager = _allreduce
AllGather.eager = _allgather
ReduceScatter.eager = _reduce_scatter
Broadcast.eager = _broadcast
# ``ops.Op(...)(t)``: the instance's attributes (others, such as a ``fusion`` set by
# ``add_prim_attr``, do not matter here).
AllReduce.eager_attrs = _allreduce_attrs
AllGather.eager_attrs = lambda inputs, a: _allgather(*inputs, a["group"]) \
    if len(inputs) == 1 else NotImplemented
ReduceScatter.eager_attrs = lambda inputs, a: _reduce_scatter(*inputs, a["op"], a["group"]) \
    if len(inputs) == 1 else NotImplemented
Broadcast.eager_attrs = lambda inputs, a: _broadcast(*inputs, a["root_rank"], a["group"]) \
    if len(inputs) == 1 else NotImplemented
