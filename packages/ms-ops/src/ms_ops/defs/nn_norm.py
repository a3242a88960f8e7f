"""Normalization: BatchNorm (with BatchNormGrad), LayerNorm, L2Normalize, and the
functional forms ``batch_norm``, ``layer_norm`` and ``group_norm``.

BatchNorm and its gradient run as Cython kernels (``kernels/_norm.pyx``) on an
``(outer, channels, inner)`` view of the input; the numpy functions named ``*_reference``
here compute the same thing and are what the tests hold the kernels to.
"""

from __future__ import annotations

import math

import numpy as np

from ms_ops.defs import array, reduction
from ms_ops.defs._grad_util import sum_to
from ms_ops.defs.arithmetic import Add, Mul, Neg, Sub
from ms_ops.infer import check_bool, check_dtype, normalize_axis, shape_text
from ms_ops.kernels import _norm
from ms_ops.opdef import FLOATS, Arg, Attr, OpDef, TensorSpec, functional
from ms_tensor.tensor import Tensor

_FORMATS = ("NCHW", "NHWC")


def _channel_axis(ndim: int, data_format: str) -> int:
    return ndim - 1 if data_format == "NHWC" else 1


def _check_bn_attrs(is_training, epsilon, data_format, momentum=0.0):
    check_bool("is_training", is_training)
    if data_format not in _FORMATS:
        raise ValueError(f"data_format must be 'NCHW' or 'NHWC', got {data_format!r}")
    if not isinstance(epsilon, float) or not 0.0 < epsilon <= 1.0:
        raise ValueError(f"epsilon must be a float in (0, 1], got {epsilon!r}")
    if not isinstance(momentum, (int, float)) or not 0.0 <= momentum <= 1.0:
        raise ValueError(f"momentum must be in [0, 1], got {momentum!r}")


def _check_channels(x, data_format, params, x_name="input_x") -> int:
    """Check the data input and the per-channel inputs ``params`` ((name, spec) pairs)."""
    check_dtype(x_name, x, FLOATS)
    if x.ndim < 2:
        raise ValueError(f"{x_name} must be at least 2-d (N, C, ...), got shape "
                         f"{shape_text(x.shape)}")
    c = x.shape[_channel_axis(x.ndim, data_format)]
    first_name, first = params[0]
    for name, s in params:
        check_dtype(name, s, FLOATS)
        if s.shape != (c,):
            raise ValueError(f"{name} shape {shape_text(s.shape)} does not match the {c} "
                             f"channels of {x_name} shape {shape_text(x.shape)} "
                             f"({data_format}): expected ({c},)")
        if s.dtype is not first.dtype:
            raise TypeError(f"{name} has dtype {s.dtype} but {first_name} has {first.dtype}; "
                            "the per-channel inputs must share one dtype")
    return c


def _as_3d(a: np.ndarray, data_format: str, dtype=None) -> np.ndarray:
    """A contiguous float32/float64 ``(outer, C, inner)`` view of ``a``."""
    if dtype is None:
        dtype = a.dtype if a.dtype in (np.float32, np.float64) else np.float32
    if a.ndim == 2 or data_format == "NHWC":
        shape = (-1, a.shape[-1], 1)
    else:
        shape = (a.shape[0], a.shape[1], -1)
    return np.ascontiguousarray(a.reshape(shape), dtype=dtype)


def _f64(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=np.float64)


def batch_norm_training_reference(x3, scale, bias, epsilon):
    """numpy reference of ``_norm.batch_norm_training``."""
    mean = x3.mean(axis=(0, 2), dtype=np.float64)
    var = ((x3 - mean[:, None]) ** 2).mean(axis=(0, 2), dtype=np.float64)
    y = (x3 - mean[:, None]) / np.sqrt(var[:, None] + epsilon) * scale[:, None] + bias[:, None]
    return y.astype(x3.dtype), mean, var


def batch_norm_inference_reference(x3, scale, bias, mean, variance, epsilon):
    """numpy reference of ``_norm.batch_norm_inference``."""
    a = scale / np.sqrt(variance + epsilon)
    return (x3 * a[:, None] + (bias - mean * a)[:, None]).astype(x3.dtype)


def batch_norm_grad_reference(dy, x3, scale, mean, variance, epsilon, is_training):
    """numpy reference of ``_norm.batch_norm_grad``."""
    rstd = 1.0 / np.sqrt(variance + epsilon)
    xh = (x3 - mean[:, None]) * rstd[:, None]
    dbias = dy.sum(axis=(0, 2), dtype=np.float64)
    dscale = (dy * xh).sum(axis=(0, 2), dtype=np.float64)
    k = (scale * rstd)[:, None]
    if is_training:
        m = dy.shape[0] * dy.shape[2]
        dx = k * (dy - dbias[:, None] / m - xh * dscale[:, None] / m)
    else:
        dx = k * dy
    return dx.astype(x3.dtype), dscale, dbias


def _norm_axes(shape, begin_norm_axis) -> tuple:
    return tuple(range(normalize_axis(begin_norm_axis, len(shape), "begin_norm_axis"),
                       len(shape)))


def _l2_axis(axis, ndim) -> int:
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise ValueError(f"axis must be an int or hold exactly one int, got {axis!r}")
        axis = axis[0]
    return normalize_axis(axis, ndim)


def _full(shape, like, value):
    return Tensor(np.full(shape, value, like.dtype.np))


def _zeros_for(d, like):
    """A zero cotangent for an output nothing downstream used (``None``)."""
    return _full(like.shape, like, 0.0) if d is None else d


def _per_channel(v, ndim, axis):
    """Reshape a (C,) tensor to broadcast against an ``ndim``-d input with C at ``axis``."""
    return array.Reshape(v, tuple(-1 if i == axis else 1 for i in range(ndim)))


def _channel_sum(v, axis):
    return reduction.ReduceSum(v, tuple(i for i in range(v.ndim) if i != axis))


# Samples for BatchNorm (and its gradient operator), LayerNorm and L2Normalize: training
# and inference, NCHW, NHWC and 2-d inputs, several normalized axes, and L2Normalize on
# both sides of its ``epsilon`` floor.
LAYOUTS = [((2, 3, 2, 2), "NCHW"), ((4, 3), "NCHW"), ((2, 2, 3), "NHWC")]


def _channel_params(rng, c):
    """scale, bias, mean, variance (positive) for ``c`` channels."""
    return (rng.uniform(0.5, 1.5, c), rng.standard_normal(c), rng.standard_normal(c) * 0.1,
            rng.uniform(0.5, 1.5, c))


def _batch_norm_infer(x, scale, bias, mean, variance, is_training=False, epsilon=1e-5,
                      momentum=0.1, data_format="NCHW"):
    _check_bn_attrs(is_training, epsilon, data_format, momentum)
    c = _check_channels(x, data_format, (("scale", scale), ("bias", bias), ("mean", mean),
                                         ("variance", variance)))
    stat = TensorSpec((c,), scale.dtype)
    return TensorSpec(x.shape, x.dtype), stat, stat, stat, stat


BatchNorm = OpDef(
    "BatchNorm",
    (Arg("input_x"), Arg("scale"), Arg("bias"), Arg("mean"), Arg("variance")),
    (Attr("is_training", False), Attr("epsilon", 1e-5), Attr("momentum", 0.1),
     Attr("data_format", "NCHW")),
    infer=_batch_norm_infer, nondiff_inputs=("mean", "variance"), writes=(3, 4),
    doc="""Batch normalization: ``y = (x - mean) / sqrt(variance + epsilon) * scale + bias``
    per channel (axis 1 for NCHW, the last axis for NHWC; ``input_x`` is (N, C, ...)).

    Outputs ``(y, batch_mean, batch_variance, reserve_space_1, reserve_space_2)``, the last
    four of shape (C,). In training the statistics are the batch's (mean and biased
    variance, once as ``batch_*`` and again as ``reserve_space_*`` for the gradient); in
    inference all four are copies of the ``mean`` and ``variance`` inputs, as MindSpore
    documents. (MindSpore 2.x's CPU kernel returns zeros for ``batch_mean`` and
    ``batch_variance``; the documented values are given here.)

    Mutates its inputs: with ``is_training=True`` the ``mean`` and ``variance`` tensors are
    updated in place, as MindSpore updates its moving-statistics Parameters:
    ``mean = (1 - momentum) * mean + momentum * batch_mean`` and likewise ``variance``
    with the unbiased batch variance. They must have the dtype of ``scale`` so they can be
    written without a cast. They take no gradient (MindSpore's rule returns zeros).
    """)


@BatchNorm.kernel("CPU", dtypes=FLOATS)
def batch_norm_cpu(x, scale, bias, mean, variance, is_training=False, epsilon=1e-5,
                   momentum=0.1, data_format="NCHW"):
    x3 = _as_3d(x, data_format)
    if not is_training:
        y = _norm.batch_norm_inference(x3, _f64(scale), _f64(bias), _f64(mean),
                                       _f64(variance), epsilon)
        return y.reshape(x.shape), mean.copy(), variance.copy(), mean.copy(), variance.copy()
    y, batch_mean, batch_var = _norm.batch_norm_training(x3, _f64(scale), _f64(bias), epsilon)
    count = x3.shape[0] * x3.shape[2]
    unbiased = batch_var * (count / (count - 1)) if count > 1 else batch_var
    mean[...] = (1.0 - momentum) * mean + momentum * batch_mean
    variance[...] = (1.0 - momentum) * variance + momentum * unbiased
    return y.reshape(x.shape), batch_mean, batch_var, batch_mean.copy(), batch_var.copy()


@BatchNorm.bprop
def batch_norm_bprop(x, scale, bias, mean, variance, out, dout, is_training=False,
                     epsilon=1e-5, momentum=0.1, data_format="NCHW"):
    dy = _zeros_for(dout[0], out[0])
    saved_mean, saved_var = (out[3], out[4]) if is_training else (mean, variance)
    dx, dscale, dbias = BatchNormGrad(dy, x, scale, saved_mean, saved_var,
                                      is_training=is_training, epsilon=epsilon,
                                      data_format=data_format)
    if is_training and any(d is not None for d in dout[1:]):
        # the batch statistics are outputs too: mean = sum(x) / m, var = sum((x - mean)^2) / m
        axis = _channel_axis(x.ndim, data_format)
        m = x.size // x.shape[axis]
        d_mean = Add(_zeros_for(dout[1], out[1]), _zeros_for(dout[3], out[3]))
        d_var = Add(_zeros_for(dout[2], out[2]), _zeros_for(dout[4], out[4]))
        centered = Sub(x, _per_channel(out[3], x.ndim, axis))
        via_stats = Add(_per_channel(Mul(d_mean, 1.0 / m), x.ndim, axis),
                        Mul(centered, _per_channel(Mul(d_var, 2.0 / m), x.ndim, axis)))
        dx = Add(dx, array.Cast(via_stats, x.dtype))
    return dx, dscale, dbias, None, None


@BatchNorm.samples
def _batch_norm(rng):
    for shape, fmt in LAYOUTS:
        c = 3
        for training in (False, True):
            yield (rng.standard_normal(shape), *_channel_params(rng, c)), \
                {"is_training": training, "data_format": fmt}
    yield (rng.standard_normal((4, 3)), *_channel_params(rng, 3)), \
        {"is_training": True, "epsilon": 1e-3, "momentum": 0.5}


def _batch_norm_grad_infer(dy, x, scale, save_mean, save_variance, is_training=False,
                           epsilon=1e-5, data_format="NCHW"):
    _check_bn_attrs(is_training, epsilon, data_format)
    c = _check_channels(x, data_format, (("scale", scale), ("save_mean", save_mean),
                                         ("save_variance", save_variance)))
    check_dtype("dy", dy, FLOATS)
    if dy.shape != x.shape:
        raise ValueError(f"dy shape {shape_text(dy.shape)} must equal x shape "
                         f"{shape_text(x.shape)}")
    return TensorSpec(x.shape, x.dtype), TensorSpec((c,), scale.dtype), \
        TensorSpec((c,), scale.dtype)


BatchNormGrad = OpDef(
    "BatchNormGrad",
    (Arg("dy"), Arg("x"), Arg("scale"), Arg("save_mean"), Arg("save_variance")),
    (Attr("is_training", False), Attr("epsilon", 1e-5), Attr("data_format", "NCHW")),
    infer=_batch_norm_grad_infer,
    doc="""Gradients of BatchNorm's ``y`` with respect to ``x``, ``scale`` and ``bias``:
    ``(dx, dscale, dbias)``.

    ``save_mean``/``save_variance`` are the statistics the forward pass normalized with:
    the batch's (``reserve_space_1/2``) in training, where ``dx`` then includes how they
    depend on ``x``, and the running ones in inference. Its own gradient rule (for second
    derivatives) treats every input, the statistics included, as independent; the
    BatchNorm rule adds the paths through the statistics.
    """)


@BatchNormGrad.kernel("CPU", dtypes=FLOATS)
def batch_norm_grad_cpu(dy, x, scale, save_mean, save_variance, is_training=False,
                        epsilon=1e-5, data_format="NCHW"):
    x3 = _as_3d(x, data_format)
    dx, dscale, dbias = _norm.batch_norm_grad(
        _as_3d(dy, data_format, x3.dtype), x3, _f64(scale), _f64(save_mean),
        _f64(save_variance), epsilon, is_training)
    return dx.reshape(x.shape), dscale, dbias


@BatchNormGrad.bprop
def batch_norm_grad_bprop(dy, x, scale, save_mean, save_variance, out, dout,
                          is_training=False, epsilon=1e-5, data_format="NCHW"):
    """Second derivatives of BatchNorm, from the closed forms in ``batch_norm_grad_reference``.

    With ``xh = (x - m) * r``, ``r = rsqrt(v + eps)``, ``S`` the per-channel sum and ``M``
    the element count per channel, the forward is ``dx = s*r*(dy - A - xh*B)`` (A = S(dy)/M,
    B = S(dy*xh)/M; both zero in inference), ``dscale = S(dy*xh)``, ``dbias = S(dy)``.
    """
    from ms_ops.defs import math_unary

    axis = _channel_axis(x.ndim, data_format)
    inv_m = 1.0 / (x.size // x.shape[axis])
    gx, gs, gb = (_zeros_for(d, o) for d, o in zip(dout, out))
    nd = x.ndim
    r = math_unary.Rsqrt(Add(save_variance, epsilon))
    r_b, s_b = _per_channel(r, nd, axis), _per_channel(scale, nd, axis)
    centered = Sub(x, _per_channel(save_mean, nd, axis))
    xh = Mul(centered, r_b)
    u = Mul(gx, Mul(s_b, r_b))
    g_dy = Add(Add(u, Mul(_per_channel(gs, nd, axis), xh)), _per_channel(gb, nd, axis))
    g_xh = Mul(dy, _per_channel(gs, nd, axis))
    inner = dy
    if is_training:
        a = _per_channel(Mul(_channel_sum(dy, axis), inv_m), nd, axis)
        b = _per_channel(Mul(_channel_sum(Mul(dy, xh), axis), inv_m), nd, axis)
        su = _per_channel(Mul(_channel_sum(u, axis), inv_m), nd, axis)
        suxh = _per_channel(Mul(_channel_sum(Mul(u, xh), axis), inv_m), nd, axis)
        g_dy = Sub(g_dy, Add(su, Mul(xh, suxh)))
        g_xh = Sub(g_xh, Add(Mul(u, b), Mul(dy, suxh)))
        inner = Sub(Sub(dy, a), Mul(xh, b))
    g_x = Mul(g_xh, r_b)
    g_scale = _channel_sum(Mul(Mul(gx, r_b), inner), axis)
    g_mean = Neg(Mul(r, _channel_sum(g_xh, axis)))
    g_r = Add(_channel_sum(Mul(Mul(gx, s_b), inner), axis), _channel_sum(Mul(g_xh, centered), axis))
    g_var = Mul(g_r, Mul(Mul(r, Mul(r, r)), -0.5))
    return g_dy, g_x, g_scale, g_mean, g_var


@BatchNormGrad.samples
def _batch_norm_grad(rng):
    for shape, fmt in LAYOUTS:
        for training in (False, True):
            x = rng.standard_normal(shape)
            axes = tuple(i for i in range(x.ndim) if i != (x.ndim - 1 if fmt == "NHWC" else 1))
            scale, _, mean, var = _channel_params(rng, 3)
            if training:  # the batch statistics, as BatchNorm saves them
                mean, var = x.mean(axis=axes), x.var(axis=axes)
            yield (rng.standard_normal(shape), x, scale, mean, var), \
                {"is_training": training, "data_format": fmt}


def _layer_norm_infer(x, gamma, beta, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
    for name, s in (("input_x", x), ("gamma", gamma), ("beta", beta)):
        check_dtype(name, s, FLOATS)
    if x.ndim == 0:
        raise ValueError("input_x must be at least 1-d, got a 0-d tensor")
    if not isinstance(epsilon, float) or epsilon <= 0:
        raise ValueError(f"epsilon must be a positive float, got {epsilon!r}")
    axes = _norm_axes(x.shape, begin_norm_axis)
    params = x.shape[normalize_axis(begin_params_axis, x.ndim, "begin_params_axis"):]
    for name, s in (("gamma", gamma), ("beta", beta)):
        if s.shape != params:
            raise ValueError(f"{name} shape {shape_text(s.shape)} must be input_x shape "
                             f"{shape_text(x.shape)}[begin_params_axis={begin_params_axis}:] "
                             f"= {shape_text(params)}")
    stat = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
    return TensorSpec(x.shape, x.dtype), TensorSpec(stat, x.dtype), TensorSpec(stat, x.dtype)


LayerNorm = OpDef(
    "LayerNorm", (Arg("input_x"), Arg("gamma"), Arg("beta")),
    (Attr("begin_norm_axis", 1), Attr("begin_params_axis", 1), Attr("epsilon", 1e-7)),
    infer=_layer_norm_infer,
    doc="""Layer normalization over the axes from ``begin_norm_axis`` on; ``gamma`` and
    ``beta`` have shape ``input_x.shape[begin_params_axis:]``.

    Outputs ``(y, mean, rstd)``; ``mean`` and ``rstd = 1 / sqrt(variance + epsilon)``
    keep the normalized axes as size 1. This is MindSpore 2.x's documented third output
    (its CPU kernel returns the variance there instead).
    """)


@LayerNorm.kernel("CPU", dtypes=FLOATS)
def layer_norm_cpu(x, gamma, beta, begin_norm_axis=1, begin_params_axis=1, epsilon=1e-7):
    work = x if x.dtype in (np.float32, np.float64) else x.astype(np.float32)
    axes = _norm_axes(x.shape, begin_norm_axis)
    mean = work.mean(axis=axes, keepdims=True)
    centered = work - mean
    rstd = 1.0 / np.sqrt(np.mean(centered * centered, axis=axes, keepdims=True) + epsilon)
    return centered * rstd * gamma + beta, mean, rstd


@LayerNorm.bprop
def layer_norm_bprop(x, gamma, beta, out, dout, begin_norm_axis=1, begin_params_axis=1,
                     epsilon=1e-7):
    """dx = rstd * (g - mean(g) - xh * mean(g * xh)), g = dy * gamma, plus the paths
    through the ``mean`` and ``rstd`` outputs (d rstd / dx = -rstd^2 * xh / n)."""
    dy, d_mean, d_rstd = (_zeros_for(d, o) for d, o in zip(dout, out))
    mean, rstd = out[1], out[2]
    axes = _norm_axes(x.shape, begin_norm_axis)
    inv_n = 1.0 / math.prod(x.shape[a] for a in axes)
    xh = Mul(Sub(x, mean), rstd)
    g = Mul(dy, gamma)
    g_mean = Mul(reduction.ReduceSum(g, axes, keep_dims=True), inv_n)
    gxh_mean = Mul(reduction.ReduceSum(Mul(g, xh), axes, keep_dims=True), inv_n)
    dx = Mul(rstd, Sub(Sub(g, g_mean), Mul(xh, gxh_mean)))
    via_stats = Sub(Mul(d_mean, inv_n), Mul(Mul(d_rstd, Mul(rstd, rstd)), Mul(xh, inv_n)))
    dx = Add(dx, via_stats)
    return dx, sum_to(Mul(dy, xh), gamma.shape), sum_to(dy, beta.shape)


@LayerNorm.samples
def _layer_norm(rng):
    x = rng.standard_normal((2, 3, 4))
    yield (x, rng.uniform(0.5, 1.5, (3, 4)), rng.standard_normal((3, 4))), {}
    yield (x, rng.uniform(0.5, 1.5, (4,)), rng.standard_normal((4,))), \
        {"begin_norm_axis": -1, "begin_params_axis": -1}
    yield (x, rng.uniform(0.5, 1.5, (3, 4)), rng.standard_normal((3, 4))), \
        {"begin_norm_axis": 2, "begin_params_axis": 1, "epsilon": 1e-3}
    yield (rng.standard_normal((4, 5)), rng.uniform(0.5, 1.5, (5,)),
           rng.standard_normal((5,))), {"begin_norm_axis": 1, "begin_params_axis": 1}


def _l2_normalize_infer(x, axis=0, epsilon=1e-4):
    check_dtype("x", x, FLOATS)
    _l2_axis(axis, x.ndim)
    if not isinstance(epsilon, float) or epsilon < 0:
        raise ValueError(f"epsilon must be a float >= 0, got {epsilon!r}")
    return TensorSpec(x.shape, x.dtype)


L2Normalize = OpDef(
    "L2Normalize", (Arg("x"),), (Attr("axis", 0), Attr("epsilon", 1e-4)),
    infer=_l2_normalize_infer,
    doc="""``x / sqrt(max(sum(x**2, axis), epsilon))``: unit L2 norm along one ``axis``
    (an int or a one-element tuple); ``epsilon`` bounds the squared norm from below.""")


@L2Normalize.kernel("CPU", dtypes=FLOATS)
def l2_normalize_cpu(x, axis=0, epsilon=1e-4):
    work = x if x.dtype in (np.float32, np.float64) else x.astype(np.float32)
    sq = np.sum(work * work, axis=_l2_axis(axis, x.ndim), keepdims=True)
    return work / np.sqrt(np.maximum(sq, epsilon))


@L2Normalize.bprop
def l2_normalize_bprop(x, out, dout, axis=0, epsilon=1e-4):
    """y = x * r with r = rsqrt(max(s, eps)), s = sum(x**2): dx = r * dout - x * r**3 *
    sum(dout * x), the second term only where s > eps (else r is a constant)."""
    from ms_ops.defs import arithmetic, comparison, math_unary

    axes = (_l2_axis(axis, x.ndim),)
    sq = reduction.ReduceSum(Mul(x, x), axes, keep_dims=True)
    r = math_unary.Rsqrt(arithmetic.Maximum(sq, epsilon))
    proj = Mul(reduction.ReduceSum(Mul(dout, x), axes, keep_dims=True), Mul(Mul(r, r), r))
    active = array.Cast(comparison.Greater(sq, epsilon), proj.dtype)
    return (Sub(Mul(dout, r), Mul(x, Mul(proj, active))),)


@L2Normalize.samples
def _l2_normalize(rng):
    yield (rng.standard_normal((3, 4)),), {}
    yield (rng.standard_normal((3, 4)),), {"axis": -1}
    yield (rng.standard_normal((2, 3, 2)),), {"axis": 1, "epsilon": 1e-6}
    # squared norms below epsilon: the floor holds and the result is x / sqrt(epsilon)
    yield (rng.uniform(-0.1, 0.1, (2, 3)),), {"axis": 0, "epsilon": 1.0}


@functional("batch_norm")
def batch_norm(input_x, running_mean, running_var, weight, bias, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalization of ``input_x`` (N, C, ...) over channel axis 1.

    In training the batch statistics normalize and ``running_mean``/``running_var`` are
    updated in place (see BatchNorm); otherwise the running statistics normalize.

    >>> x = Tensor([[1.0, 2.0], [3.0, 6.0]])
    >>> batch_norm(x, ops.zeros(2), ops.ones(2), ops.ones(2), ops.zeros(2), training=True)
    Tensor(shape=[2, 2], dtype=Float32, value=
    [[-9.99994993e-01, -9.99998748e-01],
     [ 9.99994993e-01,  9.99998748e-01]])
    """
    return BatchNorm(input_x, weight, bias, running_mean, running_var, is_training=training,
                     epsilon=float(eps), momentum=momentum)[0]


@functional("layer_norm")
def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalization over the trailing ``normalized_shape`` dimensions.

    >>> layer_norm(ops.ones((2, 3, 4)), (4,)).shape
    (2, 3, 4)
    """
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not shape or input.shape[input.ndim - len(shape):] != shape:
        raise ValueError(f"layer_norm: normalized_shape {shape} must be the trailing dimensions "
                         f"of input shape {input.shape}")
    weight = _full(shape, input, 1.0) if weight is None else weight
    bias = _full(shape, input, 0.0) if bias is None else bias
    begin = input.ndim - len(shape)
    return LayerNorm(input, weight, bias, begin_norm_axis=begin, begin_params_axis=begin,
                     epsilon=float(eps))[0]


@functional("group_norm")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalization: the C channels of ``input`` (N, C, ...) form ``num_groups``
    groups, each normalized over its channels and spatial positions, then scaled and
    shifted per channel by ``weight`` and ``bias`` (C,).

    >>> group_norm(ops.ones((2, 4, 3)), 2).shape
    (2, 4, 3)
    """
    if input.ndim < 2 or not isinstance(num_groups, int) or num_groups <= 0 \
            or input.shape[1] % num_groups:
        raise ValueError(f"group_norm: num_groups {num_groups!r} must be a positive int that "
                         f"divides the channels of input shape {input.shape} (N, C, ...)")
    n, c = input.shape[:2]
    grouped = array.Reshape(input, (n, num_groups, -1))
    k = grouped.shape[2]
    y = LayerNorm(grouped, _full((k,), input, 1.0), _full((k,), input, 0.0), begin_norm_axis=2,
                  begin_params_axis=2, epsilon=float(eps))[0]
    y = array.Reshape(y, input.shape)
    if weight is not None:
        y = Mul(y, _per_channel(weight, input.ndim, 1))
    if bias is not None:
        y = Add(y, _per_channel(bias, input.ndim, 1))
    return y
