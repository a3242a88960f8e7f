# cython: language_level=3
"""float32 loops of the runtime's execution plan (``ms_lite.runtime.plan``): the column
matrix of a convolution, pooling with the activation fused, bias + activation in place,
and the (Cout, N, P) -> (N, Cout, P) unpacking of a batched convolution's product.

The matrix products themselves are BLAS's (numpy's ``matmul`` into a planned buffer);
these loops are the memory-bound rest, where numpy would need several passes and
temporary arrays. ``threads`` > 1 splits the outer loop with OpenMP.

Activations: 0 none, 1 ReLU, 2 ReLU6 (MindSpore Lite's ``activation_type``).
"""

cimport numpy as cnp
import numpy as np
from cython.parallel cimport prange
from libc.string cimport memcpy, memset

cdef extern from "_dense.h" nogil:
    void ms_dense_cols(const float* x, const float* w, const float* b, float* o,
                       Py_ssize_t K, Py_ssize_t N, Py_ssize_t j0, Py_ssize_t j1, int act)
    void ms_gemm_panels(const float* A, Py_ssize_t M, Py_ssize_t K, const float* B,
                        Py_ssize_t ks, Py_ssize_t ps, Py_ssize_t N, const float* b, float* C,
                        Py_ssize_t ldc, Py_ssize_t p0, Py_ssize_t p1, int act)

cnp.import_array()


# Arrays come in as ndarrays, checked here (dtype, layout, rank; the sizes by each
# kernel), not as typed memoryviews: a call is then ~0.1 us instead of ~0.4, and a
# LeNet5 prediction makes a dozen of them.
cdef float* _data(cnp.ndarray a, int ndim, bint write, str what) except NULL:
    if a is None or cnp.PyArray_TYPE(a) != cnp.NPY_FLOAT32 or cnp.PyArray_NDIM(a) != ndim \
            or not cnp.PyArray_IS_C_CONTIGUOUS(a) or (write and not cnp.PyArray_ISWRITEABLE(a)):
        raise ValueError(f"{what} must be a C-contiguous{' writable' if write else ''} "
                         f"{ndim}-d float32 array, got {None if a is None else ((<object>a).dtype, (<object>a).shape)}")
    return <float*>cnp.PyArray_DATA(a)


# A second thread pays only on large tensors or products (this many values or
# multiply-adds, about 0.4 ms of one thread's work): every parallel region waits for its
# threads to be scheduled, on a busy machine for milliseconds (docs/benchmarks.md).
cdef Py_ssize_t _PARALLEL = 1 << 22


cdef inline Py_ssize_t _dim(cnp.ndarray a, int i) noexcept:
    return cnp.PyArray_DIM(a, i)


cdef inline float _act(float v, int act) noexcept nogil:
    if act == 1:
        return v if v > 0 else 0
    if act == 2:
        return 0 if v < 0 else (6 if v > 6 else v)
    return v


cdef inline Py_ssize_t _ceil_div(Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    return -((-a) // b) if a < 0 else (a + b - 1) // b


cdef void _col_row(const float* x, float* dst, Py_ssize_t H, Py_ssize_t W, int i, int j,
                   int sh, int sw, int dh, int dw, int pt, int pl, Py_ssize_t oh,
                   Py_ssize_t ow) noexcept nogil:
    """One row of the column matrix: tap (i, j) of one channel of one image."""
    cdef Py_ssize_t oy, ox, y, off = j * dw - pl
    # output columns whose input column ox*sw + off lies in [0, W)
    cdef Py_ssize_t lo = 0 if off >= 0 else _ceil_div(-off, sw)
    cdef Py_ssize_t hi = (W - 1 - off) // sw + 1 if W - 1 - off >= 0 else 0
    if hi > ow:
        hi = ow
    if lo > hi:
        lo = hi
    for oy in range(oh):
        y = oy * sh - pt + i * dh
        if y < 0 or y >= H:
            memset(dst + oy * ow, 0, ow * sizeof(float))
            continue
        if lo > 0:
            memset(dst + oy * ow, 0, lo * sizeof(float))
        if sw == 1:  # a loop, not memcpy: rows are short (a call per 28 floats costs)
            for ox in range(lo, hi):
                dst[oy * ow + ox] = x[y * W + ox + off]
        else:
            for ox in range(lo, hi):
                dst[oy * ow + ox] = x[y * W + ox * sw + off]
        if hi < ow:
            memset(dst + oy * ow + hi, 0, (ow - hi) * sizeof(float))


def im2col(cnp.ndarray x, cnp.ndarray cols, int kh, int kw, int sh, int sw, int dh, int dw,
           int pt, int pl, int oh, int ow, int threads=1):
    """Rows ``0 .. C*kh*kw - 1`` of ``cols`` (``(>= C*kh*kw, >= N*oh*ow)``) become the
    columns of the images ``x`` (NCHW, zero padding): row ``(c*kh + i)*kw + j``, image
    ``n`` at columns ``n*oh*ow ..`` (columns past ``N*oh*ow`` are left alone). Rows past ``C*kh*kw`` are left alone (a row of ones there
    adds the bias in the product)."""
    cdef const float* xp = _data(x, 4, False, "im2col: x")
    cdef float* cp = _data(cols, 2, True, "im2col: cols")
    cdef Py_ssize_t N = _dim(x, 0), C = _dim(x, 1), H = _dim(x, 2), W = _dim(x, 3)
    cdef Py_ssize_t P = oh * ow, ld = _dim(cols, 1), taps = kh * kw, rows = N * C * taps
    cdef Py_ssize_t r, n, c, t
    if _dim(cols, 0) < C * taps or ld < N * P:
        raise ValueError(f"im2col: cols {_dim(cols, 0)}x{ld} cannot hold {C * taps}x{N * P}")
    cdef int nt = threads if threads > 1 and rows * P >= _PARALLEL else 1
    with nogil:
        for r in prange(rows, schedule="static", num_threads=nt):
            n = r // (C * taps)
            c = (r // taps) % C
            t = r % taps
            _col_row(xp + (n * C + c) * H * W, cp + (c * taps + t) * ld + n * P, H, W,
                     t // kw, t % kw, sh, sw, dh, dw, pt, pl, oh, ow)


def im2col_wide(cnp.ndarray x, cnp.ndarray cols, int kh, int kw, int dh, int dw, int oh,
                int threads=1):
    """The column matrix of an unpadded stride-1 convolution of one image computed on the
    full input width: row ``(c*kh + i)*kw + j`` is the contiguous run of ``oh*W`` values
    from ``x[0, c, i*dh, j*dw]`` (one copy per row, however narrow the image). Output
    columns ``ox >= ow`` of the product are then meaningless (they wrap into the next
    row) and the reader skips them; the few values past the plane's end are zeros. Rows
    of ``cols`` may be longer than ``oh*W`` (the rest is left alone)."""
    cdef const float* xp = _data(x, 4, False, "im2col_wide: x")
    cdef float* cp = _data(cols, 2, True, "im2col_wide: cols")
    cdef Py_ssize_t C = _dim(x, 1), H = _dim(x, 2), W = _dim(x, 3)
    cdef Py_ssize_t taps = kh * kw, L = oh * W, ld = _dim(cols, 1), r, c, t, start, n
    if _dim(x, 0) != 1 or _dim(cols, 0) < C * taps or ld < L or oh > H:
        raise ValueError(f"im2col_wide: cols {_dim(cols, 0)}x{_dim(cols, 1)} cannot hold "
                         f"{C * taps}x{L} for x of shape {(<object>x).shape}")
    cdef int nt = threads if threads > 1 and C * taps * L >= _PARALLEL else 1
    with nogil:
        for r in prange(C * taps, schedule="static", num_threads=nt):
            c = r // taps
            t = r % taps
            start = (t // kw) * dh * W + (t % kw) * dw
            n = H * W - start
            if n > L:
                n = L
            memcpy(cp + r * ld, xp + c * H * W + start, n * sizeof(float))
            if n < L:
                memset(cp + r * ld + n, 0, (L - n) * sizeof(float))


cdef void _pool_plane(const float* x, float* o, Py_ssize_t H, Py_ssize_t W, int kh, int kw,
                      int sh, int sw, Py_ssize_t oh, Py_ssize_t ow, bint avg,
                      int act) noexcept nogil:
    cdef Py_ssize_t oy, ox, i, j
    cdef const float* row
    cdef float m, inv = 1.0 / (kh * kw)
    for oy in range(oh):
        for ox in range(ow):
            row = x + oy * sh * W + ox * sw
            if avg:
                m = 0
                for i in range(kh):
                    for j in range(kw):
                        m = m + row[i * W + j]
                m = m * inv
            else:
                m = row[0]
                for i in range(kh):
                    for j in range(kw):
                        if row[i * W + j] > m or row[i * W + j] != row[i * W + j]:
                            m = row[i * W + j]
            o[oy * ow + ox] = _act(m, act)


cdef void _max2x2(const float* x, float* o, Py_ssize_t W, Py_ssize_t oh, Py_ssize_t ow,
                  int act) noexcept nogil:
    """The common 2x2 stride-2 max pool (LeNet's), in a form the compiler vectorizes."""
    cdef Py_ssize_t oy, ox
    cdef const float* r0
    cdef const float* r1
    cdef float a, b
    for oy in range(oh):
        r0 = x + 2 * oy * W
        r1 = r0 + W
        for ox in range(ow):
            a = r0[2 * ox] if r0[2 * ox] >= r0[2 * ox + 1] else r0[2 * ox + 1]
            b = r1[2 * ox] if r1[2 * ox] >= r1[2 * ox + 1] else r1[2 * ox + 1]
            a = a if a >= b else b
            o[oy * ow + ox] = _act(a, act)


def pool(cnp.ndarray x, cnp.ndarray out, int kh, int kw, int sh, int sw, bint avg, int act,
         int threads=1):
    """Unpadded ("VALID") max or average pooling of planes ``x`` (P, H, W) into ``out``
    (P, oh, ow), the activation applied to each result (max and both activations are
    monotone, so pooling first and activating the 4x smaller result is the same as
    MindSpore Lite's conv-activation-pool order)."""
    cdef const float* xp = _data(x, 3, False, "pool: x")
    cdef float* op = _data(out, 3, True, "pool: out")
    cdef Py_ssize_t P = _dim(x, 0), H = _dim(x, 1), W = _dim(x, 2)
    cdef Py_ssize_t oh = _dim(out, 1), ow = _dim(out, 2), p
    if _dim(out, 0) != P or (oh - 1) * sh + kh > H or (ow - 1) * sw + kw > W:
        raise ValueError(f"pool: windows of {(<object>out).shape} do not fit in {(<object>x).shape}")
    cdef bint two = kh == 2 and kw == 2 and sh == 2 and sw == 2 and not avg
    cdef int nt = threads if threads > 1 and P * H * W >= _PARALLEL else 1
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            if two:
                _max2x2(xp + p * H * W, op + p * oh * ow, W, oh, ow, act)
            else:
                _pool_plane(xp + p * H * W, op + p * oh * ow, H, W, kh, kw, sh, sw, oh, ow,
                            avg, act)


def bias_act(cnp.ndarray out, cnp.ndarray bias, int act):
    """``out = act(out + bias)`` in place, ``bias`` (or None) one value per column."""
    cdef float* op = _data(out, 2, True, "bias_act: out")
    cdef Py_ssize_t M = _dim(out, 0), N = _dim(out, 1), m, n
    cdef const float* bp = NULL
    if bias is not None:
        bp = _data(bias, 1, False, "bias_act: bias")
        if _dim(bias, 0) != N:
            raise ValueError(f"bias_act: bias of {_dim(bias, 0)} for {N} columns")
    with nogil:
        for m in range(M):
            if bp != NULL:
                for n in range(N):
                    op[m * N + n] = _act(op[m * N + n] + bp[n], act)
            elif act:
                for n in range(N):
                    op[m * N + n] = _act(op[m * N + n], act)


def unpack_act(cnp.ndarray src, cnp.ndarray dst, int act):
    """``dst[n, c] = act(src[c, n])``: a batched convolution's product ``(Cout, N, P)``
    as NCHW ``(N, Cout, P)``."""
    cdef const float* sp = _data(src, 3, False, "unpack_act: src")
    cdef float* dp = _data(dst, 3, True, "unpack_act: dst")
    cdef Py_ssize_t C = _dim(src, 0), N = _dim(src, 1), P = _dim(src, 2), c, n, k
    if _dim(dst, 0) != N or _dim(dst, 1) != C or _dim(dst, 2) != P:
        raise ValueError(f"unpack_act: {(<object>src).shape} cannot be unpacked into {(<object>dst).shape}")
    cdef const float* s
    cdef float* d
    with nogil:
        for c in range(C):
            for n in range(N):
                s = sp + (c * N + n) * P
                d = dp + (n * C + c) * P
                if act:
                    for k in range(P):
                        d[k] = _act(s[k], act)
                else:
                    memcpy(d, s, P * sizeof(float))


# columns per task of a threaded matrix-vector product (a multiple of the SIMD width)
cdef Py_ssize_t _DENSE_BLOCK = 64


def dense_vec(cnp.ndarray x, cnp.ndarray w, cnp.ndarray bias, cnp.ndarray out, int act,
              int threads=1):
    """``out = act(x @ w + bias)`` for one row: ``x`` (K,), ``w`` (K, N) (a Dense weight
    transposed once at build time), ``bias`` (N,) or None, ``out`` (N,). One pass over
    the weights and no temporaries: the batch-1 Dense of the plan, bias and activation
    in the same loop (AVX2 and FMA where the CPU has them, ``_dense.h``); ``threads`` > 1
    splits the columns."""
    cdef const float* xp = _data(x, 1, False, "dense_vec: x")
    cdef const float* wp = _data(w, 2, False, "dense_vec: w")
    cdef float* op = _data(out, 1, True, "dense_vec: out")
    cdef Py_ssize_t K = _dim(w, 0), N = _dim(w, 1), blk, nblk
    cdef const float* bp = NULL
    if _dim(x, 0) != K or _dim(out, 0) != N:
        raise ValueError(f"dense_vec: x {(<object>x).shape} @ w {(<object>w).shape} "
                         f"cannot fill out {(<object>out).shape}")
    if bias is not None:
        bp = _data(bias, 1, False, "dense_vec: bias")
        if _dim(bias, 0) != N:
            raise ValueError(f"dense_vec: bias of {_dim(bias, 0)} for {N} columns")
    nblk = (N + _DENSE_BLOCK - 1) // _DENSE_BLOCK
    cdef int nt = threads if threads > 1 and K * N >= _PARALLEL else 1
    if nt == 1:
        with nogil:
            ms_dense_cols(xp, wp, bp, op, K, N, 0, N, act)
        return
    with nogil:
        for blk in prange(nblk, schedule="static", num_threads=nt):
            ms_dense_cols(xp, wp, bp, op, K, N, blk * _DENSE_BLOCK,
                        min((blk + 1) * _DENSE_BLOCK, N), act)


def pack_dense(w):
    """A Dense weight ``(N, K)`` as ``dense_packed`` reads it: panels of 16 rows,
    ``(ceil(N / 16), K, 16)``, zeros past row ``N``. Done once, at build time."""
    n, k = w.shape
    p = np.zeros(((n + 15) // 16 * 16, k), np.float32)
    p[:n] = w
    return np.ascontiguousarray(p.reshape(-1, 16, k).transpose(0, 2, 1))


def dense_packed(cnp.ndarray x, cnp.ndarray wp, cnp.ndarray bias, cnp.ndarray out, int act,
                 int threads=1):
    """``out = act(x @ w.T + bias)`` for ``x`` (M, K) and ``wp = pack_dense(w)``: the
    batched Dense of the plan, register-blocked (4 rows x 16 columns, AVX2 and FMA where
    the CPU has them, ``_dense.h``), bias and activation in the same pass; ``threads``
    > 1 splits the panels."""
    cdef const float* xp = _data(x, 2, False, "dense_packed: x")
    cdef const float* wpp = _data(wp, 3, False, "dense_packed: wp")
    cdef float* op = _data(out, 2, True, "dense_packed: out")
    cdef Py_ssize_t M = _dim(x, 0), K = _dim(x, 1), N = _dim(out, 1), P = _dim(wp, 0), p
    cdef const float* bp = NULL
    if _dim(out, 0) != M or _dim(wp, 1) != K or _dim(wp, 2) != 16 or P != (N + 15) // 16:
        raise ValueError(f"dense_packed: x {(<object>x).shape} and packed weights "
                         f"{(<object>wp).shape} cannot fill out {(<object>out).shape}")
    if bias is not None:
        bp = _data(bias, 1, False, "dense_packed: bias")
        if _dim(bias, 0) != N:
            raise ValueError(f"dense_packed: bias of {_dim(bias, 0)} for {N} columns")
    cdef int nt = threads if threads > 1 and M * K * N >= _PARALLEL else 1
    if nt == 1:
        with nogil:
            ms_gemm_panels(xp, M, K, wpp, 16, 16 * K, N, bp, op, N, 0, P, act)
        return
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            ms_gemm_panels(xp, M, K, wpp, 16, 16 * K, N, bp, op, N, p, p + 1, act)


def gemm_cols(cnp.ndarray a, cnp.ndarray b, cnp.ndarray out, int act, int threads=1):
    """``out = act(a @ b[:, :N])`` for ``a`` (M, K), ``out`` (M, N) and ``b`` (K, L) with
    ``L`` >= N rounded up to a multiple of 16 (its last columns are read, never used): a
    convolution's packed weights times its column matrix, read in place (each block of 16
    columns stays in L1 across the four-row blocks of ``a``), the activation in the same
    pass; ``threads`` > 1 splits the columns."""
    cdef const float* ap = _data(a, 2, False, "gemm_cols: a")
    cdef const float* bp = _data(b, 2, False, "gemm_cols: b")
    cdef float* op = _data(out, 2, True, "gemm_cols: out")
    cdef Py_ssize_t M = _dim(a, 0), K = _dim(a, 1), N = _dim(out, 1), L = _dim(b, 1)
    cdef Py_ssize_t P = (N + 15) // 16, p
    if _dim(out, 0) != M or _dim(b, 0) != K or L < 16 * P:
        raise ValueError(f"gemm_cols: a {(<object>a).shape} @ b {(<object>b).shape} cannot "
                         f"fill out {(<object>out).shape} (b's rows need >= {16 * P} columns)")
    cdef int nt = threads if threads > 1 and M * K * N >= _PARALLEL else 1
    if nt == 1:
        with nogil:
            ms_gemm_panels(ap, M, K, bp, L, 16, N, NULL, op, N, 0, P, act)
        return
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            ms_gemm_panels(ap, M, K, bp, L, 16, N, NULL, op, N, p, p + 1, act)


def conv(cnp.ndarray x, cnp.ndarray wm, cnp.ndarray cols, cnp.ndarray out, int kh, int kw,
         int sh, int sw, int dh, int dw, int pt, int pl, int oh, int ow, int act,
         int threads=1):
    """A convolution image by image: ``out[n] = act(wm @ cols)`` (``out`` (N, Co, oh*ow),
    NCHW) with ``cols`` the column matrix of image ``n`` alone (``im2col``'s rows; rows
    past ``C*kh*kw``, the bias row of ones, are left alone; its rows padded to whole
    blocks of 16), so the matrix stays in L2 between being written and read; the product
    is ``gemm_cols``'s. ``threads`` > 1 splits each product's column blocks."""
    cdef const float* xp = _data(x, 4, False, "conv: x")
    cdef const float* wp = _data(wm, 2, False, "conv: wm")
    cdef float* cp = _data(cols, 2, True, "conv: cols")
    cdef float* op = _data(out, 3, True, "conv: out")
    cdef Py_ssize_t N = _dim(x, 0), C = _dim(x, 1), H = _dim(x, 2), W = _dim(x, 3)
    cdef Py_ssize_t Co = _dim(wm, 0), K = _dim(wm, 1), ld = _dim(cols, 1), P = oh * ow
    cdef Py_ssize_t taps = kh * kw, nP = (P + 15) // 16, n, r, p
    if _dim(cols, 0) != K or K < C * taps or ld < 16 * nP or _dim(out, 0) != N \
            or _dim(out, 1) != Co or _dim(out, 2) != P:
        raise ValueError(f"conv: x {(<object>x).shape}, wm {(<object>wm).shape}, cols "
                         f"{(<object>cols).shape} and out {(<object>out).shape} do not fit "
                         f"{kh}x{kw} windows giving {oh}x{ow}")
    cdef int nt = threads if threads > 1 and Co * K * P >= _PARALLEL else 1
    with nogil:
        for n in range(N):
            for r in range(C * taps):
                _col_row(xp + (n * C + r // taps) * H * W, cp + r * ld, H, W,
                         (r % taps) // kw, (r % taps) % kw, sh, sw, dh, dw, pt, pl, oh, ow)
            if nt == 1:
                ms_gemm_panels(wp, Co, K, cp, ld, 16, P, NULL, op + n * Co * P, P, 0, nP, act)
            else:
                for p in prange(nP, schedule="static", num_threads=nt):
                    ms_gemm_panels(wp, Co, K, cp, ld, 16, P, NULL, op + n * Co * P, P, p,
                                   p + 1, act)
