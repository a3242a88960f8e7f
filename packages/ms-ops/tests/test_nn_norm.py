import numpy as np
import pytest

import ms_ops as ops
from ms_ops.defs import nn_norm as N
from ms_ops.kernels import _norm
from ms_ops.testing import check_against_reference, check_bprop
from ms_tensor import Parameter, Tensor, float16, float32, float64


def _data(shape, k=0.7, off=0.0, dtype=np.float32):
    """Deterministic inputs that real MindSpore was run on (see the *_matches_mindspore tests)."""
    n = int(np.prod(shape))
    return (np.sin(np.arange(n) * k + off) * 2).reshape(shape).astype(dtype)


def _bn_numpy(x, scale, bias, mean, var, eps, axis):
    shape = [1] * x.ndim
    shape[axis] = -1
    r = lambda v: np.reshape(v, shape)  # noqa: E731
    return (x - r(mean)) / np.sqrt(r(var) + eps) * r(scale) + r(bias)


# (input shape, data_format, channel axis): 2-d, NCHW with one and many spatial dims, NHWC
LAYOUTS = [((6, 3), "NCHW", 1), ((4, 3, 2, 5), "NCHW", 1), ((2, 3, 7), "NCHW", 1),
           ((2, 4, 2, 3), "NHWC", 3)]


@pytest.mark.parametrize("shape,fmt,axis", LAYOUTS)
def test_batch_norm_training_normalizes_with_batch_stats_and_updates_running_stats(shape, fmt,
                                                                                    axis):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(np.float32)
    c = shape[axis]
    scale, bias = (rng.uniform(0.5, 2, c).astype(np.float32),
                   rng.standard_normal(c).astype(np.float32))
    mean0, var0 = rng.standard_normal(c).astype(np.float32), rng.uniform(1, 2, c).astype(np.float32)
    mean, var = Parameter(Tensor(mean0), name="mean"), Tensor(var0.copy())
    out = ops.BatchNorm(is_training=True, epsilon=1e-5, momentum=0.2, data_format=fmt)(
        Tensor(x), Tensor(scale), Tensor(bias), mean, var)
    axes = tuple(i for i in range(x.ndim) if i != axis)
    bm, bv = x.mean(axis=axes, dtype=np.float64), x.var(axis=axes, dtype=np.float64)
    np.testing.assert_allclose(out[0].asnumpy(), _bn_numpy(x, scale, bias, bm, bv, 1e-5, axis),
                               rtol=1e-5, atol=1e-5)
    for got, want in zip(out[1:], (bm, bv, bm, bv)):
        assert got.shape == (c,) and got.dtype == float32
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5)
    m = x.size // c
    np.testing.assert_allclose(mean.asnumpy(), 0.8 * mean0 + 0.2 * bm, rtol=1e-5)
    np.testing.assert_allclose(var.asnumpy(), 0.8 * var0 + 0.2 * bv * m / (m - 1), rtol=1e-5)


@pytest.mark.parametrize("shape,fmt,axis", LAYOUTS)
def test_batch_norm_inference_uses_given_stats_and_mutates_nothing(shape, fmt, axis):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape)
    c = shape[axis]
    scale, bias, mean = rng.standard_normal(c), rng.standard_normal(c), rng.standard_normal(c)
    var = rng.uniform(0.5, 2, c)
    mean_t, var_t = Tensor(mean.copy()), Tensor(var.copy())
    out = ops.BatchNorm(epsilon=1e-3, data_format=fmt)(Tensor(x), Tensor(scale), Tensor(bias),
                                                        mean_t, var_t)
    np.testing.assert_allclose(out[0].asnumpy(), _bn_numpy(x, scale, bias, mean, var, 1e-3, axis),
                               rtol=1e-12, atol=1e-12)
    for got, want in zip(out[1:], (mean, var, mean, var)):
        np.testing.assert_array_equal(got.asnumpy(), want)
    np.testing.assert_array_equal(mean_t.asnumpy(), mean)
    np.testing.assert_array_equal(var_t.asnumpy(), var)


def test_batch_norm_matches_mindspore():
    # MindSpore 2.x CPU, same inputs: y, and the moving statistics after one training step
    np.random.seed(0)
    x = np.random.randn(4, 3, 2, 2).astype(np.float32)
    scale, bias = Tensor(np.array([1.0, 2.0, 0.5], np.float32)), Tensor(np.array([0.1, 0.2, 0.3],
                                                                                  np.float32))
    mean = Parameter(Tensor(np.array([0.5, -0.5, 0.0], np.float32)), name="m")
    var = Parameter(Tensor(np.array([1.0, 2.0, 3.0], np.float32)), name="v")
    y = ops.BatchNorm(is_training=True)(Tensor(x), scale, bias, mean, var)[0]
    np.testing.assert_allclose(y.asnumpy().ravel()[:6], [1.3086046, -0.09700835, 0.4992696,
                                                         1.8000305, 2.9794188, -1.8616865],
                               rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy(), [0.50913185, -0.42657444, -0.02721613], rtol=1e-6)
    np.testing.assert_allclose(var.asnumpy(), [1.000428, 1.9473367, 2.8123708], rtol=1e-6)
    y = ops.BatchNorm()(Tensor(x), scale, bias, mean, var)[0]
    np.testing.assert_allclose(y.asnumpy().ravel()[:6], [1.3546457, -0.00895078, 0.56950337,
                                                         1.8313822, 3.4879625, -0.58927095],
                               rtol=1e-5, atol=1e-6)


def test_batch_norm_float16_input_with_float32_parameters():
    rng = np.random.default_rng(2)
    x = rng.standard_normal((4, 3, 5)).astype(np.float16)
    ones, zeros = Tensor(np.ones(3, np.float32)), Tensor(np.zeros(3, np.float32))
    out = ops.BatchNorm(is_training=True)(Tensor(x), ones, zeros, Tensor(np.zeros(3, np.float32)),
                                          Tensor(np.ones(3, np.float32)))
    assert out[0].dtype == float16 and out[1].dtype == float32
    want = _bn_numpy(x.astype(np.float64), 1.0, 0.0, x.mean(axis=(0, 2), dtype=np.float64),
                     x.var(axis=(0, 2), dtype=np.float64), 1e-5, 1)
    np.testing.assert_allclose(out[0].asnumpy(), want, rtol=2e-3, atol=2e-3)


def test_functional_batch_norm_is_the_primitive_and_updates_running_stats():
    rng = np.random.default_rng(3)
    x = Tensor(rng.standard_normal((5, 2, 3)).astype(np.float32))
    w, b = Tensor(np.array([2.0, 3.0], np.float32)), Tensor(np.array([0.5, -1.0], np.float32))
    rm, rv = Tensor(np.zeros(2, np.float32)), Tensor(np.ones(2, np.float32))
    y = ops.batch_norm(x, rm, rv, w, b, training=True, momentum=0.5, eps=1e-3)
    want = ops.BatchNorm(True, 1e-3, 0.5)(x, w, b, Tensor(np.zeros(2, np.float32)),
                                          Tensor(np.ones(2, np.float32)))[0]
    np.testing.assert_array_equal(y.asnumpy(), want.asnumpy())
    np.testing.assert_allclose(rm.asnumpy(), 0.5 * x.asnumpy().mean(axis=(0, 2)), rtol=1e-5)
    y = ops.batch_norm(x, rm, rv, w, b)
    np.testing.assert_allclose(y.asnumpy(), _bn_numpy(x.asnumpy(), w.asnumpy(), b.asnumpy(),
                                                      rm.asnumpy(), rv.asnumpy(), 1e-5, 1),
                               rtol=1e-5, atol=1e-6)


# (x3 shape): one long row per channel, many short channels (inner 1, the (N, C) case), mixed
KERNEL_SHAPES = [(3, 4, 97), (33, 300, 1), (2, 70, 5)]


@pytest.mark.parametrize("dtype,tol", [(np.float32, 2e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("shape", KERNEL_SHAPES)
def test_batch_norm_cython_kernels_match_numpy_reference(shape, dtype, tol):
    rng = np.random.default_rng(4)
    x = (rng.standard_normal(shape) * 3 + 1).astype(dtype)
    dy = rng.standard_normal(shape).astype(dtype)
    c = shape[1]
    scale, bias, mean = rng.standard_normal(c), rng.standard_normal(c), rng.standard_normal(c)
    var = rng.uniform(0.5, 2, c)
    check_against_reference(_norm.batch_norm_training, N.batch_norm_training_reference,
                            x, scale, bias, 1e-5, rtol=tol, atol=tol)
    check_against_reference(_norm.batch_norm_inference, N.batch_norm_inference_reference,
                            x, scale, bias, mean, var, 1e-5, rtol=tol, atol=tol)
    for training in (True, False):
        check_against_reference(_norm.batch_norm_grad, N.batch_norm_grad_reference,
                                dy, x, scale, mean, var, 1e-5, training, rtol=tol, atol=tol)
    assert _norm.batch_norm_training(x, scale, bias, 1e-5)[0].dtype == dtype


def test_batch_norm_float32_kernels_keep_digits_when_the_mean_is_large():
    # float32 maths on x - mean would lose ~4 digits at mean 1000 with the naive form
    rng = np.random.default_rng(12)
    x = (1000 + rng.standard_normal((8, 3, 50))).astype(np.float32)
    dy = rng.standard_normal((8, 3, 50)).astype(np.float32)
    scale, bias = np.ones(3), np.zeros(3)
    y, mean, var = _norm.batch_norm_training(x, scale, bias, 1e-5)
    want = N.batch_norm_training_reference(x.astype(np.float64), scale, bias, 1e-5)
    np.testing.assert_allclose(y, want[0], atol=2e-6)
    for training in (True, False):
        got = _norm.batch_norm_grad(dy, x, scale, mean, var, 1e-5, training)[0]
        want = N.batch_norm_grad_reference(dy.astype(np.float64), x.astype(np.float64), scale,
                                           mean, var, 1e-5, training)[0]
        np.testing.assert_allclose(got, want, atol=2e-6)


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape,fmt,axis", [((4, 3), "NCHW", 1), ((3, 2, 2, 2), "NCHW", 1),
                                            ((2, 2, 3), "NHWC", 2)])
def test_batch_norm_gradients(training, shape, fmt, axis):
    rng = np.random.default_rng(5)
    c = shape[axis]
    check_bprop(N.BatchNorm, rng.standard_normal(shape), rng.standard_normal(c),
                rng.standard_normal(c), rng.standard_normal(c), rng.uniform(0.5, 2, c),
                attrs={"is_training": training, "data_format": fmt})


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("shape,fmt,axis", [((4, 3), "NCHW", 1), ((2, 3, 2), "NCHW", 1),
                                            ((2, 2, 3), "NHWC", 2)])
def test_batch_norm_grad_has_second_derivatives(training, shape, fmt, axis):
    rng = np.random.default_rng(6)
    c = shape[axis]
    check_bprop(N.BatchNormGrad, rng.standard_normal(shape), rng.standard_normal(shape),
                rng.standard_normal(c), rng.standard_normal(c), rng.uniform(0.5, 2, c),
                attrs={"is_training": training, "data_format": fmt}, rtol=1e-4)


def test_batch_norm_grad_matches_numpy_reference_through_dispatch():
    rng = np.random.default_rng(7)
    x, dy = rng.standard_normal((4, 3, 2, 2)), rng.standard_normal((4, 3, 2, 2))
    scale, mean, var = rng.standard_normal(3), rng.standard_normal(3), rng.uniform(1, 2, 3)
    got = ops.BatchNormGrad(is_training=True)(Tensor(dy), Tensor(x), Tensor(scale),
                                              Tensor(mean), Tensor(var))
    want = N.batch_norm_grad_reference(dy.reshape(4, 3, 4), x.reshape(4, 3, 4), scale, mean, var,
                                       1e-5, True)
    np.testing.assert_allclose(got[0].asnumpy(), want[0].reshape(x.shape), rtol=1e-12)
    np.testing.assert_allclose(got[1].asnumpy(), want[1], rtol=1e-12)
    np.testing.assert_allclose(got[2].asnumpy(), want[2], rtol=1e-12)


def _bn_args(x_shape=(2, 3, 4, 4), c=3, dtype=np.float32):
    return (Tensor(np.ones(x_shape, dtype)),) + tuple(Tensor(np.ones(c, dtype)) for _ in range(4))


def test_batch_norm_rejects_channel_mismatch_naming_shapes():
    x, s, b, m, v = _bn_args()
    with pytest.raises(ValueError, match=r"BatchNorm: scale shape \(4,\) does not match the 3 "
                                         r"channels of input_x shape \(2, 3, 4, 4\) \(NCHW\)"):
        ops.BatchNorm()(x, Tensor(np.ones(4, np.float32)), b, m, v)
    with pytest.raises(ValueError, match=r"BatchNorm: variance shape \(3,\) does not match the 4 "
                                         r"channels of input_x shape \(2, 3, 4, 4\) \(NHWC\)"):
        ops.BatchNorm(data_format="NHWC")(x, *(Tensor(np.ones(4, np.float32)),) * 3, v)


def test_batch_norm_rejects_bad_inputs_and_attributes():
    x, s, b, m, v = _bn_args()
    with pytest.raises(ValueError, match=r"BatchNorm: input_x must be at least 2-d .* \(3,\)"):
        ops.BatchNorm()(Tensor(np.ones(3, np.float32)), s, b, m, v)
    with pytest.raises(TypeError, match="BatchNorm: input 'input_x' has dtype Int32"):
        ops.BatchNorm()(Tensor(np.ones((2, 3), np.int32)), s, b, m, v)
    with pytest.raises(TypeError, match="BatchNorm: mean has dtype Float64 but scale has Float32"):
        ops.BatchNorm()(x, s, b, Tensor(np.ones(3)), v)
    with pytest.raises(ValueError, match="BatchNorm: data_format must be 'NCHW' or 'NHWC'"):
        ops.BatchNorm(data_format="NCDHW")(x, s, b, m, v)
    with pytest.raises(ValueError, match="BatchNorm: momentum must be in"):
        ops.BatchNorm(momentum=1.5)(x, s, b, m, v)
    with pytest.raises(TypeError, match="BatchNorm: 'is_training' must be a bool"):
        ops.BatchNorm(is_training=1)(x, s, b, m, v)


def test_batch_norm_grad_rejects_dy_of_another_shape():
    x, s, _, m, v = _bn_args()
    with pytest.raises(ValueError, match=r"BatchNormGrad: dy shape \(2, 3\) must equal x shape "
                                         r"\(2, 3, 4, 4\)"):
        ops.BatchNormGrad()(Tensor(np.ones((2, 3), np.float32)), x, s, m, v)


def _ln_numpy(x, gamma, beta, begin, eps):
    axes = tuple(range(begin % x.ndim, x.ndim))
    mean = x.mean(axis=axes, keepdims=True)
    var = x.var(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma + beta, mean, 1 / np.sqrt(var + eps)


@pytest.mark.parametrize("shape,begin_norm,begin_params", [
    ((2, 3, 4), 1, 1), ((2, 3, 4), -1, -1), ((2, 3, 4), 2, 1), ((5, 6), 0, 1),
    ((3, 2, 2, 3), 1, 3)])
def test_layer_norm_matches_numpy(shape, begin_norm, begin_params):
    rng = np.random.default_rng(8)
    x = rng.standard_normal(shape).astype(np.float32)
    p = shape[begin_params % len(shape):]
    gamma, beta = (rng.standard_normal(p).astype(np.float32),
                   rng.standard_normal(p).astype(np.float32))
    y, mean, rstd = ops.LayerNorm(begin_norm, begin_params, 1e-5)(Tensor(x), Tensor(gamma),
                                                                   Tensor(beta))
    for got, want in zip((y, mean, rstd), _ln_numpy(x, gamma, beta, begin_norm, 1e-5)):
        assert got.shape == want.shape and got.dtype == float32
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)


def test_layer_norm_matches_mindspore():
    # MindSpore 2.x CPU returns the variance as its third output; rstd is 1/sqrt(var + eps)
    x, g, b = _data((2, 3, 4)), _data((3, 4), 0.3, 1.0), _data((3, 4), 0.5, 2.0)
    y, mean, rstd = ops.LayerNorm(1, 1, 1e-5)(Tensor(x), Tensor(g), Tensor(b))
    np.testing.assert_allclose(y.asnumpy()[0, 0], [1.4811962, 2.6166222, 2.7473636, 1.2956189],
                               rtol=1e-5)
    np.testing.assert_allclose(mean.asnumpy().ravel(), [0.2756259, 0.1318002], rtol=1e-5)
    np.testing.assert_allclose(rstd.asnumpy().ravel(), [0.7273679, 0.7444578], rtol=1e-5)


def test_layer_norm_float16_keeps_its_dtype():
    x = _data((2, 8), dtype=np.float16)
    y = ops.LayerNorm()(Tensor(x), Tensor(np.ones(8, np.float16)), Tensor(np.zeros(8, np.float16)))
    assert all(o.dtype == float16 for o in y)
    want = _ln_numpy(x.astype(np.float64), 1.0, 0.0, 1, 1e-7)[0]
    np.testing.assert_allclose(y[0].asnumpy(), want, rtol=3e-3, atol=3e-3)


@pytest.mark.parametrize("shape,begin_norm,begin_params", [
    ((2, 3, 4), 1, 1), ((3, 4), -1, -1), ((2, 3, 2), 2, 1), ((2, 2, 3), 1, 2)])
def test_layer_norm_gradients_including_mean_and_rstd_outputs(shape, begin_norm, begin_params):
    rng = np.random.default_rng(9)
    p = shape[begin_params % len(shape):]
    check_bprop(N.LayerNorm, rng.standard_normal(shape), rng.standard_normal(p),
                rng.standard_normal(p), attrs={"begin_norm_axis": begin_norm,
                                               "begin_params_axis": begin_params,
                                               "epsilon": 1e-5})


def test_layer_norm_rejects_gamma_of_wrong_shape():
    x = Tensor(np.ones((2, 3, 4), np.float32))
    with pytest.raises(ValueError, match=r"LayerNorm: gamma shape \(4,\) must be input_x shape "
                                         r"\(2, 3, 4\)\[begin_params_axis=1:\] = \(3, 4\)"):
        ops.LayerNorm()(x, Tensor(np.ones(4, np.float32)), Tensor(np.ones((3, 4), np.float32)))
    with pytest.raises(ValueError, match="LayerNorm: begin_norm_axis 3 is out of range"):
        ops.LayerNorm(3, 1)(x, Tensor(np.ones((3, 4), np.float32)),
                            Tensor(np.ones((3, 4), np.float32)))
    with pytest.raises(TypeError, match="LayerNorm: input 'input_x' has dtype Int32"):
        ops.LayerNorm()(Tensor(np.ones((2, 3), np.int32)), Tensor(np.ones(3, np.float32)),
                        Tensor(np.ones(3, np.float32)))


def test_functional_layer_norm_normalizes_trailing_dims():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    w, b = rng.standard_normal((3, 4)).astype(np.float32), rng.standard_normal((3, 4)).astype(
        np.float32)
    y = ops.layer_norm(Tensor(x), (3, 4), Tensor(w), Tensor(b))
    np.testing.assert_allclose(y.asnumpy(), _ln_numpy(x, w, b, 1, 1e-5)[0], rtol=1e-5, atol=1e-5)
    y = ops.layer_norm(Tensor(x), 4)
    np.testing.assert_allclose(y.asnumpy(), _ln_numpy(x, 1.0, 0.0, 2, 1e-5)[0], rtol=1e-5,
                               atol=1e-5)
    with pytest.raises(ValueError, match=r"layer_norm: normalized_shape \(3,\) must be the "
                                         r"trailing dimensions of input shape \(2, 3, 4\)"):
        ops.layer_norm(Tensor(x), (3,))


def test_group_norm_matches_numpy_and_mindspore():
    x = _data((2, 4, 3), 0.9)
    w, b = np.array([1, 2, 3, 4], np.float32), np.array([0, 0.1, 0.2, 0.3], np.float32)
    y = ops.group_norm(Tensor(x), 2, Tensor(w), Tensor(b))
    g = x.reshape(2, 2, -1)
    want = ((g - g.mean(-1, keepdims=True)) / np.sqrt(g.var(-1, keepdims=True) + 1e-5))
    want = want.reshape(x.shape) * w[:, None] + b[:, None]
    np.testing.assert_allclose(y.asnumpy(), want, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(y.asnumpy()[1, :, 0], [-1.4373611, 2.0787961, -1.4484478,
                                                      0.9137313], rtol=1e-5)
    with pytest.raises(ValueError, match=r"group_norm: num_groups 3 must be a positive int that "
                                         r"divides the channels of input shape \(2, 4, 3\)"):
        ops.group_norm(Tensor(x), 3)


def test_batch_norm_dtype_of_statistics_follows_scale():
    _, s, b, m, v = _bn_args(dtype=np.float64)
    out = ops.BatchNorm()(Tensor(np.ones((2, 3), np.float32)), s, b, m, v)
    assert out[0].dtype == float32 and all(o.dtype == float64 for o in out[1:])


def test_l2_normalize_matches_mindspore_and_bounds_small_norms():
    x = np.array([[0.001, 0.002, 0.0], [3.0, 4.0, 1.0]], np.float32)
    np.testing.assert_allclose(ops.L2Normalize(axis=1)(Tensor(x)).asnumpy(),
                               [[0.1, 0.2, 0.0], [0.5883484, 0.78446454, 0.19611613]], rtol=1e-6)
    np.testing.assert_allclose(ops.L2Normalize(axis=(0,), epsilon=1e-4)(Tensor(x)).asnumpy(),
                               [[3.3333333e-04, 4.9999997e-04, 0.0], [1.0, 1.0, 1.0]], rtol=1e-6)


@pytest.mark.parametrize("axis", [0, -1, (1,)])
def test_l2_normalize_gradients_inside_and_below_epsilon(axis):
    rng = np.random.default_rng(11)
    x = rng.standard_normal((3, 4))
    x[0] *= 1e-3  # along axis 1, row 0 has its squared norm below epsilon
    check_bprop(N.L2Normalize, x, attrs={"axis": axis, "epsilon": 1e-4})


def test_l2_normalize_rejects_several_axes():
    with pytest.raises(ValueError, match=r"L2Normalize: axis must be an int or hold exactly one "
                                         r"int, got \(0, 1\)"):
        ops.L2Normalize(axis=(0, 1))(Tensor(np.ones((2, 2), np.float32)))
