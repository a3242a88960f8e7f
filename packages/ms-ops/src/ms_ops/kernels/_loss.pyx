"""Softmax cross-entropy: a stable log-softmax, the loss and its gradient fused per row,
rows split over threads (OpenMP).

Each row is read three times while it is in cache (max, sum of exponentials, then loss and
gradient); the exponentials are parked in the gradient buffer so ``exp`` runs once per
element. Sums are accumulated in double precision whatever the input dtype.
"""

import numpy as np

from cython cimport floating, integral
from cython.parallel cimport prange
from libc.math cimport exp, log


cdef double _row_max(const floating[:, ::1] x, Py_ssize_t r) noexcept nogil:
    cdef Py_ssize_t c
    cdef double m = x[r, 0]
    for c in range(1, x.shape[1]):
        if x[r, c] > m:
            m = x[r, c]
    return m


cdef double _row_exp(const floating[:, ::1] x, floating[:, ::1] e, Py_ssize_t r,
                     double m) noexcept nogil:
    """Write exp(x[r] - m) into e[r] and return its sum."""
    cdef Py_ssize_t c
    cdef double s = 0.0, v
    for c in range(x.shape[1]):
        v = exp(x[r, c] - m)
        e[r, c] = <floating>v
        s = s + v
    return s


cdef double _row_exp_sum(const floating[:, ::1] x, Py_ssize_t r, double m) noexcept nogil:
    cdef Py_ssize_t c
    cdef double s = 0.0
    for c in range(x.shape[1]):
        s = s + exp(x[r, c] - m)
    return s


def softmax_cross_entropy(const floating[:, ::1] logits, const floating[:, ::1] labels):
    """``(loss, backprop)``: ``loss[r] = -sum(labels[r] * log_softmax(logits[r]))`` and
    ``backprop = softmax(logits) - labels``."""
    cdef Py_ssize_t n_r = logits.shape[0], n_c = logits.shape[1], r, c
    cdef double m, s, lse, acc
    dtype = np.float32 if floating is float else np.float64
    loss_arr = np.empty(n_r, dtype=dtype)
    grad_arr = np.empty((n_r, n_c), dtype=dtype)
    cdef floating[::1] loss = loss_arr
    cdef floating[:, ::1] grad = grad_arr
    with nogil:
        for r in prange(n_r, schedule="static"):
            m = _row_max(logits, r)
            s = _row_exp(logits, grad, r, m)
            lse = m + log(s)
            acc = 0.0
            for c in range(n_c):
                acc = acc + labels[r, c] * (lse - logits[r, c])
                grad[r, c] = <floating>(grad[r, c] / s - labels[r, c])
            loss[r] = <floating>acc
    return loss_arr, grad_arr


def sparse_softmax_cross_entropy(const floating[:, ::1] logits, const integral[::1] labels,
                                 bint is_grad):
    """Mean over rows of ``-log_softmax(logits[r])[labels[r]]``, or with ``is_grad`` its
    gradient ``(softmax(logits) - one_hot(labels)) / rows``. Labels must be in range."""
    cdef Py_ssize_t n_r = logits.shape[0], n_c = logits.shape[1], r, c, t
    cdef double m, s, inv = 1.0 / n_r if n_r else 0.0
    dtype = np.float32 if floating is float else np.float64
    grad_arr = np.empty((n_r if is_grad else 0, n_c), dtype=dtype)
    row_arr = np.empty(n_r, dtype=np.float64)
    cdef floating[:, ::1] grad = grad_arr
    cdef double[::1] row = row_arr
    with nogil:
        for r in prange(n_r, schedule="static"):
            m = _row_max(logits, r)
            t = labels[r]
            if is_grad:
                s = _row_exp(logits, grad, r, m)
                s = inv / s
                for c in range(n_c):
                    grad[r, c] = <floating>(grad[r, c] * s)
                grad[r, t] = <floating>(grad[r, t] - inv)
            else:
                row[r] = m + log(_row_exp_sum(logits, r, m)) - logits[r, t]
    if is_grad:
        return grad_arr
    return np.asarray(row_arr.sum() * inv if n_r else np.nan, dtype=dtype)
