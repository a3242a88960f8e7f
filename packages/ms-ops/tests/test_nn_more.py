"""conv1d/3d, transposed 1-d/3-d convolutions, unfold/fold, 1-d/3-d and LP pooling and
interpolate, against numpy references (the values were also compared with MindSpore 2.10)."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view as windows

import ms_ops as ops
from ms_tensor import Tensor

rng = np.random.default_rng(7)


def _t(a):
    return Tensor(np.asarray(a, np.float32))


def _conv_ref(x, w, stride, pad, dil, groups=1):
    """N-d cross-correlation by sliding windows (dilation by striding the kernel span)."""
    nd = x.ndim - 2
    x = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pad])
    span = [d * (k - 1) + 1 for d, k in zip(dil, w.shape[2:])]
    win = windows(x, span, axis=tuple(range(2, 2 + nd)))
    win = win[(...,) + tuple(slice(None, None, d) for d in dil)]
    win = win[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)]
    cin, cout = w.shape[1], w.shape[0] // groups
    outs = []
    for g in range(groups):
        xg = win[:, g * cin:(g + 1) * cin]
        wg = w[g * cout:(g + 1) * cout]
        outs.append(np.einsum(_spec(nd), xg, wg))
    return np.concatenate(outs, 1)


def _spec(nd):
    space, kern = "def"[:nd], "xyz"[:nd]
    return f"nc{space}{kern},oc{kern}->no{space}"


def test_conv1d_matches_numpy_with_groups_stride_and_padding():
    x, w, b = rng.standard_normal((2, 4, 9)), rng.standard_normal((6, 2, 3)), rng.standard_normal(6)
    out = ops.conv1d(_t(x), _t(w), _t(b), stride=2, pad_mode="pad", padding=1, groups=2)
    ref = _conv_ref(x, w, (2,), (1,), (1,), 2) + b[:, None]
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-4, atol=1e-5)


def test_conv3d_matches_numpy_and_same_padding_keeps_size():
    x, w = rng.standard_normal((2, 4, 5, 6, 7)), rng.standard_normal((6, 2, 3, 2, 3))
    out = ops.conv3d(_t(x), _t(w), stride=(2, 1, 2), pad_mode="pad", padding=1,
                     dilation=(1, 2, 1), groups=2)
    ref = _conv_ref(x, w, (2, 1, 2), (1, 1, 1), (1, 2, 1), 2)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-4, atol=1e-4)
    same = ops.conv3d(_t(x), _t(rng.standard_normal((3, 4, 2, 3, 3))), pad_mode="same")
    assert same.shape == (2, 3, 5, 6, 7)


def test_conv3d_rejects_wrong_ranks_and_modes():
    with pytest.raises(ValueError, match="conv3d: input shape"):
        ops.conv3d(_t(np.ones((1, 2, 3, 3))), _t(np.ones((1, 2, 1, 1, 1))))
    with pytest.raises(ValueError, match="pad_mode"):
        ops.conv3d(_t(np.ones((1, 2, 3, 3, 3))), _t(np.ones((1, 2, 1, 1, 1))), pad_mode="full")


@pytest.mark.parametrize("nd", [1, 3])
def test_transposed_conv_is_the_adjoint_of_conv(nd):
    """<conv(x), y> == <x, conv_transpose(y)> for the same weight, strides and padding."""
    shape = {1: (2, 4, 9), 3: (1, 4, 5, 6, 5)}[nd]
    x = rng.standard_normal(shape)
    w = rng.standard_normal((6, 2) + (3, 2, 3)[:nd])
    conv = {1: ops.conv1d, 3: ops.conv3d}[nd]
    trans = {1: ops.conv_transpose1d, 3: ops.conv_transpose3d}[nd]
    stride, pad, dil = (2, 1, 2)[:nd], (1, 0, 1)[:nd], (1, 2, 1)[:nd]
    y = conv(_t(x), _t(w), stride=stride, pad_mode="pad", padding=pad if nd == 3 else pad[0],
             dilation=dil, groups=2)
    dy = rng.standard_normal(y.shape)
    back = trans(_t(dy), _t(w), None, stride, pad, 0, 2, dil)
    extra = [n - b for n, b in zip(shape[2:], back.shape[2:])]
    assert all(0 <= e < s for e, s in zip(extra, stride))
    xs = x[(slice(None), slice(None)) + tuple(slice(0, b) for b in back.shape[2:])]
    np.testing.assert_allclose(np.sum(y.asnumpy() * dy), np.sum(xs * back.asnumpy()),
                               rtol=1e-4)


def test_unfold_matches_loops_and_fold_is_its_adjoint():
    x = rng.standard_normal((2, 3, 6, 7)).astype(np.float32)
    cols = ops.unfold(_t(x), (2, 3), dilation=1, padding=1, stride=2).asnumpy()
    xp = np.pad(x, [(0, 0), (0, 0), (1, 1), (1, 1)])
    ref = [xp[:, c, i + 2 * oh, j + 2 * ow] for c in range(3) for i in range(2) for j in range(3)
           for oh in [np.arange(4)[:, None]] for ow in [np.arange(4)[None, :]]]
    np.testing.assert_array_equal(cols, np.stack(ref, 1).reshape(2, 18, 16))
    y = rng.standard_normal(cols.shape)
    back = ops.fold(_t(y), (6, 7), (2, 3), 1, 1, 2).asnumpy()
    np.testing.assert_allclose(np.sum(cols * y), np.sum(x * back), rtol=1e-4)
    with pytest.raises(ValueError, match="fold: input shape"):
        ops.fold(_t(y[:, :, :5]), (6, 7), (2, 3), 1, 1, 2)


def _pool_ref(x, k, s, p, fill, reduce):
    nd = len(k)
    xp = np.pad(x, [(0, 0)] * (x.ndim - nd) + [(q, q) for q in p], constant_values=fill)
    win = windows(xp, k, axis=tuple(range(x.ndim - nd, x.ndim)))
    win = win[(slice(None),) * (x.ndim - nd) + tuple(slice(None, None, st) for st in s)]
    return reduce(win, axis=tuple(range(-nd, 0)))


def test_3d_and_1d_pooling_match_numpy_windows():
    x = rng.standard_normal((2, 3, 6, 7, 8))
    ref = _pool_ref(x, (3, 3, 3), (2, 2, 2), (1, 1, 1), -np.inf, np.max)
    np.testing.assert_array_equal(ops.max_pool3d(_t(x), 3, 2, 1).asnumpy(), ref.astype(np.float32))
    ref = _pool_ref(x, (2, 3, 2), (2, 2, 2), (0, 0, 0), 0.0, np.mean)
    np.testing.assert_allclose(ops.avg_pool3d(_t(x), (2, 3, 2), 2).asnumpy(), ref, atol=1e-6)
    x1 = rng.standard_normal((2, 3, 11))
    ref = _pool_ref(x1, (3,), (2,), (1,), 0.0, np.sum) / 3
    np.testing.assert_allclose(ops.avg_pool1d(_t(x1), 3, 2, 1).asnumpy(), ref, rtol=1e-5)
    np.testing.assert_array_equal(ops.max_pool1d(_t(x1), 3, 2).asnumpy(),
                                  _pool_ref(x1, (3,), (2,), (0,), 0, np.max).astype(np.float32))


def test_avg_pool3d_without_padding_in_the_count_and_max_pool3d_indices():
    x = rng.standard_normal((1, 2, 3, 4, 5))
    out = ops.avg_pool3d(_t(x), 3, 2, 1, count_include_pad=False).asnumpy()
    total = _pool_ref(x, (3, 3, 3), (2, 2, 2), (1, 1, 1), 0.0, np.sum)
    count = _pool_ref(np.ones_like(x), (3, 3, 3), (2, 2, 2), (1, 1, 1), 0.0, np.sum)
    np.testing.assert_allclose(out, total / count, rtol=1e-5)
    values, idx = ops.max_pool3d(_t(x), 2, return_indices=True)
    np.testing.assert_allclose(values.asnumpy().reshape(2, -1),
                               np.take_along_axis(x.reshape(2, -1), idx.asnumpy().reshape(2, -1),
                                                  1), rtol=1e-6)


def test_adaptive_pools_split_the_input_into_bins():
    x = rng.standard_normal((1, 2, 5, 6, 7))
    out = ops.adaptive_avg_pool3d(_t(x), (2, 3, 4)).asnumpy()
    d0, d1 = (0, 3), (2, 5)  # bins floor(i*5/2) .. ceil((i+1)*5/2)
    h, w = (0, 2), (0, 2)
    np.testing.assert_allclose(out[0, :, 1, 0, 0],
                               x[0, :, d1[0]:d1[1], h[0]:h[1], w[0]:w[1]].mean((1, 2, 3)),
                               rtol=1e-5)
    np.testing.assert_allclose(out[0, :, 0, 0, 0],
                               x[0, :, d0[0]:d0[1], 0:2, 0:2].mean((1, 2, 3)), rtol=1e-5)
    mx = ops.adaptive_max_pool3d(_t(x), 1).asnumpy()
    np.testing.assert_allclose(mx.reshape(2), x.reshape(2, -1).max(1), rtol=1e-6)
    x1 = rng.standard_normal((2, 3, 7))
    np.testing.assert_allclose(ops.adaptive_avg_pool1d(_t(x1), 1).asnumpy()[..., 0],
                               x1.mean(-1), rtol=1e-5)
    np.testing.assert_allclose(ops.adaptive_max_pool1d(_t(x1), 1).asnumpy()[..., 0],
                               x1.max(-1), rtol=1e-6)


def test_lp_pool_is_the_p_norm_of_each_window():
    x = np.abs(rng.standard_normal((2, 3, 6, 8)))
    out = ops.lp_pool2d(_t(x), 3, (2, 2)).asnumpy()
    ref = _pool_ref(x ** 3, (2, 2), (2, 2), (0, 0), 0.0, np.sum) ** (1 / 3)
    np.testing.assert_allclose(out, ref, rtol=1e-5)
    with pytest.raises(ValueError, match="norm_type"):
        ops.lp_pool1d(_t(x[:, :, 0]), 0, 2)


def _linear_ref(x, out, align):
    n = x.shape[-1]
    dst = np.arange(out)
    src = dst * (n - 1) / (out - 1) if align else np.maximum((dst + 0.5) * n / out - 0.5, 0)
    i0 = np.minimum(np.floor(src).astype(int), n - 1)
    i1 = np.minimum(i0 + 1, n - 1)
    lam = src - i0
    return x[..., i0] * (1 - lam) + x[..., i1] * lam


@pytest.mark.parametrize("align", [False, True])
def test_interpolate_linear_modes_are_separable_lerps(align):
    x = rng.standard_normal((2, 3, 5, 6))
    out = ops.interpolate(_t(x), size=(9, 4), mode="bilinear", align_corners=align).asnumpy()
    ref = np.swapaxes(_linear_ref(np.swapaxes(_linear_ref(x, 4, align), -1, -2), 9, align),
                      -1, -2)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)


def test_interpolate_nearest_area_and_errors():
    x = rng.standard_normal((1, 2, 4, 6))
    near = ops.interpolate(_t(x), scale_factor=2.0).asnumpy()
    np.testing.assert_array_equal(near, x.repeat(2, 2).repeat(2, 3).astype(np.float32))
    area = ops.interpolate(_t(x), size=(2, 3), mode="area").asnumpy()
    np.testing.assert_allclose(area, x.reshape(1, 2, 2, 2, 3, 2).mean((3, 5)), rtol=1e-5)
    cubic = ops.interpolate(_t(x), size=(4, 6), mode="bicubic", align_corners=True).asnumpy()
    np.testing.assert_allclose(cubic, x, rtol=1e-5, atol=1e-6)  # same size: the identity
    with pytest.raises(ValueError, match="exactly one of size and scale_factor"):
        ops.interpolate(_t(x))
    with pytest.raises(ValueError, match="mode 'trilinear' needs a 5-d input"):
        ops.interpolate(_t(x), size=(2, 2), mode="trilinear")


@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
def test_grid_sample_identity_grid_and_zero_padding(mode):
    x = rng.standard_normal((1, 2, 3, 4)).astype(np.float32)
    ys, xs = np.meshgrid(np.linspace(-1, 1, 3), np.linspace(-1, 1, 4), indexing="ij")
    grid = np.stack([xs, ys], -1)[None].astype(np.float32)
    out = ops.grid_sample(_t(x), _t(grid), mode, "zeros", True).asnumpy()
    np.testing.assert_allclose(out, x, rtol=1e-5, atol=1e-6)
    far = np.full((1, 1, 1, 2), 3.0, np.float32)
    assert np.all(ops.grid_sample(_t(x), _t(far), mode, "zeros", True).asnumpy() == 0)
    border = ops.grid_sample(_t(x), _t(far), mode, "border", True).asnumpy()
    np.testing.assert_allclose(border[0, :, 0, 0], x[0, :, -1, -1], rtol=1e-6)


def test_grid_sample_bilinear_midpoint_and_reflection():
    x = np.arange(4, dtype=np.float32).reshape(1, 1, 2, 2)
    mid = ops.grid_sample(_t(x), _t(np.zeros((1, 1, 1, 2), np.float32)), align_corners=True)
    assert float(mid.asnumpy().reshape(())) == pytest.approx(1.5)
    # reflection about the right edge: column 1.5 mirrors to 0.5 (row 0: values 0 and 1)
    ref = ops.grid_sample(_t(x), _t(np.array([[[[2.0, -1.0]]]], np.float32)), "bilinear",
                          "reflection", True)
    assert float(ref.asnumpy().reshape(())) == pytest.approx(0.5)
    with pytest.raises(ValueError, match="padding_mode"):
        ops.grid_sample(_t(x), _t(np.zeros((1, 1, 1, 2), np.float32)), padding_mode="wrap")


def test_fractional_max_pool_windows_cover_the_input_and_indices_point_at_the_maxima():
    x = rng.standard_normal((1, 2, 9, 11)).astype(np.float32)
    samples = _t(rng.random((1, 2, 2)))
    values, idx = ops.fractional_max_pool2d(_t(x), 2, (5, 6), None, True, samples)
    assert values.shape == (1, 2, 5, 6)
    flat = x.reshape(1, 2, -1)
    np.testing.assert_array_equal(np.take_along_axis(flat, idx.asnumpy().reshape(1, 2, -1), 2),
                                  values.asnumpy().reshape(1, 2, -1))
    # the first window starts at 0 and the last ends at the input's edge
    rows, cols = np.divmod(idx.asnumpy(), 11)
    assert rows.min() <= 1 and rows.max() >= 7 and cols.min() <= 1 and cols.max() >= 9
    again = ops.fractional_max_pool2d(_t(x), 2, (5, 6), None, False, samples)
    np.testing.assert_array_equal(again.asnumpy(), values.asnumpy())
    with pytest.raises(ValueError, match="does not fit"):
        ops.fractional_max_pool2d(_t(x), 3, (9, 9))
