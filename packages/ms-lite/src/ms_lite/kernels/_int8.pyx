# cython: language_level=3
"""int8 GEMM with int32 accumulation and TFLite's integer requantization.

The loops are the C form of ``ms_lite.quant.scheme`` (``srdhm``, ``rdbpot``), which the
tests hold them to bit for bit; OpenMP splits the output rows across ``threads``.
"""

import numpy as np

from cython.parallel cimport prange
from libc.stdint cimport int8_t, int32_t, int64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memset

cdef extern from "_qconv.h" nogil:
    void ms_qconv_acc(const int8_t* w, const int8_t* cols, Py_ssize_t K, Py_ssize_t M,
                      Py_ssize_t ld, int32_t* acc)
    void ms_qdense_acc4(const int8_t* x0, const int8_t* x1, const int8_t* x2,
                        const int8_t* x3, const int8_t* wt, Py_ssize_t K, Py_ssize_t n,
                        Py_ssize_t ld, int32_t* acc)

cdef int32_t _I32_MIN = -2147483648
cdef int32_t _I32_MAX = 2147483647


cdef inline int32_t _srdhm(int32_t a, int32_t b) noexcept nogil:
    cdef int64_t ab, nudge, t
    if a == _I32_MIN and b == _I32_MIN:
        return _I32_MAX
    ab = <int64_t>a * <int64_t>b
    nudge = (1 << 30) if ab >= 0 else (1 - (1 << 30))
    t = ab + nudge
    # C's division truncates toward zero, as TFLite's does
    return <int32_t>(t / (<int64_t>1 << 31))


cdef inline int32_t _rdbpot(int32_t x, int exponent) noexcept nogil:
    # in int64: exponent may be 31, where an int32 mask would overflow
    cdef int64_t v = x
    cdef int64_t mask = ((<int64_t>1) << exponent) - 1
    cdef int64_t remainder = v & mask
    cdef int64_t threshold = (mask >> 1) + (1 if v < 0 else 0)
    return <int32_t>((v >> exponent) + (1 if remainder > threshold else 0))


cdef inline int32_t _requant(int32_t acc, int32_t mult, int32_t shift) noexcept nogil:
    cdef int64_t v = acc
    cdef int left = shift if shift > 0 else 0
    cdef int right = -shift if shift < 0 else 0
    v = v << left
    if v > _I32_MAX:
        v = _I32_MAX
    elif v < _I32_MIN:
        v = _I32_MIN
    return _rdbpot(_srdhm(<int32_t>v, mult), right)


def qgemm(const int8_t[:, ::1] a, const int8_t[:, ::1] w, const int32_t[::1] bias,
          const int32_t[::1] mult, const int32_t[::1] shift, int in_zp, int out_zp,
          int act_min, int act_max, int8_t[:, ::1] out, int threads):
    """out[m, n] = requant(sum_k (a[m, k] - in_zp) * w[n, k] + bias[n]) per column n."""
    cdef Py_ssize_t M = a.shape[0], K = a.shape[1], N = w.shape[0]
    cdef Py_ssize_t m, n, k
    cdef int nt = threads if threads > 0 else 0
    cdef int32_t[::1] zw = np.empty(N, np.int32)
    if w.shape[1] != K or out.shape[0] != M or out.shape[1] != N:
        raise ValueError(f"qgemm: a {a.shape[0]}x{a.shape[1]}, w {w.shape[0]}x{w.shape[1]}, "
                         f"out {out.shape[0]}x{out.shape[1]} do not fit")
    if bias.shape[0] != N or mult.shape[0] != N or shift.shape[0] != N:
        raise ValueError("qgemm: bias, mult and shift need one entry per output column")
    # sum((a - zp) * w) = sum(a * w) - zp * sum(w): the inner loop is a plain int8 dot
    cdef const int8_t* wp = &w[0, 0] if N * K else NULL
    for n in range(N):
        zw[n] = bias[n] - in_zp * _sum(wp + n * K, K)
    if M * N * K < 1 << 20 or nt == 1:
        # small products: waking a thread team costs more than the work (and, on a busy
        # machine, far more)
        with nogil:
            for m in range(M):
                _row(a, w, zw, mult, shift, out_zp, act_min, act_max, out, m, K, N)
    elif nt > 0:
        for m in prange(M, nogil=True, num_threads=nt, schedule="static"):
            _row(a, w, zw, mult, shift, out_zp, act_min, act_max, out, m, K, N)
    else:
        for m in prange(M, nogil=True, schedule="static"):
            _row(a, w, zw, mult, shift, out_zp, act_min, act_max, out, m, K, N)


cdef inline void _row(const int8_t[:, ::1] a, const int8_t[:, ::1] w,
                      const int32_t[::1] zw, const int32_t[::1] mult,
                      const int32_t[::1] shift, int out_zp, int act_min,
                      int act_max, int8_t[:, ::1] out, Py_ssize_t m, Py_ssize_t K,
                      Py_ssize_t N) noexcept nogil:
    cdef Py_ssize_t n
    cdef int32_t v
    cdef const int8_t* ar = &a[m, 0]
    for n in range(N):
        v = _requant(zw[n] + _dot(ar, &w[n, 0], K), mult[n], shift[n]) + out_zp
        if v < act_min:
            v = act_min
        elif v > act_max:
            v = act_max
        out[m, n] = <int8_t>v


cdef inline int32_t _sum(const int8_t* x, Py_ssize_t K) noexcept nogil:
    cdef int32_t acc = 0
    cdef Py_ssize_t k
    for k in range(K):
        acc += x[k]
    return acc


def im2row(const int8_t[:, :, :, ::1] x, int8_t[:, ::1] rows, int kh, int kw, int sh,
           int sw, int dh, int dw, int pt, int pl, int oh, int ow, int pad_value):
    """``rows[(n*oh + oy)*ow + ox, (c*kh + i)*kw + j]`` = the input under tap (i, j) of
    output (oy, ox) of image n, ``pad_value`` (the input zero point) outside: the
    ``(N*oh*ow, C*kh*kw)`` matrix that ``qgemm`` multiplies by the weights."""
    cdef Py_ssize_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3]
    cdef Py_ssize_t K = C * kh * kw, n, oy, ox, c, i, j, y, xx
    cdef int8_t* r
    if rows.shape[0] != N * oh * ow or rows.shape[1] != K:
        raise ValueError(f"im2row: rows {rows.shape[0]}x{rows.shape[1]}, expected "
                         f"{N * oh * ow}x{K}")
    cdef const int8_t* xp = &x[0, 0, 0, 0] if N * C * H * W else NULL
    with nogil:
        for n in range(N):
            for oy in range(oh):
                for ox in range(ow):
                    r = &rows[(n * oh + oy) * ow + ox, 0]
                    for c in range(C):
                        for i in range(kh):
                            y = oy * sh - pt + i * dh
                            for j in range(kw):
                                xx = ox * sw - pl + j * dw
                                r[(c * kh + i) * kw + j] = xp[((n * C + c) * H + y) * W + xx] \
                                    if 0 <= y < H and 0 <= xx < W else pad_value


cdef inline int32_t _dot(const int8_t* x, const int8_t* y, Py_ssize_t K) noexcept nogil:
    """int8 dot product in int32 over raw pointers: a loop the compiler vectorizes (the
    integer sum is exact in any order)."""
    cdef int32_t acc = 0
    cdef Py_ssize_t k
    for k in range(K):
        acc += <int32_t>x[k] * <int32_t>y[k]
    return acc


# -- elementwise and pooling int8 kernels (ms_lite.kernels.quantized_more has the
# -- numpy references they are held to, bit for bit) ---------------------------------

cdef inline int8_t _clamp(int32_t v, int lo, int hi) noexcept nogil:
    return <int8_t>(lo if v < lo else (hi if v > hi else v))


def add(const int8_t[::1] a, const int8_t[::1] b, int zp1, int zp2, int left, int m1,
        int s1, int m2, int s2, int m, int s, int out_zp, int act_min, int act_max,
        int8_t[::1] out):
    """TFLite's int8 Add: both inputs scaled by ``2**left``, each rescaled to the common
    scale, summed, requantized to the output."""
    cdef Py_ssize_t n = a.shape[0], i
    cdef int32_t x, y
    if b.shape[0] != n or out.shape[0] != n:
        raise ValueError(f"add: sizes {a.shape[0]}, {b.shape[0]}, out {out.shape[0]}")
    with nogil:
        for i in range(n):
            x = _requant((<int32_t>a[i] - zp1) * (1 << left), m1, s1)
            y = _requant((<int32_t>b[i] - zp2) * (1 << left), m2, s2)
            out[i] = _clamp(_requant(x + y, m, s) + out_zp, act_min, act_max)


def mul(const int8_t[::1] a, const int8_t[::1] b, int zp1, int zp2, int m, int s,
        int out_zp, int act_min, int act_max, int8_t[::1] out):
    """TFLite's int8 Mul: the product of the centred inputs, requantized."""
    cdef Py_ssize_t n = a.shape[0], i
    if b.shape[0] != n or out.shape[0] != n:
        raise ValueError(f"mul: sizes {a.shape[0]}, {b.shape[0]}, out {out.shape[0]}")
    with nogil:
        for i in range(n):
            out[i] = _clamp(_requant((<int32_t>a[i] - zp1) * (<int32_t>b[i] - zp2), m, s)
                            + out_zp, act_min, act_max)


def rescale(const int8_t[::1] a, int zp_in, int m, int s, int out_zp, int8_t[::1] out):
    """int8 with one scale and zero point -> another (a Concat input to the output's)."""
    cdef Py_ssize_t n = a.shape[0], i
    if out.shape[0] != n:
        raise ValueError(f"rescale: sizes {n} and out {out.shape[0]}")
    with nogil:
        for i in range(n):
            out[i] = _clamp(_requant(<int32_t>a[i] - zp_in, m, s) + out_zp, -128, 127)


def avg_pool(const int8_t[:, :, ::1] x, int8_t[:, :, ::1] out, int kh, int kw, int sh,
             int sw, int act_min, int act_max):
    """Unpadded average pooling of int8 planes: the int32 window sum divided by the
    window size, rounded half away from zero (TFLite's), in the input's scale."""
    cdef Py_ssize_t P = x.shape[0], W = x.shape[2], oh = out.shape[1], ow = out.shape[2]
    cdef Py_ssize_t p, oy, ox, i, j
    cdef int32_t acc, count = kh * kw
    if out.shape[0] != P or (oh - 1) * sh + kh > x.shape[1] or (ow - 1) * sw + kw > W:
        raise ValueError(f"avg_pool: windows of {out.shape} do not fit in {x.shape}")
    with nogil:
        for p in range(P):
            for oy in range(oh):
                for ox in range(ow):
                    acc = 0
                    for i in range(kh):
                        for j in range(kw):
                            acc = acc + x[p, oy * sh + i, ox * sw + j]
                    acc = (acc + count // 2) // count if acc > 0 else \
                        -((-acc + count // 2) // count)
                    out[p, oy, ox] = _clamp(acc, act_min, act_max)


cdef extern from "math.h" nogil:
    double nearbyint(double x)


def quantize_f32(const float[::1] x, double scale, int zp, int8_t[::1] out):
    """float32 -> int8 per tensor: ``clamp(rint(x / scale) + zp)`` in double, ties to
    even (the rounding mode C starts in), as ``scheme.quantize`` computes."""
    cdef Py_ssize_t n = x.shape[0], i
    cdef double v
    if out.shape[0] != n:
        raise ValueError(f"quantize_f32: sizes {n} and out {out.shape[0]}")
    with nogil:
        for i in range(n):
            v = nearbyint(<double>x[i] / scale) + zp
            out[i] = <int8_t>(-128 if v < -128 else (127 if v > 127 else v))


def dequantize_f32(const int8_t[::1] q, double scale, int zp, float[::1] out):
    """int8 -> float32 per tensor: ``(q - zp) * scale`` in double, then rounded to float."""
    cdef Py_ssize_t n = q.shape[0], i
    if out.shape[0] != n:
        raise ValueError(f"dequantize_f32: sizes {n} and out {out.shape[0]}")
    with nogil:
        for i in range(n):
            out[i] = <float>((<double>q[i] - zp) * scale)



# -- the execution plan's int8 convolution (ms_lite.runtime.ops_int8): a column matrix
# -- in the float kernels' layout, each output channel an int32 row accumulated in place

cdef void _cols_i8(const int8_t* xp, int8_t* cols, Py_ssize_t ld, Py_ssize_t C,
                   Py_ssize_t H, Py_ssize_t W, int kh, int kw, int sh, int sw, int dh, int dw,
                   int pt, int pl, Py_ssize_t oh, Py_ssize_t ow, int pad_value) noexcept nogil:
    """The column matrix of one image ``xp`` (C, H, W) into ``cols`` (rows ``ld`` apart)."""
    cdef Py_ssize_t c, i, j, oy, ox, y, off, lo, hi
    cdef int8_t* r
    cdef const int8_t* src
    for c in range(C):
        for i in range(kh):
            for j in range(kw):
                off = j * dw - pl  # input column of output column ox: ox*sw + off
                lo = 0 if off >= 0 else (-off + sw - 1) // sw
                hi = (W - 1 - off) // sw + 1 if W - 1 - off >= 0 else 0
                hi = ow if hi > ow else hi
                lo = hi if lo > hi else lo
                r = cols + ((c * kh + i) * kw + j) * ld
                for oy in range(oh):
                    y = oy * sh - pt + i * dh
                    if y < 0 or y >= H:
                        memset(r + oy * ow, pad_value, ow)
                        continue
                    src = xp + (c * H + y) * W + off
                    for ox in range(lo):
                        r[oy * ow + ox] = pad_value
                    for ox in range(lo, hi):
                        r[oy * ow + ox] = src[ox * sw]
                    for ox in range(hi, ow):
                        r[oy * ow + ox] = pad_value


def im2col(const int8_t[:, :, :, ::1] x, int8_t[:, ::1] cols, int kh, int kw, int sh,
           int sw, int dh, int dw, int pt, int pl, int oh, int ow, int pad_value):
    """``cols[(c*kh + i)*kw + j, (n*oh + oy)*ow + ox]`` = the input under tap (i, j) of
    output (oy, ox) of image n, ``pad_value`` (the input zero point) outside: ``im2row``
    transposed, so that ``qconv`` runs along contiguous output pixels."""
    cdef Py_ssize_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3]
    cdef Py_ssize_t P = oh * ow, n
    if cols.shape[0] != C * kh * kw or cols.shape[1] != N * P:
        raise ValueError(f"im2col: cols {cols.shape[0]}x{cols.shape[1]}, expected "
                         f"{C * kh * kw}x{N * P}")
    if N * C * H * W == 0 or N * P == 0:
        return
    with nogil:
        for n in range(N):
            _cols_i8(&x[n, 0, 0, 0], &cols[0, n * P], N * P, C, H, W, kh, kw, sh, sw, dh, dw,
                     pt, pl, oh, ow, pad_value)


def qconv_images(const int8_t[:, :, :, ::1] x, const int8_t[:, ::1] w, int8_t[:, ::1] cols,
                 const int32_t[::1] zw, const int32_t[::1] mult, const int32_t[::1] shift,
                 int out_zp, int act_min, int act_max, int8_t[:, :, ::1] out, int kh, int kw,
                 int sh, int sw, int dh, int dw, int pt, int pl, int oh, int ow,
                 int pad_value):
    """A quantized convolution image by image: ``im2col`` of image ``n`` into ``cols``
    (K, oh*ow) (it stays in L2), then ``qconv`` into ``out[n]`` (Co, oh*ow), NCHW: the
    same sums and requantization, bit for bit."""
    cdef Py_ssize_t N = x.shape[0], C = x.shape[1], H = x.shape[2], W = x.shape[3]
    cdef Py_ssize_t Co = w.shape[0], K = w.shape[1], P = oh * ow, n, c
    cdef int32_t* acc
    if K != C * kh * kw or cols.shape[0] != K or cols.shape[1] != P or out.shape[0] != N \
            or out.shape[1] != Co or out.shape[2] != P or zw.shape[0] != Co \
            or mult.shape[0] != Co or shift.shape[0] != Co:
        raise ValueError(f"qconv_images: x {tuple(x.shape)[:4]}, w {Co}x{K}, cols "
                         f"{cols.shape[0]}x{cols.shape[1]} and out {tuple(out.shape)[:3]} do "
                         f"not fit {kh}x{kw} windows giving {oh}x{ow}")
    if N * Co * P == 0 or K == 0:
        raise ValueError("qconv_images: an empty convolution")
    acc = <int32_t*>malloc(P * sizeof(int32_t))
    if acc == NULL:
        raise MemoryError("qconv_images: no memory for one row of int32 sums")
    with nogil:
        for n in range(N):
            _cols_i8(&x[n, 0, 0, 0], &cols[0, 0], P, C, H, W, kh, kw, sh, sw, dh, dw, pt, pl,
                     oh, ow, pad_value)
            for c in range(Co):
                _qconv_row(&w[c, 0], &cols[0, 0], K, P, zw[c], mult[c], shift[c], out_zp,
                           act_min, act_max, acc, &out[n, c, 0])
    free(acc)


cdef void _qconv_row(const int8_t* w, const int8_t* cols, Py_ssize_t K, Py_ssize_t M,
                     int32_t zw, int32_t mult, int32_t shift, int out_zp, int act_min,
                     int act_max, int32_t* acc, int8_t* out) noexcept nogil:
    cdef Py_ssize_t m
    cdef int32_t v
    for m in range(M):
        acc[m] = zw
    ms_qconv_acc(w, cols, K, M, M, acc)  # acc += w @ cols, along contiguous pixels
    for m in range(M):
        v = _requant(acc[m], mult, shift) + out_zp
        out[m] = <int8_t>(act_min if v < act_min else (act_max if v > act_max else v))


def qconv(const int8_t[:, ::1] w, const int8_t[:, ::1] cols, const int32_t[::1] zw,
          const int32_t[::1] mult, const int32_t[::1] shift, int out_zp, int act_min,
          int act_max, int8_t[:, ::1] out, int threads=1):
    """``out[n] = requant(w[n] @ cols + zw[n])`` per output channel ``n``: ``w`` (Co, K),
    ``cols`` (K, M) from ``im2col``, ``zw[n] = bias[n] - in_zp * sum(w[n])`` (the input
    zero point taken out once, at build time), int32 accumulation and the integer
    requantization of ``qgemm``, bit for bit; ``threads`` > 1 splits the channels."""
    cdef Py_ssize_t Co = w.shape[0], K = w.shape[1], M = cols.shape[1], n
    cdef int32_t* acc
    if cols.shape[0] != K or out.shape[0] != Co or out.shape[1] != M or zw.shape[0] != Co \
            or mult.shape[0] != Co or shift.shape[0] != Co:
        raise ValueError(f"qconv: w {w.shape[0]}x{K}, cols {cols.shape[0]}x{M} and out "
                         f"{out.shape[0]}x{out.shape[1]} do not fit (one zw, mult, shift "
                         "per channel)")
    if Co == 0 or M == 0:
        return
    cdef int nt = threads if threads > 1 and Co * K * M >= 1 << 22 else 1
    with nogil:
        if nt == 1:
            acc = <int32_t*>malloc(M * sizeof(int32_t))
            if acc == NULL:
                with gil:
                    raise MemoryError("qconv: no memory for one row of int32 sums")
            for n in range(Co):
                _qconv_row(&w[n, 0], &cols[0, 0], K, M, zw[n], mult[n], shift[n], out_zp,
                           act_min, act_max, acc, &out[n, 0])
            free(acc)
        else:
            for n in prange(Co, num_threads=nt, schedule="static"):
                acc = <int32_t*>malloc(M * sizeof(int32_t))
                if acc != NULL:
                    _qconv_row(&w[n, 0], &cols[0, 0], K, M, zw[n], mult[n], shift[n],
                               out_zp, act_min, act_max, acc, &out[n, 0])
                    free(acc)


def max_pool(const int8_t[:, :, ::1] x, int8_t[:, :, ::1] out, int kh, int kw, int sh,
             int sw):
    """Unpadded max pooling of int8 planes (scale and zero point pass through)."""
    cdef Py_ssize_t P = x.shape[0], W = x.shape[2], oh = out.shape[1], ow = out.shape[2]
    cdef Py_ssize_t p, oy, ox, i, j
    cdef int8_t m
    if out.shape[0] != P or (oh - 1) * sh + kh > x.shape[1] or (ow - 1) * sw + kw > W:
        raise ValueError(f"max_pool: windows of {out.shape} do not fit in {x.shape}")
    with nogil:
        for p in range(P):
            for oy in range(oh):
                for ox in range(ow):
                    m = -128
                    for i in range(kh):
                        for j in range(kw):
                            if x[p, oy * sh + i, ox * sw + j] > m:
                                m = x[p, oy * sh + i, ox * sw + j]
                    out[p, oy, ox] = m


# columns of a block of ``qdense`` (its int32 sums stay in L1, its weights in L2)
cdef Py_ssize_t _QBLOCK = 256


def qdense(const int8_t[:, ::1] x, const int8_t[:, ::1] wt, const int32_t[::1] zw,
           const int32_t[::1] mult, const int32_t[::1] shift, int out_zp, int act_min,
           int act_max, int8_t[:, ::1] out, int threads=1):
    """``out[m, n] = requant(x[m] @ wt[:, n] + zw[n])`` per output column ``n``: the int8
    Dense of the plan with its weight transposed once (``wt`` (K, N)) and
    ``zw[n] = bias[n] - in_zp * sum(w[n])``; int32 sums accumulated along contiguous
    columns, four rows per pass over the weights (``_qconv.h``), the requantization of
    ``qgemm`` bit for bit. Blocks of 256 columns; ``threads`` > 1 splits the blocks."""
    cdef Py_ssize_t M = x.shape[0], K = x.shape[1], N = wt.shape[1], nb, b0, b1, m, j, r
    cdef Py_ssize_t nblk = (N + _QBLOCK - 1) // _QBLOCK
    cdef int32_t* acc
    cdef int32_t v
    if wt.shape[0] != K or out.shape[0] != M or out.shape[1] != N or zw.shape[0] != N \
            or mult.shape[0] != N or shift.shape[0] != N:
        raise ValueError(f"qdense: x {M}x{K}, wt {wt.shape[0]}x{N} and out "
                         f"{out.shape[0]}x{out.shape[1]} do not fit (one zw, mult, shift "
                         "per column)")
    if K == 0:
        raise ValueError("qdense: x has no columns")
    if M == 0 or N == 0:
        return
    cdef int nt = threads if threads > 1 and M * K * N >= 1 << 22 else 1
    cdef int failed = 0
    for nb in prange(nblk, nogil=True, num_threads=nt, schedule="static"):
        acc = <int32_t*>malloc(4 * _QBLOCK * sizeof(int32_t))
        if acc == NULL:
            failed += 1
            continue
        b0 = nb * _QBLOCK
        b1 = min(b0 + _QBLOCK, N)
        for m in range(0, M, 4):  # four rows per pass over the block's weights
            for r in range(4):
                for j in range(b0, b1):
                    acc[r * (b1 - b0) + j - b0] = zw[j]
            ms_qdense_acc4(&x[m, 0], &x[min(m + 1, M - 1), 0], &x[min(m + 2, M - 1), 0],
                           &x[min(m + 3, M - 1), 0], &wt[0, b0], K, b1 - b0, N, acc)
            for r in range(min(4, M - m)):
                for j in range(b0, b1):
                    v = _requant(acc[r * (b1 - b0) + j - b0], mult[j], shift[j]) + out_zp
                    out[m + r, j] = <int8_t>(act_min if v < act_min else (
                        act_max if v > act_max else v))
        free(acc)
    if failed:
        raise MemoryError("qdense: no memory for a block of int32 sums")
