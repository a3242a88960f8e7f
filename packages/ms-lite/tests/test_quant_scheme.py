import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ms_lite.kernels import quantized
from ms_lite.quant import scheme

I32 = st.integers(-(2 ** 31), 2 ** 31 - 1)


def _srdhm_tflite(a: int, b: int) -> int:
    """TFLite's gemmlowp SaturatingRoundingDoublingHighMul, in Python integers."""
    if a == b == -(2 ** 31):
        return 2 ** 31 - 1
    ab = a * b
    nudge = (1 << 30) if ab >= 0 else 1 - (1 << 30)
    t = ab + nudge
    return int(t / (1 << 31)) if abs(t) < 2 ** 52 else (abs(t) // (1 << 31)) * (1 if t >= 0 else -1)


def _rdbpot_tflite(x: int, e: int) -> int:
    mask = (1 << e) - 1
    remainder = x & mask
    threshold = (mask >> 1) + (1 if x < 0 else 0)
    return (x >> e) + (1 if remainder > threshold else 0)


@given(I32, I32)
def test_srdhm_matches_gemmlowp(a, b):
    assert int(scheme.srdhm(a, b)) == _srdhm_tflite(a, b)


@given(I32, st.integers(0, 31))
def test_rounding_divide_by_pot_matches_gemmlowp(x, e):
    assert int(scheme.rounding_divide_by_pot(x, e)) == _rdbpot_tflite(x, e)


def test_rounding_divide_by_pot_rounds_half_away_from_zero():
    assert scheme.rounding_divide_by_pot(np.array([5, -5, 6, -6, 7]), 1).tolist() == \
        [3, -3, 3, -3, 4]


@given(st.floats(1e-6, 100.0))
def test_quantize_multiplier_represents_the_real_value(real):
    m, s = scheme.quantize_multiplier(real)
    assert 2 ** 30 <= m < 2 ** 31
    assert abs(m * 2.0 ** (s - 31) - real) <= real * 2 ** -30


@given(st.floats(1e-4, 4.0), st.lists(st.integers(-(2 ** 20), 2 ** 20), min_size=1,
                                      max_size=20))
def test_requantization_is_within_one_step_of_real_rounding(real, accs):
    m, s = scheme.quantize_multiplier(real)
    got = scheme.multiply_by_quantized_multiplier(np.array(accs, np.int32), m, s)
    want = np.array(accs) * real
    assert np.all(np.abs(got - want) <= 1)


def test_activation_params_hold_zero_exactly():
    scale, zp = scheme.activation_params(0.5, 3.0)  # widened to [0, 3]
    assert scheme.quantize(0.0, scale, zp) == zp == -128
    scale, zp = scheme.activation_params(-1.0, 1.0)
    assert abs(scheme.dequantize(scheme.quantize(0.0, scale, zp), scale, zp)) == 0


def test_weights_are_symmetric_per_channel():
    w = np.array([[0.5, -1.0], [0.02, 0.01]])
    s = scheme.weight_params(w, 0)
    q = scheme.quantize(w, s, [0, 0], 0, -127, 127)
    assert q.tolist() == [[64, -127], [127, 64]]


@pytest.mark.skipif(quantized._int8 is None, reason="the Cython extension is not built")
@settings(max_examples=60, deadline=None)
@given(st.integers(1, 40), st.integers(1, 70), st.integers(1, 12), st.integers(-128, 127),
       st.integers(-128, 127), st.integers(0, 2 ** 32 - 1), st.sampled_from([0, 1, 3]))
def test_cython_qgemm_is_bit_exact_with_the_reference(m, k, n, in_zp, out_zp, seed, threads):
    rng = np.random.default_rng(seed)
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    w = rng.integers(-127, 128, (n, k), dtype=np.int8)
    bias = rng.integers(-(2 ** 16), 2 ** 16, n).astype(np.int32)
    reals = rng.uniform(1e-4, 2.0, n)
    mult = np.array([scheme.quantize_multiplier(r)[0] for r in reals], np.int32)
    shift = np.array([scheme.quantize_multiplier(r)[1] for r in reals], np.int32)
    lo = int(rng.integers(-128, 0))
    want = quantized.qgemm_reference(a, w, bias, mult, shift, in_zp, out_zp, lo, 127)
    got = quantized.qgemm(a, w, bias, mult, shift, in_zp, out_zp, lo, 127, threads)
    np.testing.assert_array_equal(got, want)


def test_quant_conv_matches_float_conv_within_one_step():
    from ms_lite.ir import Graph, Node, Value
    from ms_lite.runtime.executor import Executor

    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, (2, 3, 9, 9))
    w = rng.uniform(-0.5, 0.5, (4, 3, 3, 3))
    attrs = {"out_channel": 4, "kernel_size": (3, 3), "pad_mode": "pad", "pad": (1, 1, 1, 1),
             "stride": (2, 2)}
    ref = Executor(Graph([Value("x", x.shape, "float32")], [Value("y", (2, 4, 5, 5),
                                                                 "float32")],
                         [Node("Conv2D", ["x", "w"], ["y"], attrs, "c")],
                         {"w": w.astype(np.float32)})).run([x.astype(np.float32)])[0]
    s_in, zp_in = scheme.activation_params(-1, 1)
    s_out, zp_out = scheme.activation_params(ref.min(), ref.max())
    ws = scheme.weight_params(w)
    mults = [scheme.quantize_multiplier(s_in * s / s_out) for s in ws]
    out = quantized.QUANT_CONV2D.kernel(
        scheme.quantize(x, s_in, zp_in), scheme.quantize(w, ws, [0] * 4, 0, -127, 127),
        np.zeros(4, np.int32), np.array([m for m, _ in mults], np.int32),
        np.array([s for _, s in mults], np.int32), input_zero_point=zp_in,
        output_zero_point=zp_out, act_min=-128, act_max=127, **attrs)
    got = scheme.dequantize(out, s_out, zp_out)
    assert np.abs(got - ref).max() < 4 * s_out + 0.05


@pytest.mark.skipif(quantized._int8 is None, reason="the Cython extension is not built")
@pytest.mark.parametrize("threads", [0, 2])
def test_cython_qgemm_threaded_path_is_bit_exact(threads):
    rng = np.random.default_rng(7)
    m, k, n = 2048, 64, 16  # above the size where the rows are split across threads
    a = rng.integers(-128, 128, (m, k), dtype=np.int8)
    w = rng.integers(-127, 128, (n, k), dtype=np.int8)
    bias = rng.integers(-5000, 5000, n).astype(np.int32)
    ms_ = [scheme.quantize_multiplier(r) for r in rng.uniform(1e-4, 0.01, n)]
    mult = np.array([x for x, _ in ms_], np.int32)
    shift = np.array([s for _, s in ms_], np.int32)
    want = quantized.qgemm_reference(a, w, bias, mult, shift, 3, -5, -128, 127)
    got = quantized.qgemm(a, w, bias, mult, shift, 3, -5, -128, 127, threads)
    np.testing.assert_array_equal(got, want)
