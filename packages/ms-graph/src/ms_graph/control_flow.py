"""Control flow on tensor values: ``cond``, ``while_loop`` and ``for_range``.

Without an active trace these run as plain Python (``bool(pred)`` picks a branch). While
a trace is active and the condition is a Tensor, each branch (or the loop's condition and
body) is traced ONCE into its own ``ir.Graph``, a ``Cond`` / ``While`` node is emitted,
and the eagerly computed results are returned so that tracing continues with real values.
The graph is then correct for inputs that take the other branch or loop a different
number of times than the inputs it was captured with.

Node layout (what the executor and the passes see):

- ``Cond``: ``args = [pred, *operands]``, ``subgraphs = (true_graph, false_graph)``; both
  subgraphs take the operands as inputs and return the same number of outputs with the
  same specs; ``outputs`` are the results.
- ``While``: ``args = [*loop_vars]``, ``subgraphs = (cond_graph, body_graph)``; both
  take the loop variables as inputs; ``cond_graph`` returns one boolean-like scalar,
  ``body_graph`` the next loop variables (same specs); ``outputs`` the final ones.

Subgraphs may also use Values of the enclosing graphs directly (lexical capture, see
``ir.captured``): a tensor a branch reads from its closure is not an explicit operand.

Contract with the tracer (``ms_graph.trace``): ``current_tracer()`` returns the trace in
progress or None; a trace has ``value_of(tensor) -> ir.Value`` (the Value the tensor
has, making a parameter or constant Value for tensors it has not met), ``graph`` and
``_bind(tensor, value)``. The sub-traces opened here implement the same, so control flow
nests. The executor runs the nodes with the runners registered at the end of this module.
"""

from __future__ import annotations

from contextlib import contextmanager

import numpy as np

from ms_autodiff.tape import active_tapes
from ms_graph import executor, ir
from ms_graph.convert.errors import GraphSyntaxError
from ms_graph.trace import current_tracer
from ms_ops import dispatch
from ms_ops.opdef import TENSOR, TensorSpec
from ms_tensor.dtype import from_numpy as _from_np
from ms_tensor.tensor import Tensor, wrap

__all__ = ["cond", "while_loop", "for_range", "current_trace", "Undefined"]

_SCALARS = (bool, int, float)
_stack: list = []  # the sub-traces opened here (or _PAUSED), innermost last
_PAUSED = object()


class Undefined:
    """The value of a variable that is not assigned yet (set only in some branches)."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return f"<undefined {self.name}>"

    def __bool__(self):
        raise NameError(f"name {self.name!r} is not defined (it is assigned only on some "
                        "paths through the code before this use)")

    def __getattr__(self, attr):
        raise NameError(f"name {self.name!r} is not defined (it is assigned only on some "
                        f"paths through the code before this use of .{attr})")


def current_trace():
    """The trace that operators are recorded into now, or None (eager execution)."""
    if _stack:
        top = _stack[-1]
        return None if top is _PAUSED else top
    return current_tracer()


# -- sub-traces -------------------------------------------------------------------------
class _SubTrace:
    """Records the operators one branch or loop body runs into a graph of its own."""

    def __init__(self, parent, operands: list, name: str):
        self.parent = parent
        self.graph = ir.Graph(name=name)
        self._values: dict[int, tuple] = {}  # id(tensor) -> (tensor, Value); keeps it alive
        self._keep: list = []
        # The outer tensors the body reads from its closure: under differentiation their
        # gradients flow through the node too (``control_flow_grad``).
        self.captured: dict[int, Tensor] = {}
        for t in operands:
            v = ir.Value(_spec(t))
            self.graph.inputs.append(v)
            self._values[id(t)] = (t, v)

    def value_of(self, tensor) -> ir.Value:
        hit = self._values.get(id(tensor))
        if hit is not None and hit[0] is tensor:
            return hit[1]
        self.captured.setdefault(id(tensor), tensor)
        return self.parent.value_of(tensor)  # lexical capture (or a new constant/param)

    def _bind(self, tensor, value: ir.Value) -> None:
        self._values[id(tensor)] = (tensor, value)

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
                arr = dispatch._as_array(op, a.name, v)
                self._keep.append(arr)
                args.append(ir.Value(TensorSpec(arr.shape, _from_np(arr.dtype)), const=arr))
        outs = list(out) if isinstance(out, tuple) else [out]
        node = ir.Node(op, args, attrs)
        for t in outs:
            node.add_output(_spec(t))
        _emit(self, node, outs)


@contextmanager
def _recording_into(sub):
    _stack.append(sub)
    previous = dispatch.set_recorder(sub.record)
    try:
        yield sub
    finally:
        dispatch.set_recorder(previous)
        _stack.pop()


@contextmanager
def _paused():
    """Run Python without recording (the eager evaluation of a captured loop)."""
    _stack.append(_PAUSED)
    previous = dispatch.set_recorder(None)
    try:
        yield
    finally:
        dispatch.set_recorder(previous)
        _stack.pop()


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


# -- pytrees ------------------------------------------------------------------------------
def _flatten(x, leaves: list):
    if type(x) in (tuple, list):
        return (type(x), [_flatten(e, leaves) for e in x])
    if type(x) is dict:
        return (dict, [(k, _flatten(v, leaves)) for k, v in x.items()])
    leaves.append(x)
    return None


def _unflatten(tree, it):
    if tree is None:
        return next(it)
    kind, items = tree
    if kind is dict:
        return {k: _unflatten(t, it) for k, t in items}
    return kind(_unflatten(t, it) for t in items)


def _rebuild(tree, leaves):
    return _unflatten(tree, iter(leaves))


def _fresh(leaves):
    """New Tensor objects over the same arrays: a branch that rebinds ``x._data``
    (``x[i] = v``) must not change what the other branch (or the caller) sees."""
    return [wrap(x._data) if isinstance(x, Tensor) else x for x in leaves]


def _copies(leaves):
    """Result tensors that share no array with any other tensor: the tracer also finds
    Values by array, and a branch that returns its operand unchanged must not make the
    operand's array stand for the node's output."""
    return [wrap(x._data.copy()) if isinstance(x, Tensor) else x for x in leaves]


def _leaf_names(tree, names, n):
    """A readable name for each leaf: the variable it belongs to when names are given."""
    if names is None or tree is None or tree[0] not in (tuple, list) or \
            len(tree[1]) != len(names):
        return [f"output {i}" for i in range(n)]
    out = []
    for name, sub in zip(names, tree[1]):
        k = _count(sub)
        out.extend([f"variable {name!r}"] if k == 1 else
                   [f"variable {name!r} (element {j})" for j in range(k)])
    return out


def _count(tree) -> int:
    if tree is None:
        return 1
    kind, items = tree
    return sum(_count(t if kind is not dict else t[1]) for t in items)


def _same_static(a, b) -> bool:
    if a is b:
        return True
    if type(a) is not type(b) or isinstance(a, (Undefined, np.ndarray)):
        return False
    try:
        return bool(a == b)
    except Exception:  # objects whose == is not a plain truth value
        return False


def _as_tensor(x, dtype=None) -> Tensor:
    """A Python scalar as a Tensor (of ``dtype`` when given, else MindSpore's default)."""
    if dtype is not None:
        return wrap(np.asarray(x, dtype=dtype.np))
    if isinstance(x, bool):
        return wrap(np.asarray(x, dtype=np.bool_))
    if isinstance(x, int):
        return wrap(np.asarray(x, dtype=np.int64))
    return wrap(np.asarray(x, dtype=np.float32))


def _merge(a_leaves, b_leaves, names, construct, where):
    """Make two branches' results agree: tensors with equal specs at the same places.

    Python scalars that differ between branches become tensors (``found = True`` in one
    branch and ``False`` in the other is a common flag); a scalar facing a tensor takes
    the tensor's dtype. Other Python values must be equal in both branches.
    """
    for i, (a, b) in enumerate(zip(a_leaves, b_leaves)):
        ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
        if ta and not tb and type(b) in _SCALARS:
            b_leaves[i] = b = _as_tensor(b, a.dtype)
        elif tb and not ta and type(a) in _SCALARS:
            a_leaves[i] = a = _as_tensor(a, b.dtype)
        elif not ta and not tb and type(a) in _SCALARS and type(b) in _SCALARS \
                and not _same_static(a, b):
            kind = bool if type(a) is type(b) is bool else \
                float if float in (type(a), type(b)) else int
            a_leaves[i] = a = _as_tensor(kind(a))
            b_leaves[i] = b = _as_tensor(kind(b))
        ta, tb = isinstance(a, Tensor), isinstance(b, Tensor)
        if ta and tb:
            if _spec(a) != _spec(b):
                raise GraphSyntaxError(
                    f"{names[i]} is a Tensor of shape {a.shape} {a.dtype} on one path and "
                    f"{b.shape} {b.dtype} on the other of the tensor-dependent {construct}"
                    f"{_at(where)}; both paths must give the same shape and dtype (cast or "
                    "reshape one of them, or use a Python condition so the branch is chosen "
                    "at compile time)", *_loc(where))
        elif isinstance(a, Undefined) or isinstance(b, Undefined):
            name = (a if isinstance(a, Undefined) else b).name
            raise GraphSyntaxError(
                f"variable {name!r} is assigned on only one path of the tensor-dependent "
                f"{construct}{_at(where)} and used after it; assign it before the "
                f"{construct.split()[0]} (for example {name} = zeros_like(...)) so that "
                "it has a value on every path", *_loc(where))
        elif ta != tb or not _same_static(a, b):
            raise GraphSyntaxError(
                f"{names[i]} is {_describe(a)} on one path and {_describe(b)} on the other "
                f"of the tensor-dependent {construct}{_at(where)}; a value that depends on a "
                "Tensor condition must be a Tensor (or a number) on every path",
                *_loc(where))


def _describe(x) -> str:
    if isinstance(x, Tensor):
        return f"a Tensor {x.shape} {x.dtype}"
    return f"{type(x).__name__} {x!r}"


def _truth(x) -> bool:
    return bool(x)


def _check_pred(pred: Tensor, construct: str, where) -> None:
    if pred.size != 1:
        raise GraphSyntaxError(
            f"the condition of a {construct}{_at(where)} is a Tensor of shape {pred.shape}; "
            "it must have one element (use .any() or .all())", *_loc(where))


# -- cond -----------------------------------------------------------------------------------
def cond(pred, true_fn, false_fn, operands=(), *, names=None, where=None):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``, capturable.

    Args:
        pred: a Python value, or a Tensor with one element.
        true_fn, false_fn: callables taking the operands; they may read other tensors
            from their closure. While tracing with a Tensor ``pred`` both run (on the real
            data) and must return the same structure with equal tensor shapes and dtypes.
        operands: the values the branches receive (any nesting of tuples/lists/dicts).
        names: optional names of the top-level operands/results, used in errors.
        where: ``"file.py:12"`` of the ``if``, used in errors.
    """
    operands = tuple(operands)
    tr = current_trace()
    if tr is None or not isinstance(pred, Tensor):
        return true_fn(*operands) if _truth(pred) else false_fn(*operands)
    _check_pred(pred, "tensor-dependent if", where)
    if _differentiating():
        from ms_graph.control_flow_grad import differentiable_cond

        return differentiable_cond(tr, pred, true_fn, false_fn, operands, names, where)
    return capture_cond(tr, pred, true_fn, false_fn, operands, names, where)[0]


def capture_cond(tr, pred, true_fn, false_fn, operands, names, where):
    """Emit a ``Cond`` node into ``tr``; returns ``(result, captured)``: the taken
    branch's result and the outer tensors the branches read from their closures."""
    leaves: list = []
    tree = _flatten(operands, leaves)
    pred_value = tr.value_of(pred)
    outer = [tr.value_of(x) for x in leaves if isinstance(x, Tensor)]
    results, graphs, trees = [], [], []
    for label, fn in (("true", true_fn), ("false", false_fn)):
        mine = _fresh(leaves)
        sub = _SubTrace(tr, [x for x in mine if isinstance(x, Tensor)], f"{label}_branch")
        with _recording_into(sub):
            res = fn(*_rebuild(tree, mine))
        out: list = []
        trees.append(_flatten(res, out))
        results.append(out)
        graphs.append(sub)
    if trees[0] != trees[1]:
        raise GraphSyntaxError(
            f"the branches of the tensor-dependent if{_at(where)} give differently shaped "
            f"results ({_tree_text(trees[0])} vs {_tree_text(trees[1])}); both branches "
            "must assign the same variables / return the same structure", *_loc(where))
    names_ = _leaf_names(trees[0], names, len(results[0]))
    _merge(results[0], results[1], names_, "if", where)
    for sub, out in zip(graphs, results):
        sub.graph.outputs = [sub.value_of(x) for x in out if isinstance(x, Tensor)]
    node = ir.Node("Cond", [pred_value, *outer], subgraphs=(graphs[0].graph, graphs[1].graph))
    taken = _copies(results[0] if _truth(pred) else results[1])
    new = [x for x in taken if isinstance(x, Tensor)]
    for t in new:
        node.add_output(_spec(t))
    _emit(tr, node, new)
    captured = {**graphs[0].captured, **graphs[1].captured}
    return _rebuild(trees[0], taken), list(captured.values())


def _tree_text(tree) -> str:
    if tree is None:
        return "value"
    kind, items = tree
    if kind is dict:
        return "{" + ", ".join(f"{k!r}: {_tree_text(t)}" for k, t in items) + "}"
    return f"{kind.__name__} of {len(items)}"


# -- while ------------------------------------------------------------------------------------
def while_loop(cond_fn, body_fn, loop_vars, *, names=None, where=None):
    """``while cond_fn(*v): v = body_fn(*v)``, capturable; returns the final ``v``.

    While tracing with a Tensor condition, Python numbers among the loop variables become
    Tensors (a counter ``i = 0`` must be carried by the graph), the condition and the body
    are traced once, and the body must keep every variable's shape and dtype.
    """
    loop_vars = tuple(loop_vars)
    tr = current_trace()
    if tr is None:
        return _python_while(cond_fn, body_fn, loop_vars)
    leaves: list = []
    tree = _flatten(loop_vars, leaves)
    mine = _fresh(leaves)
    probe = _SubTrace(tr, [x for x in mine if isinstance(x, Tensor)], "while_cond")
    with _recording_into(probe):
        c = cond_fn(*_rebuild(tree, mine))
    if not isinstance(c, Tensor):  # a Python condition: the loop unrolls into the trace
        return _python_while(cond_fn, body_fn, loop_vars)
    if _differentiating():
        from ms_graph.control_flow_grad import differentiable_while

        return differentiable_while(tr, cond_fn, body_fn, tree, leaves, names, where)
    return capture_while(tr, cond_fn, body_fn, tree, leaves, names, where).result


class CapturedLoop:
    """What ``capture_while`` emitted, for the gradient of the loop.

    Attributes:
        result: the final loop variables, in their structure.
        init: the initial leaves (Python numbers made Tensors), ``tree`` their structure.
        body_captured: the outer tensors the body reads from its closure.
        history: the Tensor loop variables at the start of each iteration (eager run).
        history_value: the node's extra output holding the same list when the graph
            runs (``keep_history``), else None.
    """

    __slots__ = ("result", "init", "tree", "names", "body_captured", "history",
                 "history_value")


def capture_while(tr, cond_fn, body_fn, tree, leaves, names, where,
                  keep_history: bool = False) -> CapturedLoop:
    """Emit a ``While`` node into ``tr`` for the loop over the flattened ``leaves``."""
    names_ = _leaf_names(tree, names, len(leaves))
    init = [_as_tensor(x) if type(x) in _SCALARS else x for x in leaves]
    for x in init:
        if isinstance(x, Undefined):
            raise GraphSyntaxError(
                f"variable {x.name!r} is first assigned inside the tensor-dependent while "
                f"loop{_at(where)} and used after it or in its condition; assign it before "
                "the loop so that it has a value when the loop runs zero times", *_loc(where))

    mine = _fresh(init)
    sub_c = _SubTrace(tr, [x for x in mine if isinstance(x, Tensor)], "while_cond")
    with _recording_into(sub_c):
        c = cond_fn(*_rebuild(tree, mine))
    if not isinstance(c, Tensor):
        raise GraphSyntaxError(
            f"the condition of the while loop{_at(where)} is a Tensor for the initial loop "
            f"variables but {_describe(c)} once Python numbers among them are Tensors; "
            "make the condition depend on Tensors only, or on Python values only",
            *_loc(where))
    _check_pred(c, "tensor-dependent while loop", where)
    sub_c.graph.outputs = [sub_c.value_of(c)]

    mine = _fresh(init)
    sub_b = _SubTrace(tr, [x for x in mine if isinstance(x, Tensor)], "while_body")
    with _recording_into(sub_b):
        res = body_fn(*_rebuild(tree, mine))
    out: list = []
    res_tree = _flatten(tuple(res), out)
    if res_tree != tree:
        raise GraphSyntaxError(
            f"the body of the tensor-dependent while loop{_at(where)} returns "
            f"{_tree_text(res_tree)} for loop variables {_tree_text(tree)}; it must give "
            "back every loop variable with the same structure", *_loc(where))
    out = _carry(init, out, names_, where)
    sub_b.graph.outputs = [sub_b.value_of(x) for x in out if isinstance(x, Tensor)]

    outer = [tr.value_of(x) for x in init if isinstance(x, Tensor)]
    node = ir.Node("While", outer, {"history": True} if keep_history else None,
                   subgraphs=(sub_c.graph, sub_b.graph))
    history: list = []
    with _paused():  # the real iterations, on the real values, recorded nowhere
        vals = _rebuild(tree, init)
        while _truth(cond_fn(*vals)):
            step: list = []
            _flatten(vals, step)
            if keep_history:
                history.append([x for x in step if isinstance(x, Tensor)])
            vals = tuple(body_fn(*vals))
            step = []
            _flatten(vals, step)
            vals = _rebuild(tree, _carry(init, step, names_, where))
    final: list = []
    _flatten(tuple(vals), final)
    final = _copies(final)
    new = [x for x in final if isinstance(x, Tensor)]
    for t in new:
        node.add_output(_spec(t))
    loop = CapturedLoop()
    loop.history_value = node.add_output(None) if keep_history else None
    _emit(tr, node, new)
    loop.result = _rebuild(tree, final)
    loop.init, loop.tree, loop.names = init, tree, names_
    loop.body_captured = list(sub_b.captured.values())
    loop.history = history
    return loop


def _carry(init, out, names_, where):
    """Check one iteration's loop variables against the initial ones (and cast numbers)."""
    out = list(out)
    for i, (a, b) in enumerate(zip(init, out)):
        if isinstance(a, Tensor):
            if type(b) in _SCALARS:
                out[i] = b = _as_tensor(b, a.dtype)
            if not isinstance(b, Tensor):
                raise GraphSyntaxError(
                    f"{names_[i]} is a Tensor before the tensor-dependent while loop"
                    f"{_at(where)} and {_describe(b)} after its body; keep it a Tensor",
                    *_loc(where))
            if _spec(a) != _spec(b):
                raise GraphSyntaxError(
                    f"{names_[i]} is a Tensor of shape {a.shape} {a.dtype} before the "
                    f"tensor-dependent while loop{_at(where)} and {b.shape} {b.dtype} after "
                    "one iteration; a loop on a Tensor condition must keep each variable's "
                    "shape and dtype (cast it, pad it to a fixed shape, or make the "
                    "condition a Python value so that the loop unrolls)", *_loc(where))
        elif not _same_static(a, b):
            raise GraphSyntaxError(
                f"{names_[i]} is the Python value {a!r} before the tensor-dependent while "
                f"loop{_at(where)} and {_describe(b)} after its body; a value the loop "
                "changes must be a Tensor or a number", *_loc(where))
    return out


def _python_while(cond_fn, body_fn, loop_vars):
    while _truth(cond_fn(*loop_vars)):
        loop_vars = tuple(body_fn(*loop_vars))
    return loop_vars


# -- for over a range --------------------------------------------------------------------------
def for_range(start, stop, step, body_fn, loop_vars, *, names=None, where=None):
    """``for i in range(start, stop, step): v = body_fn(i, *v)``; returns the final ``v``.

    With Python bounds (or no active trace) this is a Python loop (unrolled while
    tracing); with a Tensor bound under a trace it becomes one ``While`` node whose
    counter is a Tensor of the bound's dtype. ``step`` must be a non-zero Python int.
    """
    loop_vars = tuple(loop_vars)
    if not isinstance(step, int) or step == 0:
        raise GraphSyntaxError(f"range(){_at(where)} needs a non-zero Python int step, got "
                               f"{step!r}", *_loc(where))
    bounds = (start, stop)
    if current_trace() is None or not any(isinstance(b, Tensor) for b in bounds):
        for i in range(int(start), int(stop), step):
            loop_vars = tuple(body_fn(i, *loop_vars))
        return loop_vars
    dtype = next(b.dtype for b in bounds if isinstance(b, Tensor))
    if dtype.kind not in "iu":
        raise GraphSyntaxError(f"range(){_at(where)} got a Tensor bound of dtype {dtype}; "
                               "it needs an integer Tensor", *_loc(where))
    start = start if isinstance(start, Tensor) else _as_tensor(start, dtype)
    if start.dtype is not dtype:
        start = _as_tensor(start.item(), dtype)

    def keep_going(i, *vs):
        return i < stop if step > 0 else i > stop

    def body(i, *vs):
        return (i + step, *body_fn(i, *vs))

    names = None if names is None else ("range counter", *names)
    return while_loop(keep_going, body, (start, *loop_vars), names=names, where=where)[1:]


# -- execution of captured nodes --------------------------------------------------------------
def _closed(graph: ir.Graph):
    """An Executable of ``graph`` taking its captured Values as extra inputs."""
    caps = ir.captured(graph)
    closed = ir.Graph([*graph.inputs, *caps], graph.params, graph.nodes, graph.outputs,
                      name=graph.name)
    return executor.Executable(closed), len(caps)


def _make_cond(node: ir.Node):
    """Runner for ``Cond``: ``arrays`` = pred, operands, then each branch's captures."""
    (run_t, n_t), (run_f, n_f) = _closed(node.subgraphs[0]), _closed(node.subgraphs[1])
    n = len(node.args)

    def run(arrays):
        operands = list(arrays[1:n])
        if _array_truth(arrays[0]):
            return run_t.run_arrays(operands + list(arrays[n:n + n_t]))
        return run_f.run_arrays(operands + list(arrays[n + n_t:n + n_t + n_f]))

    return run


def _make_while(node: ir.Node):
    """Runner for ``While``: ``arrays`` = loop variables, then cond's and body's captures."""
    (run_c, n_c), (run_b, _) = _closed(node.subgraphs[0]), _closed(node.subgraphs[1])
    n = len(node.args)
    keep_history = node.attrs.get("history", False)

    def run(arrays):
        vals = list(arrays[:n])
        c_caps, b_caps = list(arrays[n:n + n_c]), list(arrays[n + n_c:])
        history = []
        while _array_truth(run_c.run_arrays(vals + c_caps)[0]):
            if keep_history:
                history.append(vals)
            vals = list(run_b.run_arrays(vals + b_caps))
        return (*vals, history) if keep_history else tuple(vals)

    return run


def _array_truth(a) -> bool:
    return bool(np.asarray(a).reshape(()))


executor.register_runner("Cond", _make_cond)
executor.register_runner("While", _make_while)
