"""ms-lite's runtime installed with ms-tensor and ms-ops only (and a third-party operator
plugin): a converted model runs, and ms-autodiff, ms-graph, ms-nn cannot even be found."""

import numpy as np
import pytest

from integration_tests.lite._alone import closure, run_alone
from ms_lite.converter.config import QuantConfig
from ms_lite.converter.pipeline import optimize
from ms_lite.format import save
from ms_lite.ir import Graph, Node, Value
from ms_lite.quant.full import full_quant
from ms_lite.runtime.executor import Executor
from ms_lite.runtime.plan import Plan

pytestmark = pytest.mark.slow

_CODE = """
import importlib.util, sys
import numpy as np
import microspore_lite as mslite
for name in ("ms_autodiff", "ms_graph", "ms_nn", "ms_data", "microspore"):
    assert importlib.util.find_spec(name) is None, name
ctx = mslite.Context()
ctx.target = ["cpu"]
ctx.cpu.thread_num = 2
data = np.load("io.npz")
for path in ("fp32.ms", "int8.ms"):
    model = mslite.Model()
    model.build_from_file(path, mslite.ModelType.MINDIR_LITE, ctx)
    inputs = model.get_inputs()
    inputs[0].set_data_from_numpy(data["x"])
    out = model.predict(inputs)[0].get_data_to_numpy()
    want = data[path.split(".")[0]]
    assert np.array_equal(out, want), (path, np.abs(out - want).max())
loaded = sorted(m.split(".")[0] for m in sys.modules if m.startswith("ms"))
assert not {"ms_autodiff", "ms_graph", "ms_nn"} & set(loaded), loaded
print("ok", sorted(set(loaded)))
"""


def _model():
    rng = np.random.default_rng(0)
    conv = {"out_channel": 4, "kernel_size": (3, 3), "pad_mode": "valid"}
    nodes = [Node("Conv2D", ["x", "w"], ["c"], conv, "conv"),
             Node("Add", ["c", "b"], ["cb"], {}, "bias"),
             Node("Mish", ["cb"], ["m"], {}, "mish"),  # the example plugin's operator
             Node("MaxPool", ["m"], ["p"], {"kernel_size": (2, 2), "strides": (2, 2)}, "pool"),
             Node("Reshape", ["p"], ["r"], {"input_shape": (2, -1)}, "flat"),
             Node("Dense", ["r", "fw", "fb"], ["d"], {}, "fc"),
             Node("ReLU", ["d"], ["y"], {}, "relu")]
    consts = {"w": rng.standard_normal((4, 3, 3, 3)).astype(np.float32),
              "b": rng.standard_normal((1, 4, 1, 1)).astype(np.float32),
              "fw": rng.standard_normal((5, 36)).astype(np.float32),
              "fb": rng.standard_normal(5).astype(np.float32)}
    return Graph([Value("x", (2, 3, 8, 8), "float32")], [Value("y", (2, 5), "float32")],
                 nodes, consts, "alone")


def test_runtime_runs_with_ms_tensor_and_ms_ops_only(tmp_path):
    pytest.importorskip("ms_plugin_example")
    assert {d.lower() for d in closure(["ms-lite"])} & {"ms-graph", "ms-nn", "ms-autodiff"} \
        == set()
    rng = np.random.default_rng(1)
    x = rng.standard_normal((2, 3, 8, 8)).astype(np.float32)
    g, report = optimize(_model())
    save(g, tmp_path / "fp32.ms")
    np.save(tmp_path / "calib.npy", rng.standard_normal((8, 3, 8, 8)).astype(np.float32))
    cfg = QuantConfig("FULL_QUANT", calibrate_path={"x": str(tmp_path / "calib.npy")})
    q = full_quant(optimize(_model())[0], report, cfg)
    save(q, tmp_path / "int8.ms")
    assert {"QuantConv2D", "QuantFullConnection", "Mish"} <= {n.op for n in q.nodes}
    # the same plan in this process (the executor's reference path agrees to rounding)
    fp32, int8 = (Plan(Executor(m), 2).run([x])[0] for m in (g, q))
    np.testing.assert_allclose(fp32, Executor(g).run([x])[0], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(int8, Executor(q).run([x])[0])
    np.savez(tmp_path / "io.npz", x=x, fp32=fp32, int8=int8)
    out = run_alone(tmp_path, ["ms-lite", "ms-plugin-example"], _CODE)
    assert out.startswith("ok") and "ms_plugin_example" in out
