"""``mindspore.mint.nn.functional``: PyTorch-shaped neural-network functions on ``ops``.

Each name calls the operator ``ops`` uses; the adapters only translate PyTorch's argument
names and defaults (``dim``, ``negative_slope``, ``padding='same'``, ``stride=None``
meaning the kernel size). The in-place forms (``relu_``, ``elu_``, ...) write the result
into ``input``'s buffer and return ``input``, as PyTorch's do; they are for inference:
the write is not recorded for differentiation.
"""

from __future__ import annotations

import ms_ops as _ops
from ms_tensor.tensor import Tensor

# Names whose ops function already has mint's arguments and meaning.
FORWARDED = (
    "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
    "adaptive_max_pool1d", "adaptive_max_pool2d", "batch_norm", "broadcast_to", "clamp",
    "conv_transpose2d", "cosine_embedding_loss", "embedding", "fold", "group_norm",
    "hardshrink", "hardsigmoid", "hardswish", "interpolate", "l1_loss", "layer_norm",
    "logsigmoid", "max_unpool2d", "mish", "mse_loss", "pixel_shuffle", "prelu", "selu",
    "sigmoid", "softshrink", "tanh", "unfold", "binary_cross_entropy_with_logits",
    "soft_margin_loss", "grid_sample",
)

__all__ = [*FORWARDED, "avg_pool1d", "avg_pool2d", "avg_pool3d", "binary_cross_entropy",
           "conv1d", "conv2d", "conv3d", "cross_entropy", "dropout", "dropout2d", "elu",
           "elu_", "flatten", "gelu", "glu", "hardtanh", "hardtanh_", "inplace_elu",
           "inplace_silu", "kl_div", "leaky_relu", "linear", "log_softmax", "max_pool2d",
           "nll_loss", "normalize", "one_hot", "pad", "relu", "relu_", "relu6", "sigmoid_",
           "silu", "silu_func", "smooth_l1_loss", "softmax", "softplus", "threshold",
           "threshold_", "upsample"]


def __getattr__(name):
    if name in FORWARDED:
        value = getattr(_ops, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'mint.nn.functional' has no attribute {name!r}")


def __dir__():
    return sorted(__all__)


def _inplace(input, value):
    """Write ``value`` into ``input`` (PyTorch's trailing-underscore functions)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"in-place functions need a Tensor input, got {type(input).__name__}")
    input.assign_value(value.asnumpy())
    return input


def linear(input, weight, bias=None):
    """``input @ weight.T + bias``: weight is (out_features, in_features)."""
    out = _ops.matmul(input, _ops.swapaxes(weight, -1, -2))
    return out if bias is None else out + bias


def _conv_padding(padding):
    if isinstance(padding, str):
        return padding, 0
    return "pad", padding


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-d convolution; ``padding`` is an int, a tuple or 'same'/'valid'."""
    mode, pad = _conv_padding(padding)
    return _ops.conv1d(input, weight, bias, stride, mode, pad, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-d convolution; ``padding`` is an int, a pair or 'same'/'valid'."""
    mode, pad = _conv_padding(padding)
    return _ops.conv2d(input, weight, bias, stride, mode, pad, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-d convolution; ``padding`` is an int, a triple or 'same'/'valid'."""
    mode, pad = _conv_padding(padding)
    return _ops.conv3d(input, weight, bias, stride, mode, pad, dilation, groups)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-d average pooling; ``stride`` defaults to ``kernel_size``."""
    return _ops.avg_pool1d(input, kernel_size, kernel_size if stride is None else stride,
                           padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-d average pooling; ``stride`` defaults to ``kernel_size``."""
    return _ops.avg_pool2d(input, kernel_size, kernel_size if stride is None else stride,
                           padding, ceil_mode, count_include_pad, divisor_override or 0)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-d average pooling; ``stride`` defaults to ``kernel_size``."""
    return _ops.avg_pool3d(input, kernel_size, kernel_size if stride is None else stride,
                           padding, ceil_mode, count_include_pad, divisor_override or 0)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-d max pooling (mint's argument order: ceil_mode before return_indices)."""
    return _ops.max_pool2d(input, kernel_size, stride, padding, dilation, return_indices,
                           ceil_mode)


def binary_cross_entropy(input, target, weight=None, reduction="mean"):
    """Binary cross-entropy of probabilities ``input`` against ``target``."""
    return _ops.binary_cross_entropy(input, target, weight, reduction)


def cross_entropy(input, target, weight=None, ignore_index=-100, reduction="mean",
                  label_smoothing=0.0):
    """Cross-entropy of logits (class indices or class probabilities as target)."""
    return _ops.cross_entropy(input, target, weight, ignore_index, reduction, label_smoothing)


def nll_loss(input, target, weight=None, ignore_index=-100, reduction="mean"):
    """Negative log-likelihood of log-probabilities ``input``."""
    return _ops.nll_loss(input, target, weight, ignore_index, reduction)


def smooth_l1_loss(input, target, reduction="mean", beta=1.0):
    """Smooth L1 (Huber / beta) loss; mint reduces by the mean by default."""
    return _ops.smooth_l1_loss(input, target, beta, reduction)


def kl_div(input, target, reduction="mean", log_target=False):
    """KL divergence with log-probabilities ``input``; ``log_target`` if target is too."""
    if log_target:
        out = _ops.exp(target) * (target - input)
        return _reduce(out, reduction, input.shape[0], "kl_div")
    return _ops.kl_div(input, target, reduction)


def _reduce(out, reduction, batch, name):
    if reduction == "none":
        return out
    if reduction == "sum":
        return out.sum()
    if reduction == "mean":
        return out.mean()
    if reduction == "batchmean":
        return out.sum() / batch
    raise ValueError(f"{name}: reduction must be 'none', 'mean', 'sum' or 'batchmean', got "
                     f"{reduction!r}")


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero elements with probability ``p`` and scale the rest by ``1 / (1 - p)``."""
    out = _ops.dropout(input, p, training)
    return _inplace(input, out) if inplace and training else out


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels with probability ``p``."""
    out = _ops.dropout2d(input, p, training)
    return _inplace(input, out) if inplace and training else out


def elu(input, alpha=1.0, inplace=False):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""
    out = _ops.elu(input, alpha=alpha)
    return _inplace(input, out) if inplace else out


def elu_(input, alpha=1.0):
    """In-place ``elu``."""
    return _inplace(input, _ops.elu(input, alpha=alpha))


inplace_elu = elu_


def gelu(input, *, approximate="none"):
    """GeLU, exact (erf) or ``approximate='tanh'``."""
    return _ops.gelu(input, approximate)


def glu(input, dim=-1):
    """Gated linear unit: first half times sigmoid of the second half along ``dim``."""
    return _ops.glu(input, dim)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    """Clamp to [min_val, max_val]."""
    out = _ops.hardtanh(input, min_val, max_val)
    return _inplace(input, out) if inplace else out


def hardtanh_(input, min_val=-1, max_val=1):
    """In-place ``hardtanh``."""
    return _inplace(input, _ops.hardtanh(input, min_val, max_val))


def leaky_relu(input, negative_slope=0.01):
    """x for x > 0, negative_slope * x otherwise."""
    return _ops.leaky_relu(input, alpha=negative_slope)


def log_softmax(input, dim=None, *, dtype=None):
    """log(softmax(input)) over ``dim`` (the last axis when None)."""
    if dtype is not None:
        input = input.astype(dtype)
    return _ops.log_softmax(input, axis=-1 if dim is None else dim)


def softmax(input, dim=None, dtype=None):
    """Softmax over ``dim`` (the last axis when None)."""
    return _ops.softmax(input, -1 if dim is None else dim, dtype=dtype)


def relu(input, inplace=False):
    """max(x, 0)."""
    out = _ops.relu(input)
    return _inplace(input, out) if inplace else out


def relu_(input):
    """In-place ``relu``."""
    return _inplace(input, _ops.relu(input))


def relu6(input, inplace=False):
    """min(max(x, 0), 6)."""
    out = _ops.relu6(input)
    return _inplace(input, out) if inplace else out


def sigmoid_(input):
    """In-place ``sigmoid``."""
    return _inplace(input, _ops.sigmoid(input))


def silu(input, inplace=False):
    """x * sigmoid(x)."""
    out = _ops.silu(input)
    return _inplace(input, out) if inplace else out


def silu_func(input):
    """``silu`` without the ``inplace`` flag."""
    return _ops.silu(input)


def inplace_silu(input):
    """In-place ``silu``."""
    return _inplace(input, _ops.silu(input))


def softplus(input, beta=1, threshold=20):
    """log(1 + exp(beta x)) / beta, and x where beta x > threshold."""
    return _ops.softplus(input, beta=beta, threshold=threshold)


def threshold(input, threshold, value, inplace=False):
    """input where input > threshold, else ``value``."""
    out = _ops.threshold(input, threshold, value)
    return _inplace(input, out) if inplace else out


def threshold_(input, threshold, value):
    """In-place ``threshold``."""
    return _inplace(input, _ops.threshold(input, threshold, value))


def one_hot(tensor, num_classes=-1):
    """One-hot int64 vectors; ``num_classes=-1`` takes the largest index plus one."""
    if num_classes == -1:
        num_classes = int(tensor.asnumpy().max()) + 1 if tensor.size else 0
    return _ops.one_hot(tensor, num_classes, 1, 0).astype("int64")


def pad(input, pad, mode="constant", value=None):
    """Pad the last axes by ``pad`` = (left, right, top, bottom, ...)."""
    return _ops.pad(input, pad, mode, value)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    """``input`` divided by its ``p``-norm along ``dim`` (at least ``eps``)."""
    norm = _ops.norm(input, p, dim, True)
    return input / _ops.maximum(norm, _ops.full_like(norm, eps))


def flatten(input, start_dim=0, end_dim=-1):
    """Merge axes ``start_dim``..``end_dim`` into one (mint flattens everything by default)."""
    return _ops.flatten(input, start_dim=start_dim, end_dim=end_dim)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """``interpolate`` without ``recompute_scale_factor``."""
    return _ops.interpolate(input, size, scale_factor, mode, align_corners)
