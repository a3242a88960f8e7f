"""MindSpore's distributed-checkpoint names on simulated ranks (one process writes every
rank's file): the strategy file's layouts, re-cutting checkpoints between layouts, the source
ranks a destination rank needs, loading into a network, a replica's file; and the search
settings and the functional ``shard``."""

import json

import numpy as np
import pytest

from ms_nn.train.checkpoint import load_checkpoint, save_checkpoint
from ms_parallel.auto.algo import get_algo_parameters, reset_algo_parameters, set_algo_parameters
from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.simulate import local_slice
from ms_parallel.auto.strategy_file import build_searched_strategy, layout_items
from ms_parallel.auto.transform import (
    get_ckpt_path_with_strategy,
    load_distributed_checkpoint,
    rank_list_for_transform,
    transform_checkpoint_by_rank,
    transform_checkpoints,
)
from ms_tensor import Tensor

RNG = np.random.default_rng(0)
W = RNG.standard_normal((4, 6))
B = RNG.standard_normal(6)
STATE = RNG.standard_normal((4, 6))  # an optimizer moment of W: sliced as W


def strategy(path, layouts, parts=None):
    """A strategy file with only the Parameters' layouts (as a sharded run writes them)."""
    path.write_text(json.dumps({"parallel_layout_item": layout_items(layouts, parts)}))
    return str(path)


def write_ranks(root, w_lay, b_lay, n):
    """rank_r/net.ckpt for each rank: its slices."""
    for r in range(n):
        w, s = local_slice(W, w_lay, r), local_slice(STATE, w_lay, r)
        (root / f"rank_{r}").mkdir(parents=True)
        save_checkpoint([{"name": "w", "data": Tensor(w)}, {"name": "b",
                         "data": Tensor(local_slice(B, b_lay, r))},
                         {"name": "moments.w", "data": Tensor(s)},
                         {"name": "step", "data": Tensor(np.array(3, np.int32))}],
                        str(root / f"rank_{r}" / "net.ckpt"))


COL = TensorLayout((2, 2), ((), (1,)))  # 4 ranks: columns cut 2 ways, 2 replicas
ROW = TensorLayout((4,), ((0,), ()))  # rows cut 4 ways
BIAS = TensorLayout((2, 2), ((1,),))


def test_build_searched_strategy_gives_mindspore_shaped_layouts(tmp_path):
    path = strategy(tmp_path / "s.json", {"w": ((4, 6), COL), "b": ((6,), BIAS)})
    got = build_searched_strategy(path)
    assert got["w"].dev_matrix[0].dim == [2, 2] and got["w"].tensor_map[0].dim == [-1, 0]
    assert got["w"].layout == COL and got["w"].param_shape == (4, 6)
    assert got["w"].opt_weight_shard_size == 0 and got["w"].field == 0
    with pytest.raises(TypeError, match="must be a str"):
        build_searched_strategy(1)
    (tmp_path / "bad.json").write_text("{}")
    with pytest.raises(ValueError, match="no parallel_layout_item"):
        build_searched_strategy(str(tmp_path / "bad.json"))


@pytest.mark.parametrize("opt", [False, True])
def test_transform_checkpoints_recuts_every_rank_and_merges_into_one(tmp_path, opt):
    # optimizer parallel: ranks 0 and 2 (and 1 and 3) each keep half of their W slice, and
    # of its moment (named after it: it takes W's layout)
    src = strategy(tmp_path / "src.json", {"w": ((4, 6), COL), "b": ((6,), BIAS)},
                   {"w": [0, 2]} if opt else None)
    write_ranks(tmp_path / "in", COL, BIAS, 4)
    if opt:  # every replica pair splits its slice: (0, 2) and (1, 3)
        for r in range(4):
            pair = [r % 2, r % 2 + 2]
            ck = load_checkpoint(str(tmp_path / "in" / f"rank_{r}" / "net.ckpt"))
            vals = {}
            for name in ("w", "moments.w"):
                a = ck[name].asnumpy().reshape(-1)
                k = pair.index(r)
                vals[name] = a[k * a.size // 2:(k + 1) * a.size // 2]
            save_checkpoint([{"name": "w", "data": Tensor(vals["w"])}, {"name": "b",
                             "data": ck["b"]}, {"name": "moments.w",
                             "data": Tensor(vals["moments.w"])}, {"name": "step",
                             "data": ck["step"]}],
                            str(tmp_path / "in" / f"rank_{r}" / "net.ckpt"))
    dst = strategy(tmp_path / "dst.json", {"w": ((4, 6), ROW), "b": ((6,), TensorLayout(
        (4,), ((),)))})
    transform_checkpoints(str(tmp_path / "in"), str(tmp_path / "out"), "re", src, dst)
    for r in range(4):
        ck = load_checkpoint(str(tmp_path / "out" / f"rank_{r}" / f"re{r}.ckpt"))
        np.testing.assert_array_equal(ck["w"].asnumpy(), local_slice(W, ROW, r))
        np.testing.assert_array_equal(ck["moments.w"].asnumpy(), local_slice(STATE, ROW, r))
        np.testing.assert_array_equal(ck["b"].asnumpy(), B)
        assert int(ck["step"].asnumpy()) == 3
    transform_checkpoints(str(tmp_path / "in"), str(tmp_path / "one"), "all", src, None)
    ck = load_checkpoint(str(tmp_path / "one" / "rank_0" / "all0.ckpt"))
    np.testing.assert_array_equal(ck["w"].asnumpy(), W)
    assert not (tmp_path / "one" / "rank_1").exists()


def test_flat_parts_without_the_whole_shape_are_refused_by_name(tmp_path):
    """A Parameter kept as flat optimizer parts (a 1-D piece of a 2-D slice) under a strategy
    without ``param_shape`` (MindSpore's protobuf keeps none): the whole shape cannot be
    inferred, so the re-cut names the Parameter instead of failing inside a layout."""
    items = layout_items({"w": ((4, 6), COL)}, {"w": [0, 2]})
    del items["w"]["param_shape"]
    path = tmp_path / "s.json"
    path.write_text(json.dumps({"parallel_layout_item": items}))
    for r in range(4):
        k = [r % 2, r % 2 + 2].index(r)
        (tmp_path / "in" / f"rank_{r}").mkdir(parents=True)
        save_checkpoint([{"name": "w", "data": Tensor(
            local_slice(W, COL, r).reshape(-1)[k * 6:(k + 1) * 6])}],
            str(tmp_path / "in" / f"rank_{r}" / "net.ckpt"))
    with pytest.raises(ValueError, match="'w'.*no whole shape.*JSON strategy file"):
        transform_checkpoints(str(tmp_path / "in"), str(tmp_path / "one"), "all", str(path),
                              None)


def test_rank_list_and_transform_by_rank_need_only_those_ranks(tmp_path):
    src = strategy(tmp_path / "src.json", {"w": ((4, 6), ROW), "b": ((6,), TensorLayout(
        (4,), ((),)))})
    dst = strategy(tmp_path / "dst.json", {"w": ((4, 6), COL), "b": ((6,), BIAS)})
    write_ranks(tmp_path / "in", ROW, TensorLayout((4,), ((),)), 4)
    # COL's rank 1 holds all rows of columns 3..5: every ROW rank; b comes whole from rank 0
    assert rank_list_for_transform(1, src, dst) == [0, 1, 2, 3]
    assert rank_list_for_transform(0, dst, src) == [0, 1]  # rows 0 of both column halves
    assert rank_list_for_transform(0, dst, None) == [0, 1]
    assert rank_list_for_transform(0, None, None) == [0]
    files = {r: str(tmp_path / "in" / f"rank_{r}" / "net.ckpt")
             for r in rank_list_for_transform(3, src, dst)}
    out = str(tmp_path / "r3.ckpt")
    transform_checkpoint_by_rank(3, files, out, src, dst)
    np.testing.assert_array_equal(load_checkpoint(out)["w"].asnumpy(), local_slice(W, COL, 3))
    with pytest.raises(ValueError, match="do not cover"):
        transform_checkpoint_by_rank(3, {0: files[0]}, out, src, dst)
    with pytest.raises(ValueError, match="should end with .ckpt"):
        transform_checkpoint_by_rank(3, files, str(tmp_path / "x.bin"), src, dst)
    with pytest.raises(ValueError, match="not a rank"):
        rank_list_for_transform(9, src, dst)


def test_load_distributed_checkpoint_whole_or_as_slices(tmp_path):
    from ms_nn import Cell
    from ms_tensor import Parameter

    class Net(Cell):
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.zeros((4, 6))), name="w")
            self.b = Parameter(Tensor(np.zeros(6)), name="b")

    src = strategy(tmp_path / "src.json", {"w": ((4, 6), COL), "b": ((6,), BIAS)})
    write_ranks(tmp_path / "in", COL, BIAS, 4)
    files = [str(tmp_path / "in" / f"rank_{r}" / "net.ckpt") for r in range(4)]
    net = Net()
    load_distributed_checkpoint(net, files, None, src)
    np.testing.assert_array_equal(net.w.asnumpy(), W)
    np.testing.assert_array_equal(net.b.asnumpy(), B)
    predict = build_searched_strategy(strategy(tmp_path / "p.json", {"w": ((4, 6), ROW)}))
    net = Net()
    load_distributed_checkpoint(net, files, predict, src, rank_id=2)
    np.testing.assert_array_equal(net.w.asnumpy(), local_slice(W, ROW, 2))
    got = load_distributed_checkpoint(None, files, None, src, return_param_dict=True)
    np.testing.assert_array_equal(got["moments.w"].asnumpy(), STATE)
    with pytest.raises(ValueError, match="3 files for a strategy of 4 ranks"):
        load_distributed_checkpoint(Net(), files[:3], None, src)


def test_a_missing_checkpoint_is_replaced_by_a_replicas(tmp_path, monkeypatch):
    import ms_parallel.management as management

    src = strategy(tmp_path / "src.json", {"w": ((4, 6), COL)})  # replicas: 0-2 and 1-3
    (tmp_path / "rank_2").mkdir()
    (tmp_path / "rank_2" / "a.ckpt").write_bytes(b"x")
    monkeypatch.setattr(management, "get_rank", lambda group=None: 0)
    assert get_ckpt_path_with_strategy(str(tmp_path / "rank_0" / "a.ckpt"), src) == \
        str(tmp_path / "rank_2" / "a.ckpt")
    monkeypatch.setattr(management, "get_rank", lambda group=None: 1)
    assert get_ckpt_path_with_strategy(str(tmp_path / "rank_1" / "a.ckpt"), src) is None
    monkeypatch.setattr(management, "get_rank", lambda group=None: 2)
    assert get_ckpt_path_with_strategy(str(tmp_path / "rank_2" / "a.ckpt"), src) == \
        str(tmp_path / "rank_2" / "a.ckpt")


def test_algo_parameters_as_mindspore_210():
    try:
        assert get_algo_parameters("fully_use_devices") is False  # MindSpore 2.10's default
        assert get_algo_parameters("tensor_slice_align_size") == 16
        set_algo_parameters(fully_use_devices=True)
        assert get_algo_parameters("fully_use_devices") is True
        with pytest.raises(ValueError, match="keyword bogus is not recognized"):
            set_algo_parameters(bogus=1)
        with pytest.raises(TypeError, match="must be <class 'bool'>"):
            set_algo_parameters(fully_use_devices=1)
        with pytest.raises(ValueError, match=r"Align_size must be in \[1, 1024\]"):
            set_algo_parameters(tensor_slice_align_size=2000)
        with pytest.raises(ValueError, match="not supported"):
            set_algo_parameters(enable_algo_approxi=True)
        with pytest.raises(ValueError, match="keyword bogus is not recognized"):
            get_algo_parameters("bogus")
    finally:
        reset_algo_parameters()
    assert get_algo_parameters("fully_use_devices") is False


def test_fully_use_devices_reaches_the_auto_parallel_search():
    from ms_nn import Cell
    from ms_ops import MatMul
    from ms_parallel.auto.graph import capture
    from ms_parallel.auto.planner import plan_from_context
    from ms_parallel.context import reset_auto_parallel_context, set_auto_parallel_context
    from ms_tensor import Parameter

    class Net(Cell):  # 2 rows, 3 columns: only a cut of the inner dimension uses 4 devices
        def __init__(self):
            super().__init__()
            self.w = Parameter(Tensor(np.ones((6, 3))), name="w")
            self.mm = MatMul()

        def construct(self, x):
            return self.mm(x, self.w)

    g = capture(Net(), Tensor(np.ones((2, 6))))
    set_auto_parallel_context(parallel_mode="auto_parallel", device_num=4,
                              search_mode="dynamic_programming")
    try:
        set_algo_parameters(fully_use_devices=True)
        strict = plan_from_context(g)
        set_algo_parameters(fully_use_devices=False)
        loose = plan_from_context(g)
    finally:
        reset_algo_parameters()
        reset_auto_parallel_context()
    # the search's candidates: only strategies using all 4 devices, or every one
    assert strict.model.fully_use_devices is True and loose.model.fully_use_devices is False
    assert strict.strategies()["MatMul-0"]["in_strategy"] == [[2, 2], [2, 1]]


def test_shard_annotates_a_cell_and_wraps_a_function(monkeypatch):
    import ms_parallel.management as management
    from ms_nn import Dense
    from ms_parallel.auto.shard_fn import shard

    d = Dense(2, 2)
    assert shard(d, ((2, 1),)) is d and d.__dict__["_shard_plan"][0] == ((2, 1),)

    def add(x, y):
        return x + y
    assert shard(add, ((2, 1), (2, 1))) is add  # one rank: as it is, like MindSpore
    monkeypatch.setattr(management, "get_group_size", lambda group=None: 2)
    cell = shard(add, ((2, 1), (2, 1)))
    assert cell.__dict__["_shard_plan"][0] == ((2, 1), (2, 1))
    assert float(cell(Tensor(1.0), Tensor(2.0)).asnumpy()) == 3.0
    with pytest.raises(ValueError, match="parameter_plan needs a Cell"):
        shard(add, ((2, 1),), parameter_plan={"w": (2, 1)})


def test_group_info_files_name_the_ranks_with_equal_checkpoints(tmp_path):
    from types import SimpleNamespace

    from ms_parallel.auto.group_info import restore_group_info_list, save_group_info

    # rank 1 of a 2 x 2 hybrid: w cut along axis 1 (replicas 1 and 3); b replicated on all
    lay = {"w": COL, "b": TensorLayout((2, 2), ((),))}
    replicas = {"w": [1, 3], "b": [0, 1, 2, 3]}
    net = SimpleNamespace(n=4, rank=1, world=[0, 1, 2, 3], param_layout=lay, parts={},
                          _groups={(1, 3): "auto-1-3"}, replica_ranks=replicas.__getitem__)
    path = str(tmp_path / "g" / "group_1.json")
    save_group_info(net, path)
    assert restore_group_info_list(path) == [1, 3]
    net.parts = {"w": ([1, 3], (4, 3))}  # optimizer parallel: 1 and 3 keep different parts
    save_group_info(net, path)
    assert restore_group_info_list(path) == [1]
    with pytest.raises(TypeError, match="should be str"):
        restore_group_info_list(1)
    with pytest.raises(ValueError, match="no such group information file"):
        restore_group_info_list(str(tmp_path / "none.json"))
    (tmp_path / "empty.json").write_text("")
    with pytest.raises(ValueError, match="should not be empty"):
        restore_group_info_list(str(tmp_path / "empty.json"))
    (tmp_path / "other.json").write_text("{}")
    with pytest.raises(ValueError, match="not a group information file"):
        restore_group_info_list(str(tmp_path / "other.json"))


def test_merge_pipeline_strategys_joins_stages_and_refuses_what_does_not_fit(tmp_path):
    from ms_parallel.auto.strategy_file import merge_pipeline_strategys

    src = tmp_path / "stages"
    src.mkdir()
    half = TensorLayout((2,), ((), (0,)))
    for stage, name in ((0, "w0"), (1, "w1")):
        (src / f"rank{2 * stage}.json").write_text(json.dumps({"parallel_layout_item":
            layout_items({name: ((4, 6), half)}, stage=(stage, [2 * stage, 2 * stage + 1]))}))
    out = str(tmp_path / "merged.json")
    merge_pipeline_strategys(str(src), out)
    got = build_searched_strategy(out)
    assert got["w1"].ranks == [2, 3] and got["w1"].pipeline_stage == 1
    assert rank_list_for_transform(0, out, None) == [0, 1, 2, 3]  # one device: every slice
    with pytest.raises(NotADirectoryError):
        merge_pipeline_strategys(str(tmp_path / "none"), out)
    (src / "rank4.json").write_text(json.dumps({"parallel_layout_item": layout_items(
        {"w1": ((4, 6), TensorLayout((2,), ((0,), ())))}, stage=(1, [2, 3]))}))
    with pytest.raises(ValueError, match="different layouts"):
        merge_pipeline_strategys(str(src), out)
    (src / "rank4.json").write_text(json.dumps({"parallel_layout_item": layout_items(
        {"w2": ((4, 6), half)})}))
    with pytest.raises(ValueError, match="not a pipeline stage's"):
        merge_pipeline_strategys(str(src), out)
