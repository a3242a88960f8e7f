"""Sub-traces: the operators one branch or loop body runs, recorded into a graph of
its own (``ms_graph.control_flow``'s building block).

Contract with the tracer (``ms_graph.trace``): ``current_tracer()`` returns the trace in
progress or None; a trace has ``value_of(tensor) -> ir.Value`` (the Value the tensor
has, making a parameter or constant Value for tensors it has not met), ``is_variable``,
``graph`` and ``_bind(tensor, value)``. The sub-traces opened here implement the same, so
control flow nests. Sub-traces are per thread, as tapes and tracers are.
"""

from __future__ import annotations

from contextlib import contextmanager

from ms_autodiff.recording import set_recorder, thread_state
from ms_autodiff.tape import active_tapes
from ms_graph import ir
from ms_graph.convert.errors import GraphSyntaxError
from ms_graph.trace import TraceError, current_tracer
from ms_ops import dispatch
from ms_ops.opdef import TENSOR, TensorSpec
from ms_tensor.dtype import from_numpy as _from_np
from ms_tensor.tensor import Tensor, array_of

__all__ = ["current_trace", "discarded", "Undefined", "observe_nodes"]

_SCALARS = (bool, int, float)
# Told of each operator node a sub-trace records, while the branch's Python runs (so a
# tool can tell the user's line inside the branch: ms-device-ascend's ``check``).
_node_observers: list = []
_stack = thread_state(list)  # this thread's sub-traces opened here (or _PAUSED), innermost last
_PAUSED = object()


class Undefined:
    """The value of a variable that is not assigned yet (set only in some branches).

    After a tensor-dependent ``if`` that assigns it on one path only, it carries the
    ``GraphSyntaxError`` to raise when it is used (``error``: message and location), so
    that a variable assigned again before its next use is no error, as in Python.
    """

    __slots__ = ("name", "error")

    def __init__(self, name: str, error: tuple | None = None):
        self.name = name
        self.error = error

    def __repr__(self) -> str:
        return f"<undefined {self.name}>"

    def _raise(self, use: str):
        if self.error is not None:
            raise GraphSyntaxError(*self.error)
        raise NameError(f"name {self.name!r} is not defined (it is assigned only on some "
                        f"paths through the code before this use{use})")

    def __bool__(self):
        self._raise("")

    def __getattr__(self, attr):
        self._raise(f" of .{attr}")


def current_trace():
    """The trace that operators are recorded into now, or None (eager execution)."""
    stack = _stack()
    if stack:
        top = stack[-1]
        return None if top is _PAUSED else top
    return current_tracer()


def discarded() -> bool:
    """Whether the operators running now run only to be recorded: the branch of a
    tensor-dependent ``if`` that the capture's data do not take, or a loop's condition
    and body traced once before its real iterations run. Their values are thrown away;
    an operator acting outside its arrays (``side_effect_io``: a summary) must not act.
    """
    return any(getattr(t, "discarded", False) for t in _stack())


def observe_nodes(observer):
    """Call ``observer(node)`` for each operator node a sub-trace records, from inside
    the branch or loop body that runs it (its stack shows the line); returns a function
    that stops it."""
    _node_observers.append(observer)
    return lambda: _node_observers.remove(observer)


# -- sub-traces -------------------------------------------------------------------------
class _SubTrace:
    """Records the operators one branch or loop body runs into a graph of its own;
    ``discarded``: only to record them (see ``discarded()``)."""

    def __init__(self, parent, operands: list, name: str, discarded: bool = False):
        self.parent = parent
        self.discarded = discarded
        self.graph = ir.Graph(name=name)
        self._values: dict[int, tuple] = {}  # id(tensor) -> (tensor, Value, array then)
        self._keep: list = []
        # The outer tensors the body reads from its closure: under differentiation their
        # gradients flow through the node too (``control_flow_grad``).
        self.captured: dict[int, Tensor] = {}
        self._by_array: dict[int, ir.Value] = {}  # arrays this sub-trace's values held
        for t in operands:
            v = ir.Value(_spec(t))
            self.graph.inputs.append(v)
            self._bind(t, v)

    def value_of(self, tensor) -> ir.Value:
        # As the tracer's: ``x[i] = v`` gives ``x`` TensorSetItem's output as its array.
        arr = array_of(tensor)
        hit = self._values.get(id(tensor))
        if hit is not None and hit[0] is tensor and hit[2] is arr:
            return hit[1]
        v = self._by_array.get(id(arr))
        if v is not None:
            return v
        if hit is not None and hit[0] is tensor:
            raise TraceError(
                f"a tensor of shape {tensor.shape} had its data replaced outside operators "
                "inside a tensor-dependent branch or loop (set_dtype, assign_value or "
                "`_data =`); a compiled graph cannot repeat that. Use operators instead.")
        self.captured.setdefault(id(tensor), tensor)
        return self.parent.value_of(tensor)  # lexical capture (or a new constant/param)

    def is_variable(self, tensor) -> bool:
        """As ``Tracer.is_variable``; this sub-trace's own values count as variable."""
        arr = array_of(tensor)
        hit = self._values.get(id(tensor))
        v = hit[1] if hit is not None and hit[0] is tensor and hit[2] is arr else \
            self._by_array.get(id(arr))
        if v is not None:
            return not v.is_const
        return self.parent.is_variable(tensor)

    def _bind(self, tensor, value: ir.Value) -> None:
        arr = array_of(tensor)
        self._values[id(tensor)] = (tensor, value, arr)
        self._by_array[id(arr)] = value
        self._keep.append(arr)

    def record(self, op, values, attrs, out) -> None:
        if op.written:
            raise GraphSyntaxError(
                f"the in-place operator {op.name} runs inside a tensor-dependent branch or "
                "loop body, which capture does not support (both branches run while "
                "capturing, so the update would happen twice); move the update out of the "
                "if/while, or compute the new value and assign it after the control flow")
        args = []
        for a, v in zip(op.inputs, values):
            if a.kind != TENSOR or v is None or type(v) in _SCALARS:
                args.append(v)
            elif isinstance(v, Tensor):
                args.append(self.value_of(v))
            else:  # a list, numpy array or numpy scalar given as a tensor input
                arr = dispatch.input_array(op, a.name, v)
                self._keep.append(arr)
                args.append(ir.Value(TensorSpec(arr.shape, _from_np(arr.dtype)), const=arr))
        outs = list(out) if isinstance(out, tuple) else [out]
        node = ir.Node(op, args, attrs)
        for t in outs:
            node.add_output(_spec(t))
        for observer in _node_observers:
            observer(node)
        _emit(self, node, outs)


@contextmanager
def _recording_into(sub):
    stack = _stack()
    stack.append(sub)
    previous = set_recorder(sub.record)
    try:
        yield sub
    finally:
        set_recorder(previous)
        stack.pop()


@contextmanager
def _paused():
    """Run Python without recording (the eager evaluation of a captured loop)."""
    stack = _stack()
    stack.append(_PAUSED)
    previous = set_recorder(None)
    try:
        yield
    finally:
        set_recorder(previous)
        stack.pop()


def _emit(tr, node: ir.Node, out_tensors) -> None:
    tr.graph.nodes.append(node)
    for t, v in zip(out_tensors, node.outputs):
        tr._bind(t, v)


def _spec(t: Tensor) -> TensorSpec:
    return TensorSpec(t.shape, t.dtype)


def _differentiating() -> bool:
    """Whether a tape records now: captured control flow must then carry its gradient."""
    return any(t.recording for t in active_tapes())


def _loc(where):
    if where is None:
        return ()
    path, _, line = where.rpartition(":")
    return (path, int(line)) if line.isdigit() else (where, None)


def _at(where) -> str:
    return f" at {where}" if where else ""
