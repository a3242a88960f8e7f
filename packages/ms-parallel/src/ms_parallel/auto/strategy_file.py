"""The Parameter layouts of a strategy file, in MindSpore's JSON form.

A strategy file saved by a sharded run (``strategy_ckpt_config(save_file=...)``) holds, besides
the operators' strategies, MindSpore's ``parallel_layout_item``: per Parameter its device
matrix, tensor map (axes numbered from the right, -1 for an uncut dimension, a list for a
dimension cut by several axes) and optimizer-parallel split (``opt_weight_shard_size``: how
many ranks each keep one part of the slice, ``opt_weight_shard_step``: the rank stride
between them), plus the whole shape (``param_shape``, an addition of this file; MindSpore's
readers ignore it). ``build_searched_strategy`` reads it into ``ParallelLayouts`` objects
shaped like MindSpore's protobuf messages (``layout.dev_matrix[0].dim``...).

An optimizer-parallel part here is a flat ``1/r`` of the slice; that is MindSpore's split
along the first dimension whenever that dimension divides by ``r``.
"""

from __future__ import annotations

import json
import math
import os

from ms_parallel.auto.ckpt import MAX_DEVICES, read_strategy_file
from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.strategy_proto import message, parse

__all__ = ["ParallelLayouts", "build_searched_strategy", "layout_items", "read_layouts",
           "merge_pipeline_strategys"]


class _Dims:
    """A repeated integer field, as MindSpore's protobuf ``Array`` (``.dim``)."""

    def __init__(self, dim):
        self.dim = list(dim)

    def __repr__(self) -> str:
        return f"dim: {self.dim}"


class ParallelLayouts:
    """One Parameter's layout (MindSpore's ``ParallelLayouts`` message fields), with
    ``layout`` (a ``TensorLayout``) and ``param_shape`` (the whole shape, when known)."""

    def __init__(self, dev_matrix, tensor_map, opt_weight_shard_size=0,
                 opt_weight_shard_step=0, field=0, param_shape=None, pipeline_stage=0,
                 stage_ranks=None):
        self.pipeline_stage = int(pipeline_stage or 0)
        # a pipeline stage's layout lies on these world ranks (its local ranks 0, 1, ...)
        self.stage_ranks = None if stage_ranks is None else [int(r) for r in stage_ranks]
        self.dev_matrix = [_Dims(dev_matrix)]
        self.tensor_map = [_Dims(tensor_map)]
        self.param_split_shape = [_Dims(())]
        self.indices_offset = [_Dims(())]
        self.field = int(field or 0)
        self.opt_weight_shard_size = int(opt_weight_shard_size or 0)
        self.opt_weight_shard_step = int(opt_weight_shard_step or 0)
        self.param_shape = None if param_shape is None else tuple(int(v) for v in param_shape)
        n = len(self.dev_matrix[0].dim)

        def left(v):
            values = v if isinstance(v, (list, tuple)) else [v]
            return tuple(n - 1 - int(a) for a in values if int(a) != -1)
        self.layout = TensorLayout(self.dev_matrix[0].dim, [left(v) for v in tensor_map])

    @property
    def device_num(self) -> int:
        return math.prod(self.dev_matrix[0].dim)

    @property
    def ranks(self) -> list:
        """The world ranks of the layout's ranks ``0 .. device_num - 1``."""
        return self.stage_ranks if self.stage_ranks is not None else list(range(self.device_num))

    def __repr__(self) -> str:
        return (f"ParallelLayouts(dev_matrix={self.dev_matrix[0].dim}, tensor_map="
                f"{self.tensor_map[0].dim}, opt_weight_shard_size={self.opt_weight_shard_size})")


def layout_items(param_layouts: dict, parts: dict | None = None, stage=None) -> dict:
    """``parallel_layout_item`` for ``name -> (whole shape, TensorLayout)``; ``parts``: name ->
    the ranks that each keep a part of its slice (optimizer parallel); ``stage``: ``(pipeline
    stage, its world ranks)`` when the layouts are a pipeline stage's, over those ranks."""
    out = {}
    for name, (shape, lay) in sorted(param_layouts.items()):
        ranks = (parts or {}).get(name, ())
        item = {"dev_matrix": list(lay.dev_matrix), **{k: v for k, v in lay.to_dict().items()
                                                      if k == "tensor_map"},
                "field": 0, "opt_weight_shard_size": len(ranks) if len(ranks) > 1 else 0,
                "opt_weight_shard_step": ranks[1] - ranks[0] if len(ranks) > 1 else 0,
                "param_shape": list(shape)}
        if stage is not None:
            item.update(pipeline_stage=int(stage[0]), stage_ranks=[int(r) for r in stage[1]])
        out[name] = item
    return out


def build_searched_strategy(strategy_filename) -> dict:
    """Parameter name -> ``ParallelLayouts`` from a strategy file (MindSpore's
    ``build_searched_strategy``): JSON if its name ends in ``.json`` (this project's and
    MindSpore's), else MindSpore's protobuf, as MindSpore reads them."""
    if not isinstance(strategy_filename, str):
        raise TypeError(f"build_searched_strategy: strategy_filename must be a str, got "
                        f"{type(strategy_filename).__name__}")
    try:
        data = read_strategy_file(strategy_filename)
    except ValueError as e:
        raise ValueError(f"build_searched_strategy: {e}") from None
    items = data.get("parallel_layout_item")
    if not isinstance(items, dict):
        raise ValueError(f"build_searched_strategy: {strategy_filename} has no "
                         "parallel_layout_item (save it from a sharded run)")
    out = {}
    for name, item in items.items():
        try:
            out[name] = ParallelLayouts(item["dev_matrix"], item["tensor_map"],
                                        item.get("opt_weight_shard_size"),
                                        item.get("opt_weight_shard_step"), item.get("field"),
                                        item.get("param_shape"), item.get("pipeline_stage"),
                                        item.get("stage_ranks"))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"build_searched_strategy: {strategy_filename}: Parameter {name!r} "
                             f"has no valid layout ({e})") from None
        lay = out[name]
        if lay.device_num > MAX_DEVICES or not all(0 <= r < MAX_DEVICES
                                                   for r in lay.stage_ranks or ()):
            raise ValueError(f"build_searched_strategy: {strategy_filename}: Parameter {name!r} "
                             f"lies on {lay.device_num} devices or ranks beyond 0 to "
                             f"{MAX_DEVICES - 1} (a damaged file?)")
    return out


def read_layouts(strategy) -> tuple[int, dict]:
    """``(device count, name -> ParallelLayouts)`` of a strategy file, of a dict from
    ``build_searched_strategy``, or of None (one device, nothing sharded)."""
    if strategy is None:
        return 1, {}
    layouts = strategy if isinstance(strategy, dict) else build_searched_strategy(strategy)
    if any(lay.stage_ranks is not None for lay in layouts.values()):  # merged pipeline stages
        return 1 + max(r for lay in layouts.values() for r in lay.ranks), layouts
    counts = {lay.device_num for lay in layouts.values()}
    if len(counts) > 1:
        raise ValueError(f"strategy {strategy if isinstance(strategy, str) else ''}: its "
                         f"Parameters lie on different device counts {sorted(counts)}")
    return (counts.pop() if counts else 1), layouts


def merge_pipeline_strategys(src_strategy_dirs, dst_strategy_file) -> None:
    """One strategy file from the pipeline stages' files in ``src_strategy_dirs`` (e.g. one
    per rank), for ``transform_checkpoints`` of a pipelined run. As MindSpore's: every
    ``*.ckpt`` there (protobuf; the merged file is protobuf, its Parameters named
    ``"{stage}-{name}"``) or every ``*.json`` (JSON: this project's keep each Parameter's
    stage and world ranks; MindSpore's are merged as MindSpore does), not both."""
    if not isinstance(src_strategy_dirs, str) or not os.path.isdir(src_strategy_dirs):
        raise NotADirectoryError(f"merge_pipeline_strategys: {src_strategy_dirs!r} is not a "
                                 "directory")
    files = sorted(os.listdir(src_strategy_dirs))
    protos = [os.path.join(src_strategy_dirs, f) for f in files if f.endswith(".ckpt")]
    jsons = [os.path.join(src_strategy_dirs, f) for f in files if f.endswith(".json")]
    if protos and jsons:
        raise ValueError(f"merge_pipeline_strategys: {src_strategy_dirs} holds both .ckpt "
                         "(protobuf) and .json strategy files; they should be all one or the "
                         "other")
    if not protos and not jsons:
        raise ValueError(f"merge_pipeline_strategys: no strategy files in {src_strategy_dirs}")
    folder = os.path.dirname(os.path.abspath(dst_strategy_file))
    os.makedirs(folder, exist_ok=True)
    if protos:
        _merge_protobuf(protos, dst_strategy_file)
    else:
        _merge_json(jsons, dst_strategy_file)


def _check_stages(stages) -> None:
    stages = sorted(set(stages))
    if stages != list(range(len(stages))):
        raise ValueError(f"merge_pipeline_strategys: the files hold stages {stages}, not "
                         "every stage from 0")


def _merge_protobuf(paths, dst) -> None:
    """MindSpore's merge: each stage's operators and its Parameters renamed
    ``"{stage}-{name}"`` (a stage seen before is skipped)."""
    out = message("ParallelStrategyMap")
    out.current_stage = 1
    stages = []
    for path in paths:
        with open(path, "rb") as f:
            src = parse(f.read(), "ParallelStrategyMap", path, "strategy file")
        if not src.parallel_strategy_item or not src.parallel_layout_item:
            raise ValueError(f"merge_pipeline_strategys: the strategy file {path} is empty "
                             "(no operators or no Parameter layouts)")
        stage = src.parallel_strategy_item[0].parallel_strategys.stage
        if stage in stages:
            continue
        for item in src.parallel_layout_item:
            item.param_name = f"{stage}-{item.param_name}"
        out.parallel_strategy_item.extend(src.parallel_strategy_item)
        out.parallel_layout_item.extend(src.parallel_layout_item)
        stages.append(stage)
    _check_stages(stages)
    with open(dst, "wb") as f:
        f.write(out.SerializeToString())


def _merge_json(paths, dst) -> None:
    """This project's stage files (Parameters with their stage's world ranks) joined, or
    MindSpore's (operators with their ``stage``) merged as MindSpore merges them."""
    datas = {}
    for path in paths:
        build_searched_strategy(path)  # checked
        datas[path] = read_strategy_file(path)
    if all("parallel_strategy_item" in d for d in datas.values()):
        return _merge_mindspore_json(datas, dst)
    merged: dict = {}
    for path, data in datas.items():
        for name, item in data["parallel_layout_item"].items():
            if "stage_ranks" not in item:
                raise ValueError(f"merge_pipeline_strategys: {path} is not a pipeline stage's "
                                 f"strategy (Parameter {name!r} has no stage)")
            if merged.get(name, item) != item:
                raise ValueError(f"merge_pipeline_strategys: Parameter {name!r} has different "
                                 f"layouts in the stages' files ({path})")
            merged[name] = item
    if not merged:
        raise ValueError(f"merge_pipeline_strategys: no Parameter layouts in {paths}")
    stages = sorted({item["pipeline_stage"] for item in merged.values()})
    _check_stages(stages)
    with open(dst, "w", encoding="utf-8") as fh:
        json.dump({"pipeline_stages": len(stages), "parallel_layout_item": merged}, fh,
                  indent=1, sort_keys=True)


def _merge_mindspore_json(datas: dict, dst) -> None:
    """MindSpore's JSON merge: the stages' operators, their Parameters named
    ``"{stage}-{name}"`` (a stage seen before is skipped)."""
    out: dict = {"current_stage": 1, "parallel_strategy_item": {}, "parallel_layout_item": {}}
    stages = []
    for path, data in datas.items():
        ops, items = data["parallel_strategy_item"], data["parallel_layout_item"]
        if not ops or not items or not isinstance(ops, dict):
            raise ValueError(f"merge_pipeline_strategys: the strategy file {path} is empty "
                             "(no operators or no Parameter layouts)")
        first = next(iter(ops.values()))
        stage = first.get("stage") if isinstance(first, dict) else None
        if not isinstance(stage, int):
            raise ValueError(f"merge_pipeline_strategys: {path}'s operators have no stage")
        if stage in stages:
            continue
        out["parallel_layout_item"].update({f"{stage}-{k}": v for k, v in items.items()})
        out["parallel_strategy_item"].update(ops)
        stages.append(stage)
    _check_stages(stages)
    with open(dst, "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1, sort_keys=True)
