import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import nn_conv as C
from ms_ops.testing import check_against_reference, check_bprop
from ms_tensor import Tensor, float16, float32

# (x shape, weight shape, Conv2D attributes other than out_channel/kernel_size)
CASES = [
    ((2, 4, 7, 6), (6, 4, 3, 3), {}),
    ((2, 4, 7, 6), (6, 4, 3, 3), {"pad_mode": "same", "stride": 2}),
    ((1, 4, 8, 9), (4, 2, 3, 2), {"pad_mode": "same", "dilation": 2, "group": 2}),
    ((2, 3, 6, 7), (6, 1, 3, 3), {"pad_mode": "pad", "pad": 1, "group": 3}),
    ((2, 2, 7, 8), (3, 2, 3, 3), {"pad_mode": "pad", "pad": (1, 0, 2, 1), "stride": (2, 1),
                                  "dilation": (1, 2)}),
    ((1, 2, 9, 9), (2, 2, 2, 3), {"stride": (1, 1, 3, 2), "dilation": (1, 1, 2, 1)}),
    ((3, 4, 5, 5), (8, 4, 1, 1), {}),
    ((2, 4, 5, 5), (4, 2, 1, 1), {"group": 2}),
    ((1, 1, 4, 4), (1, 1, 4, 4), {"pad_mode": "PAD", "pad": 2, "stride": 3}),
]
IDS = [f"case{i}" for i in range(len(CASES))]


def _attrs(w_shape, extra):
    return {"out_channel": w_shape[0], "kernel_size": w_shape[2:], "mode": 1,
            "pad_mode": "valid", "pad": 0, "stride": 1, "dilation": 1, "group": 1,
            "data_format": "NCHW", **extra}


def _data(x_shape, w_shape, extra, dtype=np.float64, seed=0):
    rng = np.random.default_rng(seed)
    attrs = _attrs(w_shape, extra)
    x, w = rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)
    dout = rng.standard_normal(C.conv2d_ref(x, w, **attrs).shape).astype(dtype)
    return x, w, dout, attrs


@pytest.mark.parametrize("x_shape,w_shape,extra", CASES, ids=IDS)
@pytest.mark.parametrize("dtype,tol", [(np.float64, 1e-10), (np.float32, 1e-4)])
def test_cython_kernels_match_numpy_reference(x_shape, w_shape, extra, dtype, tol):
    x, w, dout, attrs = _data(x_shape, w_shape, extra, dtype)
    grad_attrs = dict(attrs, pad_list=None)
    check_against_reference(C.conv2d_cpu, C.conv2d_ref, x, w, rtol=tol, atol=tol, **attrs)
    check_against_reference(C.conv2d_backprop_input_cpu, C.conv2d_backprop_input_ref, dout, w,
                            x_shape, rtol=tol, atol=tol, **grad_attrs)
    check_against_reference(C.conv2d_backprop_filter_cpu, C.conv2d_backprop_filter_ref, dout,
                            x, w_shape, rtol=tol, atol=tol, **grad_attrs)


# float32, stride 1, one group: the direct kernels. Widths around the 16-float vector and the
# 32-pixel block, output channels around the 8-channel block, kernel widths 1..5 (the filter
# gradient takes 3 columns at a time), pads larger than the kernel.
DIRECT_CASES = [
    ((3, 16, 32, 32), (32, 16, 3, 3), {"pad_mode": "pad", "pad": 1}),
    ((2, 3, 9, 7), (5, 3, 3, 3), {"pad_mode": "same"}),
    ((2, 2, 6, 40), (9, 2, 2, 5), {"pad_mode": "pad", "pad": (0, 1, 4, 0)}),
    ((1, 4, 5, 17), (8, 4, 4, 4), {"pad_mode": "pad", "pad": (5, 1, 0, 6)}),
    ((2, 3, 8, 50), (17, 3, 1, 2), {}),
    ((1, 2, 4, 3), (3, 2, 3, 1), {"pad_mode": "pad", "pad": 2}),
]


@pytest.mark.parametrize("x_shape,w_shape,extra", DIRECT_CASES,
                         ids=[f"direct{i}" for i in range(len(DIRECT_CASES))])
def test_direct_float32_kernels_match_numpy_reference(x_shape, w_shape, extra):
    x, w, dout, attrs = _data(x_shape, w_shape, extra, np.float32)
    grad_attrs = dict(attrs, pad_list=None)
    assert C._is_direct(C.conv_geometry(x_shape, w_shape, **attrs), np.float32)
    check_against_reference(C.conv2d_cpu, C.conv2d_ref, x, w, rtol=1e-4, atol=1e-4, **attrs)
    check_against_reference(C.conv2d_backprop_input_cpu, C.conv2d_backprop_input_ref, dout, w,
                            x_shape, rtol=1e-4, atol=1e-4, **grad_attrs)
    check_against_reference(C.conv2d_backprop_filter_cpu, C.conv2d_backprop_filter_ref, dout,
                            x, w_shape, rtol=1e-4, atol=1e-4, **grad_attrs)


@pytest.mark.parametrize("x_shape,w_shape,extra", [CASES[0], CASES[2], CASES[3]],
                         ids=["plain", "groups", "pad"])
def test_cython_kernels_split_batches_into_chunks(monkeypatch, x_shape, w_shape, extra):
    # a column buffer of one image per chunk, and a last chunk smaller than the others
    x, w, dout, attrs = _data((5,) + x_shape[1:], w_shape, extra)
    per_image = x.shape[1] * w_shape[2] * w_shape[3] * x.shape[2] * x.shape[3] * 8
    for n_img in (1, 2):
        monkeypatch.setattr(C, "_COL_BYTES", n_img * per_image)
        grad_attrs = dict(attrs, pad_list=None)
        check_against_reference(C.conv2d_cpu, C.conv2d_ref, x, w, **attrs)
        check_against_reference(C.conv2d_backprop_input_cpu, C.conv2d_backprop_input_ref,
                                dout, w, x.shape, **grad_attrs)
        check_against_reference(C.conv2d_backprop_filter_cpu, C.conv2d_backprop_filter_ref,
                                dout, x, w_shape, **grad_attrs)

def test_conv2d_matches_mindspore_same_and_pad_modes():
    x = Tensor(np.arange(30, dtype=np.float32).reshape(1, 1, 5, 6) / 10)
    w = Tensor((np.arange(18, dtype=np.float32).reshape(2, 1, 3, 3) - 8) / 10)
    same = ops.Conv2D(2, 3, pad_mode="same", stride=2)(x, w)
    np.testing.assert_allclose(same.asnumpy(), [[
        [[-0.29, -0.59, -0.71], [-3.54, -4.26, -3.72], [-6.95, -7.61, -5.93]],
        [[1.87, 2.65, 1.99], [6.99, 7.89, 5.19], [4.93, 5.35, 3.25]]]], atol=1e-5)
    pad = ops.Conv2D(2, 3, pad_mode="pad", pad=(1, 0, 2, 1), stride=(2, 1), dilation=(1, 2))
    np.testing.assert_allclose(pad(x, w).asnumpy(), [[
        [[-0.12, -0.2, -0.4, -0.55, -0.52], [-1.98, -2.19, -3.84, -4.2, -3.3]],
        [[1.32, 1.6, 2.3, 2.69, 1.64], [5.04, 5.37, 7.5, 7.95, 4.8]]]], atol=1e-5)


@pytest.mark.parametrize("x_shape,w_shape,extra", CASES, ids=IDS)
def test_gradient_ops_are_the_adjoints_of_conv2d(x_shape, w_shape, extra):
    x, w, dout, attrs = _data(x_shape, w_shape, extra)
    del attrs["out_channel"], attrs["kernel_size"]
    prim = {"out_channel": w_shape[0], "kernel_size": w_shape[2:], **attrs}
    out = ops.Conv2D(**prim)(Tensor(x), Tensor(w)).asnumpy()
    dx = ops.Conv2DBackpropInput(**prim)(Tensor(dout), Tensor(w), x_shape).asnumpy()
    dw = ops.Conv2DBackpropFilter(**prim)(Tensor(dout), Tensor(x), w_shape).asnumpy()
    inner = np.sum(out * dout)
    assert np.isclose(inner, np.sum(x * dx)) and np.isclose(inner, np.sum(w * dw))


@pytest.mark.parametrize("x_shape,w_shape,extra", [
    ((1, 2, 5, 4), (2, 2, 3, 3), {"pad_mode": "same", "stride": 2}),
    ((2, 4, 4, 5), (2, 2, 2, 2), {"pad_mode": "pad", "pad": (1, 0, 0, 1), "group": 2,
                                  "dilation": (2, 1)}),
])
def test_gradients_of_all_three_ops_match_finite_differences(x_shape, w_shape, extra):
    x, w, dout, attrs = _data(x_shape, w_shape, extra, seed=3)
    check_bprop(C.Conv2D, x, w, attrs=attrs)
    # the gradient ops' own gradients make second-order derivatives
    check_bprop(C.Conv2DBackpropInput, dout, w, x_shape, attrs=attrs)
    check_bprop(C.Conv2DBackpropFilter, dout, x, w_shape, attrs=attrs)


def test_explicit_pad_list_overrides_pad_mode_in_gradient_ops():
    x, w, dout, attrs = _data((1, 2, 5, 5), (2, 2, 3, 3), {"pad_mode": "pad", "pad": 1})
    valid = dict(attrs, pad_mode="valid", pad=0, pad_list=(1, 1, 1, 1))
    got = ops.Conv2DBackpropInput(**valid)(Tensor(dout), Tensor(w), x.shape).asnumpy()
    want = C.conv2d_backprop_input_ref(dout, w, x.shape, **dict(attrs, pad_list=None))
    np.testing.assert_allclose(got, want, rtol=1e-10)
    check_bprop(C.Conv2DBackpropInput, dout, w, x.shape, attrs=valid)


def test_half_precision_runs_in_float32_and_keeps_its_dtype():
    x, w, _, attrs = _data((2, 3, 6, 6), (4, 3, 3, 3), {"pad_mode": "same"}, np.float16)
    out = C.Conv2D(Tensor(x), Tensor(w), **attrs)
    assert out.dtype == float16
    want = C.conv2d_ref(x.astype(np.float32), w.astype(np.float32), **attrs)
    np.testing.assert_allclose(out.asnumpy().astype(np.float32), want, rtol=1e-2, atol=2e-2)


def test_functional_conv2d_bias_padding_and_groups():
    x, w, _, attrs = _data((2, 4, 6, 5), (6, 2, 3, 3), {"pad_mode": "pad",
                                                         "pad": (1, 1, 2, 2), "group": 2})
    b = np.arange(6.0)
    out = ops.conv2d(Tensor(x), Tensor(w), Tensor(b), pad_mode="pad", padding=(1, 2), groups=2)
    np.testing.assert_allclose(out.asnumpy(), C.conv2d_ref(x, w, **attrs)
                               + b.reshape(1, 6, 1, 1), rtol=1e-10)
    same = ops.conv2d(Tensor(x), Tensor(w), padding="same", groups=2)
    assert same.shape == (2, 6, 6, 5)


def test_conv_transpose2d_is_the_input_gradient_with_torch_sizes():
    rng = np.random.default_rng(4)
    x, w = rng.standard_normal((1, 4, 3, 3)), rng.standard_normal((4, 2, 3, 3))
    out = ops.conv_transpose2d(Tensor(x), Tensor(w), Tensor(np.ones(2)), stride=2, padding=1,
                               output_padding=1)
    assert out.shape == (1, 2, 6, 6)  # (3 - 1) * 2 - 2 * 1 + 3 + 1
    want = C.conv2d_backprop_input_ref(x, w, (1, 2, 6, 6), **dict(
        _attrs((4, 2, 3, 3), {"pad_mode": "pad", "pad": 1, "stride": 2}), pad_list=None))
    np.testing.assert_allclose(out.asnumpy(), want + 1, rtol=1e-10)
    assert ops.Conv2DTranspose is ops.Conv2DBackpropInput


def test_float32_path_through_dispatch():
    x, w, _, attrs = _data((2, 3, 8, 8), (5, 3, 3, 3), {"pad_mode": "pad", "pad": 1},
                           np.float32)
    out = ops.Conv2D(5, 3, pad_mode="pad", pad=1)(Tensor(x), Tensor(w))
    assert out.dtype == float32 and out.shape == (2, 5, 8, 8)
    np.testing.assert_allclose(out.asnumpy(), C.conv2d_ref(x.astype(np.float64),
                                                           w.astype(np.float64), **attrs),
                               rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("x_shape,w_shape,kwargs,match", [
    ((2, 4, 5, 5), (6, 3, 3, 3), {"out_channel": 6},
     r"Conv2D: x shape \(2, 4, 5, 5\) and weight shape \(6, 3, 3, 3\) do not match: x has 4 "
     r"channels, weight expects 3"),
    ((1, 2, 4, 4), (3, 2, 5, 5), {"kernel_size": 5},
     r"Conv2D: x shape \(1, 2, 4, 4\) and weight shape \(3, 2, 5, 5\): the kernel \(5, 5\).*"
     r"larger than the padded input \(4, 4\)"),
    ((1, 4, 5, 5), (6, 2, 3, 3), {"group": 3, "out_channel": 6},
     r"Conv2D: group 3 must divide the input channels 4 and out_channel 6 \(x shape "
     r"\(1, 4, 5, 5\)"),
    ((1, 2, 5, 5), (3, 2, 3, 3), {"pad": 1},
     r"Conv2D: x shape .* pad must be 0 unless pad_mode is 'pad'"),
    ((1, 2, 5, 5), (3, 2, 3, 3), {"data_format": "NHWC"},
     r"Conv2D: data_format 'NHWC' is not supported on CPU"),
    ((1, 2, 5, 5), (4, 2, 3, 3), {},
     r"Conv2D: x shape \(1, 2, 5, 5\) and weight shape \(4, 2, 3, 3\): weight has 4 output "
     r"channels, out_channel is 3"),
    ((2, 5, 5), (3, 2, 3, 3), {}, r"Conv2D: input 'x' must be 4-d, got shape \(2, 5, 5\)"),
])
def test_conv2d_errors_name_the_op_and_shapes(x_shape, w_shape, kwargs, match):
    prim = ops.Conv2D(**{"out_channel": 3, "kernel_size": 3, **kwargs})
    with pytest.raises(ValueError, match=match):
        prim(Tensor(np.ones(x_shape, np.float32)), Tensor(np.ones(w_shape, np.float32)))


def test_integer_input_is_rejected_by_dtype():
    with pytest.raises(TypeError, match=r"Conv2D: input 'x' has dtype Int32"):
        ops.Conv2D(1, 1)(Tensor(np.ones((1, 1, 2, 2), np.int32)), Tensor(np.ones((1, 1, 1, 1),
                                                                                 np.int32)))


def test_backprop_input_rejects_a_gradient_of_the_wrong_shape():
    with pytest.raises(ValueError, match=r"Conv2DBackpropInput: out_backprop shape "
                                         r"\(1, 3, 4, 4\) does not match .* gives "
                                         r"\(1, 3, 3, 3\)"):
        ops.Conv2DBackpropInput(3, 3)(Tensor(np.ones((1, 3, 4, 4))), Tensor(np.ones((3, 2, 3, 3))),
                                      (1, 2, 5, 5))


def test_functional_bias_must_have_one_value_per_channel():
    with pytest.raises(ValueError, match=r"conv2d: bias shape \(2,\) must be \(3,\)"):
        ops.conv2d(Tensor(np.ones((1, 2, 4, 4))), Tensor(np.ones((3, 2, 3, 3))),
                   Tensor(np.ones(2)))


def test_filter_gradient_bits_do_not_depend_on_thread_timing():
    """Reproducible training needs the same bits every call: each thread's images are a
    fixed run and the partial sums are added in thread order."""
    rng = np.random.default_rng(5)
    x = rng.standard_normal((32, 6, 14, 14)).astype(np.float32)
    dout = rng.standard_normal((32, 16, 10, 10)).astype(np.float32)
    prim = ops.Conv2DBackpropFilter(out_channel=16, kernel_size=5)
    first = prim(Tensor(dout), Tensor(x), (16, 6, 5, 5)).asnumpy()
    for _ in range(20):
        again = prim(Tensor(dout), Tensor(x), (16, 6, 5, 5)).asnumpy()
        np.testing.assert_array_equal(again, first)
