"""Differentiating a compiled function: ``grad(jit_fn)`` runs two graphs, not operators.

When a ``JitFunction`` is called under a recording tape, its call is captured once per
signature as a joint graph: the function under a tape of its own, then that tape's
backward pass from placeholder cotangents, which become graph inputs. The joint graph is
split (``ms_graph.split``) into a forward graph, which also returns the residuals the
backward needs, and a backward graph. Each call then runs the forward graph and records
ONE call on the tapes whose gradient rule runs the backward graph on the residuals, with
the same gradient rules PyNative uses, captured.

The differentiated inputs are the float Tensor arguments the tapes follow and the
Parameters the tapes watch that the function reads (weights of ``grad(..., weights=)``).
If a gradient rule of this call is itself differentiated (a gradient of a gradient, or
``jvp``), the backward graph would be opaque to the outer tape, so the rule then runs the
function as operators instead.
"""

from __future__ import annotations

import numpy as np

from ms_autodiff.api import gradient_like
from ms_autodiff.custom import record_call
from ms_autodiff.tape import Tape, active_tapes, pause_recording
from ms_autodiff.vjp import vjp
from ms_graph.executor import Executable
from ms_graph.split import split_forward_backward
from ms_graph.trace import Tracer, flatten, unflatten
from ms_tensor.dtype import is_float
from ms_tensor.parameter import Parameter
from ms_tensor.tensor import array_of, wrap

__all__ = ["DifferentiableGraph", "differentiated_call", "watch_set"]


def watch_set(leaves: list) -> tuple[tuple, list]:
    """``(mask, params)``: which Tensor arguments the recording tapes follow (float ones),
    and the Parameters they watch."""
    tapes = [t for t in active_tapes() if t.recording]
    mask = tuple(is_float(t.dtype) and any(tp.entry(t) is not None for tp in tapes)
                 for t in leaves)
    params: dict[int, Parameter] = {}
    for tp in tapes:
        for t in tp.tagged:
            if isinstance(t, Parameter) and is_float(t.dtype):
                params.setdefault(id(t), t)
    return mask, list(params.values())


class DifferentiableGraph:
    """The forward and backward executables of one differentiated signature.

    Attributes:
        forward: primal inputs -> primal outputs, then residuals.
        backward: residuals, then cotangents -> gradients of the differentiated
            arguments, then of ``params``.
        params: the watched Parameters the function reads.
        out_tree: the structure of the result.
    """

    def __init__(self, forward, backward, n_outputs, out_tree, mask, params, keep):
        self.forward = forward
        self.backward = backward
        self.n_outputs = n_outputs
        self.out_tree = out_tree
        self.mask = mask
        self.params = params
        self._keep = keep  # indices of the backward's outputs for ``params``

    def grads(self, residuals, douts) -> list:
        got = self.backward.run_arrays(list(residuals) + [array_of(d) for d in douts])
        n = sum(self.mask)
        return [wrap(a) for a in got[:n]] + [wrap(got[n + k]) for k in self._keep]


def capture(run, leaves, in_tree, mask, params, name, optimize):
    """Trace ``run`` with its backward pass; returns ``(DifferentiableGraph, result,
    residual arrays)`` — the call really runs once (its result is returned)."""
    tracer = Tracer(name)
    with pause_recording(), tracer:
        mine = [wrap(array_of(t)) for t in leaves]  # one leaf per position, even if repeated
        for t in mine:
            tracer.add_input(t)
        call_args, call_kwargs = unflatten(in_tree, mine)
        with Tape() as tape:
            watched = [t for t, m in zip(mine, mask) if m] + list(params)
            tape_leaves = [tape.watch(t) for t in watched]
            result = run(*call_args, **call_kwargs)
            out_leaves: list = []
            out_tree = flatten(result, out_leaves)
            roots = [tape.entry(o) for o in out_leaves]
        backward_from = len(tracer.graph.nodes)
        cotangents = [wrap(np.zeros_like(array_of(o))) for o in out_leaves]
        for c in cotangents:
            tracer.add_input(c)
        raw = tape.backward(roots, cotangents, tape_leaves)
        grads = [gradient_like(g, w) for g, w in zip(raw, watched)]
        graph = tracer.graph
        graph.outputs = [tracer.value_of(t) for t in out_leaves + grads]
        graph.out_tree = out_tree
    read = {id(p) for _, p in graph.params}
    keep = [k for k, p in enumerate(params) if id(p) in read]
    forward, backward, n_res = split_forward_backward(graph, len(leaves), len(out_leaves),
                                                         backward_from)
    residual_arrays = [tracer.array_of(v) for v in forward.outputs[len(out_leaves):]]
    dg = DifferentiableGraph(Executable(optimize(forward)), Executable(optimize(backward)),
                             len(out_leaves), out_tree, mask, [params[k] for k in keep], keep)
    return dg, unflatten(out_tree, out_leaves), residual_arrays


def differentiated_call(dg: DifferentiableGraph, fn, leaves, in_tree, result, residuals):
    """Record the call (``result`` from ``leaves``) on the recording tapes."""
    inputs = [t for t, m in zip(leaves, dg.mask) if m] + dg.params
    outs: list = []
    flatten(result, outs)
    if not inputs or not outs:
        return result

    def rule(*_inputs, out, dout):
        douts = dout if isinstance(dout, tuple) else (dout,)
        if any(t.recording for t in active_tapes()):
            return _as_operators(fn, leaves, in_tree, dg, douts)
        return dg.grads(residuals, douts)

    record_call(getattr(fn, "__qualname__", "jit"), rule, inputs,
                outs[0] if len(outs) == 1 else tuple(outs))
    return result


def _as_operators(fn, leaves, in_tree, dg, douts) -> list:
    """The gradient computed by operators the outer tapes record (higher orders)."""
    positions = [i for i, m in enumerate(dg.mask) if m]

    def primal(*xs):
        args = list(leaves)
        for i, x in zip(positions, xs):
            args[i] = x
        call_args, call_kwargs = unflatten(in_tree, args)
        out: list = []
        flatten(fn(*call_args, **call_kwargs), out)
        return tuple(out)

    _, vjp_fn = vjp(primal, *[leaves[i] for i in positions], weights=dg.params or None)
    got = vjp_fn(tuple(douts))
    if dg.params:
        return list(got[0]) + list(got[1])
    return list(got)
