"""MindSpore's protobuf strategy and group-information files: the fixtures MindSpore's own
classes wrote (data/make_strategy_fixtures.py) read here, files written here read back with
the same layouts, the format chosen by the name as MindSpore chooses it, and bad files
refused naming the file."""

import json
import pathlib
import shutil

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ms_nn.train.checkpoint import load_checkpoint, save_checkpoint
from ms_parallel.auto import models
from ms_parallel.auto.ckpt import load_strategy, save_strategy
from ms_parallel.auto.group_info import restore_group_info_list
from ms_parallel.auto.layout import TensorLayout
from ms_parallel.auto.planner import plan
from ms_parallel.auto.simulate import local_slice
from ms_parallel.auto.strategy_file import (
    build_searched_strategy,
    layout_items,
    merge_pipeline_strategys,
)
from ms_parallel.auto.strategy_proto import from_strategy_bytes, is_json
from ms_parallel.auto.topology import Topology
from ms_parallel.auto.transform import (
    rank_list_for_transform,
    transform_checkpoint_by_rank,
    transform_checkpoints,
)
from ms_tensor import Tensor

DATA = pathlib.Path(__file__).with_name("data")
COL = TensorLayout((2, 2), ((), (1,)))


def test_the_format_is_chosen_by_the_name_as_mindspore_does():
    assert is_json("s.json") and not is_json("s.ckpt") and not is_json("s.pb")
    assert not is_json("s.JSON") and not is_json("json")  # MindSpore: name[-5:] == ".json"


def test_a_strategy_file_mindspore_wrote_loads_here():
    got = build_searched_strategy(str(DATA / "ms_strategy.ckpt"))
    assert sorted(got) == ["b", "e", "w"]
    assert got["w"].layout == COL and got["w"].tensor_map[0].dim == [-1, 0]
    assert (got["w"].opt_weight_shard_size, got["w"].opt_weight_shard_step) == (2, 2)
    assert got["b"].layout == TensorLayout((2, 2), ((),))
    # a dimension cut by both axes: one TensorMap per dimension in the file
    assert got["e"].layout == TensorLayout((2, 2), ((0, 1), ()))
    assert load_strategy(DATA / "ms_strategy.ckpt", 4) == {
        "Default/network-Net/MatMul-op0": ((2, 1), (1, 2)),
        "Default/network-Net/MatMul-op1": ((4, 1), (1, 1))}
    with pytest.raises(ValueError, match="ms_strategy.ckpt was saved for 4 devices"):
        load_strategy(DATA / "ms_strategy.ckpt", 8)


def test_a_pipeline_merge_mindspore_wrote_loads_here_and_ours_equals_it(tmp_path):
    got = build_searched_strategy(str(DATA / "ms_merged.ckpt"))
    assert (got["w0"].ranks, got["w0"].pipeline_stage) == ([0, 1], 0)
    assert (got["w1"].ranks, got["w1"].pipeline_stage) == ([2, 3], 1)
    assert rank_list_for_transform(0, str(DATA / "ms_merged.ckpt"), None) == [0, 1, 2, 3]
    src = tmp_path / "stages"
    src.mkdir()
    for f in ("ms_stage0.ckpt", "ms_stage1.ckpt"):
        shutil.copy(DATA / f, src)
    merge_pipeline_strategys(str(src), str(tmp_path / "merged.ckpt"))
    # the same messages (MindSpore merges in the directory's listing order, here sorted)
    ours, theirs = (from_strategy_bytes(p.read_bytes(), p)
                    for p in (tmp_path / "merged.ckpt", DATA / "ms_merged.ckpt"))
    assert ours == theirs
    (src / "other.json").write_text("{}")
    with pytest.raises(ValueError, match="both .ckpt"):
        merge_pipeline_strategys(str(src), str(tmp_path / "m.ckpt"))


def test_mindspores_json_stage_files_merge_and_load_as_in_mindspore(tmp_path):
    got = build_searched_strategy(str(DATA / "ms_merged.json"))  # MindSpore's merge output
    assert (got["w1"].ranks, got["w1"].pipeline_stage) == ([2, 3], 1)
    assert rank_list_for_transform(0, str(DATA / "ms_merged.json"), None) == [0, 1, 2, 3]
    src = tmp_path / "stages"
    src.mkdir()
    for f in ("ms_stage0.json", "ms_stage1.json"):
        shutil.copy(DATA / f, src)
    merge_pipeline_strategys(str(src), str(tmp_path / "merged.json"))
    assert json.loads((tmp_path / "merged.json").read_text()) == \
        json.loads((DATA / "ms_merged.json").read_text())


def test_our_stage_files_merge_as_mindspores_do(tmp_path):
    src = tmp_path / "stages"
    half = TensorLayout((2,), ((), (0,)))
    for stage, name in ((0, "w0"), (1, "w1")):
        save_strategy(src / f"rank{2 * stage}.ckpt", 2,
                      {f"MatMul-{stage}": {"in_strategy": [[1, 1], [1, 2]]}}, "", layout_items(
                          {name: ((4, 6), half)}, stage=(stage, [2 * stage, 2 * stage + 1])))
    shutil.copy(src / "rank2.ckpt", src / "rank3.ckpt")  # a stage twice: kept once
    merge_pipeline_strategys(str(src), str(tmp_path / "merged.ckpt"))
    got = build_searched_strategy(str(tmp_path / "merged.ckpt"))
    assert got["w1"].ranks == [2, 3] and got["w1"].layout == half
    (src / "rank0.ckpt").unlink()
    with pytest.raises(ValueError, match=r"stages \[1\], not every stage from 0"):
        merge_pipeline_strategys(str(src), str(tmp_path / "m.ckpt"))


def test_a_group_file_mindspore_wrote_loads_here():
    assert restore_group_info_list(str(DATA / "ms_group.pb")) == [1, 3]


@st.composite
def layouts(draw):
    dev = tuple(draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)))
    axes = draw(st.permutations(range(len(dev))))
    ndim = draw(st.integers(1, 3))
    cuts = [draw(st.integers(0, ndim)) for _ in axes]  # the dimension each axis cuts
    tmap = tuple(tuple(a for a, d in zip(axes, cuts) if d == k) for k in range(ndim))
    return TensorLayout(dev, tmap)


@settings(max_examples=60, deadline=None)
@given(lays=st.lists(layouts(), min_size=1, max_size=4), opt=st.booleans())
def test_layouts_written_as_protobuf_read_back_the_same(tmp_path_factory, lays, opt):
    path = tmp_path_factory.mktemp("s") / "strategy.ckpt"
    params = {f"p{i}": ((8,) * len(lay.tensor_map), lay) for i, lay in enumerate(lays)}
    parts = {"p0": [0, 1]} if opt else None
    save_strategy(path, 4, {"MatMul-0": {"in_strategy": [[2, 1], [1, 2]]}}, "",
                  layout_items(params, parts))
    assert path.read_bytes()[:1] != b"{"  # not JSON
    got = build_searched_strategy(str(path))
    assert {k: v.layout for k, v in got.items()} == {k: lay for k, (_, lay) in params.items()}
    assert got["p0"].opt_weight_shard_size == (2 if opt else 0)
    assert got["p0"].opt_weight_shard_step == (1 if opt else 0)


def test_a_plan_saved_as_protobuf_pins_a_later_search(tmp_path):
    g = models.mlp(64, (32, 64, 8))
    topo = Topology(device_num=4)
    first = plan(g, topo, strategy_ckpt_config={"save_file": str(tmp_path / "s.ckpt")})
    plan(g, topo, strategy_ckpt_config={"save_file": str(tmp_path / "s.json")})
    want = load_strategy(tmp_path / "s.json", 4)
    assert load_strategy(tmp_path / "s.ckpt", 4) == want
    assert want == {k: tuple(map(tuple, v["in_strategy"]))
                    for k, v in first.strategies().items()}
    again = plan(g, topo, "recursive_programming",
                 strategy_ckpt_config={"load_file": str(tmp_path / "s.ckpt")})
    assert again.cuts == first.cuts


def test_transform_checkpoints_reads_a_protobuf_strategy_as_json(tmp_path):
    rng = np.random.default_rng(0)
    w, b = rng.standard_normal((4, 6)), rng.standard_normal(6)
    bias = TensorLayout((2, 2), ((1,),))
    lays = {"w": ((4, 6), COL), "b": ((6,), bias)}
    for r in range(4):
        (tmp_path / "in" / f"rank_{r}").mkdir(parents=True)
        save_checkpoint([{"name": "w", "data": Tensor(local_slice(w, COL, r))},
                         {"name": "b", "data": Tensor(local_slice(b, bias, r))}],
                        str(tmp_path / "in" / f"rank_{r}" / "net.ckpt"))
    for name in ("s.ckpt", "s.json"):
        save_strategy(tmp_path / name, 4, {}, "", layout_items(lays))
        transform_checkpoints(str(tmp_path / "in"), str(tmp_path / name[2:]), "net",
                              str(tmp_path / name), None)
    for name in ("ckpt", "json"):
        whole = load_checkpoint(str(tmp_path / name / "rank_0" / "net0.ckpt"))
        np.testing.assert_array_equal(whole["w"].asnumpy(), w)
        np.testing.assert_array_equal(whole["b"].asnumpy(), b)


def test_optimizer_parts_need_only_the_ranks_whose_rows_meet(tmp_path):
    # as MindSpore's rank_list_for_transform (checked in test_strategy_proto_mindspore):
    # COL's ranks 0 and 2 keep rows 0-1 and 2-3 of columns 0-2, ranks 1 and 3 of columns 3-5
    rng = np.random.default_rng(1)
    w = rng.standard_normal((4, 6))
    row = TensorLayout((4,), ((0,), ()))
    src, dst = str(tmp_path / "col.ckpt"), str(tmp_path / "row.ckpt")
    save_strategy(src, 4, {}, "", layout_items({"w": ((4, 6), COL)}, {"w": [0, 2]}))
    save_strategy(dst, 4, {}, "", layout_items({"w": ((4, 6), row)}))
    files = {}
    for r in range(4):
        part = local_slice(w, COL, r)[2 * (r // 2):2 * (r // 2) + 2]
        files[r] = str(tmp_path / f"rank{r}.ckpt")
        save_checkpoint([{"name": "w", "data": Tensor(part)}], files[r])
    for r in range(4):
        need = rank_list_for_transform(r, src, dst)
        assert need == ([0, 1] if r < 2 else [2, 3])
        out = str(tmp_path / f"out{r}.ckpt")
        transform_checkpoint_by_rank(r, {q: files[q] for q in need}, out, src, dst)
        np.testing.assert_array_equal(load_checkpoint(out)["w"].asnumpy(), w[r:r + 1])
    with pytest.raises(ValueError, match="do not cover destination rank 2"):
        transform_checkpoint_by_rank(2, {0: files[0], 1: files[1]}, out, src, dst)


@pytest.mark.parametrize("name, content, message", [
    ("s.ckpt", b"\x0a\x05abc", "s.ckpt is not a strategy file"),  # truncated
    ("s.ckpt", b'{"parallel_layout_item": {}}', "a name not ending in .json means protobuf"),
    ("s.json", b"\x08\x01", "s.json: not JSON"),
    ("s.ckpt", b"", "s.ckpt is empty"),
])
def test_bad_strategy_files_are_refused_naming_the_file(tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(ValueError, match=message):
        build_searched_strategy(str(tmp_path / name))
    with pytest.raises(ValueError, match=message):
        load_strategy(tmp_path / name)


def test_what_protobuf_cannot_hold_is_refused_naming_the_file(tmp_path):
    with pytest.raises(ValueError, match=r"x.ckpt: cannot be written .* out of range"):
        save_strategy(tmp_path / "x.ckpt", 2, {"MatMul-0": {"in_strategy": [[-2, 1]]}})
    assert not (tmp_path / "x.ckpt").exists()


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(["ms_strategy.ckpt", "ms_merged.ckpt", "ms_group.pb"]),
       edits=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1,
                      max_size=4))
def test_damaged_files_load_or_raise_value_error(tmp_path_factory, name, edits):
    blob = bytearray((DATA / name).read_bytes())
    for at, value in edits:
        blob[at % len(blob)] = value
    path = tmp_path_factory.mktemp("f") / name
    path.write_bytes(bytes(blob))
    try:
        if name.endswith(".pb"):
            restore_group_info_list(str(path))
        else:
            build_searched_strategy(str(path))
            load_strategy(path)
    except ValueError as e:
        assert name in str(e)


def test_device_counts_beyond_any_cluster_are_refused_not_walked(tmp_path):
    # transforms walk every rank: a damaged count must not become a 2**31-step loop
    for name, items in (("big.ckpt", {"w": {"dev_matrix": [2**31], "tensor_map": [0]}}),
                        ("stage.ckpt", {"99999-w": {"dev_matrix": [2**15], "tensor_map": [0]}}),
                        ("neg.json", {"w": {"dev_matrix": [2], "tensor_map": [0],
                                            "stage_ranks": [-1, 0]}})):
        save_strategy(tmp_path / name, 1, {}, "", items)
        with pytest.raises(ValueError, match=f"{name}: .*(damaged file)"):
            rank_list_for_transform(0, str(tmp_path / name), None)


def test_a_truncated_mindspore_file_is_refused(tmp_path):
    for name in ("ms_strategy.ckpt", "ms_group.pb"):
        blob = (DATA / name).read_bytes()
        (tmp_path / name).write_bytes(blob[:len(blob) // 2 + 1])
    with pytest.raises(ValueError, match="ms_strategy.ckpt is not a strategy file"):
        build_searched_strategy(str(tmp_path / "ms_strategy.ckpt"))
    with pytest.raises(ValueError, match="ms_group.pb is not a group information file"):
        restore_group_info_list(str(tmp_path / "ms_group.pb"))
    # a name that is not UTF-8 (protobuf returns its bytes): refused, not a TypeError later
    blob = (DATA / "ms_strategy.ckpt").read_bytes().replace(b"Default", b"\xffefault", 1)
    (tmp_path / "name.ckpt").write_bytes(blob)
    with pytest.raises(ValueError, match=r"name.ckpt: the name b'\\xffefault.* is not UTF-8"):
        build_searched_strategy(str(tmp_path / "name.ckpt"))
    (tmp_path / "g.json").write_text(json.dumps({"ckpt_restore_rank_list": [1]}))
    with pytest.raises(ValueError, match="g.json is not a group information file"):
        restore_group_info_list(str(tmp_path / "g.json"))
