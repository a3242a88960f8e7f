"""Capture by tracing: run a function once and record every operator it executes.

While ``trace`` runs the function on the real arguments, a recorder installed in ms-ops'
dispatch (``set_recorder``) turns each executed operator call into an IR node. Tensors
among the arguments become graph inputs; ``Parameter``s met inside become graph
parameters (read from the Parameter each time the graph runs); any other tensor becomes a
constant. ms-autodiff's backward pass and the optimizers' fused in-place updates are
ordinary operator calls, so a whole training step traces into one graph.

Anything the function does outside operators is not in the graph, so it is refused
rather than frozen: a Python read of a value that depends on the inputs (``float(t)``,
``bool(t)``, so also Python control flow on tensors, which the AST capture mode converts
first) raises at the line (``value_reads``); a tensor whose data is replaced outside
operators raises ``TraceError``; and ``trace`` compares the Parameters of the traced
Cells before and after, refusing a trace whose Parameters changed without an operator
writing them (numpy writes).
"""

from __future__ import annotations

import numpy as np

from ms_autodiff.recompute import recomputing, region
from ms_autodiff.recording import set_recorder, thread_state
from ms_graph import value_reads
from ms_graph.ir import Graph, Node, Static, Value
from ms_ops import dispatch
from ms_ops.opdef import TENSOR, TensorSpec
from ms_tensor import dtype as mstype
from ms_tensor.parameter import Parameter
from ms_tensor.tensor import Tensor, array_of

__all__ = ["trace", "trace_and_run", "Tracer", "current_tracer", "TraceError",
           "flatten", "unflatten"]

_SCALARS = (bool, int, float)
# The framework's own modules: errors point at the first frame outside them.
FRAMEWORK_MODULES = frozenset({"ms_tensor", "ms_ops", "ms_autodiff", "ms_graph", "ms_nn",
                               "ms_data", "microspore", "numpy", "builtins"})
_tracers = thread_state(list)  # this thread's active tracers, innermost last


class TraceError(RuntimeError):
    """The function did something a traced graph cannot reproduce."""


def current_tracer() -> Tracer | None:
    """The innermost active tracer, or None outside a trace."""
    tracers = _tracers()
    return tracers[-1] if tracers else None


def spec_of(array) -> TensorSpec:
    return TensorSpec(array.shape, mstype.from_numpy(array.dtype))


class Tracer:
    """Builds a ``Graph`` from the operator calls it is shown (``record``).

    Values are found by tensor identity first and array identity second (ms-autodiff
    re-wraps recorded arrays in new Tensor objects); everything met is kept alive until
    the trace ends so that identities are not reused.
    """

    def __init__(self, name: str = "graph"):
        self.graph = Graph(name=name)
        self._by_tensor: dict[int, tuple] = {}  # id(tensor) -> (Value, its array then)
        self._by_array: dict[int, Value] = {}
        self._keep: list = []
        self._param_values: dict[int, Value] = {}
        self._arrays: dict[int, object] = {}  # id(Value) -> the array it had while tracing
        self._previous = None
        self._fixed: set[int] = set()  # ids of node outputs computed from constants only
        self._reads = value_reads.capturing()
        # recomputed region whose first run this trace saw -> that run's random and in-place
        # nodes, for its rerun (a rerun of a region first run elsewhere is a fresh capture)
        self._first: dict[tuple, list] = {}

    # -- values ----------------------------------------------------------------------
    def _bind(self, t: Tensor, v: Value) -> None:
        # The array is kept with the Value: ``x[i] = v`` (TensorSetItem) rebinds
        # ``x``'s array to the operator's output, and ``x`` must then stand for that output.
        self._by_tensor[id(t)] = (v, array_of(t))
        self._by_array[id(array_of(t))] = v
        self._arrays.setdefault(id(v), array_of(t))
        self._keep.append(t)
        self._keep.append(array_of(t))

    def add_input(self, t: Tensor) -> Value:
        v = Value(spec_of(array_of(t)), name=None)
        self.graph.inputs.append(v)
        self._bind(t, v)
        return v

    def value_of(self, t: Tensor) -> Value:
        """The Value a tensor met during the trace stands for."""
        arr = array_of(t)
        hit = self._by_tensor.get(id(t))
        if hit is not None and hit[1] is arr:
            return hit[0]
        v = self._by_array.get(id(arr))
        if v is not None:
            self._by_tensor[id(t)] = (v, arr)
            self._keep.append(t)
            return v
        if hit is not None and not isinstance(t, Parameter):
            raise TraceError(
                f"trace of {self.graph.name}: a tensor of shape {t.shape} had its data "
                "replaced outside operators while tracing (set_dtype, assign_value or "
                "`_data =`); a compiled graph cannot repeat that and would keep the first "
                "call's values. Use operators (ops.cast, x[...] = v) or run it in PyNative "
                "mode.")
        if isinstance(t, Parameter):
            v = self._param_values.get(id(t))
            if v is None:
                v = Value(spec_of(arr), name=t.name)
                self._param_values[id(t)] = v
                self.graph.params.append((v, t))
        else:
            v = Value(spec_of(arr), const=arr)
        self._bind(t, v)
        return v

    def record_array(self, v: Value, held) -> None:
        """Keep what a node's non-tensor output (a while loop's history) held while
        tracing, so that ``array_of`` answers for it as for a tensor's Value."""
        self._arrays[id(v)] = held
        self._keep.append(held)

    def array_of(self, v: Value):
        """The array ``v`` held while tracing (a graph value met by this tracer)."""
        if v.is_const:
            return v.const
        return self._arrays[id(v)]

    def is_variable(self, t: Tensor) -> bool:
        """Whether ``t``'s value may differ from call to call of the graph (it depends on
        an input, a Parameter or a random operator); never adds ``t`` to the graph."""
        if isinstance(t, Parameter):
            return True
        arr = array_of(t)
        hit = self._by_tensor.get(id(t))
        v = hit[0] if hit is not None and hit[1] is arr else self._by_array.get(id(arr))
        return v is not None and not v.is_const and id(v) not in self._fixed

    def const_of(self, array) -> Value:
        v = Value(spec_of(array), const=array)
        self._keep.append(array)
        return v

    # -- recording -------------------------------------------------------------------
    def record(self, op, values, attrs, out) -> None:
        key = region()
        rerun = key in self._first and recomputing() is not None
        effects = op.written or (op.stateful and op.seed_attrs)
        if effects and recomputing() is not None:
            self._reuse(op, key, out, rerun)  # a random or in-place operator is not rerun
            if self._previous is not None:
                self._previous(op, values, attrs, out)
            return
        args = []
        for i, a in enumerate(op.inputs):
            v = values[i]
            if a.kind != TENSOR or v is None or type(v) in _SCALARS:
                args.append(v)
            elif isinstance(v, Tensor):
                args.append(self.value_of(v))
            else:  # a list, numpy array or numpy scalar given as a tensor input
                args.append(self.const_of(dispatch.input_array(op, a.name, v)))
        node = Node(op, args, dict(attrs))
        node.recompute = recomputing() if rerun else None
        if key is not None and not rerun:
            first = self._first.setdefault(key, [])
            if effects:
                first.append(node)
        for o in (out if type(out) is tuple else (out,)):
            self._bind(o, node.add_output(spec_of(array_of(o))))
        if not op.stateful and all(not isinstance(a, Value) or a.is_const or
                                   id(a) in self._fixed for a in args):
            self._fixed.update(id(v) for v in node.outputs)
        self.graph.nodes.append(node)
        if self._previous is not None:
            self._previous(op, values, attrs, out)

    def _reuse(self, op, key, out, seen: bool) -> None:
        """The rerun of a recomputed region (``ms_autodiff.recompute``) calls a random or
        in-place operator: its outputs are the first run's, in order (a copy would draw
        other numbers, or update twice), and those become residuals instead."""
        if not seen:
            raise TraceError(
                f"{key[0]}.recompute(): its rerun, compiled apart from its first run (the "
                f"marked Cell is the compiled one, or runs inside a tensor if/while), calls "
                f"{op.name}, whose random numbers or in-place update the graph cannot take "
                "from the first run. Mark a Cell inside the compiled network instead, or "
                "run in PyNative mode.")
        first = self._first[key]
        if not first or first[0].op is not op:
            raise TraceError(
                f"{key[0]}.recompute(): its rerun called {op.name} where its first run "
                "called " + (first[0].op.name if first else "no more random or in-place "
                             "operators") + "; a compiled graph reuses the first run's random "
                "and in-place operators in order, so both runs must call the same ones")
        node = first.pop(0)
        for o, v in zip(out if type(out) is tuple else (out,), node.outputs):
            self._bind(o, v)

    def __enter__(self) -> Tracer:
        self._previous = set_recorder(self.record)
        _tracers().append(self)
        self._reads.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._reads.__exit__()
        _tracers().remove(self)
        set_recorder(self._previous)


# -- argument and result structures ---------------------------------------------------
def flatten(obj, leaves: list):
    """The structure of ``obj`` with each Tensor replaced by its index in ``leaves``
    (appended); tuples, lists and dicts are walked, anything else is a ``Static``."""
    if isinstance(obj, Tensor):
        leaves.append(obj)
        return len(leaves) - 1
    if type(obj) in (tuple, list):
        return type(obj)(flatten(x, leaves) for x in obj)
    if type(obj) is dict:
        return {k: flatten(v, leaves) for k, v in obj.items()}
    return Static(obj)


def unflatten(tree, leaves):
    """Inverse of ``flatten``: the structure with indices replaced by ``leaves[i]``."""
    if type(tree) is int:
        return leaves[tree]
    if type(tree) in (tuple, list):
        return type(tree)(unflatten(x, leaves) for x in tree)
    if type(tree) is dict:
        return {k: unflatten(v, leaves) for k, v in tree.items()}
    return tree.value


# -- Parameters written outside operators ---------------------------------------------
def watched_parameters(fn, args=()) -> list[Parameter]:
    """The Parameters of the Cells a call reaches directly: ``fn`` itself, the object a
    bound method belongs to, Cells in its closure and among the arguments."""
    found: dict[int, Parameter] = {}
    candidates = [fn, getattr(fn, "__self__", None)]
    for cell in getattr(fn, "__closure__", None) or ():
        try:
            candidates.append(cell.cell_contents)
        except ValueError:  # an empty closure cell
            continue
    candidates.extend(args)
    for c in candidates:
        if isinstance(c, Tensor):
            if isinstance(c, Parameter):
                found.setdefault(id(c), c)
        elif hasattr(c, "parameters_and_names"):
            for _, p in c.parameters_and_names():
                found.setdefault(id(p), p)
    return list(found.values())


def _snapshot(params) -> list:
    return [(p, array_of(p), array_of(p).copy()) for p in params]


def _check_writes(graph: Graph, snapshot) -> None:
    """Refuse a trace that changed Parameters without operators (see the module doc)."""
    written = set()
    for node in graph.nodes:
        if not isinstance(node.op, str) and node.op.written:
            # ApplyMomentum also writes its accumulation: every tensor input of an
            # operator that writes (in place, or BatchNorm's statistics) counts as written
            written.update(id(a) for a in node.args if isinstance(a, Value))
    values_written = {id(p) for v, p in graph.params if id(v) in written}
    bad = []
    for p, array, copy in snapshot:
        if array_of(p) is not array:
            bad.append(f"{p.name!r} (its array was replaced, e.g. by set_data or `_data =`)")
        elif id(p) not in values_written and not _same(array, copy):
            bad.append(f"{p.name!r} (its values were written with numpy)")
    if bad:
        raise TraceError(
            f"trace of {graph.name}: Parameter(s) {', '.join(bad)} changed outside "
            "operators while tracing; a compiled graph cannot repeat such writes and would "
            "silently diverge from PyNative. Update Parameters with in-place operators "
            "(ops.ApplyMomentum, ops.Adam, ...) or run this function in PyNative mode.")


def _same(a, b) -> bool:
    return a.shape == b.shape and np.array_equal(a, b, equal_nan=True)


def _check_defined(tree) -> None:
    """A result that is a variable set on one path of a tensor ``if`` only raises the
    error it carries (``control_flow_trace.Undefined``)."""
    from ms_graph.control_flow_trace import Undefined  # it imports this module

    if isinstance(tree, Static):
        if isinstance(tree.value, Undefined):
            tree.value._raise("")
    elif type(tree) in (tuple, list):
        for x in tree:
            _check_defined(x)
    elif type(tree) is dict:
        for x in tree.values():
            _check_defined(x)


def _recursion_error(e: RecursionError, name: str):
    """Name the function that recursed without end: capture runs both branches of a
    tensor-dependent ``if``, so recursion stopped by a Tensor condition never stops."""
    from ms_graph.convert.errors import GraphSyntaxError

    counts: dict = {}
    tb = e.__traceback__
    while tb is not None:
        code = tb.tb_frame.f_code
        module = tb.tb_frame.f_globals.get("__name__", "").partition(".")[0]
        if module not in FRAMEWORK_MODULES and code.co_filename[:1] != "<":
            counts.setdefault(code, []).append(tb.tb_lineno)
        tb = tb.tb_next
    if not counts:
        return GraphSyntaxError(f"capturing {name} recursed without end ({e})")
    code, lines = max(counts.items(), key=lambda kv: len(kv[1]))
    return GraphSyntaxError(
        f"recursion in {code.co_qualname} did not end while capturing {name} (it called "
        f"itself {len(lines)}+ times). Recursion in a compiled function must end by Python "
        "values (an int argument counting down); one that a Tensor condition ends never "
        "ends while capturing, because both branches of a tensor-dependent if are "
        "captured. Bound it by a Python value, or rewrite it as a while loop on the Tensor.",
        code.co_filename, lines[-1])


# -- entry points ---------------------------------------------------------------------
def trace_and_run(fn, args=(), kwargs=None, name: str | None = None, check_params=None):
    """Run ``fn(*args, **kwargs)`` once, recording it; returns ``(graph, result)``.

    The call happens for real (its side effects, such as an optimizer step, too), so the
    result is the first call's. ``check_params`` lists the Parameters whose writes are
    checked (default: ``watched_parameters(fn, args)``).
    """
    kwargs = {} if kwargs is None else kwargs
    name = name or getattr(fn, "__qualname__", None) or type(fn).__name__
    leaves: list = []
    in_tree = flatten((tuple(args), dict(kwargs)), leaves)
    params = watched_parameters(fn, args) if check_params is None else check_params
    snapshot = _snapshot(params)
    tracer = Tracer(name)
    with tracer:
        for t in leaves:
            tracer.add_input(t)
        call_args, call_kwargs = unflatten(in_tree, leaves)
        try:
            result = fn(*call_args, **call_kwargs)
        except RecursionError as e:
            raise _recursion_error(e, name) from None
        out_leaves: list = []
        out_tree = flatten(result, out_leaves)
        _check_defined(out_tree)
        graph = tracer.graph
        graph.outputs = [tracer.value_of(t) for t in out_leaves]
        graph.out_tree = out_tree
    _check_writes(graph, snapshot)
    return graph, result


def trace(fn, *args, **kwargs) -> Graph:
    """Capture one call of ``fn`` on these arguments as a ``Graph`` (see module doc).

    The call really runs: an optimizer step inside ``fn`` updates the Parameters once.
    """
    return trace_and_run(fn, args, kwargs)[0]
