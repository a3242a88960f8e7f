"""``nn.CTCLoss``: connectionist temporal classification (Graves et al. 2006).

The forward (alpha) recursion runs in log space over the blank-extended targets of the
whole batch at once, one step per time frame, with ms-ops operators, so autodiff gives
the gradient. Frames past a sample's input length leave its alphas unchanged.
"""

from __future__ import annotations

import numpy as np

import ms_ops as ops
from ms_nn.cell import Cell
from ms_tensor import Tensor

__all__ = ["CTCLoss"]


def _logsumexp(*terms):
    stacked = ops.stack(terms, 0)
    m = ops.stop_gradient(ops.amax(stacked, 0))
    return m + ops.log(ops.sum(ops.exp(stacked - m), 0))


class CTCLoss(Cell):
    """-log p(target | log_probs) summed over all alignments; ``reduction='mean'`` divides
    each loss by its target length, then averages (PyTorch's and MindSpore's rule).

    Inputs: ``log_probs`` (T, N, C) log-softmax outputs, ``targets`` (N, S) padded class
    indices, ``input_lengths`` (N,), ``target_lengths`` (N,). ``zero_infinity`` turns the
    infinite loss of an impossible alignment into 0.

    >>> lp = ops.log_softmax(ops.zeros((4, 1, 3)), -1)
    >>> round(float(CTCLoss(reduction="sum")(lp, Tensor([[1, 2]]), Tensor([4]), Tensor([2]))), 4)
    1.6864
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__()
        if reduction not in ("none", "mean", "sum"):
            raise ValueError(f"CTCLoss: reduction must be 'none', 'mean' or 'sum', got "
                             f"{reduction!r}")
        self.blank, self.reduction, self.zero_infinity = blank, reduction, zero_infinity

    def construct(self, log_probs, targets, input_lengths, target_lengths):
        if log_probs.ndim != 3:
            raise ValueError(f"CTCLoss: log_probs shape {tuple(log_probs.shape)} must be "
                             f"(T, N, C)")
        t_len, n, _ = log_probs.shape
        tgt = targets.asnumpy().reshape(n, -1).astype(np.int64)
        in_len = input_lengths.asnumpy().reshape(-1).astype(np.int64)
        tg_len = target_lengths.asnumpy().reshape(-1).astype(np.int64)
        if in_len.shape != (n,) or tg_len.shape != (n,) or in_len.max() > t_len:
            raise ValueError(f"CTCLoss: input_lengths {in_len} and target_lengths {tg_len} need "
                             f"one entry per sample ({n}), input lengths at most T={t_len}")
        s_len = 2 * tgt.shape[1] + 1
        ext = np.full((n, s_len), self.blank, np.int64)
        ext[:, 1::2] = tgt
        skip = np.zeros((n, s_len), bool)  # s may come from s - 2: a label unlike the last
        skip[:, 2:] = (ext[:, 2:] != self.blank) & (ext[:, 2:] != ext[:, :-2])
        inf = float(np.finfo(log_probs.dtype.np).min) / 4
        start = np.full((n, s_len), inf, np.float32)
        start[:, 0] = 0.0
        start[:, 1] = np.where(tg_len > 0, 0.0, inf)
        ext_t = Tensor(ext)
        neg = Tensor(np.full((n, 1), inf, np.float32)).astype(log_probs.dtype)
        skip_t = Tensor(skip)
        alpha = Tensor(start).astype(log_probs.dtype) + ops.gather_elements(log_probs[0], 1, ext_t)
        for t in range(1, t_len):
            prev1 = ops.concat((neg, alpha[:, :-1]), 1)
            prev2 = ops.concat((neg, neg, alpha[:, :-2]), 1)
            prev2 = ops.where(skip_t, prev2, ops.full_like(prev2, inf))
            new = _logsumexp(alpha, prev1, prev2) + ops.gather_elements(log_probs[t], 1, ext_t)
            active = Tensor((in_len > t)[:, None])
            alpha = ops.where(active, new, alpha)
        last = Tensor((2 * tg_len)[:, None])
        before = Tensor(np.maximum(2 * tg_len - 1, 0)[:, None])
        end = ops.gather_elements(alpha, 1, last)[:, 0]
        end2 = ops.gather_elements(alpha, 1, before)[:, 0]
        end2 = ops.where(Tensor(tg_len > 0), end2, ops.full_like(end2, inf))
        loss = -_logsumexp(end, end2)
        frames = Tensor((np.arange(t_len)[:, None] < in_len[None, :])[:, :, None])
        soft = ops.exp(log_probs) * ops.cast(frames, log_probs.dtype)
        loss = loss + ops.sum(soft - ops.stop_gradient(soft), (0, 2))
        impossible = loss > -inf / 2
        loss = ops.where(impossible, ops.full_like(loss, 0.0 if self.zero_infinity
                                                   else float("inf")), loss)
        if self.reduction == "sum":
            return ops.sum(loss)
        if self.reduction == "mean":
            lengths = Tensor(np.maximum(tg_len, 1).astype(np.float32)).astype(loss.dtype)
            return ops.mean(loss / lengths)
        return loss
