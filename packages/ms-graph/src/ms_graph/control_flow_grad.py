"""Gradients through captured control flow: the backward of a ``Cond`` or ``While``.

Under an active tape, ``control_flow`` captures the construct as usual (with the tapes
paused) and records ONE call on the tapes, from the operands and the outer tensors the
bodies read from their closures to the results. Its gradient rule runs when the backward
pass reaches it, which inside a trace means while the backward is being captured too, so
the rule's own operators and control flow land in the same graph:

- ``if``: the gradient is again an ``if`` on the same predicate, whose branches each
  recompute their forward branch under a fresh tape and return its vector-Jacobian
  product. Nested tapes record the gradient branches too, so higher orders work.
- ``while``: the forward node keeps each iteration's loop variables (``history``), and a
  ``WhileGrad`` node walks them backwards, running the body's vector-Jacobian product
  (traced once into a subgraph) per iteration and summing the gradients of the tensors
  the body reads from outside. The gradient of that node is not defined: a second-order
  gradient through a tensor-dependent while loop is refused.

Both use the operators' own gradient rules (ms-autodiff's tape), as PyNative does.
"""

from __future__ import annotations

import numpy as np

from ms_autodiff.api import gradient_like
from ms_autodiff.custom import record_call
from ms_autodiff.tape import Tape, active_tapes, pause_recording
from ms_graph import executor, ir
from ms_graph.control_flow import _carry, _closed, capture_cond, capture_while, cond
from ms_graph.control_flow_trace import (
    _emit,
    _loc,
    _paused,
    _recording_into,
    _spec,
    _SubTrace,
    current_trace,
)
from ms_graph.control_flow_values import _copies, _flatten, _fresh, _rebuild
from ms_graph.convert.errors import GraphSyntaxError
from ms_ops import wanted
from ms_ops.defs import arithmetic, array_create
from ms_tensor.dtype import is_float
from ms_tensor.tensor import Tensor

__all__ = ["differentiable_cond", "differentiable_while"]


def _tensors(tree_value) -> list:
    leaves: list = []
    _flatten(tree_value, leaves)
    return [x for x in leaves if isinstance(x, Tensor)]


def _as_out(outs: list):
    return outs[0] if len(outs) == 1 else tuple(outs)


def _douts(dout) -> tuple:
    return dout if isinstance(dout, tuple) else (dout,)


def _vjp(fn, watched: list, sens: list) -> list:
    """Run ``fn()`` under a fresh tape watching ``watched``; the gradients of its Tensor
    results weighted by ``sens`` (None where a tensor is not reached)."""
    with Tape() as tape:
        leaves = [tape.watch(t) for t in watched]
        outs = fn()
        roots = [tape.entry(o) for o in outs]
    return tape.backward(roots, list(sens), leaves)


# -- if ---------------------------------------------------------------------------------
def differentiable_cond(tr, pred, true_fn, false_fn, operands, names, where):
    """``cond`` under a recording tape (see the module doc)."""
    leaves: list = []
    tree = _flatten(operands, leaves)
    with pause_recording():
        result, captured = capture_cond(tr, pred, true_fn, false_fn, operands, names, where)
    outs = _tensors(result)
    if not outs:
        return result
    positions = [i for i, x in enumerate(leaves) if isinstance(x, Tensor)]
    n_ops = len(positions)

    def rule(*inputs, out, dout):
        need = [j for j in range(len(inputs)) if wanted(j)]
        if not need:
            return [None] * len(inputs)

        def branch(fn):
            def grads(*args):
                xs, sens = args[:n_ops], args[n_ops:]
                own = list(leaves)
                for i, x in zip(positions, xs):
                    own[i] = x
                watched = [xs[j] if j < n_ops else captured[j - n_ops] for j in need]
                raw = _vjp(lambda: _tensors(fn(*_rebuild(tree, own))), watched, sens)
                return tuple(gradient_like(g, w) for g, w in zip(raw, watched))

            return grads

        got = cond(pred, branch(true_fn), branch(false_fn),
                   operands=(*inputs[:n_ops], *_douts(dout)), where=where)
        full = [None] * len(inputs)
        for j, g in zip(need, got):
            full[j] = g
        return full

    record_call("if", rule, [leaves[i] for i in positions] + captured, _as_out(outs))
    return result


# -- while ------------------------------------------------------------------------------
def differentiable_while(tr, cond_fn, body_fn, tree, leaves, names, where):
    """``while_loop`` under a recording tape (see the module doc)."""
    with pause_recording():
        loop = capture_while(tr, cond_fn, body_fn, tree, leaves, names, where,
                             keep_history=True)
    outs = _tensors(loop.result)
    state0 = [x for x in loop.init if isinstance(x, Tensor)]
    floats = [i for i, t in enumerate(state0) if is_float(t.dtype)]
    caps = loop.body_captured
    n_state = len(state0)

    def body_vjp(need_caps):
        def grads(*args):
            state, sens = args[:n_state], args[n_state:]

            def step():
                it = iter(state)
                vals = [next(it) if isinstance(x, Tensor) else x for x in loop.init]
                res: list = []
                _flatten(tuple(body_fn(*_rebuild(loop.tree, vals))), res)
                new = [x for x in _carry(loop.init, res, loop.names, where)
                       if isinstance(x, Tensor)]
                return [new[i] for i in floats]

            watched = [state[i] for i in floats] + [caps[j] for j in need_caps]
            raw = _vjp(step, watched, sens)
            return tuple(gradient_like(g, w) for g, w in zip(raw, watched))

        return grads

    def rule(*inputs, out, dout):
        if any(t.recording for t in active_tapes()):
            raise GraphSyntaxError(
                "a second-order gradient through a tensor-dependent while loop is not "
                "supported in a compiled function; use a Python loop bound (the loop "
                "unrolls) or compute this gradient in PyNative mode", *_loc(where))
        need_caps = [j for j in range(len(caps)) if wanted(n_state + j)]
        douts = _douts(dout)
        sens = [douts[i] for i in floats]
        ds, acc = _walk_back(current_trace(), loop, body_vjp(need_caps), sens,
                             [caps[j] for j in need_caps], len(floats))
        full = [None] * len(inputs)
        for i, g in zip(floats, ds):
            full[i] = g
        for j, g in zip(need_caps, acc):
            full[n_state + j] = g
        return full

    if outs:
        record_call("while", rule, state0 + caps, _as_out(outs))
    return loop.result


def _walk_back(tr, loop, grads_fn, sens, need_caps, n_float):
    """Apply the body's vector-Jacobian product to each iteration, last first; returns
    the gradients of the initial float loop variables and of ``need_caps``. Inside a
    trace the walk is also emitted as a ``WhileGrad`` node."""
    history = loop.history
    if tr is None:  # the backward of a captured loop, run after its trace ended
        ds, acc = list(sens), None
        for state in reversed(history):
            g = grads_fn(*state, *ds)
            ds, acc = _accumulate(g, n_float, acc)
        return ds, acc if acc is not None else [_zeros(c) for c in need_caps]
    first = history[-1] if history else [x for x in loop.init if isinstance(x, Tensor)]
    operands = _fresh(list(first)) + _fresh(list(sens))
    sub = _SubTrace(tr, operands, "while_body_grad")
    with _recording_into(sub):
        g = grads_fn(*operands)
    sub.graph.outputs = [sub.value_of(x) for x in g]
    if history:
        ds, acc = _accumulate(g, n_float, None)
        with _paused():
            for state in reversed(history[:-1]):
                ds, acc = _accumulate(grads_fn(*state, *ds), n_float, acc)
    else:  # the loop ran zero times: the gradient passes through unchanged
        ds = list(sens)
        with _paused():
            acc = [_zeros(c) for c in need_caps]
    node = ir.Node("WhileGrad", [loop.history_value, *(tr.value_of(d) for d in sens)],
                   {"n_float": n_float}, subgraphs=(sub.graph,))
    results = _copies(ds + acc)
    for t in results:
        node.add_output(_spec(t))
    _emit(tr, node, results)
    return results[:n_float], results[n_float:]


def _accumulate(g, n_float, acc):
    ds, caps = list(g[:n_float]), list(g[n_float:])
    if acc is None:
        return ds, caps
    return ds, [arithmetic.Add(a, b) for a, b in zip(acc, caps)]


def _zeros(t: Tensor) -> Tensor:
    return array_create.ZerosLike(t)


def _make_while_grad(node: ir.Node):
    """Runner for ``WhileGrad``: ``arrays`` = the forward loop's history, the final float
    loop variables' cotangents, then the gradient body's captures."""
    run_g, _ = _closed(node.subgraphs[0])
    n_float = node.attrs["n_float"]
    zeros = [(v.spec.shape, v.spec.dtype.np) for v in node.outputs[n_float:]]

    def run(arrays):
        history, ds = arrays[0], list(arrays[1:1 + n_float])
        caps = list(arrays[1 + n_float:])
        acc = [np.zeros(shape, dtype) for shape, dtype in zeros]
        for state in reversed(history):
            got = run_g.run_arrays(list(state) + ds + caps)
            ds = list(got[:n_float])
            acc = [a + b for a, b in zip(acc, got[n_float:])]
        return (*ds, *acc)

    return run


executor.register_runner("WhileGrad", _make_while_grad)
