/* The int32 accumulation of ms_lite.kernels._int8.qconv, compiled twice: for AVX2 (eight
 * 32-bit products per instruction, vpmulld) and for the baseline the package is built for
 * (SSE2 has no 32-bit vector multiply); the first call picks what this CPU runs.
 *
 * acc[m] += sum_k w[k] * cols[k * ld + m] for m < M: each pixel's sum is its own, so the
 * loop over pixels vectorizes and the integer sums are exact in any order. */
#ifndef MS_LITE_QCONV_H
#define MS_LITE_QCONV_H

#include <stddef.h>
#include <stdint.h>

#define MS_QCONV_BODY                                                                  \
    ptrdiff_t k, m;                                                                    \
    for (k = 0; k + 3 < K; k += 4) { /* four rows of cols per pass over acc */         \
        const int32_t w0 = w[k], w1 = w[k + 1], w2 = w[k + 2], w3 = w[k + 3];          \
        const int8_t *c0 = cols + k * ld, *c1 = c0 + ld, *c2 = c1 + ld, *c3 = c2 + ld; \
        for (m = 0; m < M; m++)                                                        \
            acc[m] += (w0 * (int32_t)c0[m] + w1 * (int32_t)c1[m])                      \
                    + (w2 * (int32_t)c2[m] + w3 * (int32_t)c3[m]);                     \
    }                                                                                  \
    for (; k < K; k++) {                                                               \
        const int32_t wk = w[k];                                                       \
        const int8_t *c = cols + k * ld;                                               \
        for (m = 0; m < M; m++) acc[m] += wk * (int32_t)c[m];                          \
    }

static void ms_qconv_acc_base(const int8_t *restrict w, const int8_t *restrict cols,
                              ptrdiff_t K, ptrdiff_t M, ptrdiff_t ld,
                              int32_t *restrict acc)
{
    MS_QCONV_BODY
}

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define MS_QCONV_WIDE 1
__attribute__((target("avx2")))
static void ms_qconv_acc_avx2(const int8_t *restrict w, const int8_t *restrict cols,
                              ptrdiff_t K, ptrdiff_t M, ptrdiff_t ld,
                              int32_t *restrict acc)
{
    MS_QCONV_BODY
}
#endif

static int ms_qconv_isa = -1; /* -1 unknown, 0 baseline, 1 AVX2 (a race writes the same) */

static void ms_qconv_acc(const int8_t *w, const int8_t *cols, ptrdiff_t K, ptrdiff_t M,
                         ptrdiff_t ld, int32_t *acc)
{
#ifdef MS_QCONV_WIDE
    if (ms_qconv_isa < 0) ms_qconv_isa = __builtin_cpu_supports("avx2");
    if (ms_qconv_isa) {
        ms_qconv_acc_avx2(w, cols, K, M, ld, acc);
        return;
    }
#endif
    ms_qconv_acc_base(w, cols, K, M, ld, acc);
}

/* acc[r][j] += sum_k x[r][k] * wt[k * ld + j] for rows r < 4 and j < n (rows past the
 * caller's are any readable row, their sums ignored): the int8 Dense, each weight row
 * read once for four input rows. acc is 4 rows of n int32. */
#define MS_QDENSE_BODY                                                                 \
    ptrdiff_t k, j;                                                                    \
    int32_t *s0 = acc, *s1 = acc + n, *s2 = acc + 2 * n, *s3 = acc + 3 * n;            \
    for (k = 0; k < K; k++) {                                                          \
        const int32_t x0 = x0p[k], x1 = x1p[k], x2 = x2p[k], x3 = x3p[k];              \
        const int8_t *c = wt + k * ld;                                                 \
        for (j = 0; j < n; j++) {                                                      \
            const int32_t v = c[j];                                                    \
            s0[j] += x0 * v; s1[j] += x1 * v; s2[j] += x2 * v; s3[j] += x3 * v;        \
        }                                                                              \
    }

#define MS_QDENSE_ARGS const int8_t *restrict x0p, const int8_t *restrict x1p,          \
    const int8_t *restrict x2p, const int8_t *restrict x3p, const int8_t *restrict wt,  \
    ptrdiff_t K, ptrdiff_t n, ptrdiff_t ld, int32_t *restrict acc

static void ms_qdense_acc4_base(MS_QDENSE_ARGS) { MS_QDENSE_BODY }

#ifdef MS_QCONV_WIDE
__attribute__((target("avx2"))) static void ms_qdense_acc4_avx2(MS_QDENSE_ARGS)
{
    MS_QDENSE_BODY
}
#endif

static void ms_qdense_acc4(MS_QDENSE_ARGS)
{
#ifdef MS_QCONV_WIDE
    if (ms_qconv_isa < 0) ms_qconv_isa = __builtin_cpu_supports("avx2");
    if (ms_qconv_isa) {
        ms_qdense_acc4_avx2(x0p, x1p, x2p, x3p, wt, K, n, ld, acc);
        return;
    }
#endif
    ms_qdense_acc4_base(x0p, x1p, x2p, x3p, wt, K, n, ld, acc);
}

#endif
