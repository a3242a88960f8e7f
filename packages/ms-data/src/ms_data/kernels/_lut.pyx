# cython: language_level=3
"""uint8 images through a per-channel lookup table into float32, optionally after a bilinear
resize and optionally transposed to CHW: one pass that writes the final tensor once.

A chain of per-channel arithmetic (Rescale, Normalize, ToTensor's scaling) maps each uint8
value of a channel to one float32 result, so ``ms_data.vision.pointwise`` evaluates the chain
once on the 256 possible values (with the numpy reference, so the table holds exactly the
numbers the operations give one by one) and these loops only look results up. The resize
is OpenCV's fixed-point bilinear of ``_resize.linear_u8``, rounded to uint8 before the
lookup as running Resize and then the chain would.

``threads == 1`` runs on the calling thread without entering an OpenMP region: a batch of a
few dozen small images costs less than waking the other threads, and ``map`` workers
already run batches side by side.
"""

from cython.parallel cimport parallel, prange
from libc.stdint cimport int16_t, int32_t, uint8_t
from libc.stdlib cimport free, malloc


cdef inline int _sat_u8(int v) noexcept nogil:
    return 0 if v < 0 else (255 if v > 255 else v)


cdef inline void _hline(const uint8_t* row, int* out, int OW, int C,
                        const int32_t* xofs, const int16_t* xw) noexcept nogil:
    cdef int dx, c, s0, s1, a0, a1
    if C == 1:
        for dx in range(OW):
            out[dx] = row[xofs[2 * dx]] * xw[2 * dx] + row[xofs[2 * dx + 1]] * xw[2 * dx + 1]
        return
    for dx in range(OW):
        s0 = xofs[2 * dx] * C
        s1 = xofs[2 * dx + 1] * C
        a0 = xw[2 * dx]
        a1 = xw[2 * dx + 1]
        for c in range(C):
            out[dx * C + c] = row[s0 + c] * a0 + row[s1 + c] * a1


cdef inline void _vline_c1(const int* r0, const int* r1, int b0, int b1, float* out, int OW,
                           const float* lut, uint8_t* v) noexcept nogil:
    cdef int dx
    cdef int16_t h0 = <int16_t>b0, h1 = <int16_t>b1
    # Rows shifted by 4 fit int16 and so do the weights (OpenCV's 16x16 -> high-16 products);
    # the blend loop has no gathers, so the compiler may vectorise it apart from the lookup.
    for dx in range(OW):
        v[dx] = <uint8_t>_sat_u8(((<int>((h0 * <int>(<int16_t>(r0[dx] >> 4))) >> 16))
                                  + (<int>((h1 * <int>(<int16_t>(r1[dx] >> 4))) >> 16)) + 2)
                                 >> 2)
    for dx in range(OW):
        out[dx] = lut[v[dx]]


cdef void _resize_lut_image(const uint8_t* src, float* dst, int W, int C, int OH, int OW,
                            const int32_t* xofs, const int16_t* xw, const int32_t* yofs,
                            const int16_t* yw, const float* lut, bint chw,
                            int* r0, int* r1, uint8_t* vals) noexcept nogil:
    cdef int dy, dx, c, i, v, y0, y1, prev0 = -1, prev1 = -1, b0, b1
    cdef int plane = OH * OW
    cdef int* tmp
    for dy in range(OH):
        y0 = yofs[2 * dy]
        y1 = yofs[2 * dy + 1]
        if y0 == prev1 and y0 != prev0:  # the lower row of the last pair is this upper row
            tmp = r0
            r0 = r1
            r1 = tmp
            prev0 = prev1
            prev1 = -1
        if y0 != prev0:
            _hline(src + y0 * W * C, r0, OW, C, xofs, xw)
            prev0 = y0
        if y1 != prev1:
            _hline(src + y1 * W * C, r1, OW, C, xofs, xw)
            prev1 = y1
        b0 = yw[2 * dy]
        b1 = yw[2 * dy + 1]
        if C == 1:
            _vline_c1(r0, r1, b0, b1, dst + dy * OW, OW, lut, vals)
            continue
        i = 0
        for dx in range(OW):
            for c in range(C):
                # OpenCV's vertical pass: 16-bit high products, then round to uint8.
                v = _sat_u8((((b0 * (r0[i] >> 4)) >> 16) + ((b1 * (r1[i] >> 4)) >> 16) + 2)
                            >> 2)
                if chw:
                    dst[c * plane + dy * OW + dx] = lut[c * 256 + v]
                else:
                    dst[dy * OW * C + i] = lut[c * 256 + v]
                i = i + 1


def resize_lut(const uint8_t[:, :, :, ::1] src, float[:, ::1] dst,
               const int32_t[::1] xofs, const int16_t[::1] xw,
               const int32_t[::1] yofs, const int16_t[::1] yw,
               const float[:, ::1] lut, bint chw, int threads):
    """Bilinear-resize ``src`` (N, H, W, C) and look each value up in ``lut`` (C, 256);
    ``dst`` is (N, OH * OW * C), laid out CHW when ``chw`` else HWC."""
    cdef Py_ssize_t n, N = src.shape[0]
    cdef int W = src.shape[2], C = src.shape[3]
    cdef int OW = xofs.shape[0] // 2, OH = yofs.shape[0] // 2
    cdef int* bufs
    if N == 0:
        return
    with nogil:
        if threads == 1:
            bufs = <int*>malloc(3 * OW * C * sizeof(int))
            for n in range(N):
                _resize_lut_image(&src[n, 0, 0, 0], &dst[n, 0], W, C, OH, OW, &xofs[0], &xw[0],
                                  &yofs[0], &yw[0], &lut[0, 0], chw, bufs, bufs + OW * C,
                                  <uint8_t*>(bufs + 2 * OW * C))
            free(bufs)
        else:
            with parallel(num_threads=threads):
                bufs = <int*>malloc(3 * OW * C * sizeof(int))
                for n in prange(N, schedule="static"):
                    _resize_lut_image(&src[n, 0, 0, 0], &dst[n, 0], W, C, OH, OW, &xofs[0],
                                      &xw[0], &yofs[0], &yw[0], &lut[0, 0], chw, bufs,
                                      bufs + OW * C, <uint8_t*>(bufs + 2 * OW * C))
                free(bufs)


cdef void _lut_image(const uint8_t* src, float* dst, int P, int C, const float* lut,
                     bint chw) noexcept nogil:
    cdef int p, c
    if C == 1:
        for p in range(P):
            dst[p] = lut[src[p]]
    elif chw:
        for c in range(C):
            for p in range(P):
                dst[c * P + p] = lut[c * 256 + src[p * C + c]]
    else:
        for p in range(P):
            for c in range(C):
                dst[p * C + c] = lut[c * 256 + src[p * C + c]]


def lookup(const uint8_t[:, :, ::1] src, float[:, ::1] dst, const float[:, ::1] lut, bint chw,
           int threads):
    """``dst[n] = lut[c, src[n, p, c]]`` for ``src`` (N, P, C); ``dst`` (N, P * C) in CHW
    order when ``chw`` else HWC."""
    cdef Py_ssize_t n, N = src.shape[0]
    cdef int P = src.shape[1], C = src.shape[2]
    if N == 0 or P == 0 or C == 0:
        return
    with nogil:
        if threads == 1:
            for n in range(N):
                _lut_image(&src[n, 0, 0], &dst[n, 0], P, C, &lut[0, 0], chw)
        else:
            for n in prange(N, schedule="static", num_threads=threads):
                _lut_image(&src[n, 0, 0], &dst[n, 0], P, C, &lut[0, 0], chw)
