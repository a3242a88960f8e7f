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

Branches and bodies are recorded by sub-traces (``control_flow_trace``); their values
are flattened and made to agree by ``control_flow_values``. The executor runs the nodes
with the runners registered at the end of this module.
"""

from __future__ import annotations

import numpy as np

from ms_graph import executor, ir
from ms_graph.control_flow_trace import (
    _SCALARS,
    Undefined,
    _at,
    _differentiating,
    _emit,
    _loc,
    _paused,
    _recording_into,
    _spec,
    _SubTrace,
    current_trace,
)
from ms_graph.control_flow_values import (
    _as_tensor,
    _check_pred,
    _copies,
    _describe,
    _flatten,
    _fresh,
    _leaf_names,
    _merge,
    _rebuild,
    _same_static,
    _tree_text,
    _truth,
)
from ms_graph.convert.errors import GraphSyntaxError
from ms_tensor.tensor import Tensor, array_of

__all__ = ["cond", "while_loop", "for_range", "current_trace", "Undefined"]


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
    taken_label = "true" if _truth(pred) else "false"
    for label, fn in (("true", true_fn), ("false", false_fn)):
        mine = _fresh(leaves)
        sub = _SubTrace(tr, [x for x in mine if isinstance(x, Tensor)], f"{label}_branch",
                        discarded=label != taken_label)
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
    probe = _SubTrace(tr, [x for x in mine if isinstance(x, Tensor)], "while_cond",
                      discarded=True)
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
    sub_c = _SubTrace(tr, [x for x in mine if isinstance(x, Tensor)], "while_cond",
                      discarded=True)
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
    sub_b = _SubTrace(tr, [x for x in mine if isinstance(x, Tensor)], "while_body",
                      discarded=True)
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
    if keep_history and hasattr(tr, "record_array"):  # a residual of grad of a jit function
        tr.record_array(loop.history_value, [[array_of(t) for t in step] for step in history])
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
