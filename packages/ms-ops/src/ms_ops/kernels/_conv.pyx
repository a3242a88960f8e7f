"""im2col / col2im for 2-d convolution (NCHW), the data movement around the GEMMs.

The column matrix of a chunk of images is ``(C * KH * KW, N * OH * OW)``: row ``(c, i, j)``
holds the input pixels that kernel tap ``(i, j)`` of channel ``c`` sees at every output
position of every image. One GEMM then covers the chunk (``weight @ col`` is the output in
channel-major order, ``weight.T @ dout`` the column gradient, ``col @ dout.T`` the filter
gradient); ``swap01`` moves between channel-major and NCHW with row-sized memcpys.

These loops run on the calling thread, without OpenMP: they sit between GEMMs, and
OpenBLAS's worker keeps spinning on the other core for a while after each GEMM. Measured
on the 32x16x32x32 benchmark: two OpenMP threads (passive waiting) were no faster.
"""

from cython cimport floating
from libc.string cimport memcpy, memset

cimport openmp
from cython.parallel cimport parallel, prange


cdef inline Py_ssize_t _first_valid(Py_ssize_t offset, Py_ssize_t stride) noexcept nogil:
    # smallest output index o >= 0 with o * stride + offset >= 0
    if offset >= 0:
        return 0
    return (-offset + stride - 1) // stride


cdef inline Py_ssize_t _end_valid(Py_ssize_t offset, Py_ssize_t stride, Py_ssize_t size,
                                  Py_ssize_t n_out) noexcept nogil:
    # one past the largest output index o < n_out with o * stride + offset < size
    cdef Py_ssize_t e
    if offset >= size:
        return 0
    e = (size - offset + stride - 1) // stride
    return e if e < n_out else n_out


cdef void _im2col_plane(const floating* x, floating* col, Py_ssize_t ld,
                        Py_ssize_t H, Py_ssize_t W,
                        Py_ssize_t KH, Py_ssize_t KW, Py_ssize_t OH, Py_ssize_t OW,
                        Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t dh, Py_ssize_t dw,
                        Py_ssize_t pt, Py_ssize_t pl) noexcept nogil:
    cdef Py_ssize_t i, j, y, ox, ih, off_w, lo, hi
    cdef floating* row
    cdef const floating* src
    for i in range(KH):
        for j in range(KW):
            off_w = j * dw - pl
            lo = _first_valid(off_w, sw)
            hi = _end_valid(off_w, sw, W, OW)
            if hi < lo:
                hi = lo
            for y in range(OH):
                row = col + (i * KW + j) * ld + y * OW
                ih = y * sh - pt + i * dh
                if ih < 0 or ih >= H or lo >= hi:
                    memset(row, 0, OW * sizeof(floating))
                    continue
                if lo > 0:
                    memset(row, 0, lo * sizeof(floating))
                src = x + ih * W + off_w
                if sw == 1:
                    memcpy(row + lo, src + lo, (hi - lo) * sizeof(floating))
                else:
                    for ox in range(lo, hi):
                        row[ox] = src[ox * sw]
                if hi < OW:
                    memset(row + hi, 0, (OW - hi) * sizeof(floating))


cdef void _col2im_plane(const floating* col, Py_ssize_t ld, floating* x,
                        Py_ssize_t H, Py_ssize_t W,
                        Py_ssize_t KH, Py_ssize_t KW, Py_ssize_t OH, Py_ssize_t OW,
                        Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t dh, Py_ssize_t dw,
                        Py_ssize_t pt, Py_ssize_t pl) noexcept nogil:
    cdef Py_ssize_t i, j, y, ox, ih, off_w, lo, hi
    cdef const floating* row
    cdef floating* dst
    memset(x, 0, H * W * sizeof(floating))
    for i in range(KH):
        for j in range(KW):
            off_w = j * dw - pl
            lo = _first_valid(off_w, sw)
            hi = _end_valid(off_w, sw, W, OW)
            for y in range(OH):
                ih = y * sh - pt + i * dh
                if ih < 0 or ih >= H:
                    continue
                row = col + (i * KW + j) * ld + y * OW
                dst = x + ih * W + off_w
                if sw == 1:
                    for ox in range(lo, hi):
                        dst[ox] += row[ox]
                else:
                    for ox in range(lo, hi):
                        dst[ox * sw] += row[ox]


def im2col(const floating[:, :, :, ::1] x, floating[:, ::1] col, int kh, int kw,
           int sh, int sw, int dh, int dw, int pt, int pl, int oh, int ow):
    """Fill ``col`` (``(C*kh*kw, N*oh*ow)``) with the columns of the images ``x``.

    Image ``n``'s columns are ``col[:, n*oh*ow:(n+1)*oh*ow]``, so one GEMM covers the
    whole chunk.
    """
    cdef Py_ssize_t n_img = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3]
    cdef Py_ssize_t plane = H * W, P = oh * ow, ld = col.shape[1], taps = kh * kw, t
    cdef const floating* xp = &x[0, 0, 0, 0]
    cdef floating* cp = &col[0, 0]
    with nogil:
        for t in range(n_img * C):
            _im2col_plane(xp + t * plane, cp + (t % C) * taps * ld + (t // C) * P, ld,
                          H, W, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl)


def col2im(const floating[:, ::1] col, floating[:, :, :, ::1] x, int kh, int kw,
           int sh, int sw, int dh, int dw, int pt, int pl, int oh, int ow):
    """Overwrite ``x`` with the sum of the column gradients ``col`` (``im2col``'s layout)."""
    cdef Py_ssize_t n_img = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3]
    cdef Py_ssize_t plane = H * W, P = oh * ow, ld = col.shape[1], taps = kh * kw, t
    cdef const floating* cp = &col[0, 0]
    cdef floating* xp = &x[0, 0, 0, 0]
    with nogil:
        for t in range(n_img * C):
            _col2im_plane(cp + (t % C) * taps * ld + (t // C) * P, ld, xp + t * plane,
                          H, W, kh, kw, oh, ow, sh, sw, dh, dw, pt, pl)


def swap01(const floating[:, :, ::1] src, floating[:, :, ::1] dst):
    """``dst[b, a] = src[a, b]`` for rows of the last axis: NCHW <-> channel-major."""
    cdef Py_ssize_t A = src.shape[0], B = src.shape[1], P = src.shape[2], t
    cdef const floating* sp = &src[0, 0, 0]
    cdef floating* dp = &dst[0, 0, 0]
    with nogil:
        for t in range(A * B):
            memcpy(dp + ((t % B) * A + t // B) * P, sp + t * P, P * sizeof(floating))


# -- direct stride-1 convolution (float32, no column matrix) -------------------------

cdef extern from "_conv_direct.h" nogil:
    void ms_pad_image(const float* src, long C, long H, long W, float* dst, long Hp, long Wp,
                      long top, long left)
    void ms_conv_image(const float* inp, long C, long Hp, long Wp, const float* wp, long KH,
                       long KW, float* out, long CO, long OH, long OW)
    void ms_dw_image(const float* inp, long C, long Hp, long Wp, const float* d, long CO,
                     long OH, long ldd, long KH, long KW, float* acc)
    void ms_dw_reduce(const float* acc, long nt, long CO, long C, long KH, long KW, float* dw)


def direct_conv(const float[:, :, :, ::1] x, const float[:, :, :, :, ::1] wp,
                float[:, :, :, ::1] out, float[:, ::1] bufs, int top, int left):
    """``out`` = stride-1 correlation of ``x`` (padded by ``top``/``left``, zeros elsewhere)
    with the packed weights ``wp`` ``(ceil(Cout/8), C, kh, kw, 8)``.

    ``bufs`` holds one padded image per OpenMP thread: ``(threads, C * (oh + kh - 1) *
    (round_up(ow, 16) + kw - 1))``. Images are split between the threads.
    """
    cdef Py_ssize_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3]
    cdef Py_ssize_t CO = out.shape[1], OH = out.shape[2], OW = out.shape[3]
    cdef Py_ssize_t KH = wp.shape[2], KW = wp.shape[3], n
    cdef Py_ssize_t Hp = OH + KH - 1, Wp = (OW + 15) // 16 * 16 + KW - 1
    cdef int nt = bufs.shape[0]
    cdef float* buf
    with nogil, parallel(num_threads=nt):
        buf = &bufs[openmp.omp_get_thread_num(), 0]
        for n in prange(N, schedule="dynamic"):
            ms_pad_image(&x[n, 0, 0, 0], C, H, W, buf, Hp, Wp, top, left)
            ms_conv_image(buf, C, Hp, Wp, &wp[0, 0, 0, 0, 0], KH, KW, &out[n, 0, 0, 0], CO,
                          OH, OW)


def direct_filter_grad(const float[:, :, :, ::1] x, const float[:, :, :, ::1] d,
                       float[:, :, :, ::1] dw, float[:, ::1] acc, float[:, ::1] bufs,
                       int top, int left, int ow):
    """``dw`` ``(co, C, kh, kw)`` = the filter gradient of the stride-1 correlation of ``x``
    (padded by ``top``/``left``) whose output gradient is ``d``.

    ``d`` is ``(N, ceil(co/8)*8, oh, ldd)`` with ``ldd`` a multiple of 16, zero past ``ow``
    and past ``co``; ``acc`` (zeroed by the caller) holds each thread's partial sums,
    ``(threads, ceil(co/8) * C * kh * kw * 8 * 16)``; ``bufs`` as for ``direct_conv``.
    """
    cdef int co = dw.shape[0], kh = dw.shape[2], kw = dw.shape[3]
    cdef Py_ssize_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3]
    cdef Py_ssize_t OH = d.shape[2], ldd = d.shape[3], n
    cdef Py_ssize_t Hp = OH + kh - 1, Wp = (ow + 15) // 16 * 16 + kw - 1
    cdef int nt = bufs.shape[0], t
    cdef float* buf
    with nogil, parallel(num_threads=nt):
        t = openmp.omp_get_thread_num()
        buf = &bufs[t, 0]
        # static: each thread sums a fixed run of images, so the gradient's bits do not
        # depend on which thread was faster (a dynamic schedule made training irreproducible)
        for n in prange(N, schedule="static"):
            ms_pad_image(&x[n, 0, 0, 0], C, H, W, buf, Hp, Wp, top, left)
            ms_dw_image(buf, C, Hp, Wp, &d[n, 0, 0, 0], co, OH, ldd, kh, kw, &acc[t, 0])
    with nogil:
        ms_dw_reduce(&acc[0, 0], nt, co, C, kh, kw, &dw[0, 0, 0, 0])
