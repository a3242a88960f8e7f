"""The profiler sees the ms-lite runtime: ``Model.predict`` (the Plan) and the Executor
(calibration's path) hand their operators to ms-ops' kernel observer, so ``ms.Profiler``'s
table and Chrome trace name them, and nothing is observed once the profiler stops."""
import json

import numpy as np
import pytest

pytest.importorskip("ms_lite")

import microspore_lite as mslite  # noqa: E402
from ms_insight.profiler import Profiler  # noqa: E402
from ms_lite.format import save  # noqa: E402
from ms_lite.ir import Graph, Node, Value  # noqa: E402
from ms_lite.runtime.executor import Executor  # noqa: E402
from ms_ops import dispatch  # noqa: E402

# the operators of the graph below that run at predict time (Reshape is a view: no call)
_OPS = {"Conv2D", "Add", "ReLU", "MaxPool", "Dense", "Sigmoid"}


def _graph() -> Graph:
    rng = np.random.default_rng(0)
    conv = {"out_channel": 4, "kernel_size": (3, 3), "pad_mode": "valid"}
    nodes = [Node("Conv2D", ["x", "w"], ["c"], conv, "conv"),
             Node("Add", ["c", "b"], ["cb"], {}, "bias"),
             Node("ReLU", ["cb"], ["m"], {}, "relu"),
             Node("MaxPool", ["m"], ["p"], {"kernel_size": (2, 2), "strides": (2, 2)}, "pool"),
             Node("Reshape", ["p"], ["r"], {"input_shape": (2, -1)}, "flat"),
             Node("Dense", ["r", "fw", "fb"], ["d"], {}, "fc"),
             Node("Sigmoid", ["d"], ["y"], {}, "out")]
    consts = {"w": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
              "b": rng.standard_normal((1, 4, 1, 1)).astype(np.float32),
              "fw": rng.standard_normal((5, 36)).astype(np.float32),
              "fb": rng.standard_normal(5).astype(np.float32)}
    return Graph([Value("x", (2, 3, 8, 8), "float32")], [Value("y", (2, 5), "float32")],
                 nodes, consts, "profiled")


@pytest.fixture
def model(tmp_path):
    save(_graph(), tmp_path / "net.ms")
    m = mslite.Model()
    m.build_from_file(str(tmp_path / "net.ms"), mslite.ModelType.MINDIR_LITE,
                      mslite.Context())
    return m


def _predict(model, x):
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(x)
    return model.predict(inputs)[0].get_data_to_numpy()


def test_lite_predict_in_the_table_and_the_trace(model, tmp_path):
    x = np.random.default_rng(1).standard_normal((2, 3, 8, 8)).astype(np.float32)
    plain = _predict(model, x)
    profiler = Profiler(output_path=str(tmp_path / "prof"))
    for _ in range(3):
        observed = _predict(model, x)
        profiler.step()
    report = profiler.analyse()
    np.testing.assert_array_equal(observed, plain)  # timing changes nothing
    stats = {s.op: s for s in report.stats}
    # the Conv+Pool fusion may end the convolution with the pool: the pool then has no
    # call of its own; every other operator is called once per predict
    assert set(stats) - {"MaxPool"} == _OPS - {"MaxPool"}, sorted(stats)
    assert all(s.calls == 3 for s in stats.values()), [(s.op, s.calls) for s in stats.values()]
    assert report.kernel_us <= report.wall_us
    trace = json.loads((tmp_path / "prof" / "profiler" / "trace.json").read_text())
    kernels = [e for e in trace["traceEvents"] if e.get("cat") == "kernel"]
    assert {e["name"] for e in kernels} == set(stats)
    steps = [e for e in trace["traceEvents"] if e.get("cat") == "step"]
    assert len(steps) == 3
    # each kernel event lies inside one of the marked steps
    for e in kernels:
        assert any(s["ts"] <= e["ts"] and e["ts"] + e["dur"] <= s["ts"] + s["dur"] + 1e-3
                   for s in steps), e
    # stopped: predict is not observed any more
    _predict(model, x)
    assert len(profiler._events) == sum(s.calls for s in report.stats)
    assert dispatch.kernel_observer() is None


def test_lite_executor_run_is_observed(tmp_path):
    ex = Executor(_graph())
    x = np.ones((2, 3, 8, 8), np.float32)
    expected = ex.run([x])[0]
    with Profiler(output_path=str(tmp_path)) as profiler:
        got = ex.run([x])[0]
    np.testing.assert_array_equal(got, expected)
    names = [e[0] for e in profiler._events]
    # the Executor runs every non-constant node itself (Reshape included), in order
    assert names == ["Conv2D", "Add", "ReLU", "MaxPool", "Reshape", "Dense", "Sigmoid"]
