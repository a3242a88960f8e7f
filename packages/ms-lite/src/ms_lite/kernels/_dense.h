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

/* The matrix products of the plan. The batched Dense: C[i, j] = act(A[i, :] @ W[j, :] + b[j])
 * with W packed once into
 * panels of 16 rows (``(ceil(N / 16), K, 16)``, zero past N). Four rows of A by one panel
 * at a time in eight 8-float accumulators (GCC/clang vector types: ymm registers with
 * AVX2 + FMA, pairs of xmm otherwise), bias and activation added on the way out, so the
 * product has no temporaries and the weights are read in the order they lie. Rows past
 * the last of A repeat it (computed, not stored); columns past N are the panel's zeros. */
typedef float ms_v8 __attribute__((vector_size(32)));
typedef float ms_v8u __attribute__((vector_size(32), aligned(4)));

#define MS_PANEL_BODY                                                                  \
    ptrdiff_t k, r, j;                                                                 \
    const float *a0 = A, *a1 = A + (mr > 1) * lda, *a2 = A + (mr > 2) * 2 * lda;       \
    const float *a3 = A + (mr > 3) * 3 * lda;                                          \
    ms_v8 c00 = {0}, c01 = {0}, c10 = {0}, c11 = {0};                                  \
    ms_v8 c20 = {0}, c21 = {0}, c30 = {0}, c31 = {0};                                  \
    float tile[4][16];                                                                 \
    for (k = 0; k < K; k++) {                                                          \
        const ms_v8 b0 = *(const ms_v8u *)(P + ks * k);                                \
        const ms_v8 b1 = *(const ms_v8u *)(P + ks * k + 8);                            \
        c00 += a0[k] * b0; c01 += a0[k] * b1;                                          \
        c10 += a1[k] * b0; c11 += a1[k] * b1;                                          \
        c20 += a2[k] * b0; c21 += a2[k] * b1;                                          \
        c30 += a3[k] * b0; c31 += a3[k] * b1;                                          \
    }                                                                                  \
    *(ms_v8u *)tile[0] = c00; *(ms_v8u *)(tile[0] + 8) = c01;                          \
    *(ms_v8u *)tile[1] = c10; *(ms_v8u *)(tile[1] + 8) = c11;                          \
    *(ms_v8u *)tile[2] = c20; *(ms_v8u *)(tile[2] + 8) = c21;                          \
    *(ms_v8u *)tile[3] = c30; *(ms_v8u *)(tile[3] + 8) = c31;                          \
    for (r = 0; r < mr; r++) {                                                         \
        float *o = C + r * ldc;                                                        \
        for (j = 0; j < nc; j++) {                                                     \
            float v = tile[r][j] + (b ? b[j] : 0.0f);                                  \
            if (act == 1) v = v > 0 ? v : 0;                                           \
            else if (act == 2) v = v < 0 ? 0 : (v > 6 ? 6 : v);                        \
            o[j] = v;                                                                  \
        }                                                                              \
    }

#define MS_PANEL_ARGS const float *restrict A, ptrdiff_t lda, ptrdiff_t mr,             \
    const float *restrict P, ptrdiff_t ks, ptrdiff_t K, const float *restrict b, float *restrict C,   \
    ptrdiff_t ldc, ptrdiff_t nc, int act

static void ms_panel_base(MS_PANEL_ARGS) { MS_PANEL_BODY }

#ifdef MS_DENSE_WIDE
__attribute__((target("avx2,fma"))) static void ms_panel_avx2(MS_PANEL_ARGS)
{
    MS_PANEL_BODY
}
#endif

/* Panels p0 .. p1 - 1 (16 columns each) of C (M, N, rows ldc apart) = act(A (M, K) @ B + b)
 * where column j of B is B[k * ks + (j / 16) * ps + j % 16]: ks = 16, ps = 16 K for weights
 * packed as above (B = W.T); ks = the row length, ps = 16 for a row-major B whose rows
 * are padded to whole panels (a convolution's column matrix, read in place). */
static void ms_gemm_panels(const float *A, ptrdiff_t M, ptrdiff_t K, const float *B,
                           ptrdiff_t ks, ptrdiff_t ps, ptrdiff_t N, const float *b, float *C,
                           ptrdiff_t ldc, ptrdiff_t p0, ptrdiff_t p1, int act)
{
    ptrdiff_t p, i;
    void (*panel)(MS_PANEL_ARGS) = ms_panel_base;
#ifdef MS_DENSE_WIDE
    if (ms_dense_wide()) panel = ms_panel_avx2;
#endif
    for (p = p0; p < p1; p++) {
        ptrdiff_t j = 16 * p, nc = N - j < 16 ? N - j : 16;
        for (i = 0; i < M; i += 4)
            panel(A + i * K, K, M - i < 4 ? M - i : 4, B + p * ps, ks, K,
                  b ? b + j : NULL, C + i * ldc + j, ldc, nc, act);
    }
}

#endif
