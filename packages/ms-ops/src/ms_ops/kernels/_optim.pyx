"""Fused in-place optimizer updates (one pass over the parameter and its accumulators).

Each entry point updates ``var`` and its accumulators where they lie, element by element,
so a step reads and writes every buffer once instead of once per numpy operation.
Arrays are flat and C-contiguous; hyper-parameters are Python floats.
"""

from cython cimport floating
from cython.parallel cimport prange
from libc.math cimport sqrt, sqrtf

from ms_ops.kernels.threads import kernel_threads

cdef extern from *:
    """
    /* Let GCC vectorize sqrt: it cannot while sqrt may have to set errno, and the
       arguments here are never negative. */
    #pragma GCC optimize ("no-math-errno")
    """


# Large inputs use ms_ops.kernels.threads' count for memory-bound kernels (all of the
# policy's threads when MKL does the matrix products or runtime_num_threads is set, else one).
def _threads(Py_ssize_t work):
    return kernel_threads() if work >= 262144 else 1


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


cdef inline floating _root(floating x) noexcept nogil:
    if floating is float:
        return sqrtf(x)
    else:
        return sqrt(x)


def adam(floating[::1] var, floating[::1] m, floating[::1] v, const floating[::1] grad,
         double lr_t, double beta1, double beta2, double eps, bint nesterov):
    """MindSpore's Adam with the bias-corrected step ``lr_t`` already computed."""
    cdef Py_ssize_t i, n = var.shape[0]
    cdef floating g, mi, vi, b1 = <floating>beta1, b2 = <floating>beta2
    cdef floating lr = <floating>lr_t, e = <floating>eps
    cdef floating c1 = 1 - b1, c2 = 1 - b2
    # Nesterov looks ahead: m * beta1 + grad * (1 - beta1) in place of m
    cdef floating keep = b1 if nesterov else 1, take = c1 if nesterov else 0
    cdef int nt = _threads(n)
    with nogil:
        for i in prange(n, schedule="static", num_threads=nt):
            g = grad[i]
            mi = m[i] + (g - m[i]) * c1
            vi = v[i] + (g * g - v[i]) * c2
            m[i] = mi
            v[i] = vi
            var[i] = var[i] - lr * (mi * keep + g * take) / (_root(vi) + e)
