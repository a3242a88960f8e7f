# cython: language_level=3
"""Batched image resizing: bilinear (OpenCV's fixed-point uint8 arithmetic, float32 for
floats) and nearest, over stacked ``(N, H, W, C)`` batches.

The Python side (``ms_data.vision.resize_tables``) computes the source indices and weights
once per (input size, output size); these loops only gather and blend. Images are spread
over ``threads`` OpenMP threads (the caller picks 1 for small batches: waking the others
costs more, and their spinning afterwards slows the pipeline threads) with the GIL released.
The numpy functions in ``resize_tables`` are the reference these kernels are tested against.
"""

from cython.parallel cimport prange
from libc.stdint cimport int16_t, int32_t, uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy


cdef inline uint8_t _sat_u8(int v) noexcept nogil:
    return 0 if v < 0 else (255 if v > 255 else <uint8_t>v)


cdef void _linear_u8_image(const uint8_t* src, uint8_t* dst, int H, int W, int C,
                           int OH, int OW, const int32_t* xofs, const int16_t* xw,
                           const int32_t* yofs, const int16_t* yw, int* r0, int* r1) noexcept nogil:
    cdef int dy, dx, c, y0, y1, prev0 = -1, prev1 = -1, i0, i1, b0, b1
    cdef int ow_c = OW * C
    cdef int* tmp
    for dy in range(OH):
        y0 = yofs[2 * dy]
        y1 = yofs[2 * dy + 1]
        # Horizontal pass for the two source rows, reusing rows already blended.
        if y0 == prev1 and y0 != prev0:
            tmp = r0
            r0 = r1
            r1 = tmp
            prev0 = prev1
            prev1 = -1
        if y0 != prev0:
            _hline_u8(src + y0 * W * C, r0, OW, C, xofs, xw)
            prev0 = y0
        if y1 != prev1:
            _hline_u8(src + y1 * W * C, r1, OW, C, xofs, xw)
            prev1 = y1
        b0 = yw[2 * dy]
        b1 = yw[2 * dy + 1]
        for i0 in range(ow_c):
            # OpenCV's vectorised vertical pass: 16-bit high products, then round.
            i1 = (((b0 * (r0[i0] >> 4)) >> 16) + ((b1 * (r1[i0] >> 4)) >> 16) + 2) >> 2
            dst[dy * ow_c + i0] = _sat_u8(i1)


cdef inline void _hline_u8(const uint8_t* row, int* out, int OW, int C,
                           const int32_t* xofs, const int16_t* xw) noexcept nogil:
    cdef int dx, c, s0, s1, a0, a1
    for dx in range(OW):
        s0 = xofs[2 * dx] * C
        s1 = xofs[2 * dx + 1] * C
        a0 = xw[2 * dx]
        a1 = xw[2 * dx + 1]
        for c in range(C):
            out[dx * C + c] = row[s0 + c] * a0 + row[s1 + c] * a1


def linear_u8(const uint8_t[:, :, :, ::1] src, uint8_t[:, :, :, ::1] dst,
              const int32_t[::1] xofs, const int16_t[::1] xw,
              const int32_t[::1] yofs, const int16_t[::1] yw, int threads=1):
    """Bilinear resize of uint8 images ``src`` (N, H, W, C) into ``dst`` (N, OH, OW, C)."""
    cdef Py_ssize_t n, N = src.shape[0]
    cdef int H = src.shape[1], W = src.shape[2], C = src.shape[3]
    cdef int OH = dst.shape[1], OW = dst.shape[2]
    cdef int* bufs
    if N == 0:
        return
    with nogil:
        for n in prange(N, schedule="static", num_threads=threads):
            bufs = <int*>malloc(2 * OW * C * sizeof(int))
            _linear_u8_image(&src[n, 0, 0, 0], &dst[n, 0, 0, 0], H, W, C, OH, OW,
                             &xofs[0], &xw[0], &yofs[0], &yw[0], bufs, bufs + OW * C)
            free(bufs)


cdef void _linear_f32_image(const float* src, float* dst, int H, int W, int C,
                            int OH, int OW, const int32_t* xofs, const float* xw,
                            const int32_t* yofs, const float* yw, float* r0,
                            float* r1) noexcept nogil:
    cdef int dy, dx, c, s0, s1, i, ow_c = OW * C
    cdef const float* row0
    cdef const float* row1
    cdef float a0, a1, b0, b1
    for dy in range(OH):
        row0 = src + yofs[2 * dy] * W * C
        row1 = src + yofs[2 * dy + 1] * W * C
        for dx in range(OW):
            s0 = xofs[2 * dx] * C
            s1 = xofs[2 * dx + 1] * C
            a0 = xw[2 * dx]
            a1 = xw[2 * dx + 1]
            for c in range(C):
                r0[dx * C + c] = row0[s0 + c] * a0 + row0[s1 + c] * a1
                r1[dx * C + c] = row1[s0 + c] * a0 + row1[s1 + c] * a1
        b0 = yw[2 * dy]
        b1 = yw[2 * dy + 1]
        for i in range(ow_c):
            dst[dy * ow_c + i] = r0[i] * b0 + r1[i] * b1


def linear_f32(const float[:, :, :, ::1] src, float[:, :, :, ::1] dst,
               const int32_t[::1] xofs, const float[::1] xw,
               const int32_t[::1] yofs, const float[::1] yw, int threads=1):
    """Bilinear resize of float32 images ``src`` (N, H, W, C) into ``dst`` (N, OH, OW, C)."""
    cdef Py_ssize_t n, N = src.shape[0]
    cdef int H = src.shape[1], W = src.shape[2], C = src.shape[3]
    cdef int OH = dst.shape[1], OW = dst.shape[2]
    cdef float* bufs
    if N == 0:
        return
    with nogil:
        for n in prange(N, schedule="static", num_threads=threads):
            bufs = <float*>malloc(2 * OW * C * sizeof(float))
            _linear_f32_image(&src[n, 0, 0, 0], &dst[n, 0, 0, 0], H, W, C, OH, OW,
                              &xofs[0], &xw[0], &yofs[0], &yw[0], bufs, bufs + OW * C)
            free(bufs)


def nearest(const uint8_t[:, :, ::1] src, uint8_t[:, :, ::1] dst,
            const int32_t[::1] xofs, const int32_t[::1] yofs, int pixel_bytes,
            int threads=1):
    """Nearest-neighbour resize of any dtype, seen as bytes: ``src`` (N, H, W * pixel_bytes)."""
    cdef Py_ssize_t n, N = src.shape[0]
    cdef int H = src.shape[1], OH = dst.shape[1]
    cdef Py_ssize_t W = src.shape[2] // pixel_bytes, OW = dst.shape[2] // pixel_bytes
    cdef int dy, dx
    cdef const uint8_t* row
    cdef uint8_t* out
    if N == 0:
        return
    with nogil:
        for n in prange(N, schedule="static", num_threads=threads):
            for dy in range(OH):
                row = &src[n, yofs[dy], 0]
                out = &dst[n, dy, 0]
                for dx in range(OW):
                    memcpy(out + dx * pixel_bytes, row + xofs[dx] * pixel_bytes, pixel_bytes)
