"""``ops.RNNTLoss``: the RNN-Transducer loss (Graves 2012) of joint-network logits, with its
gradient, as warp-transducer (which MindSpore's kernel follows) computes them.

``acts`` (B, T, U + 1, V) are logits; the log-softmax, the forward (alpha) and backward
(beta) lattices run on the host in float64. The costs enter the graph linked to ``acts``
by their gradient (``cost + sum(acts * g) - stop_gradient(...)``), so autodiff returns the
same gradient the operator's second output holds.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_ops.defs._host import host_values
from ms_ops.opdef import primitive_class
from ms_tensor.tensor import Tensor


def _lattice(lp, labels, blank):
    """One sample: lp (T, U + 1, V) log-probabilities. Returns (cost, grad wrt logits)."""
    t_len, u_len = lp.shape[0], lp.shape[1]
    stay = lp[:, :, blank]  # (T, U + 1)
    move = np.take_along_axis(lp[:, :-1], labels[None, :, None], 2)[..., 0]  # (T, U)
    alpha = np.zeros((t_len, u_len))
    beta = np.zeros((t_len, u_len))
    for t in range(t_len):
        for u in range(u_len):
            if t == 0 and u == 0:
                continue
            terms = []
            if t > 0:
                terms.append(alpha[t - 1, u] + stay[t - 1, u])
            if u > 0:
                terms.append(alpha[t, u - 1] + move[t, u - 1])
            alpha[t, u] = np.logaddexp.reduce(terms)
    for t in range(t_len - 1, -1, -1):
        for u in range(u_len - 1, -1, -1):
            if t == t_len - 1 and u == u_len - 1:
                beta[t, u] = stay[t, u]
                continue
            terms = []
            if t < t_len - 1:
                terms.append(beta[t + 1, u] + stay[t, u])
            if u < u_len - 1:
                terms.append(beta[t, u + 1] + move[t, u])
            beta[t, u] = np.logaddexp.reduce(terms)
    log_p = beta[0, 0]
    grad_lp = np.zeros_like(lp)
    after = np.full((t_len, u_len), -np.inf)
    after[:-1] = beta[1:]
    after[-1, -1] = 0.0  # the final blank ends the lattice
    grad_lp[:, :, blank] = -np.exp(alpha + stay + after - log_p)
    rows, cols = np.meshgrid(np.arange(t_len), np.arange(u_len - 1), indexing="ij")
    grad_lp[rows, cols, labels[None, :]] = -np.exp(alpha[:, :-1] + move + beta[:, 1:] - log_p)
    occupancy = np.exp(alpha + beta - log_p)
    return -log_p, grad_lp + np.exp(lp) * occupancy[..., None]


def _rnnt_loss(acts, labels, input_lengths, label_lengths, blank_label=0):
    name = "RNNTLoss"
    if not isinstance(acts, Tensor) or acts.ndim != 4 or not acts.is_floating_point():
        raise ValueError(f"{name}: acts must be float (B, T, U + 1, V) logits, got "
                         f"{getattr(acts, 'shape', type(acts).__name__)}")
    b, t_max, u_max, classes = acts.shape
    arrays = []
    for what, t, shape in (("labels", labels, (b, u_max - 1)), ("input_lengths", input_lengths,
                                                                (b,)),
                           ("label_lengths", label_lengths, (b,))):
        if not isinstance(t, Tensor) or t.is_floating_point() or t.shape != shape:
            raise ValueError(f"{name}: {what} must be an int Tensor of shape {shape} for acts "
                             f"{acts.shape}, got {getattr(t, 'shape', type(t).__name__)}")
        arrays.append(host_values(name, t).astype(np.int64))
    lab, t_len, u_len = arrays
    if not 0 <= blank_label < classes or (lab < 0).any() or (lab >= classes).any() or \
            (t_len < 1).any() or (t_len > t_max).any() or (u_len < 0).any() or \
            (u_len > u_max - 1).any():
        raise ValueError(f"{name}: blank_label and labels must be in [0, {classes}), "
                         f"input_lengths in [1, {t_max}], label_lengths in [0, {u_max - 1}]")
    logits = host_values(name, acts).astype(np.float64)
    top = logits.max(-1, keepdims=True)
    lp = logits - top - np.log(np.exp(logits - top).sum(-1, keepdims=True))
    costs, grads = np.zeros(b), np.zeros_like(lp)
    for i in range(b):
        t, u = t_len[i], u_len[i]
        costs[i], grads[i, :t, :u + 1] = _lattice(lp[i, :t, :u + 1], lab[i, :u], blank_label)
    g = Tensor(grads).astype(acts.dtype)
    link = ops.sum(acts * g, (1, 2, 3))
    return Tensor(costs).astype(acts.dtype) + link - ops.stop_gradient(link), g


RNNTLoss = primitive_class("RNNTLoss", _rnnt_loss, ("blank_label",))
