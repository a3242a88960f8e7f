"""``mint.nn``'s layers without weights, with PyTorch's constructors: activations,
losses, dropout, pooling, folding, upsampling and padding. Each is a thin Cell over the
``mint.nn.functional`` function of the same meaning.
"""

from __future__ import annotations

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.layers.padding import _PadNd
from ms_ops import mint_nn_functional as F

__all__ = ["ELU", "GELU", "GLU", "Hardshrink", "Hardsigmoid", "Hardswish", "Hardtanh",
           "LogSigmoid", "LogSoftmax", "Mish", "ReLU6", "SELU", "SiLU", "Sigmoid", "Softmax",
           "Softshrink", "Tanh", "Threshold", "BCELoss", "BCEWithLogitsLoss",
           "CosineEmbeddingLoss", "CrossEntropyLoss", "KLDivLoss", "L1Loss", "MSELoss",
           "NLLLoss", "SmoothL1Loss", "Dropout", "Dropout2d", "AdaptiveAvgPool1d",
           "AdaptiveAvgPool2d", "AdaptiveAvgPool3d", "AdaptiveMaxPool1d", "AvgPool1d",
           "AvgPool2d", "AvgPool3d", "MaxPool2d", "MaxUnpool2d", "Flatten", "Fold", "Unfold",
           "Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d"]


class _Unary(Cell):
    """An activation with no arguments: ``fn(input)``."""

    fn = None

    def construct(self, input):
        return type(self).fn(input)


class Sigmoid(_Unary):
    """1 / (1 + exp(-x))."""

    fn = staticmethod(ops.sigmoid)


class Tanh(_Unary):
    """tanh(x)."""

    fn = staticmethod(ops.tanh)


class Hardsigmoid(_Unary):
    """relu6(x + 3) / 6."""

    fn = staticmethod(ops.hardsigmoid)


class Hardswish(_Unary):
    """x * relu6(x + 3) / 6."""

    fn = staticmethod(ops.hardswish)


class LogSigmoid(_Unary):
    """log(sigmoid(x))."""

    fn = staticmethod(ops.logsigmoid)


class Mish(_Unary):
    """x * tanh(softplus(x)) (the Mish operator is looked up when called: it comes from a
    plugin, so importing ms-nn must not need it)."""

    fn = staticmethod(lambda x: ops.mish(x))


class SELU(_Unary):
    """The self-normalizing ELU."""

    fn = staticmethod(ops.selu)


class ELU(Cell):
    """x for x > 0, alpha * (exp(x) - 1) otherwise."""

    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = float(alpha), inplace

    def construct(self, input):
        return F.elu(input, self.alpha, self.inplace)


class GELU(Cell):
    """GeLU, exact (erf) or ``approximate='tanh'``.

    >>> GELU()(Tensor([0.0, 1.0])).asnumpy().round(4)
    array([0.    , 0.8413], dtype=float32)
    """

    def __init__(self, approximate="none"):
        super().__init__()
        if approximate not in ("none", "tanh"):
            raise ValueError(f"GELU: approximate must be 'none' or 'tanh', got {approximate!r}")
        self.approximate = approximate

    def construct(self, input):
        return F.gelu(input, approximate=self.approximate)


class GLU(Cell):
    """First half of ``dim`` times sigmoid of the second half."""

    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def construct(self, input):
        return F.glu(input, self.dim)


class Hardshrink(Cell):
    """x where |x| > lambd, else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def construct(self, input):
        return ops.hardshrink(input, lambd=self.lambd)


class Softshrink(Cell):
    """x -+ lambd outside [-lambd, lambd], else 0."""

    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def construct(self, input):
        return ops.softshrink(input, lambd=self.lambd)


class Hardtanh(Cell):
    """Clamp to [min_val, max_val]."""

    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if min_val > max_val:
            raise ValueError(f"Hardtanh: min_val {min_val} must not exceed max_val {max_val}")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def construct(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)


class ReLU6(Cell):
    """min(max(x, 0), 6)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def construct(self, input):
        return F.relu6(input, self.inplace)


class SiLU(Cell):
    """x * sigmoid(x)."""

    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def construct(self, input):
        return F.silu(input, self.inplace)


class Threshold(Cell):
    """input where input > threshold, else ``value``."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def construct(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)


class Softmax(Cell):
    """Softmax over ``dim`` (the last axis when None)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def construct(self, input):
        return F.softmax(input, self.dim)


class LogSoftmax(Cell):
    """log(softmax) over ``dim`` (the last axis when None)."""

    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def construct(self, input):
        return F.log_softmax(input, self.dim)


def _reduction(name, reduction, allowed=("none", "mean", "sum")):
    if reduction not in allowed:
        raise ValueError(f"{name}: reduction must be one of {', '.join(allowed)}, got "
                         f"{reduction!r}")
    return reduction


class _Loss(Cell):
    allowed = ("none", "mean", "sum")

    def __init__(self, reduction="mean"):
        super().__init__()
        self.reduction = _reduction(type(self).__name__, reduction, self.allowed)


class L1Loss(_Loss):
    """|input - target|, reduced."""

    def construct(self, input, target):
        return ops.l1_loss(input, target, self.reduction)


class MSELoss(_Loss):
    """(input - target)^2, reduced."""

    def construct(self, input, target):
        return ops.mse_loss(input, target, self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above; mint reduces by the mean by default."""

    def __init__(self, reduction="mean", beta=1.0):
        super().__init__(reduction)
        self.beta = beta

    def construct(self, input, target):
        return F.smooth_l1_loss(input, target, self.reduction, self.beta)


class KLDivLoss(_Loss):
    """KL divergence of log-probabilities ``input``; 'batchmean' divides by N."""

    allowed = ("none", "mean", "sum", "batchmean")

    def __init__(self, reduction="mean", log_target=False):
        super().__init__(reduction)
        self.log_target = log_target

    def construct(self, input, target):
        return F.kl_div(input, target, self.reduction, self.log_target)


class BCELoss(_Loss):
    """Binary cross-entropy of probabilities."""

    def __init__(self, weight=None, reduction="mean"):
        super().__init__(reduction)
        self.weight = weight

    def construct(self, input, target):
        return F.binary_cross_entropy(input, target, self.weight, self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross-entropy of logits, with class weights ``pos_weight``."""

    def __init__(self, weight=None, reduction="mean", pos_weight=None):
        super().__init__(reduction)
        self.weight, self.pos_weight = weight, pos_weight

    def construct(self, input, target):
        return ops.binary_cross_entropy_with_logits(input, target, self.weight,
                                                    self.pos_weight, self.reduction)


class CosineEmbeddingLoss(_Loss):
    """1 - cos(x1, x2) for target 1, max(0, cos - margin) for target -1."""

    def __init__(self, margin=0.0, reduction="mean"):
        super().__init__(reduction)
        self.margin = margin

    def construct(self, input1, input2, target):
        return ops.cosine_embedding_loss(input1, input2, target, self.margin, self.reduction)


class CrossEntropyLoss(_Loss):
    """Cross-entropy of logits against class indices or probabilities."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean", label_smoothing=0.0):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index
        self.label_smoothing = label_smoothing

    def construct(self, input, target):
        return F.cross_entropy(input, target, self.weight, self.ignore_index, self.reduction,
                               self.label_smoothing)


class NLLLoss(_Loss):
    """Negative log-likelihood of log-probabilities."""

    def __init__(self, weight=None, ignore_index=-100, reduction="mean"):
        super().__init__(reduction)
        self.weight, self.ignore_index = weight, ignore_index

    def construct(self, input, target):
        return F.nll_loss(input, target, self.weight, self.ignore_index, self.reduction)


class _Dropout(Cell):
    fn = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if not 0 <= p <= 1:
            raise ValueError(f"{type(self).__name__}: p must be in [0, 1], got {p!r}")
        self.p, self.inplace = p, inplace

    def construct(self, input):
        if not self.training or self.p == 0:
            return input
        return type(self).fn(input, self.p, True, self.inplace)


class Dropout(_Dropout):
    """Zero elements with probability ``p`` in training, scale the rest by 1/(1-p)."""

    fn = staticmethod(F.dropout)


class Dropout2d(_Dropout):
    """Zero whole channels with probability ``p`` in training."""

    fn = staticmethod(F.dropout2d)


class _Adaptive(Cell):
    fn = None

    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def construct(self, input):
        return type(self).fn(input, self.output_size)


class AdaptiveAvgPool1d(_Adaptive):
    """Average over ``output_size`` bins of the last axis."""

    fn = staticmethod(ops.adaptive_avg_pool1d)


class AdaptiveAvgPool2d(_Adaptive):
    """Average over ``output_size`` bins of the last two axes."""

    fn = staticmethod(ops.adaptive_avg_pool2d)


class AdaptiveAvgPool3d(_Adaptive):
    """Average over ``output_size`` bins of the last three axes."""

    fn = staticmethod(ops.adaptive_avg_pool3d)


class AdaptiveMaxPool1d(Cell):
    """Maximum over ``output_size`` bins of the last axis (and its indices)."""

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def construct(self, input):
        return ops.adaptive_max_pool1d(input, self.output_size, self.return_indices)


class _AvgPool(Cell):
    fn = None

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True, divisor_override=None):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad
        self.divisor_override = divisor_override

    def construct(self, input):
        return type(self).fn(input, self.kernel_size, self.stride, self.padding,
                             self.ceil_mode, self.count_include_pad, self.divisor_override)


class AvgPool1d(_AvgPool):
    """1-d average pooling; ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__(kernel_size, stride, padding, ceil_mode, count_include_pad)

    def construct(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool2d(_AvgPool):
    """2-d average pooling; ``stride`` defaults to ``kernel_size``."""

    fn = staticmethod(F.avg_pool2d)


class AvgPool3d(_AvgPool):
    """3-d average pooling; ``stride`` defaults to ``kernel_size``."""

    fn = staticmethod(F.avg_pool3d)


class MaxPool2d(Cell):
    """2-d max pooling; ``stride`` defaults to ``kernel_size``."""

    def __init__(self, kernel_size=1, stride=None, padding=0, dilation=1, return_indices=False,
                 ceil_mode=False):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding
        self.dilation, self.return_indices, self.ceil_mode = dilation, return_indices, ceil_mode

    def construct(self, input):
        return ops.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                              self.return_indices, self.ceil_mode)


class MaxUnpool2d(Cell):
    """Put each pooled value back at the index ``MaxPool2d`` returned, zeros elsewhere."""

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def construct(self, input, indices, output_size=None):
        return ops.max_unpool2d(input, indices, self.kernel_size, self.stride, self.padding,
                                output_size)


class Flatten(Cell):
    """Merge axes ``start_dim``..``end_dim`` (the batch axis is kept by default)."""

    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def construct(self, input):
        return F.flatten(input, self.start_dim, self.end_dim)


class Unfold(Cell):
    """im2col: sliding blocks as columns (N, C*kh*kw, L)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation = kernel_size, dilation
        self.padding, self.stride = padding, stride

    def construct(self, input):
        return ops.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


class Fold(Cell):
    """col2im: sum columns (N, C*kh*kw, L) back into (N, C, *output_size)."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def construct(self, input):
        return ops.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                        self.stride)


class Upsample(Cell):
    """Resize by ``size`` or ``scale_factor`` (see ``interpolate``)."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.scale_factor, self.mode = size, scale_factor, mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def construct(self, input):
        return ops.interpolate(input, self.size, self.scale_factor, self.mode,
                               self.align_corners, self.recompute_scale_factor)


class UpsamplingNearest2d(Upsample):
    """Nearest-neighbour 2-d upsampling."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, "nearest")


class UpsamplingBilinear2d(Upsample):
    """Bilinear 2-d upsampling with aligned corners (as PyTorch's)."""

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, "bilinear", True)


class ZeroPad1d(_PadNd):
    """Pad the last axis with zeros."""

    dims = 1

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad2d(_PadNd):
    """Pad the last two axes with zeros."""

    dims = 2

    def __init__(self, padding):
        super().__init__(padding, 0.0)


class ZeroPad3d(_PadNd):
    """Pad the last three axes with zeros."""

    dims = 3

    def __init__(self, padding):
        super().__init__(padding, 0.0)
