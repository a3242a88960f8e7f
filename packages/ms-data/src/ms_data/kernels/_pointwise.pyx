# cython: language_level=3
"""One pass for a run of per-channel arithmetic: Rescale, Normalize, ToTensor's scaling,
optionally with HWC -> CHW, from uint8 or float32 to float32.

Each step is applied to every element in the order the operations were given, rounding
to float32 after each one exactly as running them one by one would (Rescale computes
``x * rescale + shift`` in double, as MindSpore does; Normalize ``(x - mean) / std`` in
float32), so fusing never changes a bit. ``ms_data.vision.pointwise`` holds the numpy
reference and builds the step tables.
"""

from cython.parallel cimport prange
from libc.stdint cimport int32_t, uint8_t

ctypedef fused src_t:
    uint8_t
    float

# Step kinds (kept in sync with ms_data.vision.pointwise).
DEF RESCALE = 0     # v = (float)((double)v * a + b)
DEF NORMALIZE = 1   # v = (v - a) / b            (float32)
DEF SCALE_F32 = 2   # v = v * a                  (float32)


cdef inline float _chain(float v, int c, int S, const int32_t* kinds, const double* a,
                         const double* b, int C) noexcept nogil:
    cdef int s
    for s in range(S):
        if kinds[s] == RESCALE:
            v = <float>(<double>v * a[s * C + c] + b[s * C + c])
        elif kinds[s] == NORMALIZE:
            v = (v - <float>a[s * C + c]) / <float>b[s * C + c]
        else:
            v = v * <float>a[s * C + c]
    return v


def chain(const src_t[:, :, ::1] src, float[:, :, ::1] dst, const int32_t[::1] kinds,
          const double[:, ::1] a, const double[:, ::1] b, bint chw, int threads=1):
    """Apply the steps to ``src`` (N, P, C); ``dst`` is (N, C, P) when ``chw`` else (N, P, C)."""
    cdef Py_ssize_t n, N = src.shape[0]
    cdef int P = src.shape[1], C = src.shape[2], S = kinds.shape[0], p, c
    if N == 0 or P == 0 or C == 0:
        return
    with nogil:
        for n in prange(N, schedule="static", num_threads=threads):
            if chw:
                for c in range(C):
                    for p in range(P):
                        dst[n, c, p] = _chain(<float>src[n, p, c], c, S, &kinds[0], &a[0, 0],
                                              &b[0, 0], C)
            else:
                for p in range(P):
                    for c in range(C):
                        dst[n, p, c] = _chain(<float>src[n, p, c], c, S, &kinds[0], &a[0, 0],
                                              &b[0, 0], C)
