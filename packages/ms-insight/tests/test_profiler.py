import json

import numpy as np
import pytest

from ms_insight import Profiler
from ms_tensor import GRAPH_MODE, PYNATIVE_MODE, Tensor, get_context, set_context

LENET_CALLS = {"Conv2D": 2, "MaxPool": 2, "ReLU": 4, "Dense": 3, "Reshape": 1}


@pytest.fixture(params=[PYNATIVE_MODE, GRAPH_MODE], ids=["pynative", "graph"])
def mode(request):
    previous = get_context("mode")
    set_context(mode=request.param)
    yield request.param
    set_context(mode=previous)


def test_profile_of_lenet_counts_every_kernel_in_both_modes(tmp_path, mode, lenet):
    net = lenet.LeNet5()
    x = lenet.batches(1)[0][0]
    net(x)  # GRAPH_MODE compiles here; the profile sees the compiled graph run
    profiler = Profiler(output_path=tmp_path)
    for _ in range(3):
        net(x)
        profiler.step()
    report = profiler.analyse()
    assert {s.op: s.calls for s in report.stats} == {k: 3 * n for k, n in LENET_CALLS.items()}
    totals = [s.total_us for s in report.stats]
    assert totals == sorted(totals, reverse=True)  # the slowest operator comes first
    assert sum(s.share for s in report.stats) == pytest.approx(1.0)
    assert 0 < sum(s.wall_share for s in report.stats) <= 1.0
    for s in report.stats:
        assert s.mean_us == pytest.approx(s.total_us / s.calls)
    assert "Conv2D" in report.table() and "3 steps marked" in report.table()
    out = tmp_path / "profiler"
    assert (out / "op_table.txt").read_text().startswith("operator")
    assert (out / "op_statistics.csv").read_text().splitlines()[0] == \
        "op,calls,total_us,mean_us,share,wall_share"
    trace = json.loads((out / "trace.json").read_text())["traceEvents"]
    kernels = [e for e in trace if e.get("cat") == "kernel"]
    steps = [e for e in trace if e.get("cat") == "step"]
    assert len(kernels) == 36 and len(steps) == 3
    assert all(e["ph"] == "X" and e["dur"] >= 0 and e["ts"] >= 0 for e in kernels + steps)
    assert {e["tid"] for e in kernels} == {1} and {e["tid"] for e in steps} == {0}
    names = {e["tid"]: e["args"]["name"] for e in trace if e["name"] == "thread_name"}
    assert names == {0: "steps", 1: "main"}
    # every kernel of step 2 lies inside step 2's span
    second = steps[1]
    inside = [e for e in kernels if second["ts"] <= e["ts"] <= second["ts"] + second["dur"]]
    assert len(inside) == 12


def test_profiling_off_leaves_the_registered_kernels_in_place(lenet):
    from ms_ops import dispatch
    from ms_tensor import registry

    add = registry.load().primitive("Add")
    x = Tensor(np.ones(4, np.float32))
    with Profiler(output_path="unused", start_profile=False):
        x + x
        fast = dispatch._tables_of(add)[1]
        assert all(k is not registry.load().kernel(add, "CPU") for k in fast.values())
    assert dispatch.kernel_observer() is None
    x + x
    fast = dispatch._tables_of(add)[1]
    assert fast and all(k is registry.load().kernel(add, "CPU") for k in fast.values())


def test_one_profiler_at_a_time_and_stop_is_idempotent(tmp_path):
    first = Profiler(output_path=tmp_path)
    with pytest.raises(RuntimeError, match="another Profiler"):
        Profiler(output_path=tmp_path)
    with pytest.raises(RuntimeError, match="already running"):
        first.start()
    first.stop()
    first.stop()
    second = Profiler(output_path=tmp_path)
    Tensor(np.ones(2)) * 2.0
    assert [s.op for s in second.analyse().stats] == ["Mul"]
    assert first.analyse().stats == []


def test_kernels_of_other_threads_get_their_own_track(tmp_path):
    import threading

    with Profiler(output_path=tmp_path) as profiler:
        worker = threading.Thread(target=lambda: Tensor(np.ones(2)) - Tensor(np.ones(2)))
        worker.start()
        worker.join()
        Tensor(np.ones(2)) + Tensor(np.ones(2))
    trace = profiler.analyse().chrome_trace()["traceEvents"]
    tid = {e["name"]: e["tid"] for e in trace if e.get("cat") == "kernel"}
    assert tid == {"Sub": 2, "Add": 1}


def test_op_analyse_reports_named_operators(tmp_path):
    profiler = Profiler(output_path=tmp_path)
    x = Tensor(np.ones(3, np.float32))
    (x + x) * x
    profiler.stop()
    got = json.loads(profiler.op_analyse(["Add", "Mul"]))
    assert got["Add"]["calls"] == 1 and got["Mul"]["calls"] == 1
    assert set(got["Add"]) == {"calls", "total_us", "mean_us", "share", "wall_share"}
    with pytest.raises(ValueError, match=r"\['Conv2D'\] did not run.*'Add', 'Mul'"):
        profiler.op_analyse("Conv2D")


def test_kernel_errors_pass_through_the_profiler(tmp_path):
    from ms_ops import functional as F

    with Profiler(output_path=tmp_path) as profiler, pytest.raises(IndexError, match="Gather"):
        F.gather(Tensor(np.ones(3, np.float32)), Tensor(np.array([5], np.int32)), 0)
    assert [s.op for s in profiler.analyse().stats] == ["Gather"]
