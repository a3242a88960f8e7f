"""int8 Add, Mul, Concat and AvgPool: the Cython kernels bit for bit against the numpy
references, the references against float arithmetic, and a residual CNN that FULL_QUANT
turns int8 from its first convolution to its Softmax."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ms_lite.converter.config import QuantConfig
from ms_lite.converter.pipeline import optimize
from ms_lite.converter.report import Report
from ms_lite.ir import Graph, Node, Value
from ms_lite.kernels import quantized_more as qm
from ms_lite.quant import scheme
from ms_lite.quant.full import full_quant
from ms_lite.runtime.executor import Executor
from ms_lite.runtime.plan import Plan

_int8 = pytest.importorskip("ms_lite.kernels._int8")

_scale = st.floats(1e-3, 0.5)
_zp = st.integers(-128, 127)


def _q(rng, shape):
    return rng.integers(-128, 128, shape).astype(np.int8)


@settings(max_examples=25, deadline=None)
@given(s1=_scale, s2=_scale, so=_scale, z1=_zp, z2=_zp, zo=_zp, seed=st.integers(0, 99),
       relu=st.booleans())
def test_add_and_mul_kernels_equal_the_references(s1, s2, so, z1, z2, zo, seed, relu):
    rng = np.random.default_rng(seed)
    a, b = _q(rng, (3, 4, 5)), _q(rng, (4, 1))  # broadcast
    lo, hi = (zo, 127) if relu else (-128, 127)
    p = qm.add_params(s1, s2, so)
    want = qm.add_reference(a, b, z1, z2, zo, *p.values(), lo, hi)
    got = qm.QUANT_ADD.kernel(a, b, input1_zero_point=z1, input2_zero_point=z2,
                              output_zero_point=zo, act_min=lo, act_max=hi, **p)
    np.testing.assert_array_equal(got, want)
    # the integer result is the float sum requantized, within one step
    real = (a.astype(np.float64) - z1) * s1 + (b.astype(np.float64) - z2) * s2
    ideal = np.clip(np.rint(real / so) + zo, lo, hi)
    assert np.abs(want.astype(np.int64) - ideal).max() <= 1
    m, sh = scheme.quantize_multiplier(s1 * s2 / so)
    want = qm.mul_reference(a, b, z1, z2, zo, m, sh, lo, hi)
    got = qm.QUANT_MUL.kernel(a, b, input1_zero_point=z1, input2_zero_point=z2,
                              output_zero_point=zo, multiplier=m, shift=sh, act_min=lo,
                              act_max=hi)
    np.testing.assert_array_equal(got, want)
    real = (a.astype(np.float64) - z1) * s1 * ((b.astype(np.float64) - z2) * s2)
    assert np.abs(want.astype(np.int64) - np.clip(np.rint(real / so) + zo, lo, hi)).max() <= 1


@settings(max_examples=25, deadline=None)
@given(s1=_scale, s2=_scale, so=_scale, z1=_zp, z2=_zp, zo=_zp, seed=st.integers(0, 99))
def test_concat_rescales_each_input_to_the_output(s1, s2, so, z1, z2, zo, seed):
    rng = np.random.default_rng(seed)
    a, b = _q(rng, (2, 3, 4)), _q(rng, (2, 5, 4))
    (m1, h1), (m2, h2) = (scheme.quantize_multiplier(s / so) for s in (s1, s2))
    got = qm.QUANT_CONCAT.kernel(a, b, input1_zero_point=z1, input2_zero_point=z2,
                                 output_zero_point=zo, multiplier1=m1, shift1=h1,
                                 multiplier2=m2, shift2=h2, axis=1)
    want = np.concatenate([qm.rescale_reference(a, z1, m1, h1, zo),
                           qm.rescale_reference(b, z2, m2, h2, zo)], 1)
    np.testing.assert_array_equal(got, want)
    real = np.concatenate([(a - np.float64(z1)) * s1, (b - np.float64(z2)) * s2], 1)
    assert np.abs(got - np.clip(np.rint(real / so) + zo, -128, 127)).max() <= 1
    m, h = scheme.quantize_multiplier(1.0)
    same = qm.QUANT_CONCAT.kernel(a, b, input1_zero_point=zo, input2_zero_point=zo,
                                  output_zero_point=zo, multiplier1=m, shift1=h,
                                  multiplier2=m, shift2=h, axis=-2)
    np.testing.assert_array_equal(same, np.concatenate([a, b], -2))


@pytest.mark.parametrize("window", [(2, 2, 2, 2), (3, 3, 1, 1), (3, 2, 2, 1)])
def test_avg_pool_kernel_equals_the_reference_and_rounds_half_away(window):
    kh, kw, sh, sw = window
    x = _q(np.random.default_rng(1), (2, 3, 7, 6))
    attrs = {"kernel_size": (kh, kw), "strides": (sh, sw), "pad_mode": "VALID"}
    got = qm.QUANT_AVG_POOL.kernel(x, act_min=-128, act_max=127, **attrs)
    np.testing.assert_array_equal(got, qm.avg_pool_reference(x, kh, kw, sh, sw))
    n = kh * kw
    win = np.lib.stride_tricks.sliding_window_view(x.astype(np.float64), (kh, kw), (2, 3))
    mean = win[:, :, ::sh, ::sw].sum((-1, -2)) / n
    np.testing.assert_array_equal(got, np.sign(mean) * np.floor(np.abs(mean) + 0.5))
    with pytest.raises(ValueError, match="only 'VALID'"):
        qm.QUANT_AVG_POOL.kernel(x, kernel_size=(2, 2), strides=(2, 2), pad_mode="SAME")


def _residual_cnn():
    rng = np.random.default_rng(2)
    conv = {"kernel_size": (3, 3), "pad_mode": "pad", "pad": (1, 1, 1, 1)}
    c = {"w1": rng.standard_normal((4, 2, 3, 3)).astype(np.float32) * 0.4,
         "w2": rng.standard_normal((4, 4, 3, 3)).astype(np.float32) * 0.3,
         "w3": rng.standard_normal((4, 4, 3, 3)).astype(np.float32) * 0.3,
         "fw": rng.standard_normal((5, 128)).astype(np.float32) * 0.2,
         "fb": rng.standard_normal(5).astype(np.float32)}
    nodes = [Node("Conv2D", ["x", "w1"], ["c1"], {"out_channel": 4, **conv}, "conv1"),
             Node("ReLU", ["c1"], ["r1"], {}, "relu1"),
             Node("Conv2D", ["r1", "w2"], ["c2"], {"out_channel": 4, **conv}, "conv2"),
             Node("Add", ["c2", "r1"], ["s"], {}, "residual"),
             Node("ReLU", ["s"], ["r2"], {}, "relu2"),
             Node("Conv2D", ["r2", "w3"], ["c3"], {"out_channel": 4, **conv}, "conv3"),
             Node("Mul", ["c3", "r2"], ["g"], {}, "gate"),
             Node("Concat", ["g", "r2"], ["cat"], {"axis": 1}, "cat"),
             Node("AvgPool", ["cat"], ["p"], {"kernel_size": (2, 2), "strides": (2, 2)},
                  "pool"),
             Node("Reshape", ["p"], ["f"], {"input_shape": (2, 128)}, "flat"),
             Node("Dense", ["f", "fw", "fb"], ["d"], {}, "fc"),
             Node("Softmax", ["d"], ["y"], {"axis": -1}, "softmax")]
    return Graph([Value("x", (2, 2, 8, 8), "float32")], [Value("y", (2, 5), "float32")],
                 nodes, c, "residual")


def test_a_residual_cnn_quantizes_fully_and_runs_like_the_reference(tmp_path, monkeypatch):
    rng = np.random.default_rng(3)
    np.save(tmp_path / "calib.npy", rng.standard_normal((16, 2, 8, 8)).astype(np.float32))
    g, report = optimize(_residual_cnn())
    q = full_quant(g, report, QuantConfig("FULL_QUANT",
                                          calibrate_path={"x": str(tmp_path / "calib.npy")}))
    ops = [n.op for n in q.nodes]
    assert {"QuantAdd", "QuantMul", "QuantConcat", "QuantAvgPool"} <= set(ops)
    # float only at the ends: the input's quantize, the logits' dequantize, the Softmax
    assert [o for o in ops if not o.startswith("Quant") and o != "Reshape"] == ["Softmax"]
    assert ops.count("QuantDTypeCast") == 2
    x = rng.standard_normal((2, 2, 8, 8)).astype(np.float32)
    got = Plan(Executor(q), threads=2).run([x])[0]
    monkeypatch.setattr(qm, "_int8", None)  # the numpy references, bit for bit
    np.testing.assert_array_equal(got, Executor(q).run([x])[0])
    fp32 = Executor(optimize(_residual_cnn())[0]).run([x])[0]
    assert np.abs(got - fp32).max() < 0.1  # probabilities; the class is the same
    np.testing.assert_array_equal(got.argmax(1), fp32.argmax(1))
    assert isinstance(report, Report)
    assert "QuantAdd 'residual'" in report.text()


@settings(max_examples=25, deadline=None)
@given(c=st.integers(1, 3), h=st.integers(3, 8), k=st.integers(1, 3), s=st.integers(1, 2),
       d=st.integers(1, 2), pads=st.tuples(*[st.integers(0, 2)] * 4), zp=_zp)
def test_int8_im2row_equals_the_numpy_columns(c, h, k, s, d, pads, zp):
    from ms_lite.kernels.quantized import im2col, im2col_reference
    from ms_ops.defs.nn_conv import conv_geometry

    x = _q(np.random.default_rng(4), (2, c, h, h + 1))
    try:
        g = conv_geometry(x.shape, (2, c, k, k), 2, (k, k), 1, "pad", pads, s, d, 1, "NCHW")
    except ValueError:
        return  # the kernel does not fit the padded input
    np.testing.assert_array_equal(im2col(x, g, zp), im2col_reference(x, g, zp))


@settings(max_examples=25, deadline=None)
@given(scale=st.floats(1e-4, 2.0), zp=_zp, seed=st.integers(0, 99))
def test_per_tensor_casts_equal_the_scheme(scale, zp, seed):
    from ms_lite.kernels.quantized import QUANT_DTYPE_CAST

    rng = np.random.default_rng(seed)
    x = (rng.standard_normal((3, 50)) * 100 * scale).astype(np.float32)
    x[0, :20] = ((np.arange(20) - 10 + 0.5) * scale).astype(np.float32)  # near ties
    q = QUANT_DTYPE_CAST.kernel(x, "int8", np.array([scale]), np.array([zp]))
    np.testing.assert_array_equal(q, scheme.quantize(x, scale, zp))
    back = QUANT_DTYPE_CAST.kernel(q, "float32", np.array([scale]), np.array([zp]))
    np.testing.assert_array_equal(back.view(np.uint32),
                                  scheme.dequantize(q, scale, zp).view(np.uint32))
