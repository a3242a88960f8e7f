"""Constant folding: run, at compile time, every node whose tensor arguments are constants.

The node is executed by ms-ops' eager dispatch (its registered CPU kernel, with the same
promotion, casts and checks as at run time), and its output Values become constants. A
node whose kernel raises is left in place, so the error surfaces when the graph runs, as it
would eagerly. Random and in-place operators are never folded, nor a node whose output an
in-place operator writes into (the constant would carry the write into the next run).
Results larger than ``MAX_BYTES`` stay computed at run time, unless no larger than the
constants they come from (folding must not bloat the graph).
"""

from __future__ import annotations

import numpy as np

from ms_graph.ir import Graph, Value
from ms_graph.passes._util import inplace_targets, is_pure_op
from ms_tensor.tensor import array_of

MAX_BYTES = 1 << 20


def run(graph: Graph) -> Graph:
    for node in graph.nodes:
        for sub in node.subgraphs:
            run(sub)
    written = inplace_targets(graph)
    kept = []
    for node in graph.nodes:
        if not (is_pure_op(node) and _foldable(node, written) and _fold(node)):
            kept.append(node)
    graph.nodes = kept
    return graph


def _foldable(node, written) -> bool:
    if any(id(o) in written for o in node.outputs):
        return False
    return all(a.is_const for a in node.args if isinstance(a, Value))


def _fold(node) -> bool:
    """Evaluate ``node``; on success turn its outputs into constants and return True."""
    from ms_autodiff.recording import set_recorder
    from ms_ops.dispatch import execute
    from ms_tensor.tensor import Tensor, wrap

    values = [wrap(np.asarray(a.const)) if isinstance(a, Value) else a for a in node.args]
    in_bytes = max([np.asarray(a.const).nbytes for a in node.args if isinstance(a, Value)],
                   default=0)
    previous = set_recorder(None)  # folding is compilation, not part of a trace or tape
    try:
        out = execute(node.op, values, node.op.complete_attrs(dict(node.attrs)))
    except Exception:  # noqa: BLE001 - the same error is raised when the graph runs
        return False
    finally:
        set_recorder(previous)
    outs = out if isinstance(out, tuple) else (out,)
    if len(outs) != len(node.outputs) or not all(isinstance(t, Tensor) for t in outs):
        return False
    arrays = [array_of(t) for t in outs]
    if sum(a.nbytes for a in arrays) > max(MAX_BYTES, in_bytes):
        return False
    for v, a in zip(node.outputs, arrays):
        # A view (Reshape, Transpose) would tie the constant to its source's buffer.
        v.const = a.copy() if a.base is not None else a
        v.producer = None
        v.index = 0
    return True
