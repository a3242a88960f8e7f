/* Direct (no im2col) stride-1 convolution of one float32 NCHW image, register-blocked.
 *
 * The input is first copied into a zero-padded buffer (ms_pad_image), so the inner loops
 * never test borders. A block computes 8 output channels x 32 output pixels of one row
 * (16 vector accumulators); its inner step loads 2 input vectors and multiplies them by 8
 * broadcast weights, which keeps the FMA units busy from L1. The filter gradient blocks 8
 * output channels x 3 kernel columns (24 accumulators) over a whole image.
 *
 * The vectors are GCC vector extensions (16 floats). _conv_direct_body.h is compiled once
 * for AVX-512 (x86-64-v4) and once for the build's baseline; ms_conv_image/ms_dw_image pick
 * one from the CPU at run time, so the extension stays portable.
 */
#ifndef MS_CONV_DIRECT_H
#define MS_CONV_DIRECT_H

#include <string.h>

#define MS_INLINE static inline __attribute__((always_inline))

#define MS_VL 16   /* floats per vector */
#define MS_CB 8    /* output channels per block */

typedef float ms_v16 __attribute__((vector_size(64)));

MS_INLINE ms_v16 ms_ld(const float* p) { ms_v16 v; memcpy(&v, p, sizeof v); return v; }
MS_INLINE void ms_st(float* p, ms_v16 v) { memcpy(p, &v, sizeof v); }

/* dst[c][r][q] = src[c][r - top][q - left] (0 outside src), dst is (C, Hp, Wp). */
static void ms_pad_image(const float* src, long C, long H, long W, float* dst,
                         long Hp, long Wp, long top, long left)
{
    long c, r, sr, lo, hi;
    lo = left > 0 ? left : 0;                         /* first dst column with data */
    hi = left + W < Wp ? left + W : Wp;               /* one past the last */
    if (hi < lo) hi = lo;
    for (c = 0; c < C; c++) {
        for (r = 0; r < Hp; r++) {
            float* d = dst + (c * Hp + r) * Wp;
            sr = r - top;
            if (sr < 0 || sr >= H || hi == lo) { memset(d, 0, Wp * sizeof(float)); continue; }
            memset(d, 0, lo * sizeof(float));
            memcpy(d + lo, src + (c * H + sr) * W + (lo - left), (hi - lo) * sizeof(float));
            memset(d + hi, 0, (Wp - hi) * sizeof(float));
        }
    }
}

#if defined(__GNUC__) && defined(__x86_64__)
#define MS_NAME(f) f##_v4
#define MS_TARGET __attribute__((target("arch=x86-64-v4")))
#define MS_PIN(v) __asm__("" : "+v"(v))
#include "_conv_direct_body.h"
#undef MS_NAME
#undef MS_TARGET
#undef MS_PIN
#define MS_HAVE_V4 1
#endif

#define MS_NAME(f) f##_base
#define MS_TARGET
#define MS_PIN(v) ((void)0)
#include "_conv_direct_body.h"
#undef MS_NAME
#undef MS_TARGET
#undef MS_PIN

static int ms_use_v4(void)
{
#ifdef MS_HAVE_V4
    static int use = -1;
    if (use < 0) {
        __builtin_cpu_init();
        use = __builtin_cpu_supports("x86-64-v4") != 0;
    }
    return use;
#else
    return 0;
#endif
}

/* out (CO, OH, OW) = valid correlation of the padded image in (C, Hp, Wp) with the packed
 * weights wp (ceil(CO/8), C, KH, KW, 8). Needs Hp >= OH + KH - 1 and
 * Wp >= round_up(OW, 16) + KW - 1 (the padding columns are read, never stored). */
static void ms_conv_image(const float* in, long C, long Hp, long Wp, const float* wp,
                          long KH, long KW, float* out, long CO, long OH, long OW)
{
#ifdef MS_HAVE_V4
    if (ms_use_v4()) { ms_conv_image_v4(in, C, Hp, Wp, wp, KH, KW, out, CO, OH, OW); return; }
#endif
    ms_conv_image_base(in, C, Hp, Wp, wp, KH, KW, out, CO, OH, OW);
}

/* acc (ceil(CO/8), C, KH, KW, 8) vectors += the filter gradient of one image: in is the
 * padded input (as for ms_conv_image), d the output gradient (ceil(CO/8)*8, OH, ldd) with
 * ldd a multiple of 16 and zeros past OW and past CO. */
static void ms_dw_image(const float* in, long C, long Hp, long Wp, const float* d, long CO,
                        long OH, long ldd, long KH, long KW, float* acc)
{
#ifdef MS_HAVE_V4
    if (ms_use_v4()) { ms_dw_image_v4(in, C, Hp, Wp, d, CO, OH, ldd, KH, KW, acc); return; }
#endif
    ms_dw_image_base(in, C, Hp, Wp, d, CO, OH, ldd, KH, KW, acc);
}

/* dw (CO, C, KH, KW) = the sum over nt threads' accumulators acc (nt, ceil(CO/8), C, KH,
 * KW, 8, 16) and over their 16 lanes. */
static void ms_dw_reduce(const float* acc, long nt, long CO, long C, long KH, long KW,
                         float* dw)
{
    long ncb = (CO + MS_CB - 1) / MS_CB, per = ncb * C * KH * KW * MS_CB * MS_VL;
    long taps = C * KH * KW, cb, i, k, t, l;
    for (cb = 0; cb < ncb; cb++)
        for (i = 0; i < taps; i++)
            for (k = 0; k < MS_CB && cb * MS_CB + k < CO; k++) {
                const float* a = acc + ((cb * taps + i) * MS_CB + k) * MS_VL;
                float s = 0;
                for (t = 0; t < nt; t++)
                    for (l = 0; l < MS_VL; l++) s += a[t * per + l];
                dw[(cb * MS_CB + k) * taps + i] = s;
            }
}

#endif
