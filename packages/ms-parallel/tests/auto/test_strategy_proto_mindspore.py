"""Differential: MindSpore 2.10 itself (its ``node_strategy_pb2`` classes,
``build_searched_strategy``, ``rank_list_for_transform`` and ``restore_group_info_list``)
reads the protobuf strategy and group-information files written here. Runs only where
MindSpore is installed at /tmp/msenv (the project's reference environment)."""

import json
import os
import subprocess
from types import SimpleNamespace

import pytest

from ms_parallel.auto import models
from ms_parallel.auto.ckpt import save_strategy
from ms_parallel.auto.group_info import save_group_info
from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.planner import plan
from ms_parallel.auto.strategy_file import (
    build_searched_strategy,
    layout_items,
    merge_pipeline_strategys,
)
from ms_parallel.auto.topology import Topology
from ms_parallel.auto.transform import rank_list_for_transform

MS_PYTHON = "/tmp/msenv/bin/python"
pytestmark = pytest.mark.skipif(not os.path.exists(MS_PYTHON),
                                reason="MindSpore is not installed at /tmp/msenv")

READER = r"""
import json, sys
import mindspore as ms
from mindspore.train import node_strategy_pb2 as pb
args = json.loads(sys.argv[1])
out = {}
for path in args["strategies"]:
    msg = pb.ParallelStrategyMap()
    msg.ParseFromString(open(path, "rb").read())
    assert msg.IsInitialized(), path
    layouts = ms.build_searched_strategy(path)
    out[path] = {
        "current_stage": msg.current_stage,
        "ops": {i.node_name: [i.parallel_strategys.stage,
                              [list(s.dim) for s in i.parallel_strategys.parallel_strategy]]
                for i in msg.parallel_strategy_item},
        "layouts": {k: [list(v.dev_matrix[0].dim), [list(t.dim) for t in v.tensor_map],
                        v.opt_weight_shard_size, v.opt_weight_shard_step]
                    for k, v in layouts.items()}}
out["ranks"] = [sorted(int(q) for q in ms.rank_list_for_transform(r, *pair))
              for r, pair in args["ranks"]]
out["group"] = [int(q) for q in ms.parallel.restore_group_info_list(args["group"])]
print("RESULT" + json.dumps(out))
"""


def mindspore_reads(**args) -> dict:
    proc = subprocess.run([MS_PYTHON, "-c", READER, json.dumps(args)], capture_output=True,
                          text=True, timeout=300, env={**os.environ, "GLOG_v": "3"})
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.split("RESULT", 1)[1])


def right(lay):
    """A layout's tensor map as MindSpore's file holds it: one TensorMap, or one per
    dimension where a dimension is cut by several axes."""
    d = lay.to_dict()["tensor_map"]
    if all(isinstance(v, int) for v in d):
        return [d]
    return [v if isinstance(v, list) else [v] for v in d] + ([[]] if len(d) == 1 else [])


def test_mindspore_reads_the_files_written_here(tmp_path):
    g = models.mlp(64, (32, 64, 8))
    first = plan(g, Topology(device_num=4), strategy_ckpt_config={"save_file": str(
        tmp_path / "plan.ckpt")})
    lays = {"w": ((4, 6), TensorLayout((2, 2), ((), (1,)))),
            "e": ((8, 6), TensorLayout((2, 2), ((0, 1), ()))),
            "v": ((8,), TensorLayout((2, 2), ((1, 0),))),
            "b": ((6,), TensorLayout((2, 2), ((),)))}
    save_strategy(tmp_path / "s.ckpt", 4, {"MatMul-0": {"in_strategy": [[2, 1], [1, 2]]}}, "",
                  layout_items(lays, {"w": [0, 2]}))
    row = {"w": ((4, 6), TensorLayout((4,), ((0,), ())))}
    save_strategy(tmp_path / "row.ckpt", 4, {}, "", layout_items(row))
    stages = tmp_path / "stages"
    half = TensorLayout((2,), ((), (0,)))
    for stage, name in ((0, "w0"), (1, "w1")):
        save_strategy(stages / f"rank{stage}.ckpt", 2, {f"MatMul-{stage}": {
            "in_strategy": [[1, 1], [1, 2]]}}, "", layout_items(
                {name: ((4, 6), half)}, stage=(stage, [2 * stage, 2 * stage + 1])))
    merge_pipeline_strategys(str(stages), str(tmp_path / "merged.ckpt"))
    net = SimpleNamespace(n=4, rank=1, world=[0, 1, 2, 3], parts={}, _groups={(1, 3): "g13"},
                          param_layout={"w": lays["w"][1]},
                          replica_ranks={"w": [1, 3]}.__getitem__)
    save_group_info(net, str(tmp_path / "group_1.pb"))
    files = [str(tmp_path / f) for f in ("plan.ckpt", "s.ckpt", "merged.ckpt")]
    w_row = (str(tmp_path / "s.ckpt"), str(tmp_path / "row.ckpt"))
    pairs = [(r, pair) for pair in (w_row[::-1], w_row) for r in range(4)]
    pairs += [(0, (files[0], None)), (0, (files[2], None))]
    got = mindspore_reads(strategies=files, ranks=pairs, group=str(tmp_path / "group_1.pb"))

    assert got["group"] == [1, 3]
    mine = got[files[0]]
    assert mine["current_stage"] == 1
    assert mine["ops"] == {k: [0, v["in_strategy"]] for k, v in first.strategies().items()}
    assert mine["layouts"] == {k: [list(lay.dev_matrix), right(lay), 0, 0]
                               for k, (_, lay) in first.param_layouts().items()}
    assert got[files[1]]["layouts"] == {k: [list(lay.dev_matrix), right(lay),
                                            2 if k == "w" else 0, 2 if k == "w" else 0]
                                        for k, (_, lay) in lays.items()}
    assert got[files[2]]["layouts"] == {f"{s}-w{s}": [[2], [[-1, 0]], 0, 0] for s in (0, 1)}
    assert got[files[2]]["ops"] == {f"MatMul-{s}": [s, [[1, 1], [1, 2]]] for s in (0, 1)}
    # the same source ranks for each destination rank as here
    assert got["ranks"] == [rank_list_for_transform(r, *pair) for r, pair in pairs], got["ranks"]
    assert sorted(build_searched_strategy(w_row[0])) == sorted(got[files[1]]["layouts"])
