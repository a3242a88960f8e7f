"""Fused in-place optimizer updates (one pass over the parameter and its accumulators).

Each entry point updates ``var`` and its accumulators where they lie, element by element,
so a step reads and writes every buffer once instead of once per numpy operation.
Arrays are flat and C-contiguous; hyper-parameters are Python floats.
"""

from cython cimport floating
from cython.parallel cimport prange
from libc.math cimport sqrt


def _threads(Py_ssize_t n):
    # a second thread pays only once the update is large enough to hide waking it
    return 2 if n >= 262144 else 1


def gradient_descent(floating[::1] var, const floating[::1] delta, double alpha):
    """``var -= alpha * delta``."""
    cdef Py_ssize_t i, n = var.shape[0]
    cdef floating a = <floating>alpha
    cdef int nt = _threads(n)
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            var[i] = var[i] - a * delta[i]


def momentum(floating[::1] var, floating[::1] accum, const floating[::1] grad, double lr,
             double mom, bint nesterov):
    """``accum = accum * mom + grad``; ``var -= lr * accum`` (Nesterov: ``lr * (grad +
    mom * accum)``)."""
    cdef Py_ssize_t i, n = var.shape[0]
    cdef floating a, l = <floating>lr, m = <floating>mom
    cdef int nt = _threads(n)
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            a = accum[i] * m + grad[i]
            accum[i] = a
            if nesterov:
                var[i] = var[i] - (grad[i] * l + a * m * l)
            else:
                var[i] = var[i] - l * a


def adam(floating[::1] var, floating[::1] m, floating[::1] v, const floating[::1] grad,
         double lr_t, double beta1, double beta2, double eps, bint nesterov):
    """MindSpore's Adam with the bias-corrected step ``lr_t`` already computed."""
    cdef Py_ssize_t i, n = var.shape[0]
    cdef floating g, mi, vi, b1 = <floating>beta1, b2 = <floating>beta2
    cdef floating lr = <floating>lr_t, e = <floating>eps
    cdef int nt = _threads(n)
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            g = grad[i]
            mi = m[i] + (g - m[i]) * (1 - b1)
            vi = v[i] + (g * g - v[i]) * (1 - b2)
            m[i] = mi
            v[i] = vi
            if nesterov:
                var[i] = var[i] - lr * (mi * b1 + g * (1 - b1)) / (sqrt(vi) + e)
            else:
                var[i] = var[i] - lr * mi / (sqrt(vi) + e)
