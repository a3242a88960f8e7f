"""MindSpore's remaining nn-group names that are compositions of existing operators:
``bias_add``, ``lrn``, ``mirror_pad``, ``channel_shuffle``, ``rms_norm``, ``diag_embed``,
``bidense``, ``gumbel_softmax``, ``clip_by_norm``/``clip_by_global_norm`` and the class
forms (``ops.BiasAdd()``, ``ops.LRN()``, ``ops.GLU()``, ``ops.Dropout2D()`` ...).

Each differentiates through the operators it is made of; the numbers follow MindSpore
2.10's CPU kernels where they exist and its documentation where they do not (RmsNorm,
LogSoftmaxExt and InplaceSigmoid have no CPU kernel there).
"""

from __future__ import annotations

import math

import numpy as np

import ms_ops as ops
from ms_ops.defs.array_slice import PadV3
from ms_ops.opdef import functional, primitive_class
from ms_tensor.tensor import Tensor

_FORMATS = {"NCHW": 1, "NCDHW": 1, "NHWC": -1}


def _tensor(name, what, x):
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}: {what} must be a Tensor, got {type(x).__name__}")


def _bias_add(input_x, bias, data_format="NCHW"):
    _tensor("BiasAdd", "input_x", input_x)
    _tensor("BiasAdd", "bias", bias)
    if data_format not in _FORMATS:
        raise ValueError(f"BiasAdd: data_format must be one of {sorted(_FORMATS)}, got "
                         f"{data_format!r}")
    if input_x.ndim < 2 or bias.ndim != 1:
        raise ValueError(f"BiasAdd: input_x must have rank >= 2 and bias rank 1, got shapes "
                         f"{input_x.shape} and {bias.shape}")
    axis = _FORMATS[data_format] % input_x.ndim
    if bias.shape[0] != input_x.shape[axis]:
        raise ValueError(f"BiasAdd: bias shape {bias.shape} must equal input_x's channel "
                         f"axis {axis} ({input_x.shape[axis]}) for data_format {data_format}")
    shape = [1] * input_x.ndim
    shape[axis] = bias.shape[0]
    return input_x + ops.reshape(bias, tuple(shape))


@functional("bias_add")
def bias_add(input_x, bias):
    """``input_x`` plus the 1-d ``bias`` along the channel axis (axis 1).

    >>> bias_add(ops.zeros((2, 3)), Tensor([1.0, 2.0, 3.0])).asnumpy().tolist()
    [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    """
    return _bias_add(input_x, bias)


BiasAdd = primitive_class("BiasAdd", _bias_add, ("data_format",))


@functional("lrn")
def lrn(x, depth_radius=5, bias=1.0, alpha=1.0, beta=0.5, norm_region="ACROSS_CHANNELS"):
    """Local response normalization of (N, C, H, W) ``x``: x / (bias + alpha * the sum of
    x^2 over the ``2 * depth_radius + 1`` neighbouring channels) ** beta.

    >>> [round(v, 4) for v in lrn(ops.ones((1, 3, 1, 1)), 1, 1.0, 1.0, 0.5).reshape(-1).tolist()]
    [0.5774, 0.5, 0.5774]
    """
    _tensor("LRN", "x", x)
    if norm_region != "ACROSS_CHANNELS":
        raise ValueError(f"LRN: norm_region must be 'ACROSS_CHANNELS', got {norm_region!r}")
    if not isinstance(depth_radius, int) or isinstance(depth_radius, bool) or depth_radius < 0:
        raise ValueError(f"LRN: depth_radius must be an int >= 0, got {depth_radius!r}")
    if x.ndim != 4:
        raise ValueError(f"LRN: x must be 4-d (N, C, H, W), got shape {x.shape}")
    r, c = depth_radius, x.shape[1]
    sq = ops.pad(x * x, (0, 0, 0, 0, r, r))
    total = sq[:, 0:c]
    for k in range(1, 2 * r + 1):
        total = total + sq[:, k:k + c]
    return x / ops.pow(bias + alpha * total, beta)


LRN = primitive_class("LRN", lrn, ("depth_radius", "bias", "alpha", "beta", "norm_region"))
GLU = primitive_class("GLU", lambda x, axis=-1: ops.glu(x, axis), ("axis",))

_MIRROR = {"REFLECT": "reflect", "SYMMETRIC": "symmetric"}


@functional("mirror_pad")
def mirror_pad(input_x, paddings, mode="REFLECT"):
    """Pad each axis by mirroring: ``paddings`` is (rank, 2) (before, after) per axis;
    REFLECT leaves the edge out of the mirror, SYMMETRIC repeats it.

    >>> mirror_pad(Tensor([[1.0, 2.0, 3.0]]), Tensor([[0, 0], [2, 1]]), "SYMMETRIC").tolist()
    [[2.0, 1.0, 1.0, 2.0, 3.0, 3.0]]
    """
    _tensor("MirrorPad", "input_x", input_x)
    if mode not in _MIRROR:
        raise ValueError(f"MirrorPad: mode must be 'REFLECT' or 'SYMMETRIC', got {mode!r}")
    pads = np.asarray(paddings.asnumpy() if isinstance(paddings, Tensor) else paddings)
    if pads.shape != (input_x.ndim, 2) or not np.issubdtype(pads.dtype, np.integer):
        raise ValueError(f"MirrorPad: paddings must be integers of shape ({input_x.ndim}, 2) "
                         f"for input shape {input_x.shape}, got {pads.dtype} {pads.shape}")
    flat = tuple(int(v) for pair in pads[::-1] for v in pair)  # PadV3: last axis first
    return PadV3(input_x, flat, 0, mode=_MIRROR[mode])


MirrorPad = primitive_class("MirrorPad", mirror_pad, ("mode",))


@functional("channel_shuffle")
def channel_shuffle(x, groups):
    """Interleave the channels of ``groups`` groups (ShuffleNet): (N, g, C/g, ...) ->
    (N, C/g, g, ...).

    >>> channel_shuffle(ops.arange(4).reshape(1, 4, 1), 2).reshape(-1).tolist()
    [0, 2, 1, 3]
    """
    _tensor("ChannelShuffle", "x", x)
    if not isinstance(groups, int) or isinstance(groups, bool) or groups < 1:
        raise ValueError(f"ChannelShuffle: groups must be a positive int, got {groups!r}")
    if x.ndim < 3 or x.shape[1] % groups:
        raise ValueError(f"ChannelShuffle: x must have rank >= 3 and channels divisible by "
                         f"groups {groups}, got shape {x.shape}")
    n, c, rest = x.shape[0], x.shape[1], x.shape[2:]
    y = ops.reshape(x, (n, groups, c // groups) + rest)
    y = ops.transpose(y, (0, 2, 1) + tuple(range(3, 3 + len(rest))))
    return ops.reshape(y, x.shape)


ChannelShuffle = primitive_class("ChannelShuffle", lambda x, group: channel_shuffle(x, group),
                                 ("group",))


@functional("rms_norm")
def rms_norm(x, gamma, epsilon=1e-6):
    """Root-mean-square normalization over ``gamma``'s trailing axes, scaled by ``gamma``:
    returns ``(x * rstd * gamma, rstd)`` with rstd = 1 / sqrt(mean(x^2) + epsilon).

    >>> round(float(rms_norm(Tensor([[3.0, 4.0]]), Tensor([1.0, 1.0]))[1]), 4)
    0.2828
    """
    _tensor("RmsNorm", "x", x)
    _tensor("RmsNorm", "gamma", gamma)
    k = gamma.ndim
    if k == 0 or k > x.ndim or x.shape[x.ndim - k:] != gamma.shape:
        raise ValueError(f"RmsNorm: gamma shape {gamma.shape} must equal the trailing axes of "
                         f"x shape {x.shape}")
    if not 0 < epsilon <= 1:
        raise ValueError(f"RmsNorm: epsilon must be in (0, 1], got {epsilon!r}")
    axes = tuple(range(x.ndim - k, x.ndim))
    rstd = ops.rsqrt(ops.mean(x * x, axes, keep_dims=True) + epsilon)
    return x * rstd * gamma, rstd


RmsNorm = primitive_class("RmsNorm", rms_norm, ("epsilon",))


@functional("diag_embed")
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """Matrices with the last axis of ``input`` on their ``offset`` diagonal, the two new
    axes placed at ``dim1`` and ``dim2`` of the result.

    >>> diag_embed(Tensor([1.0, 2.0]), 1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
    """
    _tensor("diag_embed", "input", input)
    if input.ndim == 0:
        raise ValueError("diag_embed: input must have rank >= 1, got a 0-d Tensor")
    rank = input.ndim + 1
    d1, d2 = (d + rank if d < 0 else d for d in (dim1, dim2))
    if not (0 <= d1 < rank and 0 <= d2 < rank) or d1 == d2:
        raise ValueError(f"diag_embed: dim1 {dim1} and dim2 {dim2} must be different axes of "
                         f"the rank-{rank} result (input shape {input.shape})")
    n = input.shape[-1]
    m = n + abs(offset)
    eye = np.zeros((n, m * m), np.float32)
    k = np.arange(n)
    eye[k, (k + max(-offset, 0)) * m + k + max(offset, 0)] = 1.0
    work = input if input.is_floating_point() else input.astype("float32")
    out = ops.matmul(work, Tensor(eye).astype(work.dtype)) if input.ndim > 1 else \
        ops.matmul(ops.expand_dims(work, 0), Tensor(eye).astype(work.dtype))[0]
    out = ops.reshape(out, input.shape[:-1] + (m, m)).astype(input.dtype)
    rest = list(range(rank - 2))
    order = [0] * rank
    others = iter(rest)
    for axis in range(rank):
        order[axis] = rank - 2 if axis == d1 else rank - 1 if axis == d2 else next(others)
    return ops.transpose(out, tuple(order))


@functional("bidense")
def bidense(input1, input2, weight, bias=None):
    """The bilinear layer: out[..., o] = input1 @ weight[o] @ input2 (+ bias[o]).

    >>> bidense(ops.ones((1, 2)), ops.ones((1, 3)), ops.ones((4, 2, 3))).tolist()
    [[6.0, 6.0, 6.0, 6.0]]
    """
    for what, t in (("input1", input1), ("input2", input2), ("weight", weight)):
        _tensor("bidense", what, t)
    if weight.ndim != 3 or input1.shape[-1] != weight.shape[1] or \
            input2.shape[-1] != weight.shape[2] or input1.shape[:-1] != input2.shape[:-1]:
        raise ValueError(f"bidense: weight (out, in1, in2) {weight.shape} does not fit input1 "
                         f"{input1.shape} and input2 {input2.shape}")
    out_n, in1, in2 = weight.shape
    lead = input1.shape[:-1]
    x1 = ops.reshape(input1, (-1, in1))
    x2 = ops.reshape(input2, (-1, in2))
    w = ops.reshape(ops.transpose(weight, (1, 0, 2)), (in1, out_n * in2))
    y = ops.reshape(ops.matmul(x1, w), (-1, out_n, in2))
    out = ops.sum(y * ops.expand_dims(x2, 1), -1)
    if bias is not None:
        out = out + bias
    return ops.reshape(out, lead + (out_n,))


@functional("gumbel_softmax")
def gumbel_softmax(logits, tau=1.0, hard=False, dim=-1):
    """A sample of the Gumbel-softmax distribution over ``dim``: softmax((logits + g) / tau)
    with g ~ Gumbel(0, 1); ``hard`` returns its one-hot argmax with the soft gradient.

    >>> gumbel_softmax(ops.zeros((2, 3)), hard=True).sum(-1).tolist()
    [1.0, 1.0]
    """
    _tensor("gumbel_softmax", "logits", logits)
    if not logits.is_floating_point():
        raise TypeError(f"gumbel_softmax: logits must be float16/32/64, got {logits.dtype}")
    if not isinstance(tau, (int, float)) or tau <= 0:
        raise ValueError(f"gumbel_softmax: tau must be a positive number, got {tau!r}")
    u = ops.uniform(logits.shape, Tensor(1e-20), Tensor(1.0)).astype(logits.dtype)
    soft = ops.softmax((logits - ops.log(-ops.log(u))) / tau, dim)
    if not hard:
        return soft
    index = ops.argmax(soft, dim, keepdim=True)
    one_hot = ops.tensor_scatter_elements(ops.zeros_like(soft), index,
                                          ops.ones(index.shape, soft.dtype), axis=dim)
    return one_hot - ops.stop_gradient(soft) + soft


def _as_list(name, x):
    if isinstance(x, Tensor):
        return [x], True
    if isinstance(x, (list, tuple)) and x and all(isinstance(t, Tensor) for t in x):
        return list(x), False
    raise TypeError(f"{name}: x must be a Tensor or a non-empty list/tuple of Tensors, got "
                    f"{type(x).__name__}")


@functional("clip_by_norm")
def clip_by_norm(x, max_norm, norm_type=2.0, error_if_nonfinite=False):
    """Scale ``x`` (a tensor or a list of them, taken together) so that its ``norm_type``
    norm is at most ``max_norm``: x * min(1, max_norm / (norm + 1e-6)).

    >>> [round(v, 4) for v in clip_by_norm(Tensor([3.0, 4.0]), 1.0).tolist()]
    [0.6, 0.8]
    """
    items, single = _as_list("clip_by_norm", x)
    norm_type = float(norm_type)
    if norm_type == math.inf:
        total = ops.amax(ops.stack([ops.amax(ops.abs(t)) for t in items]))
    else:
        total = ops.pow(sum(ops.sum(ops.pow(ops.abs(t.astype("float32")), norm_type))
                            for t in items), 1.0 / norm_type)
    if error_if_nonfinite and not bool(ops.isfinite(total)):
        raise RuntimeError(f"clip_by_norm: the total {norm_type} norm is {float(total)}, not "
                           "finite; pass error_if_nonfinite=False to clip anyway")
    coef = ops.clamp(max_norm / (total + 1e-6), max=1.0)
    out = [t * coef.astype(t.dtype) for t in items]
    return out[0] if single else out


@functional("clip_by_global_norm")
def clip_by_global_norm(x, clip_norm=1.0, use_norm=None):
    """Scale every tensor of ``x`` by clip_norm / max(global_norm, clip_norm), the global
    norm being the 2-norm of all of them together (or ``use_norm`` when given).

    >>> round(float(clip_by_global_norm((Tensor([3.0]), Tensor([4.0])), 1.0)[1]), 4)
    0.8
    """
    if not isinstance(x, (list, tuple)) or not x or \
            not all(isinstance(t, Tensor) for t in x):
        raise TypeError(f"clip_by_global_norm: x must be a non-empty tuple of Tensors, got "
                        f"{type(x).__name__}")
    if not isinstance(clip_norm, (int, float)) or clip_norm <= 0:
        raise ValueError(f"clip_by_global_norm: clip_norm must be a positive number, got "
                         f"{clip_norm!r}")
    norm = ops.sqrt(sum(ops.sum(ops.square(t.astype("float32"))) for t in x)) \
        if use_norm is None else use_norm
    scale = clip_norm / ops.maximum(norm, clip_norm)
    return tuple(t * scale.astype(t.dtype) for t in x)


def _dropout_nd(name, spatial):
    def call(x, keep_prob=0.5):
        if not isinstance(keep_prob, (int, float)) or not 0 <= keep_prob <= 1:
            raise ValueError(f"{name}: keep_prob must be a number in [0, 1], got {keep_prob!r}")
        _tensor(name, "x", x)
        if x.ndim != spatial + 2:
            raise ValueError(f"{name}: x must be {spatial + 2}-d, got shape {x.shape}")
        if keep_prob == 0:
            return x * 0, ops.zeros(x.shape, "bool")
        channel = ops.dropout(ops.ones(x.shape[:2] + (1,) * spatial, x.dtype), 1 - keep_prob)
        return x * channel, ops.broadcast_to(channel != 0, x.shape)
    return primitive_class(name, call, ("keep_prob",))


Dropout2D = _dropout_nd("Dropout2D", 2)
Dropout3D = _dropout_nd("Dropout3D", 3)


@functional("inplace_sigmoid")
def inplace_sigmoid(input):
    """``input`` overwritten with its sigmoid (the same tensor comes back).

    >>> inplace_sigmoid(Tensor([0.0])).tolist()
    [0.5]
    """
    _tensor("inplace_sigmoid", "input", input)
    return input.sigmoid_()


LogSoftmaxExt = primitive_class(
    "LogSoftmaxExt", lambda input, dim=None, dtype=None: ops.log_softmax(
        input if dtype is None else input.astype(dtype), -1 if dim is None else dim))
