# cython: language_level=3
"""Call a CBLAS ``sgemm``/``dgemm`` found at run time (``ms_ops.blas`` binds MKL's).

The function pointers come from the loaded library, so ms-ops builds and runs without
any BLAS headers or libraries; ``gemm`` releases the GIL for the product.
"""

cimport numpy as cnp
from libc.stdint cimport uintptr_t

cnp.import_array()

ctypedef void (*sgemm_t)(int, int, int, int, int, int, float, const float*, int,
                         const float*, int, float, float*, int) noexcept nogil
ctypedef void (*dgemm_t)(int, int, int, int, int, int, double, const double*, int,
                         const double*, int, double, double*, int) noexcept nogil

cdef sgemm_t _sgemm = NULL
cdef dgemm_t _dgemm = NULL
cdef int ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112


def bind(uintptr_t sgemm, uintptr_t dgemm):
    """Use these ``cblas_sgemm``/``cblas_dgemm`` addresses (0 unbinds)."""
    global _sgemm, _dgemm
    _sgemm = <sgemm_t> sgemm
    _dgemm = <dgemm_t> dgemm


def bound() -> bool:
    return _sgemm != NULL and _dgemm != NULL


def gemm(cnp.ndarray a, bint trans_a, cnp.ndarray b, bint trans_b, cnp.ndarray out,
         double beta=0.0):
    """``out = op(a) @ op(b) + beta * out``: ``a``, ``b`` and ``out`` C-contiguous 2-D
    arrays of one float dtype (float32 or float64), ``op`` transposing when its flag is
    set; shapes checked by the caller."""
    cdef int m = out.shape[0], n = out.shape[1]
    cdef int k = a.shape[0] if trans_a else a.shape[1]
    cdef int lda = a.shape[1], ldb = b.shape[1], ldc = n
    cdef int ta = TRANS if trans_a else NO_TRANS, tb = TRANS if trans_b else NO_TRANS
    cdef void* pa = cnp.PyArray_DATA(a)
    cdef void* pb = cnp.PyArray_DATA(b)
    cdef void* pc = cnp.PyArray_DATA(out)
    if _sgemm == NULL:
        raise RuntimeError("gemm: no BLAS is bound (ms_ops.blas binds MKL when installed)")
    if cnp.PyArray_ITEMSIZE(out) == 4:
        with nogil:
            _sgemm(ROW_MAJOR, ta, tb, m, n, k, 1.0, <const float*> pa, lda,
                   <const float*> pb, ldb, <float> beta, <float*> pc, ldc)
    else:
        with nogil:
            _dgemm(ROW_MAJOR, ta, tb, m, n, k, 1.0, <const double*> pa, lda,
                   <const double*> pb, ldb, beta, <double*> pc, ldc)
    return out
