"""``microspore parallel plan train.py --devices 1024 --topology 8x128``.

The script runs with ``__name__ == "__microspore_plan__"`` (so its ``if __name__ ==
"__main__":`` training does not start) and must leave at module level either ``net`` (a Cell
returning the loss) and ``inputs`` (a tuple of example Tensors at the global batch size; one
forward call is traced), or ``graph`` (an ``ms_parallel.auto.OpGraph``, e.g. from
``ms_parallel.auto.models``, for models too large to run here). No process per device is
started: the plan is made for any device count on the cost model. Unless the script sets a
parallel mode itself it runs in SEMI_AUTO_PARALLEL on ``--devices`` devices, so that its
``reshard`` calls pin their layouts.
"""

from __future__ import annotations

import argparse
import runpy
import sys

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="microspore parallel plan",
                                description="Search a parallel strategy on a simulated cluster.")
    p.add_argument("script", help="training script defining net and inputs, or graph")
    p.add_argument("--devices", type=int, required=True, help="total devices")
    p.add_argument("--topology", default=None,
                   help="DEVICES_PER_NODExNODES, e.g. 8x128 (default: one node of --devices)")
    p.add_argument("--search-mode", default="recursive_programming",
                   choices=["dynamic_programming", "recursive_programming",
                            "sharding_propagation"])
    p.add_argument("--memory-gib", type=float, default=32.0, help="memory per device")
    p.add_argument("--tflops", type=float, default=100.0, help="compute per device")
    p.add_argument("--intra-gbps", type=float, default=150.0, help="intra-node GB/s")
    p.add_argument("--inter-gbps", type=float, default=12.5, help="inter-node GB/s")
    p.add_argument("--save", default=None, help="write the strategy file here (JSON if the name "
                   "ends in .json, else MindSpore's protobuf)")
    p.add_argument("--load", default=None, help="pin the operators of this strategy file")
    return p


def _graph_of(script: str, devices: int):
    """The script's graph; it runs in SEMI_AUTO_PARALLEL on ``devices`` unless it sets a
    parallel mode itself (``reshard`` records its layout only in a parallel mode)."""
    from ms_parallel.context import (
        get_auto_parallel_context,
        reset_auto_parallel_context,
        set_auto_parallel_context,
    )

    ours = get_auto_parallel_context("parallel_mode") == "stand_alone"
    if ours:
        set_auto_parallel_context(parallel_mode="semi_auto_parallel", device_num=devices)
    try:
        return _run_script(script)
    finally:
        if ours:
            reset_auto_parallel_context()


def _run_script(script: str):
    from ms_parallel.auto.graph import OpGraph, capture

    scope = runpy.run_path(script, run_name="__microspore_plan__")
    if isinstance(scope.get("graph"), OpGraph):
        return scope["graph"]
    if "net" in scope and "inputs" in scope:
        inputs = scope["inputs"]
        return capture(scope["net"], *(inputs if isinstance(inputs, (tuple, list)) else (inputs,)))
    raise SystemExit(f"microspore parallel plan: {script} defines neither `graph` (an OpGraph) "
                     "nor `net` and `inputs` at module level")


def plan_command(argv) -> int:
    from ms_parallel.auto.planner import plan
    from ms_parallel.auto.topology import Topology

    args = _parser().parse_args(argv)
    kw = {"memory": args.memory_gib * 2**30, "flops": args.tflops * 1e12,
          "intra_bandwidth": args.intra_gbps * 1e9, "inter_bandwidth": args.inter_gbps * 1e9}
    try:
        topo = Topology.parse(args.topology, **kw) if args.topology else \
            Topology(device_num=args.devices, devices_per_node=args.devices, **kw)
        if topo.device_num != args.devices:
            raise ValueError(f"--topology {args.topology} has {topo.device_num} devices, "
                             f"--devices says {args.devices}")
        config = {"save_file": args.save, "load_file": args.load}
        result = plan(_graph_of(args.script, args.devices), topo, args.search_mode, config)
    except (ValueError, MemoryError, FileNotFoundError) as e:
        print(f"microspore parallel plan: {e}", file=sys.stderr)
        return 2
    print(result.report())
    return 0


def main(argv) -> int:
    """``microspore parallel SUBCOMMAND``: only ``plan`` so far."""
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: microspore parallel plan SCRIPT --devices N [--topology PERxNODES] ...")
        return 0 if argv else 2
    if argv[0] != "plan":
        print(f"microspore parallel: unknown subcommand {argv[0]!r}; expected 'plan'",
              file=sys.stderr)
        return 2
    return plan_command(argv[1:])
