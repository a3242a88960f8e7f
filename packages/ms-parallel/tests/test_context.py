"""The auto-parallel context: MindSpore's keys, defaults and errors."""

import pytest

from ms_parallel.context import (
    DEFAULTS,
    ParallelMode,
    get_auto_parallel_context,
    reset_auto_parallel_context,
    set_auto_parallel_context,
)


@pytest.fixture(autouse=True)
def _reset():
    yield
    reset_auto_parallel_context()


def test_set_get_reset():
    set_auto_parallel_context(parallel_mode=ParallelMode.DATA_PARALLEL, gradients_mean=True,
                              device_num=4, auto_parallel_search_mode="dynamic_programming")
    assert get_auto_parallel_context("parallel_mode") == "data_parallel"
    assert get_auto_parallel_context("device_num") == 4
    assert get_auto_parallel_context("search_mode") == "dynamic_programming"
    reset_auto_parallel_context()
    assert {k: get_auto_parallel_context(k) for k in DEFAULTS} == DEFAULTS


def test_comm_fusion_merges_and_copies():
    set_auto_parallel_context(comm_fusion={"allreduce": {"mode": "size", "config": 8}})
    fusion = get_auto_parallel_context("comm_fusion")
    assert fusion["allreduce"] == {"mode": "size", "config": 8}
    assert fusion["allgather"]["mode"] == "auto"
    fusion["allreduce"]["config"] = 1  # a copy: the context is unchanged
    assert get_auto_parallel_context("comm_fusion")["allreduce"]["config"] == 8


@pytest.mark.parametrize("kwargs, match", [
    ({"parallel_mode": "bogus"}, "parallel_mode must be one of stand_alone"),
    ({"device_num": 0}, "device_num must be a positive int"),
    ({"gradients_mean": 1}, "gradients_mean must be a bool"),
    ({"foo": 1}, "unknown option 'foo'"),
    ({"all_reduce_fusion_config": [5, 2]}, "increasing list"),
    ({"comm_fusion": {"allreduce": {"mode": "size", "config": -1}}}, "size in MB"),
])
def test_bad_values_change_nothing(kwargs, match):
    with pytest.raises(ValueError, match=match):
        set_auto_parallel_context(full_batch=True, **kwargs)
    assert get_auto_parallel_context("full_batch") is False
