"""``CollectiveDef``: an OpDef that communicates.

A collective is marked ``stateful``: that is how ms-graph's passes know a node does more
than compute its outputs, so they never fold it into a constant at compile time, merge
two of them or drop one whose output is unused (the other ranks wait for it). It carries
no random state: its ``new_generator`` gives None, so it draws nothing from the global
seed's stream and random operators give the same numbers with or without collectives.

An eager call with nothing recording it (no ``grad`` tape, no graph capture, no profiler
observing kernels) may take the operator's ``eager`` path: the same MPI call, after the
same inference (run once per attributes), without dispatch's generic planning. A 1 KB
allreduce costs MPI a few microseconds, and the generic path costs several times that; a
collective is called with few distinct signatures, so its checks are cached. The
operator's Primitive class (``ops.AllReduce()``) takes the path too (``eager_attrs``,
given the instance's attributes).
"""

from __future__ import annotations

import sys

from ms_ops import OpDef
from ms_ops.dispatch import get_recorder, kernel_observer
from ms_ops.primitive import Primitive, make_primitive_class
from ms_tensor import dtype as mstype

__all__ = ["CollectiveDef", "COMM_DTYPES", "REDUCE_OPS", "check_reduce_op", "check_group"]

COMM_DTYPES = frozenset(mstype.number_types)
REDUCE_OPS = ("sum", "max", "min", "prod")


class CollectiveDef(OpDef):
    """An operator whose kernel talks to the other ranks of a group."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("stateful", True)
        kwargs.setdefault("seed_attrs", ())
        super().__init__(*args, **kwargs)
        # OpDef records the module that called it, which here is this one: record the
        # family module that defines the operator instead.
        self.module = sys._getframe(1).f_globals.get("__name__")
        self.eager = None  # fn(*args, **kwargs) -> Tensor, or NotImplemented to decline
        self.eager_attrs = None  # fn(inputs, attrs) -> the same, for a Primitive's call

    def __call__(self, *args, **kwargs):
        if self.eager is not None and get_recorder() is None and kernel_observer() is None:
            out = self.eager(*args, **kwargs)
            if out is not NotImplemented:
                return out
        return OpDef.__call__(self, *args, **kwargs)

    def new_generator(self, attrs: dict):
        return None

    @property
    def primitive(self) -> type:
        """``ops.AllReduce`` and the rest: Primitive classes that try the eager path."""
        if self._primitive is None:
            doc = make_primitive_class(self).__doc__
            self._primitive = type(self.name, (CollectivePrimitive,),
                                   {"op": self, "__doc__": doc, "__module__": "ms_ops"})
        return self._primitive


class CollectivePrimitive(Primitive):
    """A collective's Primitive: an unrecorded call takes the operator's eager path."""

    def __call__(self, *inputs, **kwargs):
        eager = self.op.eager_attrs
        if eager is not None and not kwargs and get_recorder() is None and \
                kernel_observer() is None:
            out = eager(inputs, self.attrs)
            if out is not NotImplemented:
                return out
        return Primitive.__call__(self, *inputs, **kwargs)


def check_reduce_op(op) -> str:
    if op not in REDUCE_OPS:
        raise ValueError(f"op must be one of {', '.join(map(repr, REDUCE_OPS))} "
                         f"(ReduceOp.SUM/MAX/MIN/PROD), got {op!r}")
    return op


def check_group(group):
    """The Group named ``group`` (raises for a non-str or unknown name)."""
    from ms_parallel.groups import group as find

    if not isinstance(group, str):
        raise TypeError(f"group must be a str, got {type(group).__name__}")
    return find(group)
