"""Batch normalization on a ``(outer, channels, inner)`` view of the input.

NCHW data is ``(N, C, H*W)``, ``(N, C)`` is ``(N, C, 1)`` and NHWC is ``(N*H*W, C, 1)``,
so one set of loops serves every layout. Work is split over blocks of channels (OpenMP):
a block is one channel when ``inner`` is long (contiguous rows), and many channels when
``inner`` is short, so the innermost loop always runs over contiguous memory. Sums are
accumulated in double precision whatever the input dtype.
"""

import numpy as np

from cython cimport floating
cimport openmp
from cython.parallel cimport prange
from libc.math cimport sqrt


cdef int _threads(Py_ssize_t work) noexcept nogil:
    """One thread for small inputs: waking a team costs more than it saves below ~32k
    elements, and far more when the cores are busy with other processes."""
    return 1 if work < 32768 else openmp.omp_get_max_threads()


cdef inline Py_ssize_t _block(Py_ssize_t inner) noexcept nogil:
    if inner >= 64:
        return 1
    return 256 // inner + 1


cdef void _stats(const floating[:, :, ::1] x, double[::1] mean, double[::1] var,
                 Py_ssize_t c0, Py_ssize_t c1) noexcept nogil:
    cdef Py_ssize_t o, c, i, n_o = x.shape[0], n_i = x.shape[2]
    cdef double m, d, acc, inv = 1.0 / (n_o * n_i)
    for c in range(c0, c1):
        mean[c] = 0.0
        var[c] = 0.0
    for o in range(n_o):
        for c in range(c0, c1):
            acc = 0.0
            for i in range(n_i):
                acc = acc + x[o, c, i]
            mean[c] += acc
    for c in range(c0, c1):
        mean[c] *= inv
    # a second pass over (x - mean)^2: one-pass E[x^2] - E[x]^2 loses digits in float32
    for o in range(n_o):
        for c in range(c0, c1):
            m = mean[c]
            acc = 0.0
            for i in range(n_i):
                d = x[o, c, i] - m
                acc = acc + d * d
            var[c] += acc
    for c in range(c0, c1):
        var[c] *= inv


cdef void _affine(const floating[:, :, ::1] x, floating[:, :, ::1] y, const double[::1] a,
                  const double[::1] b, Py_ssize_t c0, Py_ssize_t c1) noexcept nogil:
    """y = x * a[c] + b[c] on channels [c0, c1)."""
    cdef Py_ssize_t o, c, i
    cdef double ac, bc
    for o in range(x.shape[0]):
        for c in range(c0, c1):
            ac = a[c]
            bc = b[c]
            for i in range(x.shape[2]):
                y[o, c, i] = <floating>(x[o, c, i] * ac + bc)


def batch_norm_training(const floating[:, :, ::1] x, const double[::1] scale,
                        const double[::1] bias, double epsilon):
    """Normalize with the batch's statistics; returns ``(y, mean, biased variance)``."""
    cdef Py_ssize_t n_c = x.shape[1], blk = _block(x.shape[2]), b, c, c0, c1
    cdef Py_ssize_t n_b = (n_c + blk - 1) // blk
    cdef int nt = _threads(x.shape[0] * n_c * x.shape[2])
    dtype = np.float32 if floating is float else np.float64
    y_arr = np.empty((x.shape[0], n_c, x.shape[2]), dtype=dtype)
    mean_arr = np.empty(n_c)
    var_arr = np.empty(n_c)
    a_arr = np.empty(n_c)
    b_arr = np.empty(n_c)
    cdef floating[:, :, ::1] y = y_arr
    cdef double[::1] mean = mean_arr, var = var_arr, a = a_arr, sh = b_arr
    with nogil:
        for b in prange(n_b, schedule="static", num_threads=nt):
            c0 = b * blk
            c1 = min(c0 + blk, n_c)
            _stats(x, mean, var, c0, c1)
            for c in range(c0, c1):
                a[c] = scale[c] / sqrt(var[c] + epsilon)
                sh[c] = bias[c] - mean[c] * a[c]
            _affine(x, y, a, sh, c0, c1)
    return y_arr, mean_arr, var_arr


def batch_norm_inference(const floating[:, :, ::1] x, const double[::1] scale,
                         const double[::1] bias, const double[::1] mean,
                         const double[::1] variance, double epsilon):
    """Normalize with given (running) statistics; returns ``y``."""
    cdef Py_ssize_t n_c = x.shape[1], blk = _block(x.shape[2]), b, c, c0, c1
    cdef Py_ssize_t n_b = (n_c + blk - 1) // blk
    cdef int nt = _threads(x.shape[0] * n_c * x.shape[2])
    dtype = np.float32 if floating is float else np.float64
    y_arr = np.empty((x.shape[0], n_c, x.shape[2]), dtype=dtype)
    a_arr = np.empty(n_c)
    b_arr = np.empty(n_c)
    cdef floating[:, :, ::1] y = y_arr
    cdef double[::1] a = a_arr, sh = b_arr
    with nogil:
        for b in prange(n_b, schedule="static", num_threads=nt):
            c0 = b * blk
            c1 = min(c0 + blk, n_c)
            for c in range(c0, c1):
                a[c] = scale[c] / sqrt(variance[c] + epsilon)
                sh[c] = bias[c] - mean[c] * a[c]
            _affine(x, y, a, sh, c0, c1)
    return y_arr


cdef void _grad_sums(const floating[:, :, ::1] dy, const floating[:, :, ::1] x,
                     const double[::1] mean, double[::1] s_dy, double[::1] s_dyx,
                     Py_ssize_t c0, Py_ssize_t c1) noexcept nogil:
    """s_dy[c] = sum(dy), s_dyx[c] = sum(dy * (x - mean)) over channel c."""
    cdef Py_ssize_t o, c, i
    cdef double m, g, acc, accx
    for c in range(c0, c1):
        s_dy[c] = 0.0
        s_dyx[c] = 0.0
    for o in range(x.shape[0]):
        for c in range(c0, c1):
            m = mean[c]
            acc = 0.0
            accx = 0.0
            for i in range(x.shape[2]):
                g = dy[o, c, i]
                acc = acc + g
                accx = accx + g * (x[o, c, i] - m)
            s_dy[c] += acc
            s_dyx[c] += accx


def batch_norm_grad(const floating[:, :, ::1] dy, const floating[:, :, ::1] x,
                    const double[::1] scale, const double[::1] mean,
                    const double[::1] variance, double epsilon, bint is_training):
    """Gradients of batch normalization: ``(dx, dscale, dbias)``.

    In training, ``mean``/``variance`` are the batch statistics and ``dx`` includes their
    dependence on ``x``; otherwise they are constants and ``dx = dy * scale * rstd``.
    """
    cdef Py_ssize_t n_o = x.shape[0], n_c = x.shape[1], n_i = x.shape[2]
    cdef Py_ssize_t blk = _block(n_i), b, o, c, i, c0, c1
    cdef Py_ssize_t n_b = (n_c + blk - 1) // blk
    cdef int nt = _threads(n_o * n_c * n_i)
    cdef double inv = 1.0 / (n_o * n_i), r, k, m, u, w
    dtype = np.float32 if floating is float else np.float64
    dx_arr = np.empty((n_o, n_c, n_i), dtype=dtype)
    ds_arr = np.empty(n_c)
    db_arr = np.empty(n_c)
    cdef floating[:, :, ::1] dx = dx_arr
    cdef double[::1] s_dy = db_arr, s_dyx = ds_arr
    with nogil:
        for b in prange(n_b, schedule="static", num_threads=nt):
            c0 = b * blk
            c1 = min(c0 + blk, n_c)
            _grad_sums(dy, x, mean, s_dy, s_dyx, c0, c1)
            for o in range(n_o):
                for c in range(c0, c1):
                    r = 1.0 / sqrt(variance[c] + epsilon)
                    k = scale[c] * r
                    m = mean[c]
                    if is_training:
                        # dx = k * (dy - mean(dy) - (x - m) * r^2 * mean(dy * (x - m)))
                        u = s_dy[c] * inv
                        w = s_dyx[c] * inv * r * r
                        for i in range(n_i):
                            dx[o, c, i] = <floating>(k * (dy[o, c, i] - u
                                                          - (x[o, c, i] - m) * w))
                    else:
                        for i in range(n_i):
                            dx[o, c, i] = <floating>(k * dy[o, c, i])
            for c in range(c0, c1):
                s_dyx[c] = s_dyx[c] / sqrt(variance[c] + epsilon)
    return dx_arr, ds_arr, db_arr
