"""The graph pass ``overlap_collectives``: each ``AllReduceStart`` (with the pure nodes
that only feed it: a bucket's Reshapes and Concat) moves up to just after the last node
producing its inputs, never past a node with effects other than a wait, so the
collectives start in the same order on every rank; and while starts are in flight, a
``CommProgress`` node after each kernel lets MPI move their data (MPICH progresses a
request only inside MPI calls). It runs in the ``schedule`` stage, after every
``optimize`` pass (dead-code removal would drop the progress nodes).

In a compiled training step the reducer's starts are traced after the whole backward
pass; moved, a bucket's reduction runs while the backward pass computes the earlier
layers' gradients, and its ``AllReduceWait`` stays where the optimizer needs the sum.
A graph without starts is returned as it is.
"""

from __future__ import annotations

from ms_graph.executor import register_runner
from ms_graph.ir import Node, Value
from ms_graph.passes import has_effects, is_pure_op

from ms_parallel.overlap_ops import progress

__all__ = ["run", "PROGRESS"]

PROGRESS = "CommProgress"


def _named(node, name: str) -> bool:
    return not isinstance(node.op, str) and node.op.name == name


def _orders(node) -> bool:
    """Whether a start must stay after ``node``: a node with effects, except a wait (it
    only completes its own request; MPI lets collectives started on every rank in the
    same order complete in any order, so the next bucket may start before it)."""
    return has_effects(node) and not _named(node, "AllReduceWait")


def _cone(start, producer, users, outputs, after: int, pos) -> set:
    """ids of the start and of the pure nodes placed after position ``after`` whose
    outputs only this cone reads (a feeder before a node with effects stays before it:
    moved later, it could read a Parameter after its update)."""
    members = {id(start)}
    frontier = [start]
    while frontier:
        for a in frontier.pop().inputs():
            p = producer.get(id(a))
            if p is None or id(p) in members or pos[id(p)] <= after or not is_pure_op(p):
                continue
            if all(id(v) not in outputs and all(id(u) in members for u in users[id(v)])
                   for v in p.outputs):
                members.add(id(p))
                frontier.append(p)
    return members


def _hoist(order: list, start, outputs) -> list:
    producer = {id(v): n for n in order for v in n.outputs}
    users: dict = {id(v): [] for n in order for v in n.outputs}
    for n in order:
        for a in n.inputs():
            if id(a) in users:
                users[id(a)].append(n)
    pos = {id(n): k for k, n in enumerate(order)}
    here = pos[id(start)]
    anchor = max((k for k in range(here) if _orders(order[k])), default=-1)
    members = _cone(start, producer, users, outputs, anchor, pos)
    for n in order:
        if id(n) in members:
            for a in n.inputs():
                p = producer.get(id(a))
                if p is not None and id(p) not in members:
                    anchor = max(anchor, pos[id(p)])
    cone = [n for n in order if id(n) in members]
    rest = [n for n in order if id(n) not in members]
    at = 0 if anchor < 0 else rest.index(order[anchor]) + 1
    return rest[:at] + cone + rest[at:]


def _with_progress(order: list) -> list:
    """A ``CommProgress`` node after each node that runs while a start is in flight."""
    out, open_ = [], 0
    for n in order:
        out.append(n)
        if _named(n, "AllReduceStart"):
            open_ += 1
        elif _named(n, "AllReduceWait"):
            open_ -= 1
        elif open_ > 0 and not has_effects(n):
            out.append(Node(PROGRESS, ()))
    return out


def run(graph):
    if not any(_named(n, "AllReduceStart") for n in graph.nodes):
        return graph
    outputs = {id(v) for v in graph.outputs if isinstance(v, Value)}
    order = list(graph.nodes)
    for start in [n for n in order if _named(n, "AllReduceStart")]:
        order = _hoist(order, start, outputs)
    graph.nodes = _with_progress(order)
    return graph


def _make_progress(node):
    def run_progress(arrays):
        progress()
        return ()

    return run_progress


register_runner(PROGRESS, _make_progress)
