"""Activation gradients in one pass over flat, C-contiguous float32/float64 buffers."""

from cython cimport floating
from libc.stdint cimport uint32_t, uint64_t


cdef void _relu_grad32(const uint32_t* dy, const float* x, uint32_t* out,
                       Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = dy[i] & (<uint32_t>0 - <uint32_t>(x[i] > 0))


cdef void _relu_grad64(const uint64_t* dy, const double* x, uint64_t* out,
                       Py_ssize_t n) noexcept nogil:
    cdef Py_ssize_t i
    for i in range(n):
        out[i] = dy[i] & (<uint64_t>0 - <uint64_t>(x[i] > 0))


def relu_grad(const floating[::1] dy, const floating[::1] x, floating[::1] out):
    """``out = dy where x > 0, else +0.0``: one read of each input, no temporaries (numpy
    needs a mask array and two more passes). The bits of ``dy`` are masked, not
    multiplied, so NaN, inf and -0.0 in ``dy`` come through bit for bit; without a branch
    the loop vectorizes (a branch mispredicts on every other element of random signs)."""
    cdef Py_ssize_t n = dy.shape[0]
    if n == 0:
        return
    with nogil:
        if floating is float:
            _relu_grad32(<const uint32_t*>&dy[0], &x[0], <uint32_t*>&out[0], n)
        else:
            _relu_grad64(<const uint64_t*>&dy[0], &x[0], <uint64_t*>&out[0], n)
