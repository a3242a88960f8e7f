"""The operator graph that the searches see: one node per operator call, with its ``OpSpec``.

``OpGraph`` is built either from a real network (``capture``: ms-graph traces one forward
call, and the strategies users set with ``Primitive.shard`` are matched to the recorded
calls) or directly (``add``), which is how the tests and benchmarks describe models far too
large to run here. Each input of a node comes from another node's output, a Parameter, a
graph input or a constant.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.spec import OpSpec, spec_for
from ms_tensor import dtype as mstype

__all__ = ["OpNode", "OpGraph", "capture"]


@dataclass
class OpNode:
    """One operator call. ``sources[i]`` is where tensor input ``i`` comes from:
    ``("op", node, output)``, ``("param", name)``, ``("input", index)``, ``("const",)`` or
    None for a static (non-tensor) input. ``strategy`` is the user's (MindSpore form)."""

    name: str
    spec: OpSpec
    sources: tuple
    itemsize: int = 4
    strategy: tuple | None = None
    op: object = None  # the OpDef, for nodes captured from a network (run by ``execute``)
    attrs: dict = field(default_factory=dict)
    args: tuple = ()  # static inputs and constants by position, None for other tensors
    recompute: tuple | None = None  # the Cell.recompute() region it ran in (auto/recompute)


@dataclass
class OpGraph:
    nodes: list = field(default_factory=list)
    outputs: list = field(default_factory=list)  # (node index, output index)
    input_strategies: dict = field(default_factory=dict)  # graph input index -> strategy
    param_strategies: dict = field(default_factory=dict)  # parameter name -> strategy

    def add(self, op: str, sources, in_shapes, out_shapes, attrs=None, args=None,
            strategy=None, itemsize: int = 4, name: str | None = None) -> int:
        """Append an operator call; returns its node index. ``args`` holds static inputs."""
        args = tuple(args) if args is not None else (None,) * len(in_shapes)
        spec = spec_for(op, attrs or {}, args, tuple(in_shapes), tuple(out_shapes))
        name = name or f"{op}-{len(self.nodes)}"
        if strategy is None and spec.layout is not None:  # reshard pins its tensor
            strategy = (spec.layout.shards,)
        self.nodes.append(OpNode(name, spec, tuple(sources), itemsize, strategy,
                                 attrs=dict(attrs or {}), args=args))
        return len(self.nodes) - 1

    def edges(self):
        """``(src node, src output, dst node, dst input)`` for every op-to-op tensor."""
        for j, node in enumerate(self.nodes):
            for i, s in enumerate(node.sources):
                if s is not None and s[0] == "op":
                    yield s[1], s[2], j, i

    def param_shapes(self) -> dict:
        out = {}
        for node in self.nodes:
            for s, shape in zip(node.sources, node.spec.in_shapes):
                if s is not None and s[0] == "param":
                    out[s[1]] = shape
        return out


def _primitives(net) -> dict:
    """``id(attrs dict) -> Primitive`` for every sharded Primitive held by the Cell tree."""
    out = {}
    for _, cell in net.cells_and_names():
        for v in vars(cell).values():
            if getattr(v, "in_strategy", None) is not None and isinstance(getattr(v, "attrs", None),
                                                                           dict):
                out[id(v.attrs)] = v
    return out


def capture(net, *inputs) -> OpGraph:
    """Trace one call of ``net(*inputs)`` (it really runs) into an ``OpGraph``."""
    from ms_graph import ir
    from ms_graph.trace import current_tracer, trace

    from ms_autodiff.recompute import region
    from ms_autodiff.recording import set_recorder

    prims = _primitives(net)
    marked: dict[int, object] = {}
    regions: dict[int, tuple] = {}  # id(node) -> the recomputed region it ran in

    def note(op, values, attrs, out):
        p = prims.get(id(attrs))
        tracer = current_tracer()
        if region() is not None and tracer is not None and tracer.graph.nodes:
            regions[id(tracer.graph.nodes[-1])] = region()
        if p is not None and tracer is not None and tracer.graph.nodes:
            marked[id(tracer.graph.nodes[-1])] = p

    previous = set_recorder(note)
    try:
        graph = trace(net, *inputs)
    finally:
        set_recorder(previous)

    params = {id(v): p.name for v, p in graph.params}
    inputs_at = {id(v): i for i, v in enumerate(graph.inputs)}
    where: dict[int, tuple] = {}
    og = OpGraph()
    for node in graph.nodes:
        if not hasattr(node.op, "inputs"):
            raise ValueError(f"parallel planning: {node.op} (control flow) is not supported; "
                             "plan a network whose construct is straight-line code")
        sources, shapes, args = [], [], []
        for arg in node.args:
            if isinstance(arg, ir.Value):
                shapes.append(tuple(arg.spec.shape))
                args.append(arg.const if arg.is_const else None)
                if id(arg) in where:
                    sources.append(where[id(arg)])
                elif id(arg) in params:
                    sources.append(("param", params[id(arg)]))
                elif id(arg) in inputs_at:
                    sources.append(("input", inputs_at[id(arg)]))
                else:
                    sources.append(("const",))
            else:
                shapes.append(None)
                args.append(arg)
                sources.append(None)
        prim = marked.get(id(node))
        itemsize = mstype.to_numpy(node.outputs[0].spec.dtype).itemsize
        static = [None if s is not None and s[0] == "const" else a for s, a in zip(sources, args)]
        k = og.add(node.op.name, sources, shapes, [tuple(o.spec.shape) for o in node.outputs],
                   node.attrs, static, None if prim is None else prim.in_strategy, itemsize)
        og.nodes[k].op = node.op
        og.nodes[k].args = tuple(args)  # with the constants, for ``execute``
        og.nodes[k].recompute = regions.get(id(node))
        for i, o in enumerate(node.outputs):
            where[id(o)] = ("op", k, i)
    for v in graph.outputs:
        if id(v) in where:
            og.outputs.append(where[id(v)][1:])
    plan = net.__dict__.get("_shard_plan")
    if plan is not None:
        in_strategy, _, param_plan = plan
        og.input_strategies = {i: _strategy(s) for i, s in enumerate(in_strategy)
                               if s is not None}
        og.param_strategies = {k: _strategy(v) for k, v in param_plan.items()}
    return og


def _strategy(s):
    """A ``TensorLayout`` (from ``ms.Layout``) as it is, a strategy as a tuple of ints."""
    return s if isinstance(s, TensorLayout) else tuple(int(v) for v in s)
