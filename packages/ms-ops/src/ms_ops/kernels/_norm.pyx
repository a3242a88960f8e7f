"""Batch normalization on a ``(outer, channels, inner)`` view of the input.

NCHW data is ``(N, C, H*W)``, ``(N, C)`` is ``(N, C, 1)`` and NHWC is ``(N*H*W, C, 1)``,
so one set of loops serves every layout. Work is split over blocks of channels (OpenMP):
a block is one channel when ``inner`` is long (contiguous rows), and many channels when
``inner`` is short, so the innermost loop always runs over contiguous memory. Sums are
accumulated in double precision whatever the input dtype; long rows are summed by small
vectorized C loops.
"""

import numpy as np

from ms_ops.kernels.threads import num_threads

from cython cimport floating
from cython.parallel cimport prange
from libc.math cimport sqrt


cdef extern from *:
    """
    /* Row sums for long rows, in C so that GCC vectorizes them: `omp simd` permits the
       reassociation a vector reduction needs (in double precision, without -ffast-math),
       and on x86-64 GCC builds clones for AVX-512 and AVX2 picked at load time. */
    #if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
    #define MS_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
    #else
    #define MS_CLONES
    #endif

    #define MS_NORM_ROWS(T, SUF)                                                            \
    MS_CLONES static double ms_sum_##SUF(const T *x, Py_ssize_t n) {                        \
        double s = 0.0;                                                                     \
        _Pragma("omp simd reduction(+:s)")                                                  \
        for (Py_ssize_t i = 0; i < n; i++) s += x[i];                                       \
        return s;                                                                           \
    }                                                                                       \
    MS_CLONES static double ms_sqdev_##SUF(const T *x, Py_ssize_t n, double m) {            \
        double s = 0.0;                                                                     \
        _Pragma("omp simd reduction(+:s)")                                                  \
        for (Py_ssize_t i = 0; i < n; i++) { double d = x[i] - m; s += d * d; }             \
        return s;                                                                           \
    }                                                                                       \
    MS_CLONES static double ms_dot_dev_##SUF(const T *g, const T *x, Py_ssize_t n,          \
                                             double m) {                                    \
        double s = 0.0;                                                                     \
        _Pragma("omp simd reduction(+:s)")                                                  \
        for (Py_ssize_t i = 0; i < n; i++) s += (double)g[i] * (x[i] - m);                  \
        return s;                                                                           \
    }

    MS_NORM_ROWS(float, f)
    MS_NORM_ROWS(double, d)
    """
    double ms_sum_f(const float *x, Py_ssize_t n) noexcept nogil
    double ms_sum_d(const double *x, Py_ssize_t n) noexcept nogil
    double ms_sqdev_f(const float *x, Py_ssize_t n, double m) noexcept nogil
    double ms_sqdev_d(const double *x, Py_ssize_t n, double m) noexcept nogil
    double ms_dot_dev_f(const float *g, const float *x, Py_ssize_t n, double m) noexcept nogil
    double ms_dot_dev_d(const double *g, const double *x, Py_ssize_t n,
                        double m) noexcept nogil


cdef enum:
    _LONG_ROW = 32  # rows at least this long go to the vectorized C sums


cdef inline double _row_sum(const floating* x, Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    cdef double acc = 0.0
    if n >= _LONG_ROW:
        if floating is float:
            acc = ms_sum_f(x, n)
        else:
            acc = ms_sum_d(x, n)
    else:
        for i in range(n):
            acc = acc + x[i]
    return acc


cdef inline double _row_sqdev(const floating* x, Py_ssize_t n, double m) noexcept nogil:
    cdef Py_ssize_t i
    cdef double acc = 0.0, d
    if n >= _LONG_ROW:
        if floating is float:
            acc = ms_sqdev_f(x, n, m)
        else:
            acc = ms_sqdev_d(x, n, m)
    else:
        for i in range(n):
            d = x[i] - m
            acc = acc + d * d
    return acc


cdef inline double _row_dot_dev(const floating* g, const floating* x, Py_ssize_t n,
                                double m) noexcept nogil:
    """sum(g * (x - m)) over a row."""
    cdef Py_ssize_t i
    cdef double acc = 0.0
    if n >= _LONG_ROW:
        if floating is float:
            acc = ms_dot_dev_f(g, x, n, m)
        else:
            acc = ms_dot_dev_d(g, x, n, m)
    else:
        for i in range(n):
            acc = acc + g[i] * (x[i] - m)
    return acc


cdef int _threads(Py_ssize_t work):
    """One thread for small inputs: waking a team costs more than it saves below ~32k
    elements, and far more when the cores are busy with other processes; else the
    thread policy's count (``ms_ops.kernels.threads``)."""
    return 1 if work < 32768 else num_threads()


cdef inline Py_ssize_t _block(Py_ssize_t inner) noexcept nogil:
    if inner >= 64:
        return 1
    return 256 // inner + 1


cdef void _stats(const floating[:, :, ::1] x, double[::1] mean, double[::1] var,
                 Py_ssize_t c0, Py_ssize_t c1) noexcept nogil:
    cdef Py_ssize_t o, c, n_o = x.shape[0], n_i = x.shape[2]
    cdef double inv = 1.0 / (n_o * n_i)
    for c in range(c0, c1):
        mean[c] = 0.0
        var[c] = 0.0
    for o in range(n_o):
        for c in range(c0, c1):
            mean[c] += _row_sum(&x[o, c, 0], n_i)
    for c in range(c0, c1):
        mean[c] *= inv
    # a second pass over (x - mean)^2: one-pass E[x^2] - E[x]^2 loses digits in float32
    for o in range(n_o):
        for c in range(c0, c1):
            var[c] += _row_sqdev(&x[o, c, 0], n_i, mean[c])
    for c in range(c0, c1):
        var[c] *= inv


cdef void _normalize(const floating[:, :, ::1] x, floating[:, :, ::1] y,
                     const double[::1] mean, const double[::1] a, const double[::1] bias,
                     Py_ssize_t c0, Py_ssize_t c1) noexcept nogil:
    """y = (x - mean[c]) * a[c] + bias[c] on channels [c0, c1), in the data's precision so
    that it vectorizes. The mean is split into a rounded part and the rest: x - mean_hi is
    exact where x is near the mean, so a large mean costs no digits (x * a + (bias -
    mean * a) would cancel them away in float32)."""
    cdef Py_ssize_t o, c, i
    cdef floating ac, bc, mh, ml
    for o in range(x.shape[0]):
        for c in range(c0, c1):
            ac = <floating>a[c]
            bc = <floating>bias[c]
            mh = <floating>mean[c]
            ml = <floating>(mean[c] - mh)
            for i in range(x.shape[2]):
                y[o, c, i] = ((x[o, c, i] - mh) - ml) * ac + bc


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
    cdef floating[:, :, ::1] y = y_arr
    cdef double[::1] mean = mean_arr, var = var_arr, a = a_arr
    with nogil:
        for b in prange(n_b, schedule="static", num_threads=nt):
            c0 = b * blk
            c1 = min(c0 + blk, n_c)
            _stats(x, mean, var, c0, c1)
            for c in range(c0, c1):
                a[c] = scale[c] / sqrt(var[c] + epsilon)
            _normalize(x, y, mean, a, bias, c0, c1)
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
    cdef floating[:, :, ::1] y = y_arr
    cdef double[::1] a = a_arr
    with nogil:
        for b in prange(n_b, schedule="static", num_threads=nt):
            c0 = b * blk
            c1 = min(c0 + blk, n_c)
            for c in range(c0, c1):
                a[c] = scale[c] / sqrt(variance[c] + epsilon)
            _normalize(x, y, mean, a, bias, c0, c1)
    return y_arr


cdef void _grad_sums(const floating[:, :, ::1] dy, const floating[:, :, ::1] x,
                     const double[::1] mean, double[::1] s_dy, double[::1] s_dyx,
                     Py_ssize_t c0, Py_ssize_t c1) noexcept nogil:
    """s_dy[c] = sum(dy), s_dyx[c] = sum(dy * (x - mean)) over channel c."""
    cdef Py_ssize_t o, c, n_i = x.shape[2]
    for c in range(c0, c1):
        s_dy[c] = 0.0
        s_dyx[c] = 0.0
    for o in range(x.shape[0]):
        for c in range(c0, c1):
            s_dy[c] += _row_sum(&dy[o, c, 0], n_i)
            s_dyx[c] += _row_dot_dev(&dy[o, c, 0], &x[o, c, 0], n_i, mean[c])


cdef void _grad_dx(const floating[:, :, ::1] dy, const floating[:, :, ::1] x,
                   floating[:, :, ::1] dx, Py_ssize_t c, double k, double u, double w,
                   double m) noexcept nogil:
    """dx = k * dy - u - (x - m) * w on channel c, in the data's precision (the mean is
    split as in ``_normalize``)."""
    cdef Py_ssize_t o, i
    cdef floating kf = <floating>k, uf = <floating>u, wf = <floating>w
    cdef floating mh = <floating>m, ml = <floating>(m - mh)
    for o in range(x.shape[0]):
        for i in range(x.shape[2]):
            dx[o, c, i] = kf * dy[o, c, i] - uf - ((x[o, c, i] - mh) - ml) * wf


def batch_norm_grad(const floating[:, :, ::1] dy, const floating[:, :, ::1] x,
                    const double[::1] scale, const double[::1] mean,
                    const double[::1] variance, double epsilon, bint is_training):
    """Gradients of batch normalization: ``(dx, dscale, dbias)``.

    In training, ``mean``/``variance`` are the batch statistics and ``dx`` includes their
    dependence on ``x``; otherwise they are constants and ``dx = dy * scale * rstd``.
    """
    cdef Py_ssize_t n_o = x.shape[0], n_c = x.shape[1], n_i = x.shape[2]
    cdef Py_ssize_t blk = _block(n_i), b, c, c0, c1
    cdef Py_ssize_t n_b = (n_c + blk - 1) // blk
    cdef int nt = _threads(n_o * n_c * n_i)
    cdef double inv = 1.0 / (n_o * n_i), r, k
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
            for c in range(c0, c1):
                r = 1.0 / sqrt(variance[c] + epsilon)
                k = scale[c] * r
                if is_training:
                    # dx = k * (dy - mean(dy) - (x - m) * r^2 * mean(dy * (x - m)))
                    _grad_dx(dy, x, dx, c, k, k * s_dy[c] * inv, k * s_dyx[c] * inv * r * r,
                             mean[c])
                else:
                    _grad_dx(dy, x, dx, c, k, 0.0, 0.0, mean[c])
            for c in range(c0, c1):
                s_dyx[c] = s_dyx[c] / sqrt(variance[c] + epsilon)
    return dx_arr, ds_arr, db_arr
