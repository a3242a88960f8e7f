"""``ctc_loss`` and ``ops.CTCLossV2``: the CTC loss and its log-alpha lattice, written
entirely with tensor operators so compiled graphs record it and autodiff differentiates
it.

The blank-extended labels, the skip rule (s - 2 -> s between two different labels) and
the length masks are built from the ``targets`` and length tensors themselves; the
recursion runs one step per frame with a stabilized log-sum-exp. Unreachable states hold
a large finite negative number inside (gradients stay finite) and come out as -inf, as
MindSpore's do. The gradient is the exact derivative; for log-probabilities from a
log-softmax it equals MindSpore's (PyTorch's) CTC gradient.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.defs.nn_loss import _check_functional_reduction
from ms_ops.opdef import functional, primitive_class
from ms_tensor import dtype as mstype
from ms_tensor.tensor import Tensor, value_read_hook


def _check(name, log_probs, targets, input_lengths, target_lengths, blank):
    if not isinstance(log_probs, Tensor) or log_probs.ndim != 3 or \
            not log_probs.is_floating_point():
        raise ValueError(f"{name}: log_probs must be a float (T, N, C) Tensor, got "
                         f"{getattr(log_probs, 'shape', type(log_probs).__name__)}")
    t_len, n, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise ValueError(f"{name}: blank {blank} must be in [0, {classes})")
    for what, t, ndim in (("targets", targets, 2), ("input_lengths", input_lengths, 1),
                          ("target_lengths", target_lengths, 1)):
        if not isinstance(t, Tensor) or t.is_floating_point() or t.ndim != ndim or \
                t.shape[0] != n:
            raise ValueError(f"{name}: {what} must be an int Tensor with {n} rows"
                             f"{' (N, S)' if ndim == 2 else ''}, got "
                             f"{getattr(t, 'dtype', '')} {getattr(t, 'shape', type(t))}")
    if value_read_hook() is None:  # eager: check the lengths' values (a graph cannot)
        in_len, tg_len = input_lengths.asnumpy(), target_lengths.asnumpy()
        if (in_len > t_len).any() or (tg_len > targets.shape[1]).any() or \
                (tg_len < 0).any() or (in_len < tg_len).any():
            raise ValueError(f"{name}: input_lengths {in_len.tolist()} (at most T={t_len}) "
                             f"and target_lengths {tg_len.tolist()} (at most "
                             f"S={targets.shape[1]}, and at most the input length) do not "
                             f"fit")


def _lse(a, b, c):
    stacked = ops.stack((a, b, c), 0)
    top = ops.stop_gradient(ops.amax(stacked, 0))
    return top + ops.log(ops.sum(ops.exp(stacked - top), 0))


def _ctc(name, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    _check(name, log_probs, targets, input_lengths, target_lengths, blank)
    t_len, n, _ = log_probs.shape
    s_len = 2 * targets.shape[1] + 1
    dt = log_probs.dtype
    neg = -1.5e4 if dt == mstype.float16 else -1e30  # "log 0", finite in every dtype
    tg = targets.astype("int64")
    ext = ops.reshape(ops.stack((ops.full(tg.shape, blank, dtype=mstype.int64), tg), 2), (n, -1))
    ext = ops.concat((ext, ops.full((n, 1), blank, dtype=mstype.int64)), 1)
    states = Tensor(np.arange(s_len)[None, :])
    used = states < ops.expand_dims(target_lengths.astype("int64") * 2 + 1, 1)
    skip = ops.concat((ops.zeros((n, 2), mstype.bool_), (ext[:, 2:] != blank) &
                       (ext[:, 2:] != ext[:, :-2])), 1)
    low = ops.full((n, s_len), neg, dtype=dt)
    pad1, pad2 = ops.full((n, 1), neg, dtype=dt), ops.full((n, 2), neg, dtype=dt)
    in_len = ops.expand_dims(input_lengths.astype("int64"), 1)
    alpha = ops.where(used & (states < 2), ops.gather_elements(log_probs[0], 1, ext), low)
    rows, final = [ops.where(in_len > 0, alpha, low)], alpha
    for t in range(1, t_len):
        prev2 = ops.where(skip, ops.concat((pad2, alpha[:, :-2]), 1), low)
        step = _lse(alpha, ops.concat((pad1, alpha[:, :-1]), 1), prev2) + \
            ops.gather_elements(log_probs[t], 1, ext)
        alpha = ops.where(used, step, low)
        live = in_len > t
        rows.append(ops.where(live, alpha, low))
        final = ops.where(live, alpha, final)
    last = ops.expand_dims(target_lengths.astype("int64") * 2, 1)
    end = ops.gather_elements(final, 1, last)[:, 0]
    end2 = ops.gather_elements(final, 1, ops.maximum(last - 1, 0))[:, 0]
    end2 = ops.where(target_lengths > 0, end2, ops.full_like(end2, neg))
    nll = -_lse(end, end2, ops.full_like(end, neg))
    impossible = nll > -neg / 2
    nll = ops.where(impossible, ops.full_like(nll, 0.0 if zero_infinity else float("inf")),
                    nll)
    log_alpha = ops.transpose(ops.stack(rows, 0), (1, 0, 2))
    log_alpha = ops.where(log_alpha <= neg / 2, ops.full_like(log_alpha, float("-inf")),
                          log_alpha)
    return nll, log_alpha


@functional("ctc_loss")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The CTC loss of (T, N, C) ``log_probs`` against padded (N, S) ``targets``; returns
    ``(loss, log_alpha)``. ``'mean'`` divides each loss by its target length first.

    >>> lp = ops.log_softmax(ops.zeros((4, 1, 3)), -1)
    >>> round(float(ctc_loss(lp, Tensor([[1, 2]]), Tensor([4]), Tensor([2]), 0, "sum")[0]), 4)
    1.6864
    """
    _check_functional_reduction("ctc_loss", reduction)
    nll, log_alpha = _ctc("ctc_loss", log_probs, targets, input_lengths, target_lengths,
                          blank, zero_infinity)
    if reduction == "sum":
        return ops.sum(nll), log_alpha
    if reduction == "mean":
        lengths = ops.clamp(target_lengths, min=1).astype(nll.dtype)
        return ops.mean(nll / lengths), log_alpha
    return nll, log_alpha


CTCLossV2 = primitive_class(
    "CTCLossV2", lambda log_probs, targets, input_lengths, target_lengths, blank=0,
    reduction="none", zero_infinity=False: ctc_loss(log_probs, targets, input_lengths,
                                                    target_lengths, blank, reduction,
                                                    zero_infinity),
    ("blank", "reduction", "zero_infinity"))
