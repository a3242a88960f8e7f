"""The graph IR: SSA values, operator nodes and graphs.

A ``Graph`` is a straight-line list of ``Node``s in topological order. Every tensor is a
``Value`` with one producer: a node output, a graph input, a parameter (read from its
``Parameter`` each time the graph runs, so optimizer updates are seen) or a constant (a
numpy array held in ``Value.const``). Control flow lives in nodes whose ``op`` is a
string (``"Cond"``, ``"While"``, ``"Call"``, ``"Fused"``) and whose ``subgraphs`` hold
the bodies. Passes are ``fn(graph) -> graph``.
"""

from __future__ import annotations

__all__ = ["Value", "Node", "Graph", "Static", "NOT_CONST", "replace_uses", "users", "captured"]


class _NotConst:
    def __repr__(self) -> str:
        return "NOT_CONST"


NOT_CONST = _NotConst()


class Static:
    """A non-tensor leaf of ``Graph.out_tree`` (or of an argument structure): a Python
    value returned as it was while capturing (``True`` from an optimizer)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __repr__(self) -> str:
        return f"Static({self.value!r})"


class Value:
    """One SSA value.

    Args:
        spec: the ``TensorSpec`` (shape, dtype) of a tensor value, or None.
        producer: the node that computes it; None for inputs, parameters and constants.
        index: the output index in ``producer``.
        const: the numpy array of a constant, else ``NOT_CONST``.
        name: a readable name (a parameter's name), or None.
    """

    __slots__ = ("spec", "producer", "index", "const", "name")

    def __init__(self, spec=None, producer=None, index: int = 0, const=NOT_CONST,
                 name: str | None = None):
        self.spec = spec
        self.producer = producer
        self.index = index
        self.const = const
        self.name = name

    @property
    def is_const(self) -> bool:
        return self.const is not NOT_CONST

    def __repr__(self) -> str:
        return f"<Value {self.name or hex(id(self))} {_spec_text(self.spec)}>"


class Node:
    """One operator call (or a control-flow construct) in a graph.

    Args:
        op: an ``OpDef``, or ``"Cond"`` / ``"While"`` / ``"Fused"`` / ``"Call"``.
        args: one entry per ``op.inputs``: a ``Value`` for a tensor input, the Python
            value for a static input (and for a Python number given as a tensor input).
        attrs: the operator's attributes.
        outputs: the ``Value``s it produces (their ``producer`` is this node).
        subgraphs: the bodies of control-flow and call nodes.

    ``recompute`` names the ``Cell.recompute()`` region whose backward pass reran this
    node (``ms_autodiff.recompute``; None for others): the split keeps it in the backward
    graph and CSE does not merge it with the forward pass's copy (docs/recompute.md).
    """

    __slots__ = ("op", "args", "attrs", "outputs", "subgraphs", "recompute")

    def __init__(self, op, args, attrs=None, outputs=(), subgraphs=()):
        self.op = op
        self.args = list(args)
        self.attrs = {} if attrs is None else dict(attrs)
        self.outputs = list(outputs)
        self.subgraphs = tuple(subgraphs)
        self.recompute = None

    @property
    def name(self) -> str:
        return self.op if isinstance(self.op, str) else self.op.name

    def inputs(self) -> list[Value]:
        """The ``Value`` arguments, in order."""
        return [a for a in self.args if isinstance(a, Value)]

    def add_output(self, spec) -> Value:
        v = Value(spec, self, len(self.outputs))
        self.outputs.append(v)
        return v

    def __repr__(self) -> str:
        return f"<Node {self.name} ({len(self.args)} args, {len(self.outputs)} outputs)>"


class Graph:
    """A captured computation.

    Attributes:
        inputs: the graph's arguments, in call order (the Tensors among the leaves of
            the call's arguments).
        params: ``(Value, Parameter)`` pairs, read from the Parameter at run time.
        nodes: topologically ordered.
        outputs: the returned Values.
        out_tree: the Python structure of the result: nested tuples/lists/dicts whose
            leaves are indices into ``outputs``, or ``Static(obj)`` for a non-tensor leaf.
        name: a readable name (the function's qualified name).
    """

    def __init__(self, inputs=None, params=None, nodes=None, outputs=None, out_tree=None,
                 name: str = "graph"):
        self.inputs: list[Value] = [] if inputs is None else list(inputs)
        self.params: list = [] if params is None else list(params)
        self.nodes: list[Node] = [] if nodes is None else list(nodes)
        self.outputs: list[Value] = [] if outputs is None else list(outputs)
        self.out_tree = out_tree
        self.name = name

    def constants(self) -> list[Value]:
        """The constant Values the nodes and outputs use, in first-use order."""
        seen: dict[int, Value] = {}
        for node in self.nodes:
            for a in node.args:
                if isinstance(a, Value) and a.is_const:
                    seen.setdefault(id(a), a)
        for v in self.outputs:
            if v.is_const:
                seen.setdefault(id(v), v)
        return list(seen.values())

    # -- printing ------------------------------------------------------------------
    def _numbering(self) -> dict[int, str]:
        names: dict[int, str] = {}
        k = 0

        def number(v):
            nonlocal k
            if id(v) not in names:
                names[id(v)] = f"%{k}"
                k += 1

        for v in self.inputs:
            number(v)
        for v, _ in self.params:
            number(v)
        for v in self.constants():
            number(v)
        for node in self.nodes:
            for v in node.outputs:
                number(v)
        return names

    def text(self) -> str:
        """The IR, one line per node: ``%3 = Mul(%1, %2) : (64, 512) Float32``."""
        names = self._numbering()
        return "\n".join(self._lines(names, ""))

    def _lines(self, names: dict, indent: str) -> list[str]:
        def ref(a):
            if isinstance(a, Value):
                return names.get(id(a), "%?")
            return repr(a)

        lines = [f"{indent}graph {self.name}({', '.join(ref(v) for v in self.inputs)}) {{"]
        for v, p in self.params:
            lines.append(f"{indent}  {ref(v)} = param {p.name!r} : {_spec_text(v.spec)}")
        for v in self.constants():
            lines.append(f"{indent}  {ref(v)} = const {_const_text(v.const)} : "
                         f"{_spec_text(v.spec)}")
        for node in self.nodes:
            outs = ", ".join(ref(v) for v in node.outputs)
            args = ", ".join(ref(a) for a in node.args)
            attrs = ", ".join(f"{k}={_attr_text(v)}" for k, v in node.attrs.items())
            call = f"{node.name}({args}{'; ' + attrs if attrs else ''})"
            specs = ", ".join(_spec_text(v.spec) for v in node.outputs)
            lines.append(f"{indent}  {outs + ' = ' if outs else ''}{call} : {specs}")
            for sub in node.subgraphs:
                sub_names = dict(names)
                sub_names.update(_sub_numbering(sub, names))
                lines.extend(sub._lines(sub_names, indent + "    "))
        lines.append(f"{indent}  return {', '.join(ref(v) for v in self.outputs)}")
        lines.append(f"{indent}}}")
        return lines

    def dot(self) -> str:
        """The graph as Graphviz DOT (values are edges, nodes are boxes)."""
        names = self._numbering()
        out = [f"digraph {_dot_id(self.name)} {{", "  rankdir=TB;",
               "  node [shape=box, fontname=monospace];"]
        source: dict[int, str] = {}
        for i, v in enumerate(self.inputs):
            source[id(v)] = f"in{i}"
            out.append(f'  in{i} [shape=ellipse, label="input {names[id(v)]}\\n'
                       f'{_spec_text(v.spec)}"];')
        for i, (v, p) in enumerate(self.params):
            source[id(v)] = f"p{i}"
            out.append(f'  p{i} [shape=ellipse, style=dashed, label="param '
                       f'{_dot_escape(p.name)}\\n{_spec_text(v.spec)}"];')
        for i, v in enumerate(self.constants()):
            source[id(v)] = f"c{i}"
            out.append(f'  c{i} [shape=plaintext, label="const {names[id(v)]}\\n'
                       f'{_spec_text(v.spec)}"];')
        for i, node in enumerate(self.nodes):
            for v in node.outputs:
                source[id(v)] = f"n{i}"
            label = f"{node.name}\\n{', '.join(_spec_text(v.spec) for v in node.outputs)}"
            out.append(f'  n{i} [label="{_dot_escape(label)}"];')
            for a in node.args:
                if isinstance(a, Value) and id(a) in source:
                    out.append(f'  {source[id(a)]} -> n{i} [label="{names[id(a)]}"];')
        for i, v in enumerate(self.outputs):
            out.append(f'  out{i} [shape=ellipse, label="output {i}"];')
            if id(v) in source:
                out.append(f"  {source[id(v)]} -> out{i};")
        out.append("}")
        return "\n".join(out) + "\n"

    def __repr__(self) -> str:
        return (f"<Graph {self.name}: {len(self.inputs)} inputs, {len(self.params)} params, "
                f"{len(self.nodes)} nodes, {len(self.outputs)} outputs>")


def _sub_numbering(sub: Graph, outer: dict) -> dict:
    names = {}
    k = len(outer)
    for v in list(sub.inputs) + [v for v, _ in sub.params] + sub.constants() + \
            [o for n in sub.nodes for o in n.outputs]:
        if id(v) not in outer and id(v) not in names:
            names[id(v)] = f"%{k}"
            k += 1
    return names


def _spec_text(spec) -> str:
    if spec is None:
        return "?"
    return f"{tuple(spec.shape)} {spec.dtype}"


def _const_text(a) -> str:
    size = getattr(a, "size", 1)
    if size <= 4:
        return repr(a.tolist() if hasattr(a, "tolist") else a)
    return f"<{size} values>"


def _attr_text(v) -> str:
    return repr(v) if not hasattr(v, "shape") else f"<array {getattr(v, 'shape', '')}>"


def _dot_escape(s: str) -> str:
    return str(s).replace("\\", "\\\\").replace('"', '\\"')


def _dot_id(name: str) -> str:
    return '"' + _dot_escape(name) + '"'


# -- helpers for passes ---------------------------------------------------------------
def replace_uses(graph: Graph, old: Value, new: Value) -> int:
    """Make every node argument and graph output that is ``old`` be ``new``.

    Subgraphs that capture ``old`` from the enclosing graph are rewritten too. Returns
    how many uses were replaced.
    """
    count = 0
    for node in graph.nodes:
        for i, a in enumerate(node.args):
            if a is old:
                node.args[i] = new
                count += 1
        for sub in node.subgraphs:
            count += replace_uses(sub, old, new)
    for i, v in enumerate(graph.outputs):
        if v is old:
            graph.outputs[i] = new
            count += 1
    return count


def users(graph: Graph) -> dict[Value, list[Node]]:
    """For each Value used by a node of ``graph``, the nodes that use it (in order).

    A node whose subgraphs capture a value from ``graph`` counts as a user of it.
    Values are keyed by identity (``Value`` does not define equality).
    """
    out: dict[Value, list[Node]] = {}
    for node in graph.nodes:
        for v in _node_uses(node):
            lst = out.setdefault(v, [])
            if not lst or lst[-1] is not node:
                lst.append(node)
    return out


def _node_uses(node: Node) -> list[Value]:
    used = [a for a in node.args if isinstance(a, Value)]
    for sub in node.subgraphs:
        used.extend(captured(sub))
    return used


def captured(graph: Graph) -> list[Value]:
    """Values a (sub)graph uses that it does not define itself (its free variables)."""
    defined = {id(v) for v in graph.inputs}
    defined.update(id(v) for v, _ in graph.params)
    free: dict[int, Value] = {}
    for node in graph.nodes:
        for v in _node_uses(node):
            if id(v) not in defined and not v.is_const:
                free.setdefault(id(v), v)
        defined.update(id(o) for o in node.outputs)
    for v in graph.outputs:
        if id(v) not in defined and not v.is_const:
            free.setdefault(id(v), v)
    return list(free.values())
