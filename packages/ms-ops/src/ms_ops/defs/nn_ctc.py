"""Connectionist temporal classification in MindSpore's operator forms: ``ctc_loss`` and
``ops.CTCLossV2`` (PyTorch's layout, blank given, returning the loss and log-alpha),
``ops.CTCLoss`` (TensorFlow's: logits, sparse labels, blank = the last class, returning the
loss and its gradient) and ``ops.CTCGreedyDecoder``/``ctc_greedy_decoder``.

The forward-backward recursion runs on the host in float64 over the blank-extended
labels. The loss then enters the graph as ``loss + sum(x * g) - stop_gradient(sum(x * g))``
with ``g`` the recursion's gradient, so autodiff hands back exactly that gradient (times
the incoming one), as MindSpore's CTC gradient operators do.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.defs._host import host_values
from ms_ops.defs.nn_loss import _check_functional_reduction
from ms_ops.opdef import functional, primitive_class
from ms_tensor.tensor import Tensor

_NEG = -np.inf


def _lse(*terms):
    stacked = np.stack(terms)
    top = np.max(stacked, 0)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return safe + np.log(np.sum(np.exp(stacked - safe), 0))


def _shift(a, k):
    out = np.full_like(a, _NEG)
    if k > 0:
        out[k:] = a[:-k]
    else:
        out[:k] = a[-k:]
    return out


def _forward_backward(lp, labels, blank, merge_repeated=True):
    """One sample: lp (T, C) log-probabilities, labels (L,). Returns (nll, log_alpha
    (T, 2L+1), grad (T, C)) where grad is d nll / d logits for lp = log_softmax(logits)."""
    t_len, classes = lp.shape
    ext = np.full(2 * len(labels) + 1, blank, np.int64)
    ext[1::2] = labels
    states = len(ext)
    skip = np.zeros(states, bool)
    # s-2 -> s jumps the blank between two labels; unmerged repeats may jump too (TF)
    skip[2:] = (ext[2:] != blank) & ((ext[2:] != ext[:-2]) | (not merge_repeated))
    stay = np.ones(states, bool) if merge_repeated else ext == blank
    emit = lp[:, ext]  # (T, S)
    alpha = np.full((t_len, states), _NEG)
    beta = np.full((t_len, states), _NEG)
    if t_len == 0:
        return np.inf, alpha, np.zeros_like(lp)
    alpha[0, :min(2, states)] = emit[0, :min(2, states)]
    for t in range(1, t_len):
        prev = alpha[t - 1]
        alpha[t] = emit[t] + _lse(np.where(stay, prev, _NEG), _shift(prev, 1),
                                  np.where(skip, _shift(prev, 2), _NEG))
    beta[-1, max(states - 2, 0):] = emit[-1, max(states - 2, 0):]
    skip_from = np.concatenate([skip[2:], [False, False]])  # s -> s + 2 allowed
    for t in range(t_len - 2, -1, -1):
        nxt = beta[t + 1]
        beta[t] = emit[t] + _lse(np.where(stay, nxt, _NEG), _shift(nxt, -1),
                                 np.where(skip_from, _shift(nxt, -2), _NEG))
    nll = -_lse(alpha[-1, -1], alpha[-1, -2] if states > 1 else _NEG)
    grad = np.exp(lp)
    if np.isfinite(nll):
        with np.errstate(invalid="ignore"):
            occupancy = np.exp(alpha + beta - emit + nll)
        for s, c in enumerate(ext):
            grad[:, c] -= np.nan_to_num(occupancy[:, s])
    return nll, alpha, grad


def _attach(x, loss, grad):
    """``loss`` (constant) whose gradient with respect to ``x`` (T, N, C) is ``grad``."""
    g = Tensor(grad).astype(x.dtype)
    link = ops.sum(x * g, (0, 2))
    return Tensor(loss).astype(x.dtype) + link - ops.stop_gradient(link)


def _ints(name, what, t, shape=None):
    if not isinstance(t, Tensor) or t.is_floating_point() or \
            (shape is not None and t.shape != shape):
        raise ValueError(f"{name}: {what} must be an int Tensor"
                         f"{'' if shape is None else f' of shape {shape}'}, got "
                         f"{getattr(t, 'dtype', type(t).__name__)} "
                         f"{getattr(t, 'shape', '')}")
    return host_values(name, t).astype(np.int64)


def _ctc_v2(name, log_probs, targets, input_lengths, target_lengths, blank, zero_infinity):
    if not isinstance(log_probs, Tensor) or log_probs.ndim != 3 or \
            not log_probs.is_floating_point():
        raise ValueError(f"{name}: log_probs must be a float (T, N, C) Tensor, got "
                         f"{getattr(log_probs, 'shape', type(log_probs).__name__)}")
    t_len, n, classes = log_probs.shape
    if not 0 <= blank < classes:
        raise ValueError(f"{name}: blank {blank} must be in [0, {classes})")
    tg = _ints(name, "targets", targets)
    if tg.ndim != 2 or tg.shape[0] != n:
        raise ValueError(f"{name}: targets must be (N={n}, S), got {tg.shape}")
    in_len = _ints(name, "input_lengths", input_lengths).reshape(-1)
    tg_len = _ints(name, "target_lengths", target_lengths).reshape(-1)
    if in_len.shape != (n,) or tg_len.shape != (n,) or (in_len > t_len).any() or \
            (tg_len > tg.shape[1]).any() or (tg_len < 0).any() or (in_len < tg_len).any():
        raise ValueError(f"{name}: input_lengths {in_len.tolist()} (at most T={t_len}) and "
                         f"target_lengths {tg_len.tolist()} (at most S={tg.shape[1]}, and "
                         f"at most the input length) need one entry per sample ({n})")
    lp = host_values(name, log_probs).astype(np.float64)
    loss = np.zeros(n)
    log_alpha = np.full((n, t_len, 2 * tg.shape[1] + 1), _NEG)
    grad = np.zeros_like(lp)
    for b in range(n):
        nll, alpha, g = _forward_backward(lp[:in_len[b], b], tg[b, :tg_len[b]], blank)
        log_alpha[b, :in_len[b], :alpha.shape[1]] = alpha
        if not np.isfinite(nll) and zero_infinity:
            nll, g = 0.0, np.zeros_like(g)
        loss[b], grad[:in_len[b], b] = nll, g
    return _attach(log_probs, loss, grad), Tensor(log_alpha.astype(np.float32)).astype(
        log_probs.dtype), tg_len


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
    loss, log_alpha, tg_len = _ctc_v2("ctc_loss", log_probs, targets, input_lengths,
                                      target_lengths, blank, zero_infinity)
    if reduction == "sum":
        return ops.sum(loss), log_alpha
    if reduction == "mean":
        lengths = Tensor(np.maximum(tg_len, 1).astype(np.float32)).astype(loss.dtype)
        return ops.mean(loss / lengths), log_alpha
    return loss, log_alpha


CTCLossV2 = primitive_class(
    "CTCLossV2", lambda log_probs, targets, input_lengths, target_lengths, blank=0,
    reduction="none", zero_infinity=False: ctc_loss(log_probs, targets, input_lengths,
                                                    target_lengths, blank, reduction,
                                                    zero_infinity),
    ("blank", "reduction", "zero_infinity"))


def _collapse(labels):
    return labels[np.concatenate([[True], labels[1:] != labels[:-1]])] if len(labels) else \
        labels


def _ctc_tf(x, labels_indices, labels_values, sequence_length,
            preprocess_collapse_repeated=False, ctc_merge_repeated=True,
            ignore_longer_outputs_than_inputs=False):
    name = "CTCLoss"
    if not isinstance(x, Tensor) or x.ndim != 3 or not x.is_floating_point():
        raise ValueError(f"{name}: x must be float (max_time, batch, classes) logits, got "
                         f"{getattr(x, 'shape', type(x).__name__)}")
    t_len, n, classes = x.shape
    idx = _ints(name, "labels_indices", labels_indices)
    values = _ints(name, "labels_values", labels_values).reshape(-1)
    seq = _ints(name, "sequence_length", sequence_length, (n,))
    if idx.ndim != 2 or idx.shape != (values.shape[0], 2) or \
            ((idx[:, 0] < 0) | (idx[:, 0] >= n)).any():
        raise ValueError(f"{name}: labels_indices must be (K, 2) (batch, position) with one "
                         f"row per label value, got {idx.shape} for {values.shape[0]} values")
    if ((values < 0) | (values >= classes - 1)).any() or (seq > t_len).any():
        raise ValueError(f"{name}: labels must be in [0, {classes - 1}) (the last class is "
                         f"blank) and sequence_length at most {t_len}")
    logits = host_values(name, x).astype(np.float64)
    top = logits.max(-1, keepdims=True)
    lp = logits - top - np.log(np.sum(np.exp(logits - top), -1, keepdims=True))
    loss = np.zeros(n)
    grad = np.zeros_like(lp)
    for b in range(n):
        rows = idx[:, 0] == b
        labels = values[rows][np.argsort(idx[rows, 1], kind="stable")]
        if preprocess_collapse_repeated:
            labels = _collapse(labels)
        needed = len(labels) + (int((labels[1:] == labels[:-1]).sum()) if ctc_merge_repeated
                                else 0)
        if needed > seq[b]:
            if ignore_longer_outputs_than_inputs:
                continue
            raise ValueError(f"{name}: sample {b} needs at least {needed} frames for its "
                             f"{len(labels)} labels but sequence_length is {seq[b]}")
        nll, _, g = _forward_backward(lp[:seq[b], b], labels, classes - 1, ctc_merge_repeated)
        loss[b], grad[:seq[b], b] = nll, g
    return _attach(x, loss, grad), Tensor(grad.astype(np.float32)).astype(x.dtype)


CTCLoss = primitive_class("CTCLoss", _ctc_tf, ("preprocess_collapse_repeated",
                                               "ctc_merge_repeated",
                                               "ignore_longer_outputs_than_inputs"))


@functional("ctc_greedy_decoder")
def ctc_greedy_decoder(inputs, sequence_length, merge_repeated=True):
    """Best-path decoding of (max_time, batch, classes) ``inputs`` (blank = the last
    class): returns sparse ``(indices, values, shape)`` of the decoded labels and the
    (batch, 1) negated sum of each frame's top score.

    >>> ctc_greedy_decoder(Tensor([[[1.0, 0, 0]], [[1.0, 0, 0]]]), Tensor([2]))[1].tolist()
    [0]
    """
    name = "CTCGreedyDecoder"
    if not isinstance(inputs, Tensor) or inputs.ndim != 3 or not inputs.is_floating_point():
        raise ValueError(f"{name}: inputs must be a float (max_time, batch, classes) Tensor, "
                         f"got {getattr(inputs, 'shape', type(inputs).__name__)}")
    t_len, n, classes = inputs.shape
    seq = _ints(name, "sequence_length", sequence_length, (n,))
    if (seq > t_len).any() or (seq < 0).any():
        raise ValueError(f"{name}: sequence_length {seq.tolist()} must be in [0, {t_len}]")
    x = host_values(name, inputs)
    indices, values, score = [], [], np.zeros((n, 1), x.dtype)
    longest = 0
    for b in range(n):
        best = x[:seq[b], b].argmax(-1)
        score[b, 0] = -x[:seq[b], b].max(-1).sum() if seq[b] else 0.0
        if merge_repeated:
            best = _collapse(best)
        best = best[best != classes - 1]
        indices += [(b, i) for i in range(len(best))]
        values += best.tolist()
        longest = max(longest, len(best))
    return (Tensor(np.asarray(indices, np.int64).reshape(-1, 2)),
            Tensor(np.asarray(values, np.int64)), Tensor(np.asarray([n, longest], np.int64)),
            Tensor(score))


CTCGreedyDecoder = primitive_class(
    "CTCGreedyDecoder", lambda inputs, sequence_length, merge_repeated=True: ctc_greedy_decoder(
        inputs, sequence_length, merge_repeated), ("merge_repeated",))
