"""More activations as compositions of existing operators: ``celu``, ``selu``,
``hardtanh``, ``logsigmoid``, ``softmin``, ``glu``, ``threshold``, ``tanhshrink``,
``rrelu``, ``pixel_shuffle``/``pixel_unshuffle``.

Each differentiates through the operators it is made of; formulas follow MindSpore's
documentation (and PyTorch's, which they copy).
"""

from __future__ import annotations

from ms_ops.defs import array, math_unary
from ms_ops.defs.arithmetic import Abs, Add, Maximum, Minimum, Mul, Neg, Sub, clamp
from ms_ops.defs.array_reorder import Select
from ms_ops.defs.comparison import Greater
from ms_ops.defs.softmax import softmax
from ms_ops.infer import check_int, normalize_axis
from ms_ops.opdef import functional

_SELU_ALPHA = 1.6732632423543772
_SELU_SCALE = 1.0507009873554805


def _elu_part(x, alpha):
    """min(0, alpha * (exp(x / alpha) - 1))."""
    return Minimum(Mul(math_unary.Expm1(Mul(x, 1.0 / alpha)), alpha), 0.0)


@functional("celu")
def celu(x, alpha=1.0):
    """``ops.celu``: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise ValueError("celu: alpha must not be 0")
    return Add(Maximum(x, 0.0), _elu_part(x, alpha))


@functional("selu")
def selu(input_x):
    """``ops.selu``: scale * (max(0, x) + min(0, alpha * (exp(x) - 1))), the self-normalizing
    constants of Klambauer et al."""
    negative = Minimum(Mul(math_unary.Expm1(input_x), _SELU_ALPHA), 0.0)
    return Mul(Add(Maximum(input_x, 0.0), negative), _SELU_SCALE)


@functional("hardtanh")
def hardtanh(input, min_val=-1.0, max_val=1.0):
    """``ops.hardtanh``: input clipped to [min_val, max_val]."""
    if min_val > max_val:
        raise ValueError(f"hardtanh: min_val {min_val} must not exceed max_val {max_val}")
    return clamp(input, min_val, max_val)


@functional("logsigmoid")
def logsigmoid(x):
    """``ops.logsigmoid``: log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)), without overflow."""
    return Sub(Minimum(x, 0.0), math_unary.Log1p(math_unary.Exp(Neg(Abs(x)))))


@functional("softmin")
def softmin(x, axis=-1, *, dtype=None):
    """``ops.softmin``: softmax of -x along ``axis``."""
    if dtype is not None and x.dtype is not dtype:
        x = array.Cast(x, dtype)
    return softmax(Neg(x), axis)


@functional("glu")
def glu(x, axis=-1):
    """``ops.glu``: a * sigmoid(b), ``a`` and ``b`` the halves of ``x`` along ``axis``."""
    from ms_ops.defs.activation import Sigmoid
    from ms_ops.defs.array_join import split

    a = normalize_axis(axis, x.ndim)
    if x.shape[a] % 2:
        raise ValueError(f"glu: axis {a} of input shape {x.shape} must have an even size")
    first, second = split(x, x.shape[a] // 2, a)
    return Mul(first, Sigmoid(second))


@functional("threshold")
def threshold(input, thr, value):
    """``ops.threshold``: input where input > thr, else ``value``."""
    from ms_ops.defs.array_create import full_like

    return Select(Greater(input, thr), input, full_like(input, value))


@functional("tanhshrink")
def tanhshrink(input):
    """``ops.tanhshrink``: input - tanh(input)."""
    from ms_ops.defs.activation import Tanh

    return Sub(input, Tanh(input))


@functional("rrelu")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3):
    """``ops.rrelu``: x where x >= 0, else x times a slope drawn uniformly from
    [lower, upper] for each entry (from the global seed)."""
    if not lower <= upper:
        raise ValueError(f"rrelu: lower {lower} must not exceed upper {upper}")
    from ms_ops.defs.random import rand_like

    slope = Add(Mul(rand_like(input, dtype=input.dtype), upper - lower), lower)
    return Select(Greater(input, 0.0), input, Mul(input, slope))


def _shuffle_check(name, input, factor, arg):
    check_int(arg, factor, minimum=1)
    if input.ndim < 3:
        raise ValueError(f"{name}: input must be at least 3-d (..., C, H, W), got shape "
                         f"{input.shape}")


@functional("pixel_shuffle")
def pixel_shuffle(input, upscale_factor):
    """``ops.pixel_shuffle``: (..., C * r * r, H, W) to (..., C, H * r, W * r)."""
    r = upscale_factor
    _shuffle_check("pixel_shuffle", input, r, "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise ValueError(f"pixel_shuffle: channels {c} must be divisible by "
                         f"upscale_factor ** 2 = {r * r}")
    n = len(lead)
    x = array.Reshape(input, (*lead, c // (r * r), r, r, h, w))
    x = array.Transpose(x, (*range(n), n, n + 3, n + 1, n + 4, n + 2))
    return array.Reshape(x, (*lead, c // (r * r), h * r, w * r))


@functional("pixel_unshuffle")
def pixel_unshuffle(input, downscale_factor):
    """``ops.pixel_unshuffle``: (..., C, H * r, W * r) to (..., C * r * r, H, W)."""
    r = downscale_factor
    _shuffle_check("pixel_unshuffle", input, r, "downscale_factor")
    *lead, c, h, w = input.shape
    if h % r or w % r:
        raise ValueError(f"pixel_unshuffle: height {h} and width {w} must be divisible by "
                         f"downscale_factor {r}")
    n = len(lead)
    x = array.Reshape(input, (*lead, c, h // r, r, w // r, r))
    x = array.Transpose(x, (*range(n), n, n + 2, n + 4, n + 1, n + 3))
    return array.Reshape(x, (*lead, c * r * r, h // r, w // r))

