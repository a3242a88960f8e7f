"""Connectionist temporal classification in TensorFlow's operator forms: ``ops.CTCLoss``
(logits, sparse labels, blank = the last class, returning the loss and its gradient) and
``ops.CTCGreedyDecoder``/``ctc_greedy_decoder``; ``ctc_loss``/``CTCLossV2`` (PyTorch's
layout) are tensor compositions in ``nn_ctc_v2``.

The forward-backward recursion runs on the host in float64 over the blank-extended
labels. The loss then enters the graph as ``loss + sum(x * g) - stop_gradient(sum(x * g))``
with ``g`` the recursion's gradient, so autodiff hands back exactly that gradient (times
the incoming one), as MindSpore's CTC gradient operators do.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.defs._host import host_values
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
