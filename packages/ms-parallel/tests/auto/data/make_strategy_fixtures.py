"""Writes MindSpore's protobuf strategy and group-information fixtures with MindSpore's own
classes (``mindspore.train.node_strategy_pb2``) and its own ``merge_pipeline_strategys``.

Regenerate (MindSpore 2.10 in /tmp/msenv):

    GLOG_v=3 /tmp/msenv/bin/python packages/ms-parallel/tests/auto/data/make_strategy_fixtures.py

It writes, next to itself:

- ``ms_strategy.ckpt``: a 4-device ``ParallelStrategyMap``: two MatMuls' strategies and the
  layouts of ``w`` (columns cut by device-matrix axis 0, counted from the right, with an
  optimizer split over 2 ranks of stride 2), ``b`` (replicated) and ``e`` (rows cut by both
  axes: one TensorMap per dimension);
- ``ms_stage0.ckpt``/``ms_stage1.ckpt`` and ``ms_merged.ckpt``: two pipeline stages of 2
  devices each, and MindSpore's merge of them (Parameters named ``"{stage}-{name}"``);
- ``ms_stage0.json``/``ms_stage1.json`` and ``ms_merged.json``: the same stages as JSON, and
  MindSpore's merge of them. MindSpore writes JSON strategy files from C++ only during a
  distributed compile (not possible on a CPU host), so the stage files are written here with
  the keys MindSpore's Python readers take; the merged file is MindSpore's output;
- ``ms_group.pb``: a ``ParallelGroupMap`` with two groups and restore ranks [1, 3].
"""

import json
import os
import shutil
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def strategy_map(pb, ops, params, stage=0):
    out = pb.ParallelStrategyMap()
    out.current_stage = 1
    for name, strategy in ops:
        item = out.parallel_strategy_item.add()
        item.node_name = name
        item.parallel_strategys.stage = stage
        for dims in strategy:
            item.parallel_strategys.parallel_strategy.add().dim.extend(dims)
    for name, dev, maps, step, size in params:
        item = out.parallel_layout_item.add()
        item.param_name = name
        lay = item.parallel_layouts
        lay.dev_matrix.add().dim.extend(dev)
        for m in maps:
            lay.tensor_map.add().dim.extend(m)
        lay.param_split_shape.add()
        lay.indices_offset.add()
        lay.field = 0
        lay.opt_weight_shard_step = step
        lay.opt_weight_shard_size = size
    return out.SerializeToString()


def write(name, blob):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(blob)


def main():
    # MindSpore's own classes and merge (imported here: pytest imports this file)
    from mindspore.parallel import merge_pipeline_strategys
    from mindspore.train import node_strategy_pb2 as pb

    write("ms_strategy.ckpt", strategy_map(
        pb, [("Default/network-Net/MatMul-op0", [[2, 1], [1, 2]]),
             ("Default/network-Net/MatMul-op1", [[4, 1], [1, 1]])],
        [("w", [2, 2], [[-1, 0]], 2, 2), ("b", [2, 2], [[-1]], 0, 0),
         ("e", [2, 2], [[1, 0], [-1]], 0, 0)]))
    with tempfile.TemporaryDirectory() as stages:
        for stage, pname in ((0, "w0"), (1, "w1")):
            node = f"Default/network-Net/MatMul-op{stage}"
            blob = strategy_map(pb, [(node, [[1, 1], [1, 2]])], [(pname, [2], [[-1, 0]], 0, 0)],
                                stage)
            write(f"ms_stage{stage}.ckpt", blob)
            shutil.copy(os.path.join(HERE, f"ms_stage{stage}.ckpt"), stages)
        merge_pipeline_strategys(stages, os.path.join(HERE, "ms_merged.ckpt"))
    with tempfile.TemporaryDirectory() as stages:
        for stage, pname in ((0, "w0"), (1, "w1")):
            data = {"current_stage": 1, "parallel_strategy_item": {
                f"Default/network-Net/MatMul-op{stage}": {"stage": stage,
                                                         "parallel_strategy": [[1, 1], [1, 2]]}},
                    "parallel_layout_item": {pname: {
                        "dev_matrix": [2], "tensor_map": [-1, 0], "param_split_shape": [],
                        "indices_offset": [], "field": 0, "opt_weight_shard_step": 0,
                        "opt_weight_shard_size": 0}}}
            with open(os.path.join(HERE, f"ms_stage{stage}.json"), "w") as f:
                json.dump(data, f, indent=1)
            shutil.copy(os.path.join(HERE, f"ms_stage{stage}.json"), stages)
        merge_pipeline_strategys(stages, os.path.join(HERE, "ms_merged.json"))
    group = pb.ParallelGroupMap()
    for gname, ranks in (("4-1-3", [1, 3]), ("hccl_world_group", [0, 1, 2, 3])):
        item = group.parallel_group_item.add()
        item.group_name = gname
        item.parallel_group_ranks.dim.extend(ranks)
    group.ckpt_restore_rank_list.dim.extend([1, 3])
    write("ms_group.pb", group.SerializeToString())


if __name__ == "__main__":
    main()
