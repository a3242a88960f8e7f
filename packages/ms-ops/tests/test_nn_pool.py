import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import nn_pool as P
from ms_ops.defs import nn_pool_adaptive as PD
from ms_ops.defs import nn_pool_avg as PA
from ms_ops.testing import check_against_reference, check_bprop
from ms_tensor import Tensor, float16, int32, int64

SHAPES = [(2, 3, 7, 6), (1, 2, 5, 5), (2, 1, 8, 9)]
WINDOWS = [  # MaxPool / AvgPool: kernel_size, strides, pad_mode
    (2, 2, "VALID"), (3, 2, "SAME"), (3, 1, "same"), ((2, 3), (1, 2), "VALID"),
    ((3, 2), (2, 3), "SAME"), (1, 1, "VALID"),
]
EXPLICIT = [  # functional windows: kernel, stride, padding, ceil_mode, count_include_pad, divisor
    (3, 2, 1, False, True, None), (3, 2, 1, True, False, None), (2, None, 0, True, True, None),
    ((3, 2), (2, 1), (1, 0), False, True, 5), (2, 3, 1, True, True, None),
]
ADAPTIVE = [(2, 4), 3, (None, 2), (1, 1), (7, 9)]
ARANGE = Tensor(np.arange(30, dtype=np.float32).reshape(1, 1, 5, 6))


def _rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape)


def _attrs(k, s, pm):
    return {"kernel_size": k, "strides": s, "pad_mode": pm, "data_format": "NCHW"}


def _first_max_2x2(x):
    """Flat index in each plane of each 2x2 window's first maximum, NaN skipped (all NaN:
    the window's first element), as the kernels define it."""
    n, c, h, w = x.shape
    idx = np.zeros((n, c, h // 2, w // 2), np.int64)
    for p in np.ndindex(idx.shape):
        m, best = -np.inf, None
        for dh, dw in ((0, 0), (0, 1), (1, 0), (1, 1)):
            k = (2 * p[2] + dh) * w + 2 * p[3] + dw
            best = k if best is None else best
            if x[p[0], p[1]].flat[k] > m:
                m, best = x[p[0], p[1]].flat[k], k
        idx[p] = best
    return idx


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_max_pool_2x2_picks_the_first_maximum_past_nan_ties_and_signed_zeros(dtype):
    x = np.array([[np.nan, 1.0, 2.0, 2.0, -0.0, 0.0],
                  [1.0, 0.5, 1.0, 2.0, 0.0, -0.0],
                  [np.nan, np.nan, -np.inf, -np.inf, 3.0, np.nan],
                  [np.nan, np.nan, -np.inf, -np.inf, np.nan, 3.0],
                  [np.nan, -np.inf, 5.0, 4.0, -1.0, -2.0],
                  [-np.inf, -np.inf, 4.0, 5.0, -2.0, -1.0]], dtype)
    x = np.stack([x, x[::-1, ::-1].copy()])[:, None]  # every window also reversed
    a = _attrs(2, 2, "VALID")
    want = _first_max_2x2(x)
    out, idx = P.max_pool_with_argmax_cpu(x, **a)
    assert np.array_equal(idx, want)
    picked = np.take_along_axis(x.reshape(2, 1, -1), want.reshape(2, 1, -1), -1)
    assert np.array_equal(out.view(np.uint8), picked.reshape(out.shape).view(np.uint8))
    g = np.arange(1.0, 1 + out.size, dtype=dtype).reshape(out.shape)
    dx = np.zeros_like(x).reshape(2, 1, -1)
    np.put_along_axis(dx, want.reshape(2, 1, -1), g.reshape(2, 1, -1), -1)
    assert np.array_equal(P.max_pool_grad_cpu(x, out, g, **a), dx.reshape(x.shape))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k,s,pm", WINDOWS)
def test_fixed_window_kernels_match_reference(shape, k, s, pm):
    x, a = _rand(shape), _attrs(k, s, pm)
    out = P.max_pool_ref(x, **a)
    g, gx = _rand(out.shape, 1), _rand(shape, 2)
    for fast, ref, args in [
        (P.max_pool_cpu, P.max_pool_ref, (x,)),
        (P.max_pool_with_argmax_cpu, P.max_pool_with_argmax_ref, (x,)),
        (P.max_pool_grad_cpu, P.max_pool_grad_ref, (x, out, g)),
        (P.max_pool_grad_grad_cpu, P.max_pool_grad_grad_ref, (x, out, gx)),
        (PA.avg_pool_cpu, PA.avg_pool_ref, (x,)),
        (PA.avg_pool_grad_cpu, PA.avg_pool_grad_ref, (x, out, g)),
    ]:
        check_against_reference(fast, ref, *args, rtol=1e-12, atol=1e-12, **a)
        check_against_reference(fast, ref, *(v.astype(np.float32) for v in args), **a)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("k,s,p,ceil,count_pad,divisor", EXPLICIT)
def test_explicit_window_kernels_match_reference(shape, k, s, p, ceil, count_pad, divisor):
    x = _rand(shape)
    v2 = {"kernel_size": k, "strides": s, "pads": p, "dilation": 1, "ceil_mode": ceil,
          "argmax_type": int64}
    check_against_reference(P.max_pool_v2_cpu, P.max_pool_v2_ref, x, **v2)
    out, idx = P.max_pool_v2_ref(x, **v2)
    check_against_reference(P.argmax_scatter_cpu, P.max_pool_v2_grad_ref, x, _rand(out.shape),
                            idx, **v2)
    win = {"kernel_size": k, "stride": s, "padding": p, "ceil_mode": ceil,
           "count_include_pad": count_pad, "divisor_override": divisor}
    check_against_reference(PA.avg_pool2d_cpu, PA.avg_pool2d_ref, x, **win)
    g = _rand(PA.avg_pool2d_ref(x, **win).shape, 1)
    check_against_reference(PA.avg_pool2d_grad_cpu, PA.avg_pool2d_grad_ref, g, x, **win)


@pytest.mark.parametrize("shape", SHAPES + [(3, 7, 6)])
@pytest.mark.parametrize("size", ADAPTIVE)
def test_adaptive_kernels_match_reference(shape, size):
    x = _rand(shape)
    check_against_reference(PD.adaptive_avg_pool_cpu, PD.adaptive_avg_pool_ref, x, size)
    check_against_reference(PD.adaptive_max_pool_cpu, PD.adaptive_max_pool_ref, x, size)
    out, idx = PD.adaptive_max_pool_ref(x, size)
    g = _rand(out.shape, 1)
    check_against_reference(PD.adaptive_avg_pool_grad_cpu, PD.adaptive_avg_pool_grad_ref, g,
                            shape)
    check_against_reference(PD.adaptive_max_pool_grad_cpu, PD.adaptive_max_pool_grad_ref, g, x,
                            idx)


@pytest.mark.parametrize("k,s,pm", WINDOWS)
def test_gradient_ops_are_adjoints(k, s, pm):
    x, a = _rand((2, 3, 7, 6)), _attrs(k, s, pm)
    out = P.max_pool_ref(x, **a)
    g, gx = _rand(out.shape, 1), _rand(x.shape, 2)
    assert np.isclose(np.sum(PA.avg_pool_ref(x, **a) * g),
                      np.sum(x * PA.avg_pool_grad_ref(x, out, g, **a)))
    assert np.isclose(np.sum(P.max_pool_grad_ref(x, out, g, **a) * gx),
                      np.sum(g * P.max_pool_grad_grad_ref(x, out, gx, **a)))


def test_values_match_mindspore():
    np.testing.assert_array_equal(ops.MaxPool(2, 2, pad_mode="SAME")(ARANGE).asnumpy(),
                                  [[[[7, 9, 11], [19, 21, 23], [25, 27, 29]]]])
    np.testing.assert_allclose(ops.AvgPool(3, 2, pad_mode="SAME")(ARANGE).asnumpy(),
                               [[[[4, 6, 7.5], [13, 15, 16.5], [22, 24, 25.5]]]])
    np.testing.assert_allclose(ops.AvgPool(2, 2)(ARANGE).asnumpy(),
                               [[[[3.5, 5.5, 7.5], [15.5, 17.5, 19.5]]]])
    out, idx = ops.MaxPoolWithArgmax(2, 2, pad_mode="SAME")(ARANGE)
    assert idx.dtype == int32
    np.testing.assert_array_equal(idx.asnumpy(), out.asnumpy())  # arange: value == index
    np.testing.assert_allclose(ops.AdaptiveAvgPool2D((2, 4))(ARANGE).asnumpy(),
                               [[[[6.5, 7.5, 9.5, 10.5], [18.5, 19.5, 21.5, 22.5]]]])
    out, idx = ops.AdaptiveMaxPool2D((2, 4))(ARANGE)
    assert idx.dtype == int64
    np.testing.assert_array_equal(idx.asnumpy(), [[[[13, 14, 16, 17], [25, 26, 28, 29]]]])


def test_functional_pools_match_mindspore():
    np.testing.assert_array_equal(ops.max_pool2d(ARANGE, 3, 2, padding=1).asnumpy(),
                                  [[[[7, 9, 11], [19, 21, 23], [25, 27, 29]]]])
    out, idx = ops.max_pool2d(ARANGE, 2, return_indices=True)
    assert idx.dtype == int64 and out.shape == (1, 1, 2, 3)
    np.testing.assert_array_equal(idx.asnumpy(), [[[[7, 9, 11], [19, 21, 23]]]])
    assert ops.max_pool2d(ARANGE, 2, ceil_mode=True).shape == (1, 1, 3, 3)
    np.testing.assert_allclose(ops.avg_pool2d(ARANGE, 3, 2, padding=1).asnumpy(), [[[
        [1.5555556, 3.3333333, 4.6666665], [8.333333, 14, 16], [9.555555, 15.333333, 16.666666]
    ]]], rtol=1e-6)
    np.testing.assert_allclose(
        ops.avg_pool2d(ARANGE, 3, 2, padding=1, count_include_pad=False).asnumpy(),
        [[[[3.5, 5, 7], [12.5, 14, 16], [21.5, 23, 25]]]])
    np.testing.assert_allclose(ops.avg_pool2d(ARANGE, 2, 2, ceil_mode=True).asnumpy(),
                               [[[[3.5, 5.5, 7.5], [15.5, 17.5, 19.5], [24.5, 26.5, 28.5]]]])
    assert ops.adaptive_avg_pool2d(ARANGE, (None, 2)).shape == (1, 1, 5, 2)
    out, idx = ops.adaptive_max_pool2d(ARANGE, 1, return_indices=True)
    assert out.asnumpy().item() == 29 and idx.asnumpy().item() == 29


POOL_ATTRS = {"kernel_size": 3, "strides": 2, "pad_mode": "SAME"}
EXPLICIT_ARGS = (3, 2, 1, True, True, None)


@pytest.mark.parametrize("op,attrs", [
    (P.MaxPool, POOL_ATTRS), (PA.AvgPool, POOL_ATTRS), (P.MaxPoolWithArgmax, POOL_ATTRS),
    (PA.AvgPool, {"kernel_size": (2, 3), "strides": 1, "pad_mode": "VALID"}),
    (P.MaxPoolWithArgmaxV2, {"kernel_size": 3, "strides": 2, "pads": 1, "ceil_mode": True}),
    (PD.AdaptiveAvgPool2D, {"output_size": (2, 4)}),
    (PD.AdaptiveMaxPool2D, {"output_size": (2, 4)}),
], ids=lambda v: getattr(v, "name", ""))
def test_pool_gradients_match_finite_differences(op, attrs):
    check_bprop(op, _rand((1, 2, 5, 6), 5), attrs=attrs)


def test_avg_pool2d_gradient_matches_finite_differences():
    check_bprop(PA.AvgPool2D, _rand((1, 2, 5, 6), 6), *EXPLICIT_ARGS)


def test_gradient_ops_differentiate_again():
    x = _rand((1, 2, 5, 6), 7)
    out = P.max_pool_ref(x, **_attrs(3, 2, "SAME"))
    check_bprop(P.MaxPoolGrad, x, out, _rand(out.shape), attrs=POOL_ATTRS)
    check_bprop(P.MaxPoolGradGrad, x, out, _rand(x.shape), attrs=POOL_ATTRS)
    check_bprop(PA.AvgPoolGrad, x, out, _rand(out.shape), attrs=POOL_ATTRS)
    g = _rand(PA.avg_pool2d_ref(x, **dict(zip(
        ("kernel_size", "stride", "padding", "ceil_mode", "count_include_pad",
         "divisor_override"), EXPLICIT_ARGS))).shape)
    check_bprop(PA.AvgPool2DGrad, g, x, *EXPLICIT_ARGS)
    check_bprop(PD.AdaptiveAvgPool2DGrad, _rand((1, 2, 2, 4)), x.shape)
    out, idx = PD.adaptive_max_pool_ref(x, (2, 4))
    check_bprop(PD.AdaptiveMaxPool2DGrad, _rand(out.shape), x, idx)
    v2 = {"kernel_size": 3, "strides": 2, "pads": 1, "ceil_mode": True, "argmax_type": int32}
    out, idx = P.max_pool_v2_ref(x, dilation=1, **v2)
    check_bprop(P.MaxPoolGradWithArgmaxV2, x, _rand(out.shape), idx, attrs=v2)


def test_half_precision_keeps_its_dtype():
    x = Tensor(_rand((1, 2, 6, 6)).astype(np.float16))
    assert ops.MaxPool(2, 2)(x).dtype == float16
    assert ops.AdaptiveAvgPool2D(3)(x).dtype == float16


@pytest.mark.parametrize("call,err,match", [
    (lambda x: ops.MaxPool(7, 1)(x), ValueError,
     r"MaxPool: kernel_size \(7, 7\) is larger than the input \(5, 6\) of x shape "
     r"\(1, 1, 5, 6\)"),
    (lambda x: ops.AvgPool(2, 2, pad_mode="pad")(x), ValueError,
     r"AvgPool: pad_mode must be 'VALID' or 'SAME', got 'pad'"),
    (lambda x: ops.MaxPool(2, 2, data_format="NHWC")(x), ValueError,
     r"MaxPool: data_format 'NHWC' is not supported on CPU"),
    (lambda x: ops.MaxPool((1, 1, 2, 2), 1)(x), ValueError,
     r"MaxPool: kernel_size must be a positive int or a tuple of 2 positive ints"),
    (lambda x: ops.MaxPool(2, 2)(Tensor(np.ones((5, 6), np.float32))), ValueError,
     r"MaxPool: input 'x' must be 4-d, got shape \(5, 6\)"),
    (lambda x: ops.max_pool2d(x, 2, padding=2), ValueError,
     r"MaxPoolWithArgmaxV2: padding must be .* at most half the kernel \(2, 2\), got 2"),
    (lambda x: ops.max_pool2d(x, 2, dilation=2), ValueError,
     r"MaxPoolWithArgmaxV2: dilation 2 is not supported on CPU"),
    (lambda x: ops.AdaptiveAvgPool2D((0, 2))(x), ValueError,
     r"AdaptiveAvgPool2D: output_size must hold positive ints or None, got \(0, 2\)"),
    (lambda x: ops.MaxPoolGrad(2, 2)(x, x, x), ValueError,
     r"MaxPoolGrad: out_origin shape \(1, 1, 5, 6\) should be \(1, 1, 2, 3\) for an input "
     r"of shape \(1, 1, 5, 6\)"),
    (lambda x: ops.MaxPool(2, 2)(Tensor(np.ones((1, 1, 4, 4), np.int32))), TypeError,
     r"MaxPool: input 'x' has dtype Int32"),
])
def test_errors_name_the_op_and_shapes(call, err, match):
    with pytest.raises(err, match=match):
        call(ARANGE)


def test_scatter_rejects_indices_outside_the_plane():
    grad, idx = Tensor(np.ones((1, 1, 1, 1))), Tensor(np.array([[[[30]]]], np.int64))
    with pytest.raises(ValueError, match=r"AdaptiveMaxPool2DGrad: argmax holds indices "
                                         r"outside \[0, 30\) for input shape \(1, 1, 5, 6\)"):
        ops.AdaptiveMaxPool2DGrad()(grad, ARANGE, idx)


@pytest.mark.parametrize("attrs", [
    {"kernel_size": 2, "strides": 2},
    {"kernel_size": 3, "strides": 1, "pad_mode": "SAME"},
    {"kernel_size": (3, 2), "strides": (2, 1), "pad_mode": "VALID"},
])
def test_max_pool_with_argmax_gradient_scatters_as_the_window_scan_does(attrs):
    from ms_ops.defs.nn_pool import MaxPoolGrad, MaxPoolGradWithArgmax, MaxPoolWithArgmax

    rng = np.random.default_rng(4)
    x = Tensor(rng.standard_normal((2, 3, 7, 6)).astype(np.float32))
    out, argmax = MaxPoolWithArgmax(x, **attrs)
    grad = Tensor(rng.standard_normal(out.shape).astype(np.float32))
    scattered = MaxPoolGradWithArgmax(x, grad, argmax, **attrs).asnumpy()
    scanned = MaxPoolGrad(x, out, grad, **attrs).asnumpy()
    np.testing.assert_allclose(scattered, scanned, rtol=1e-6, atol=1e-6)


def test_max_pool_grad_with_argmax_checks_the_gradient_shape():
    from ms_ops.defs.nn_pool import MaxPoolGradWithArgmax

    x = Tensor(np.ones((1, 1, 4, 4), np.float32))
    with pytest.raises(ValueError, match=r"MaxPoolGradWithArgmax: grad shape \(1, 1, 3, 3\)"):
        MaxPoolGradWithArgmax(x, Tensor(np.ones((1, 1, 3, 3), np.float32)),
                              Tensor(np.zeros((1, 1, 3, 3), np.int32)), kernel_size=2, strides=2)
