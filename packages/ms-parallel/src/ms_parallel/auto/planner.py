"""``plan``: search the strategies of a graph on a described cluster, and report them.

The planner runs the chosen search under the cost model. If the plan found does not fit in a
device's memory, memory is priced into the search (a Lagrange weight, raised until the plan
fits or no weight helps), and a plan that cannot fit raises ``MemoryError``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ms_parallel.auto.ckpt import load_strategy, save_strategy
from ms_parallel.auto.cost import CostModel
from ms_parallel.auto.dp import brute_force, dynamic_programming
from ms_parallel.auto.graph import OpGraph
from ms_parallel.auto.propagation import sharding_propagation
from ms_parallel.auto.rec import recursive_programming
from ms_parallel.auto.strategy import divisors, to_strategy
from ms_parallel.auto.strategy_file import layout_items
from ms_parallel.auto.topology import Topology

__all__ = ["Plan", "plan", "plan_from_context", "data_parallel_strategy", "SEARCH_MODES"]

SEARCH_MODES = {
    "dynamic_programming": dynamic_programming,
    # every operator pinned (annotated, or data parallel by default): nothing to search
    "semi_auto_parallel": dynamic_programming,
    "recursive_programming": recursive_programming,
    "sharding_propagation": sharding_propagation,
    "brute_force": brute_force,
}


@dataclass
class Plan:
    """A strategy per operator and what the cost model predicts for it."""

    graph: OpGraph
    model: CostModel
    cuts: list
    search_mode: str

    @property
    def cost(self) -> dict:
        return self.model.evaluate(self.cuts)

    def strategies(self) -> dict:
        """``name -> {"op", "in_strategy", "dev_matrix"}`` (MindSpore's strategy form)."""
        out = {}
        for node, cuts in zip(self.graph.nodes, self.cuts):
            out[node.name] = {"op": node.spec.op,
                              "in_strategy": [list(s) for s in to_strategy(node.spec, cuts)],
                              "dev_matrix": [self.model.n // math.prod(cuts), *cuts]}
            if node.spec.layout is not None:  # reshard's layout, in MindSpore's form
                out[node.name]["layout"] = node.spec.layout.to_dict()
        return out

    def param_layouts(self) -> dict:
        """Parameter name -> (whole shape, layout): the layout of the first operator that
        reads it, where a sharded run keeps its slices (``ShardedNet``)."""
        out = {}
        for j, (node, cuts) in enumerate(zip(self.graph.nodes, self.cuts)):
            for s, lay, shape in zip(node.sources, self.model.layouts(j, cuts)[0],
                                     node.spec.in_shapes):
                if s is not None and s[0] == "param" and s[1] not in out:
                    out[s[1]] = (tuple(shape), lay)
        return out

    def save(self, path, parts: dict | None = None, stage=None) -> None:
        """The strategy file: the operators' strategies and the Parameters' layouts
        (``parts``: name -> ranks keeping parts of its slice, optimizer parallel; ``stage``:
        ``(pipeline stage, its world ranks)`` for a stage's plan)."""
        save_strategy(path, self.model.n, self.strategies(), self.search_mode,
                      layout_items(self.param_layouts(), parts, stage))

    def report(self) -> str:
        """The strategy table, memory per device and the predicted step time."""
        c = self.cost
        lines = [f"{'operator':<28} {'strategy':<34} compute(ms)  comm(ms)"]
        for j, (node, cuts) in enumerate(zip(self.graph.nodes, self.cuts)):
            comp, comm, _ = self.model.costs(j, cuts)
            strat = str(to_strategy(node.spec, cuts)).replace(" ", "")
            lines.append(f"{node.name:<28} {strat:<34} {comp * 1e3:>10.4f} {comm * 1e3:>9.4f}")
        t = self.model.topo
        lines += [
            f"devices: {t.device_num} ({t.devices_per_node} per node); search: {self.search_mode}",
            f"memory per device: {c['memory'] / 2**20:.1f} MiB of {t.memory / 2**20:.0f} MiB",
            f"predicted step time: {c['total'] * 1e3:.4f} ms = compute {c['compute'] * 1e3:.4f} "
            f"ms + communication {c['communication'] * 1e3:.4f} ms",
        ]
        return "\n".join(lines)


def plan(graph: OpGraph, topology: Topology, search_mode: str = "dynamic_programming",
         strategy_ckpt_config: dict | None = None, fully_use_devices: bool = True,
         optimizer_states: int = 2, pinned: dict | None = None) -> Plan:
    """Search ``graph``'s strategies on ``topology`` (see module doc).

    ``strategy_ckpt_config``: MindSpore's dict; ``load_file`` pins the operators it names,
    ``save_file`` receives the plan. ``pinned``: operator name -> strategy, fixed as well
    (a loaded file's strategy wins).
    """
    if search_mode not in SEARCH_MODES:
        raise ValueError(f"search_mode {search_mode!r}: expected one of {sorted(SEARCH_MODES)}")
    config = dict(strategy_ckpt_config or {})
    pinned = dict(pinned or {})
    if config.get("load_file"):
        loaded = load_strategy(config["load_file"], topology.device_num)
        _warn_unmatched(config["load_file"], loaded, graph)
        pinned.update(loaded)
    model = CostModel(graph, topology, optimizer_states, fully_use_devices, pinned)
    search = SEARCH_MODES[search_mode]
    cuts = search(model)
    weight = 0.0
    while model.evaluate(cuts)["memory"] > topology.memory:
        # Price memory into the search: seconds per byte, starting where it matters.
        weight = weight * 8 if weight else model.evaluate(cuts)["total"] / topology.memory
        if weight > 1e6:
            raise MemoryError(f"parallel planning: no plan found fits in "
                              f"{topology.memory / 2**30:.3f} GiB per device on "
                              f"{topology.device_num} devices (best needs "
                              f"{model.evaluate(cuts)['memory'] / 2**30:.3f} GiB)")
        model.memory_weight = weight
        cuts = search(model)
    model.memory_weight = 0.0
    result = Plan(graph, model, cuts, search_mode)
    if config.get("save_file"):
        result.save(config["save_file"])
    return result


def plan_from_context(graph: OpGraph, topology: Topology | None = None,
                      device_num: int | None = None) -> Plan:
    """``plan`` with the settings of ``set_auto_parallel_context``: ``parallel_mode``
    SEMI_AUTO_PARALLEL (operators without ``shard`` are data parallel, as in MindSpore:
    ``data_parallel_strategy``) or AUTO_PARALLEL (``search_mode``; "sharding_propagation"
    fills in the unannotated operators from the annotated ones), ``device_num`` (one node of
    that many devices unless ``topology`` is given) and ``strategy_ckpt_config`` (or the older
    ``strategy_ckpt_load_file`` / ``strategy_ckpt_save_file``). ``device_num`` overrides the
    context's (a pipeline stage's ranks); ``set_algo_parameters(fully_use_devices=...)``
    reaches the AUTO_PARALLEL search."""
    from ms_parallel.context import get_auto_parallel_context as get

    mode = get("parallel_mode")
    if mode not in ("semi_auto_parallel", "auto_parallel"):
        raise ValueError(f"plan_from_context: parallel_mode is {mode!r}; set "
                         "SEMI_AUTO_PARALLEL or AUTO_PARALLEL with set_auto_parallel_context")
    n = device_num or get("device_num")
    topology = topology or Topology(device_num=n, devices_per_node=n)
    if topology.device_num != n:
        raise ValueError(f"plan_from_context: the topology has {topology.device_num} devices, "
                         f"device_num is {n}")
    config = {"load_file": get("strategy_ckpt_load_file") or None,
              "save_file": get("strategy_ckpt_save_file") or None}
    config.update({k: v for k, v in (get("strategy_ckpt_config") or {}).items() if v})
    from ms_parallel.auto.algo import get_algo_parameters

    fully = get_algo_parameters("fully_use_devices")
    if any(node.spec.layout is not None for node in graph.nodes):
        # reshard: MindSpore plans such a network by sharding propagation
        if mode == "auto_parallel" and get("search_mode") != "sharding_propagation":
            raise ValueError(f"reshard: in AUTO_PARALLEL the search_mode must be "
                             f"'sharding_propagation', got {get('search_mode')!r}")
        return plan(graph, topology, "sharding_propagation", config, fully_use_devices=fully)
    if mode == "auto_parallel":
        return plan(graph, topology, get("search_mode"), config, fully_use_devices=fully)
    defaults = {node.name: data_parallel_strategy(node.spec, n) for node in graph.nodes
                if node.strategy is None}
    return plan(graph, topology, "semi_auto_parallel", config, pinned=defaults)


def data_parallel_strategy(spec, device_num: int) -> tuple:
    """MindSpore's default for an operator without ``shard`` in SEMI_AUTO_PARALLEL: the first
    dimension of the first tensor input (the batch) cut by the device count, or by the
    largest count dividing it, everything else whole; replicated where that dimension
    cannot be cut (a Softmax over it, a 0-d input).

    >>> from ms_parallel.auto.spec import spec_for
    >>> data_parallel_strategy(spec_for("MatMul", {}, (None, None), ((8, 4), (4, 2)),
    ...                                 ((8, 2),)), 4)
    ((4, 1), (1, 1))
    """
    first = next((dims for dims in spec.inputs if dims), ())
    letter = first[0] if first else None
    cut = 1
    if letter in spec.free:
        sizes = spec.sizes()[letter]
        cut = max(d for d in divisors(device_num) if all(s % d == 0 for s in sizes))
    return to_strategy(spec, tuple(cut if c == letter else 1 for c in spec.free))


def _warn_unmatched(path, loaded: dict, graph: OpGraph) -> None:
    """A loaded strategy whose operator names this graph lacks pins nothing: say so (a file
    MindSpore wrote names operators its own way, ``Default/network-Net/MatMul-op0``)."""
    names = {node.name for node in graph.nodes}
    unmatched = sorted(set(loaded) - names)
    if unmatched:
        import warnings

        shown = ", ".join(unmatched[:5]) + (" ..." if len(unmatched) > 5 else "")
        warnings.warn(f"strategy file {path}: {len(unmatched)} of its {len(loaded)} operators "
                      f"are not in this network ({shown}) and pin nothing; this network's "
                      f"operators are named like {sorted(names)[:3]}", stacklevel=3)
