"""``generate``: a lite Graph as a C99 project, with the memory planned offline.

Each node's C comes from its operator's template (``templates.find_template``); every
tensor that is not a constant lives in one static arena at the offset the planner gave
it; constants become const arrays in ``weight.c`` (flash on a microcontroller). The
generated library uses ``<stdint.h>``, ``<string.h>`` and ``<math.h>`` only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ms_lite.codegen import fusion, project_files
from ms_lite.codegen import parallel as parallel_code
from ms_lite.codegen.carrays import c_array
from ms_lite.codegen.context import NodeContext, WeightTable, c_name, c_type
from ms_lite.codegen.lifetimes import Step, inplace_candidates, lifetimes
from ms_lite.codegen.planner import MemoryPlan, parse_size, plan_memory
from ms_lite.codegen.templates import MissingTemplateError, find_template
from ms_lite.converter.pipeline import typed

__all__ = ["Project", "generate", "typed", "TARGETS"]

TARGETS = ("x86", "ARM64", "ARM32", "Cortex-M")
_ALIGNMENT = {"x86": 16, "ARM64": 16, "ARM32": 8, "Cortex-M": 8}


@dataclass
class Project:
    """A generated project: where it is, its memory plan, and its golden data."""
    path: Path
    name: str
    target: str
    plan: MemoryPlan
    weights_bytes: int
    inputs: list = field(default_factory=list)    # Values
    outputs: list = field(default_factory=list)   # Values
    golden_inputs: list = field(default_factory=list)
    golden_outputs: list = field(default_factory=list)
    parallel: bool = False

    @property
    def arena_size(self) -> int:
        return self.plan.arena_size


def _key_dtype(graph, node) -> str:
    """The dtype a node's template is chosen by: its first tensor input's (a quantize
    node is chosen by float32, a dequantize by int8)."""
    for name in node.inputs:
        if name:
            return graph.value(name).dtype
    return graph.value(node.outputs[0]).dtype


def _check_outputs(graph) -> None:
    computed = {v.name for v in graph.inputs} | {o for n in graph.nodes for o in n.outputs}
    for v in graph.outputs:
        if v.name not in computed:
            raise ValueError(f"graph {graph.name!r}: output {v.name!r} is a constant; the "
                             "generated code returns computed tensors only (fold it away "
                             "or compute it)")


def _templates(graph, registry) -> list:
    found, missing = [], []
    for node in graph.nodes:
        dtype = _key_dtype(graph, node)
        t = find_template(registry, node.op, dtype)
        if t is None:
            missing.append(f"{node.op} ({dtype}, node {node.name!r})")
        found.append(t)
    if missing:
        raise MissingTemplateError(
            f"graph {graph.name!r}: no C template for operator(s) {', '.join(missing)}; a "
            "plugin adds one with registry.add_c_template(op, template, dtype=...) in its "
            "ms_register_c_templates hook")
    return found


def _nbytes(v) -> int:
    return int(np.prod(v.shape, dtype=np.int64)) * np.dtype(v.dtype).itemsize


def _plan(rw, templates, alignment: int, budget: int | None) -> MemoryPlan:
    """The plan of the schedule; an input quantized by ``net_set_input`` (``rw.casts``)
    is not in the arena, its int8 tensor is live from the start instead; one read from
    the caller's buffer (``rw.refs``) is not in the arena at all."""
    graph, casts = rw.graph, rw.casts
    consts = set(graph.constants)
    tensors = {v.name: v for v in graph.inputs if v.name not in casts and v.name not in rw.refs}
    for node in graph.nodes:
        for o in node.outputs:
            tensors[o] = graph.value(o)
    sizes = {n: _nbytes(v) for n, v in tensors.items() if n not in consts}
    cast_nodes = {id(n) for n in casts.values()}
    steps = [Step([i for i in n.inputs if i and i not in consts], n.outputs, t.inplace)
             for n, t in zip(graph.nodes, templates) if id(n) not in cast_nodes]
    ins = [casts[v.name].outputs[0] if v.name in casts else v.name for v in graph.inputs
           if v.name not in rw.refs]
    buffers = lifetimes(steps, sizes, ins, [v.name for v in graph.outputs])
    aliases = inplace_candidates(steps, buffers, keep=ins)
    return plan_memory(buffers, aliases=aliases, alignment=alignment, budget=budget)


def _golden(graph, golden_inputs, seed: int):
    from ms_lite.runtime.executor import Executor

    if golden_inputs is None:
        rng = np.random.default_rng(seed)
        golden_inputs = []
        for v in graph.inputs:
            if np.dtype(v.dtype).kind == "f":
                golden_inputs.append(rng.standard_normal(v.shape).astype(v.dtype))
            else:
                info = np.iinfo(v.dtype)
                golden_inputs.append(rng.integers(info.min, info.max + 1, v.shape,
                                                  dtype=v.dtype))
    golden_inputs = [np.ascontiguousarray(x, dtype=v.dtype)
                     for x, v in zip(golden_inputs, graph.inputs)]
    outs = Executor(graph).run(list(golden_inputs))
    return golden_inputs, [np.ascontiguousarray(o) for o in outs]


def _sources(templates) -> str:
    seen, chunks = set(), []
    for t in templates:
        for chunk in (t.source,) if isinstance(t.source, str) else t.source:
            if chunk and chunk not in seen:
                seen.add(chunk)
                chunks.append(chunk.strip("\n"))
    return "\n\n".join(chunks)


class _Pointers(dict):
    """C expressions of tensors; a constant becomes a weight array when first used."""

    def __init__(self, arena: dict, constants: dict, weights: WeightTable):
        super().__init__(arena)
        self._constants, self._weights = constants, weights

    def __missing__(self, name: str) -> str:
        if name not in self._constants:
            raise KeyError(name)
        value = self[name] = self._weights.add(name, self._constants[name], source=name)
        return value


def _net_c(rw, templates, plan, registry, weights: WeightTable, parallel: bool) -> str:
    graph, casts = rw.graph, rw.casts
    pointers, defines, used = {}, [], set()
    for name, p in plan.placements.items():
        ctype = c_type(graph.value(name).dtype, f"tensor {name!r}")
        macro = base = "T_" + c_name(name)
        while macro in used:  # "a.b" and "a_b" spell the same C name
            macro = f"{base}_{len(used)}"
        used.add(macro)
        defines.append(f"#define {macro} (({ctype} *)(net_arena + {p.offset}))  /* {name} */")
        pointers[name] = macro
    pointers = _Pointers(pointers, graph.constants, weights)
    offsets = {name: p.offset for name, p in plan.placements.items()}
    names = [v.name for v in graph.inputs]
    for name in casts:  # net_set_input quantizes the caller's buffer
        pointers[name] = "((const float *)data)"
    for name in rw.refs:  # kernels read the caller's buffer, whose address net_set_input keeps
        ctype = c_type(graph.value(name).dtype, f"input {name!r}")
        pointers[name] = f"((const {ctype} *)net_input_refs[{names.index(name)}])"
    cast_nodes = {id(n): name for name, n in casts.items()}
    calls, tasks, set_inputs = [], [], {}
    for i, (node, t) in enumerate(zip(graph.nodes, templates)):
        ctx = NodeContext(node, graph, pointers, weights, offsets)
        fields = ctx.fields(registry.primitive(node.op))
        if t.params is not None:
            fields.update(t.params(ctx))
        if t.split is None:
            call = t.fill(fields)
        elif parallel:
            fields.update(O0="${O0}", O1="${O1}")
            task, call = parallel_code.split_call(i, node.name, t.fill(fields), fields, t.split)
            tasks.append(task)
        else:
            fields.update(O0="0", O1=fields[t.split])
            call = t.fill(fields)
        if id(node) in cast_nodes:
            index = names.index(cast_nodes[id(node)])
            set_inputs[index] = f"{call}  /* {node.name} */"
        else:
            calls.append(f"    /* {node.name}: {node.op} */\n    {call}")
    return project_files.net_c(plan, "\n".join(defines), _sources(templates),
                               "\n".join(calls), graph, "\n".join(tasks), parallel,
                               set_inputs, [names.index(n) for n in rw.refs])


def generate(graph, save_path, *, project_name: str = "net", target: str = "x86",
             golden_inputs=None, ram_budget=None, alignment: int | None = None,
             seed: int = 0, registry=None, support_parallel: bool = False,
             fuse: bool | None = None) -> Project:
    """Write a C99 project for ``graph`` under ``save_path/project_name``.

    Args:
        graph: an ``ms_lite.ir.Graph`` with the types of every tensor (``graph.values``).
        target: ``x86``, ``ARM64``, ``ARM32`` or ``Cortex-M`` (MindSpore Micro's names):
            the Makefile's default and the arena's alignment.
        golden_inputs: inputs saved with the project for its golden test (default: seeded
            random ones); the expected outputs come from the Python lite runtime.
        ram_budget: bytes or ``"8KB"``: fail with ``MemoryBudgetError`` naming the peak
            tensors if the arena does not fit.
        support_parallel: split convolutions and matrix products over POSIX threads
            (``net_set_thread_num``; Linux targets only, see ``ms_lite.codegen.parallel``).
        fuse: the rewrites of ``ms_lite.codegen.fusion`` that lower the RAM (convolution
            + max pooling in one kernel, the input quantized by ``net_set_input`` or row
            by row); the golden test checks them against the runtime. They trade speed
            for RAM (LeNet5 int8 on a Cortex-M3: 1,576 instead of 5,880 bytes, 7.8
            instead of 4.9 million instructions), so the default (None) is on for
            Cortex-M and off for the hosted targets.
    Returns:
        The ``Project`` (path, memory plan, golden data).
    Raises:
        MissingTemplateError: naming every operator without a C template for its dtype.
    """
    from ms_tensor import registry as _registry

    if target not in TARGETS:
        raise ValueError(f"target must be one of {', '.join(TARGETS)}, got {target!r}")
    if support_parallel:
        parallel_code.check_target(target)
    graph = fusion.split_conv_pool(typed(graph.validate()))
    _check_outputs(graph)
    reg = registry or _registry.load()
    if fuse is None:
        fuse = target == "Cortex-M"
    rw = fusion.rewrite(graph) if fuse else fusion.Rewritten(graph, {})
    templates = _templates(rw.graph, reg)
    budget = None if ram_budget is None else parse_size(ram_budget)
    plan = _plan(rw, templates, alignment or _ALIGNMENT[target], budget)
    weights = WeightTable()
    net_c = _net_c(rw, templates, plan, reg, weights, support_parallel)
    g_in, g_out = _golden(graph, golden_inputs, seed)
    root = Path(save_path) / project_name
    files = {
        "include/net.h": project_files.net_h(graph, plan, support_parallel),
        "src/net.c": net_c,
        "src/weight.h": project_files.weight_h(weights),
        "src/weight.c": project_files.weight_c(weights),
        "benchmark/golden_data.h": "".join(
            [c_array(f"golden_in{i}", x, static=True) for i, x in enumerate(g_in)]
            + [c_array(f"golden_out{i}", y, static=True) for i, y in enumerate(g_out)]),
        "memory_plan.txt": plan.report() + "".join(
            f"{name}: not in the arena; net_set_input quantizes it into "
            f"{n.outputs[0]}\n" for name, n in rw.casts.items()) + "".join(
            f"{name}: not in the arena; read from the caller's buffer (net_set_input keeps "
            "its address until net_run returns)\n" for name in rw.refs),
        **project_files.static_files(project_name, target, graph, support_parallel),
    }
    for rel, text in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text, encoding="utf-8")
    for i, x in enumerate(g_in):
        np.save(root / "benchmark" / f"golden_in{i}.npy", x)
    for i, y in enumerate(g_out):
        np.save(root / "benchmark" / f"golden_out{i}.npy", y)
    return Project(root, project_name, target, plan, weights.nbytes, list(graph.inputs),
                   list(graph.outputs), g_in, g_out, support_parallel)
