"""Elementwise fusion: trees of float elementwise operators become one ``"Fused"`` node.

A fusable node is Add, Sub, Mul, Div, Neg, Exp, Log, Sqrt, Tanh, Sigmoid, ReLU, Maximum,
Minimum, Pow (scalar exponent), Square or Abs with a float32/float64 output whose every
tensor argument either has the output's shape and dtype or holds one element (a scalar,
broadcast). A fusable producer joins its consumer's group when its output is read once,
by that consumer, is not a graph output, and has the group's shape and dtype. No node
with side effects may lie between a group's first member and its last (the fused node runs
at the last member's place, so a parameter updated in between would be read too late).

Each group of two or more nodes becomes ``Node("Fused", args, {"program": Program})``
whose arguments are the group's external Values (full-size arrays and one-element
scalars; constant scalars are folded into the program) and whose output is the group
root's output Value. ``run_fused(node, arrays)`` executes it with the Cython kernel
``ms_graph.kernels._fused``: the executor calls it for every node whose op is ``"Fused"``.
"""

from __future__ import annotations

import math

import numpy as np

from ms_graph.ir import Graph, Node, Value
from ms_graph.kernels import bytecode
from ms_graph.passes import dce
from ms_graph.passes._util import has_effects, use_counts
from ms_ops.kernels.threads import num_threads

__all__ = ["run", "run_fused", "fused_runner", "FUSABLE"]

FUSABLE = {
    "Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Neg": "neg", "Exp": "exp",
    "Log": "log", "Sqrt": "sqrt", "Tanh": "tanh", "Sigmoid": "sigmoid", "ReLU": "relu",
    "Maximum": "max", "Minimum": "min", "Pow": "pow", "Square": "square", "Abs": "abs",
}
_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def run(graph: Graph) -> Graph:
    dce.run(graph)  # a dead reader would count as a second use and block fusion
    for node in graph.nodes:
        for sub in node.subgraphs:
            run(sub)
    uses = use_counts(graph)
    outputs = {id(v) for v in graph.outputs}
    position = {id(n): i for i, n in enumerate(graph.nodes)}
    reader = {id(a): n for n in graph.nodes for a in n.args if isinstance(a, Value)}
    effects_before = []  # number of side-effecting nodes before each position
    count = 0
    for n in graph.nodes:
        effects_before.append(count)
        count += has_effects(n)

    root_of: dict[int, Node] = {}  # id(member) -> the group's root (last) node
    for node in reversed(graph.nodes):
        if not _fusable(node):
            continue
        root = node
        out = node.outputs[0]
        if uses.get(id(out), 0) == 1 and id(out) not in outputs:
            consumer = reader.get(id(out))
            if consumer is not None and id(consumer) in root_of:
                r = root_of[id(consumer)]
                if r.outputs[0].spec == out.spec and \
                        effects_before[position[id(node)]] == effects_before[position[id(r)]]:
                    root = r
        root_of[id(node)] = root

    members: dict[int, list[Node]] = {}
    for node in graph.nodes:
        if id(node) in root_of:
            members.setdefault(id(root_of[id(node)]), []).append(node)
    nodes = []
    for node in graph.nodes:
        group = members.get(id(root_of.get(id(node), node)))
        if group is None or len(group) < 2:
            nodes.append(node)
        elif root_of[id(node)] is node:
            nodes.append(_fuse(node, {id(n) for n in group}))
    graph.nodes = nodes
    return graph


def _scalar_like(a, spec) -> bool:
    """A one-element argument that broadcasts against ``spec`` without changing it."""
    if not isinstance(a, Value):
        return isinstance(a, (bool, int, float))
    s = a.spec
    if s is None or math.prod(s.shape) != 1 or len(s.shape) > len(spec.shape):
        return False
    return a.is_const or _np_dtype(s) == _np_dtype(spec)


def _np_dtype(spec):
    try:
        return np.dtype(spec.dtype.np)
    except (AttributeError, TypeError):
        return None


def _fusable(node: Node) -> bool:
    if isinstance(node.op, str) or node.op.name not in FUSABLE or len(node.outputs) != 1:
        return False
    if node.attrs or has_effects(node):
        return False
    spec = node.outputs[0].spec
    if spec is None or _np_dtype(spec) not in _FLOATS:
        return False
    for i, a in enumerate(node.args):
        full = isinstance(a, Value) and a.spec == spec
        if node.op.name == "Pow" and i == 1:
            if not _scalar_like(a, spec):  # only a scalar exponent
                return False
        elif not full and not _scalar_like(a, spec):
            return False
    return True


def _fuse(root: Node, group: set[int]) -> Node:
    asm = bytecode.Assembler()
    args: list[Value] = []
    index: dict[int, int] = {}
    spec = root.outputs[0].spec
    n_ops = []

    def arg_position(v):
        if id(v) not in index:
            index[id(v)] = len(args)
            args.append(v)
        return index[id(v)]

    def leaf(a):
        if not isinstance(a, Value):
            return asm.load_const(a)
        if a.spec == spec:
            return asm.load_array(arg_position(a))
        if a.is_const:
            return asm.load_const(np.asarray(a.const).reshape(-1)[0])
        return asm.load_scalar_arg(arg_position(a))

    # Operands first, left to right, with an explicit stack: a chain of a thousand
    # operators is a tree a thousand deep, past Python's recursion limit.
    todo: list = [(root.outputs[0], False)]
    operands: list = []
    while todo:
        item, ready = todo.pop()
        if ready:  # a member whose operands are the top of ``operands``
            k = len(item.args)
            operands[-k:] = [asm.apply(FUSABLE[item.op.name], *operands[-k:])]
        elif isinstance(item, Value) and item.producer is not None \
                and id(item.producer) in group:
            node = item.producer
            n_ops.append(node.op.name)
            todo.append((node, True))
            todo.extend((a, False) for a in reversed(node.args))
        else:
            operands.append(leaf(item))

    out = root.outputs[0]
    fused = Node("Fused", args, {"program": asm.finish(operands[0]),
                                 "ops": tuple(reversed(n_ops))})
    fused.outputs.append(out)
    fused.recompute = root.recompute  # a rerun's group stays a rerun
    out.producer = fused
    out.index = 0
    return fused


def run_fused(node: Node, arrays) -> np.ndarray:
    """Execute a ``"Fused"`` node on ``arrays`` (one numpy array per argument)."""
    return fused_runner(node)(arrays)


def fused_runner(node: Node):
    """``run(arrays) -> out`` for a ``"Fused"`` node, with what does not change between
    runs worked out once (the executor calls it for every run of the node)."""
    program = node.attrs["program"]
    spec = node.outputs[0].spec
    dtype = np.dtype(spec.dtype.np)
    shape = tuple(spec.shape)
    array_args = program.array_args
    kernel_run = program.kernel.run
    scalars = program.scalars
    empty, contiguous, ndarray = np.empty, np.ascontiguousarray, np.ndarray

    def run(arrays):
        full = []
        for i in array_args:
            a = arrays[i]
            if type(a) is not ndarray or a.dtype != dtype or not a.flags.c_contiguous:
                a = contiguous(a, dtype)
            full.append(a)
        return kernel_run(tuple(full), scalars(arrays), empty(shape, dtype), num_threads())

    return run
