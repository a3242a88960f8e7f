"""The execution plan's int8 kernels (``ms_lite.runtime.ops_int8``): each against the
numpy references of ``ms_lite.kernels.quantized`` bit for bit, and a quantized CNN's plan
against the executor's registry kernels."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ms_lite.converter.config import QuantConfig
from ms_lite.converter.pipeline import optimize
from ms_lite.ir import Graph, Node, Value
from ms_lite.quant.full import full_quant
from ms_lite.runtime.executor import Executor
from ms_lite.runtime.plan import Plan

_int8 = pytest.importorskip("ms_lite.kernels._int8")
_zp = st.integers(-128, 127)


def _q(rng, shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(1, 2), c=st.integers(1, 3), h=st.integers(3, 8), k=st.integers(1, 3),
       s=st.integers(1, 2), d=st.integers(1, 2), pads=st.tuples(*[st.integers(0, 2)] * 4),
       zp=_zp)
def test_int8_im2col_is_im2row_transposed(n, c, h, k, s, d, pads, zp):
    from ms_lite.kernels.quantized import im2col_reference
    from ms_ops.defs.nn_conv import conv_geometry

    x = _q(np.random.default_rng(h * 7 + k), (n, c, h, h + 1))
    try:
        g = conv_geometry(x.shape, (2, c, k, k), 2, (k, k), 1, "pad", pads, s, d, 1, "NCHW")
    except ValueError:
        return  # the kernel does not fit the padded input
    cols = np.empty((c * k * k, n * g.oh * g.ow), np.int8)
    _int8.im2col(x, cols, g.kh, g.kw, g.sh, g.sw, g.dh, g.dw, g.pt, g.pl, g.oh, g.ow, zp)
    np.testing.assert_array_equal(cols, im2col_reference(x, g, zp).T)


@settings(max_examples=30, deadline=None)
@given(co=st.integers(1, 9), k=st.integers(1, 40), m=st.integers(1, 70), in_zp=_zp,
       out_zp=_zp, relu=st.booleans(), threads=st.sampled_from([1, 2]))
def test_qconv_equals_the_qgemm_reference(co, k, m, in_zp, out_zp, relu, threads):
    from ms_lite.kernels.quantized import qgemm_reference

    rng = np.random.default_rng(co * 1000 + k * 10 + m)
    w, cols = _q(rng, (co, k)), _q(rng, (k, m))
    bias = rng.integers(-5000, 5000, co).astype(np.int32)
    mult = rng.integers(1 << 30, (1 << 31) - 1, co).astype(np.int32)
    shift = rng.integers(-12, 1, co).astype(np.int32)
    lo, hi = (out_zp, 127) if relu else (-128, 127)
    zw = (bias.astype(np.int64) - in_zp * w.astype(np.int64).sum(1)).astype(np.int32)
    out = np.empty((co, m), np.int8)
    _int8.qconv(w, cols, zw, mult, shift, out_zp, lo, hi, out, threads)
    want = qgemm_reference(cols.T, w, bias, mult, shift, in_zp, out_zp, lo, hi)
    np.testing.assert_array_equal(out, want.T)
    with pytest.raises(ValueError, match="qconv"):
        _int8.qconv(w, cols, zw[:0], mult, shift, out_zp, lo, hi, out, threads)



@settings(max_examples=30, deadline=None)
@given(m=st.integers(1, 9), k=st.integers(1, 40), n=st.integers(1, 300), in_zp=_zp,
       out_zp=_zp, threads=st.sampled_from([1, 2]))
def test_qdense_equals_the_qgemm_reference(m, k, n, in_zp, out_zp, threads):
    from ms_lite.kernels.quantized import qgemm_reference

    rng = np.random.default_rng(m * 100000 + k * 1000 + n)
    x, w = _q(rng, (m, k)), _q(rng, (n, k))
    bias = rng.integers(-5000, 5000, n).astype(np.int32)
    mult = rng.integers(1 << 30, (1 << 31) - 1, n).astype(np.int32)
    shift = rng.integers(-12, 1, n).astype(np.int32)
    zw = (bias.astype(np.int64) - in_zp * w.astype(np.int64).sum(1)).astype(np.int32)
    out = np.empty((m, n), np.int8)
    _int8.qdense(x, np.ascontiguousarray(w.T), zw, mult, shift, out_zp, -128, 127, out,
                 threads)
    want = qgemm_reference(x, w, bias, mult, shift, in_zp, out_zp, -128, 127)
    np.testing.assert_array_equal(out, want)
    with pytest.raises(ValueError, match="qdense"):
        _int8.qdense(x, np.ascontiguousarray(w.T), zw[:0], mult, shift, 0, -128, 127, out)

def test_int8_max_pool_equals_numpy():
    x = _q(np.random.default_rng(1), (5, 7, 9))
    out = np.empty((5, 3, 3), np.int8)
    _int8.max_pool(x, out, 3, 2, 2, 3)
    want = np.array([[[x[p, 2 * i:2 * i + 3, 3 * j:3 * j + 2].max() for j in range(3)]
                      for i in range(3)] for p in range(5)], np.int8)
    np.testing.assert_array_equal(out, want)
    with pytest.raises(ValueError, match="max_pool"):
        _int8.max_pool(x, np.empty((5, 4, 3), np.int8), 3, 2, 2, 3)


def _cnn(batch):
    rng = np.random.default_rng(2)
    c = {"w": rng.standard_normal((4, 2, 3, 3)).astype(np.float32) * 0.4,
         "b": rng.standard_normal((1, 4, 1, 1)).astype(np.float32) * 0.1,
         "fw": rng.standard_normal((5, 36)).astype(np.float32) * 0.2,
         "fb": rng.standard_normal(5).astype(np.float32)}
    nodes = [Node("Conv2D", ["x", "w"], ["c"], {"out_channel": 4, "kernel_size": (3, 3),
                                                "pad_mode": "pad", "pad": (1, 0, 1, 0)}, "conv"),
             Node("Add", ["c", "b"], ["cb"], {}, "bias"),
             Node("ReLU", ["cb"], ["r"], {}, "relu"),
             Node("MaxPool", ["r"], ["p"], {"kernel_size": (2, 2), "strides": (2, 2)}, "pool"),
             Node("Reshape", ["p"], ["f"], {"input_shape": (batch, 36)}, "flat"),
             Node("Dense", ["f", "fw", "fb"], ["y"], {}, "fc")]
    return Graph([Value("x", (batch, 2, 7, 7), "float32")], [Value("y", (batch, 5), "float32")],
                 nodes, c, "cnn")


@pytest.mark.parametrize("batch", [1, 3])
def test_a_quantized_cnn_runs_on_the_plans_int8_kernels_bit_for_bit(tmp_path, batch):
    rng = np.random.default_rng(3)
    np.save(tmp_path / "calib.npy", rng.standard_normal((16, 2, 7, 7)).astype(np.float32))
    g, report = optimize(_cnn(batch))
    q = full_quant(g, report, QuantConfig("FULL_QUANT",
                                          calibrate_path={"x": str(tmp_path / "calib.npy")}))
    ops = [n.op for n in q.nodes]
    assert {"QuantConv2D", "QuantMaxPool", "QuantFullConnection", "QuantDTypeCast"} <= set(ops)
    ex = Executor(q)
    plan = Plan(ex, threads=2)
    assert plan.fast_steps == len(ex.steps) - ops.count("Reshape")  # every int8 step
    x = rng.standard_normal((batch, 2, 7, 7)).astype(np.float32)
    np.testing.assert_array_equal(plan.run([x])[0], ex.run([x])[0])
