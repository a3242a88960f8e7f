/* The matrix-vector loop of ms_lite.kernels._f32.dense_vec, compiled twice: for AVX2 with
 * FMA (eight columns per instruction) and for the baseline the package is built for; the
 * first call picks the one this CPU runs (__builtin_cpu_supports), so the extension stays
 * portable while the batch-1 Dense of a model uses the wide instructions.
 *
 * o[j0:j1] = act(x @ w[:, j0:j1] + b[j0:j1]) for x (K), w (K, N) row-major: axpy form,
 * four rows of w per pass over o (each column's sum is its own, so the compiler
 * vectorizes across columns without reordering a sum). act: 0 none, 1 ReLU, 2 ReLU6. */
#ifndef MS_LITE_DENSE_H
#define MS_LITE_DENSE_H

#include <stddef.h>
#include <string.h>

#define MS_DENSE_BODY                                                                  \
    ptrdiff_t k, j;                                                                    \
    if (b) memcpy(o + j0, b + j0, (size_t)(j1 - j0) * sizeof(float));                  \
    else memset(o + j0, 0, (size_t)(j1 - j0) * sizeof(float));                         \
    for (k = 0; k + 3 < K; k += 4) {                                                   \
        const float x0 = x[k], x1 = x[k + 1], x2 = x[k + 2], x3 = x[k + 3];            \
        const float *w0 = w + k * N, *w1 = w0 + N, *w2 = w1 + N, *w3 = w2 + N;         \
        for (j = j0; j < j1; j++)                                                      \
            o[j] += (x0 * w0[j] + x1 * w1[j]) + (x2 * w2[j] + x3 * w3[j]);             \
    }                                                                                  \
    for (; k < K; k++) {                                                               \
        const float x0 = x[k], *w0 = w + k * N;                                        \
        for (j = j0; j < j1; j++) o[j] += x0 * w0[j];                                  \
    }                                                                                  \
    if (act == 1) {                                                                    \
        for (j = j0; j < j1; j++) o[j] = o[j] > 0 ? o[j] : 0;                          \
    } else if (act == 2) {                                                             \
        for (j = j0; j < j1; j++) o[j] = o[j] < 0 ? 0 : (o[j] > 6 ? 6 : o[j]);         \
    }

static void ms_dense_cols_base(const float *restrict x, const float *restrict w,
                               const float *restrict b, float *restrict o, ptrdiff_t K,
                               ptrdiff_t N, ptrdiff_t j0, ptrdiff_t j1, int act)
{
    MS_DENSE_BODY
}

#if (defined(__GNUC__) || defined(__clang__)) && (defined(__x86_64__) || defined(__i386__))
#define MS_DENSE_WIDE 1
__attribute__((target("avx2,fma")))
static void ms_dense_cols_avx2(const float *restrict x, const float *restrict w,
                               const float *restrict b, float *restrict o, ptrdiff_t K,
                               ptrdiff_t N, ptrdiff_t j0, ptrdiff_t j1, int act)
{
    MS_DENSE_BODY
}
#endif

/* -1: not yet known; 0 baseline; 1 AVX2 + FMA. A race on the first calls only writes the
 * same value twice. */
static int ms_dense_isa = -1;

static inline int ms_dense_wide(void)
{
#ifdef MS_DENSE_WIDE
    if (ms_dense_isa < 0)
        ms_dense_isa = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return ms_dense_isa;
#else
    return 0;
#endif
}

static void ms_dense_cols(const float *x, const float *w, const float *b, float *o,
                          ptrdiff_t K, ptrdiff_t N, ptrdiff_t j0, ptrdiff_t j1, int act)
{
#ifdef MS_DENSE_WIDE
    if (ms_dense_wide()) {
        ms_dense_cols_avx2(x, w, b, o, K, N, j0, j1, act);
        return;
    }
#endif
    ms_dense_cols_base(x, w, b, o, K, N, j0, j1, act);
}

#endif
