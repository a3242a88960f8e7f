"""2-d pooling kernels over NCHW planes: max / average, fixed and adaptive windows.

Every entry point takes C-contiguous arrays viewed as ``(planes, H, W)`` (planes = N*C)
and splits the planes over OpenMP threads; a plane is written by one thread only, so
the gradient scatters need no atomics. Max windows pick the first maximum in row-major
order, which is what the gradient and MaxPoolWithArgmax's indices refer to.
"""

from cython cimport floating
from cython.parallel cimport prange
from libc.math cimport INFINITY
from libc.string cimport memset

from ms_ops.kernels.threads import kernel_threads


cdef inline Py_ssize_t _imax(Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    return a if a > b else b


cdef inline Py_ssize_t _imin(Py_ssize_t a, Py_ssize_t b) noexcept nogil:
    return a if a < b else b


cdef inline Py_ssize_t _window_argmax(const floating* x, Py_ssize_t W, Py_ssize_t h0,
                                      Py_ssize_t h1, Py_ssize_t w0,
                                      Py_ssize_t w1) noexcept nogil:
    cdef Py_ssize_t h, w, best = h0 * W + w0
    cdef floating v, m = -INFINITY
    for h in range(h0, h1):
        for w in range(w0, w1):
            v = x[h * W + w]
            if v > m:
                m = v
                best = h * W + w
    return best


cdef inline Py_ssize_t _argmax2x2(const floating* x, Py_ssize_t W, Py_ssize_t k) noexcept nogil:
    """``_window_argmax`` of the 2x2 window whose first element is ``x[k]``, with integer
    selects in place of "if v > m", which mispredicts on about every other window of
    random data. A window holding a NaN (rare, so well predicted) takes the general
    scan."""
    cdef Py_ssize_t best = k, i, step, take
    cdef Py_ssize_t at[3]
    at[0] = k + 1
    at[1] = k + W
    at[2] = k + W + 1
    if x[k] != x[k] or x[at[0]] != x[at[0]] or x[at[1]] != x[at[1]] \
            or x[at[2]] != x[at[2]]:
        return _window_argmax(x, W, k // W, k // W + 2, k % W, k % W + 2)
    for step in range(3):
        i = at[step]
        take = x[i] > x[best]
        best += (i - best) & -take
    return best


cdef inline bint _is_2x2(Py_ssize_t H, Py_ssize_t W, Py_ssize_t kh, Py_ssize_t kw,
                         Py_ssize_t sh, Py_ssize_t sw, Py_ssize_t pt, Py_ssize_t pl,
                         Py_ssize_t oh, Py_ssize_t ow) noexcept nogil:
    """2x2 windows, stride 2, every window inside the plane (LeNet's pooling)."""
    return (kh == 2 and kw == 2 and sh == 2 and sw == 2 and pt == 0 and pl == 0
            and 2 * oh <= H and 2 * ow <= W)


cdef void _max_plane(const floating* x, floating* out, long long* idx, Py_ssize_t H,
                     Py_ssize_t W, Py_ssize_t kh, Py_ssize_t kw, Py_ssize_t sh,
                     Py_ssize_t sw, Py_ssize_t pt, Py_ssize_t pl, Py_ssize_t oh,
                     Py_ssize_t ow) noexcept nogil:
    cdef Py_ssize_t y, z, h0, w0, k
    cdef bint two = _is_2x2(H, W, kh, kw, sh, sw, pt, pl, oh, ow)
    for y in range(oh):
        h0 = y * sh - pt
        for z in range(ow):
            w0 = z * sw - pl
            if two:
                k = _argmax2x2(x, W, h0 * W + w0)
            else:
                k = _window_argmax(x, W, _imax(h0, 0), _imin(h0 + kh, H), _imax(w0, 0),
                                   _imin(w0 + kw, W))
            out[y * ow + z] = x[k]
            if idx != NULL:
                idx[y * ow + z] = k


# Large inputs use ms_ops.kernels.threads' count for memory-bound kernels (all of the
# policy's threads when MKL does the matrix products or runtime_num_threads is set, else one).
def _threads(Py_ssize_t work):
    return kernel_threads() if work >= 65536 else 1


def max_pool(const floating[:, :, ::1] x, floating[:, :, ::1] out, long long[:, :, ::1] idx,
             int kh, int kw, int sh, int sw, int pt, int pl):
    """Window maxima of each plane; ``idx`` (or None) receives the flat argmax in H*W."""
    cdef Py_ssize_t P = x.shape[0], H = x.shape[1], W = x.shape[2]
    cdef Py_ssize_t oh = out.shape[1], ow = out.shape[2], p
    cdef const floating* xp = &x[0, 0, 0]
    cdef floating* op = &out[0, 0, 0]
    cdef long long* ip = NULL if idx is None else &idx[0, 0, 0]
    cdef int nt = _threads(x.size)
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            _max_plane(xp + p * H * W, op + p * oh * ow,
                       NULL if ip == NULL else ip + p * oh * ow,
                       H, W, kh, kw, sh, sw, pt, pl, oh, ow)


def max_pool_grad(const floating[:, :, ::1] x, const floating[:, :, ::1] grad,
                  floating[:, :, ::1] dx, int kh, int kw, int sh, int sw, int pt, int pl):
    """Send each window's gradient to the window's (first) maximum."""
    cdef Py_ssize_t P = x.shape[0], H = x.shape[1], W = x.shape[2]
    cdef Py_ssize_t oh = grad.shape[1], ow = grad.shape[2], p, y, z, h0, w0, k
    cdef const floating* xp = &x[0, 0, 0]
    cdef const floating* gp = &grad[0, 0, 0]
    cdef floating* dp = &dx[0, 0, 0]
    cdef int nt = _threads(x.size)
    cdef bint two = _is_2x2(H, W, kh, kw, sh, sw, pt, pl, oh, ow)
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            memset(dp + p * H * W, 0, H * W * sizeof(floating))
            for y in range(oh):
                h0 = y * sh - pt
                for z in range(ow):
                    w0 = z * sw - pl
                    if two:
                        k = _argmax2x2(xp + p * H * W, W, h0 * W + w0)
                    else:
                        k = _window_argmax(xp + p * H * W, W, _imax(h0, 0),
                                           _imin(h0 + kh, H), _imax(w0, 0),
                                           _imin(w0 + kw, W))
                    dp[p * H * W + k] += gp[(p * oh + y) * ow + z]


def max_pool_grad_grad(const floating[:, :, ::1] x, const floating[:, :, ::1] grad,
                       floating[:, :, ::1] out, int kh, int kw, int sh, int sw, int pt,
                       int pl):
    """Pick ``grad`` (input-shaped) at each window's (first) maximum of ``x``."""
    cdef Py_ssize_t P = x.shape[0], H = x.shape[1], W = x.shape[2]
    cdef Py_ssize_t oh = out.shape[1], ow = out.shape[2], p, y, z, h0, w0, k
    cdef const floating* xp = &x[0, 0, 0]
    cdef const floating* gp = &grad[0, 0, 0]
    cdef floating* op = &out[0, 0, 0]
    cdef int nt = _threads(x.size)
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            for y in range(oh):
                h0 = y * sh - pt
                for z in range(ow):
                    w0 = z * sw - pl
                    k = _window_argmax(xp + p * H * W, W, _imax(h0, 0), _imin(h0 + kh, H),
                                       _imax(w0, 0), _imin(w0 + kw, W))
                    op[(p * oh + y) * ow + z] = gp[p * H * W + k]


cdef inline double _divisor(Py_ssize_t h0, Py_ssize_t w0, Py_ssize_t kh, Py_ssize_t kw,
                            Py_ssize_t hlo, Py_ssize_t hhi, Py_ssize_t wlo, Py_ssize_t whi,
                            double divisor) noexcept nogil:
    # the window clipped to the counted area [hlo, hhi) x [wlo, whi), unless overridden
    if divisor > 0:
        return divisor
    return <double>((_imin(h0 + kh, hhi) - _imax(h0, hlo)) *
                    (_imin(w0 + kw, whi) - _imax(w0, wlo)))


def avg_pool(const floating[:, :, ::1] x, floating[:, :, ::1] out, int kh, int kw, int sh,
             int sw, int pt, int pl, int ct, int cb, int cl, int cr, double divisor):
    """Window means. The divisor counts the input plus ``ct, cb, cl, cr`` rows/columns of
    padding (0 for MindSpore's SAME, the padding for count_include_pad), or is
    ``divisor`` when that is positive."""
    cdef Py_ssize_t P = x.shape[0], H = x.shape[1], W = x.shape[2]
    cdef Py_ssize_t oh = out.shape[1], ow = out.shape[2], p, y, z, h, w, h0, w0
    cdef const floating* xp = &x[0, 0, 0]
    cdef floating* op = &out[0, 0, 0]
    cdef floating s
    cdef int nt = _threads(x.size)
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            for y in range(oh):
                h0 = y * sh - pt
                for z in range(ow):
                    w0 = z * sw - pl
                    s = 0
                    for h in range(_imax(h0, 0), _imin(h0 + kh, H)):
                        for w in range(_imax(w0, 0), _imin(w0 + kw, W)):
                            s = s + xp[(p * H + h) * W + w]
                    op[(p * oh + y) * ow + z] = <floating>(
                        s / _divisor(h0, w0, kh, kw, -ct, H + cb, -cl, W + cr, divisor))


def avg_pool_grad(const floating[:, :, ::1] grad, floating[:, :, ::1] dx, int kh, int kw,
                  int sh, int sw, int pt, int pl, int ct, int cb, int cl, int cr,
                  double divisor):
    """Spread each window's gradient over the window's input pixels, as avg_pool divides."""
    cdef Py_ssize_t P = dx.shape[0], H = dx.shape[1], W = dx.shape[2]
    cdef Py_ssize_t oh = grad.shape[1], ow = grad.shape[2], p, y, z, h, w, h0, w0
    cdef const floating* gp = &grad[0, 0, 0]
    cdef floating* dp = &dx[0, 0, 0]
    cdef floating g
    cdef int nt = _threads(dx.size)
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            memset(dp + p * H * W, 0, H * W * sizeof(floating))
            for y in range(oh):
                h0 = y * sh - pt
                for z in range(ow):
                    w0 = z * sw - pl
                    g = <floating>(gp[(p * oh + y) * ow + z] /
                                   _divisor(h0, w0, kh, kw, -ct, H + cb, -cl, W + cr, divisor))
                    for h in range(_imax(h0, 0), _imin(h0 + kh, H)):
                        for w in range(_imax(w0, 0), _imin(w0 + kw, W)):
                            dp[(p * H + h) * W + w] += g


def adaptive_avg_pool(const floating[:, :, ::1] x, floating[:, :, ::1] out):
    """Means over windows ``[floor(i*H/oh), ceil((i+1)*H/oh))`` (and likewise in W)."""
    cdef Py_ssize_t P = x.shape[0], H = x.shape[1], W = x.shape[2]
    cdef Py_ssize_t oh = out.shape[1], ow = out.shape[2], p, y, z, h, w, h0, h1, w0, w1
    cdef const floating* xp = &x[0, 0, 0]
    cdef floating* op = &out[0, 0, 0]
    cdef floating s
    cdef int nt = _threads(x.size)
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            for y in range(oh):
                h0 = y * H // oh
                h1 = ((y + 1) * H + oh - 1) // oh
                for z in range(ow):
                    w0 = z * W // ow
                    w1 = ((z + 1) * W + ow - 1) // ow
                    s = 0
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            s = s + xp[(p * H + h) * W + w]
                    op[(p * oh + y) * ow + z] = s / ((h1 - h0) * (w1 - w0))


def adaptive_avg_pool_grad(const floating[:, :, ::1] grad, floating[:, :, ::1] dx):
    """Spread each adaptive window's gradient evenly over its pixels."""
    cdef Py_ssize_t P = dx.shape[0], H = dx.shape[1], W = dx.shape[2]
    cdef Py_ssize_t oh = grad.shape[1], ow = grad.shape[2], p, y, z, h, w, h0, h1, w0, w1
    cdef const floating* gp = &grad[0, 0, 0]
    cdef floating* dp = &dx[0, 0, 0]
    cdef floating g
    cdef int nt = _threads(dx.size)
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            memset(dp + p * H * W, 0, H * W * sizeof(floating))
            for y in range(oh):
                h0 = y * H // oh
                h1 = ((y + 1) * H + oh - 1) // oh
                for z in range(ow):
                    w0 = z * W // ow
                    w1 = ((z + 1) * W + ow - 1) // ow
                    g = gp[(p * oh + y) * ow + z] / ((h1 - h0) * (w1 - w0))
                    for h in range(h0, h1):
                        for w in range(w0, w1):
                            dp[(p * H + h) * W + w] += g


def adaptive_max_pool(const floating[:, :, ::1] x, floating[:, :, ::1] out,
                      long long[:, :, ::1] idx):
    """Adaptive window maxima and their flat indices in H*W."""
    cdef Py_ssize_t P = x.shape[0], H = x.shape[1], W = x.shape[2]
    cdef Py_ssize_t oh = out.shape[1], ow = out.shape[2], p, y, z, k
    cdef const floating* xp = &x[0, 0, 0]
    cdef floating* op = &out[0, 0, 0]
    cdef long long* ip = &idx[0, 0, 0]
    cdef int nt = _threads(x.size)
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            for y in range(oh):
                for z in range(ow):
                    k = _window_argmax(xp + p * H * W, W, y * H // oh,
                                       ((y + 1) * H + oh - 1) // oh, z * W // ow,
                                       ((z + 1) * W + ow - 1) // ow)
                    op[(p * oh + y) * ow + z] = xp[p * H * W + k]
                    ip[(p * oh + y) * ow + z] = k


def scatter_argmax(const floating[:, :, ::1] grad, const long long[:, :, ::1] idx,
                   floating[:, :, ::1] dx):
    """``dx[p].flat[idx[p, i, j]] += grad[p, i, j]`` over zeroed planes."""
    cdef Py_ssize_t P = dx.shape[0], HW = dx.shape[1] * dx.shape[2]
    cdef Py_ssize_t n = grad.shape[1] * grad.shape[2], p, i
    cdef const floating* gp = &grad[0, 0, 0]
    cdef const long long* ip = &idx[0, 0, 0]
    cdef floating* dp = &dx[0, 0, 0]
    cdef int nt = _threads(dx.size)
    with nogil:
        for p in prange(P, schedule="static", num_threads=nt):
            memset(dp + p * HW, 0, HW * sizeof(floating))
            for i in range(n):
                dp[p * HW + ip[p * n + i]] += gp[p * n + i]
