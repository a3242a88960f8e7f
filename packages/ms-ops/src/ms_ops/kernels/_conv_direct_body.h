/* The direct kernels' bodies, included once per instruction set by _conv_direct.h with
 * MS_NAME (the entry points' suffix), MS_TARGET (a target attribute) and MS_PIN (keeps a
 * vector in a register: otherwise GCC folds the output-gradient load into each of the 3
 * FMAs that use it, and the filter gradient becomes load-bound at half the speed). */

/* One block: 8 output channels x NV vectors of row y starting at column x0. */
MS_INLINE void MS_NAME(ms_fwd_block)(const float* in, long C, long Hp, long Wp, const float* wb,
                            long KH, long KW, long y, long x0, const int NV,
                            float* out, long CO, long co0, long OH, long OW)
{
    ms_v16 a0[MS_CB], a1[MS_CB];
    long c, ky, kx, k, v, n;
    for (k = 0; k < MS_CB; k++) { a0[k] = (ms_v16){0}; a1[k] = (ms_v16){0}; }
    for (c = 0; c < C; c++) {
        for (ky = 0; ky < KH; ky++) {
            const float* row = in + (c * Hp + y + ky) * Wp + x0;
            const float* w8 = wb + (c * KH + ky) * KW * MS_CB;
            for (kx = 0; kx < KW; kx++, w8 += MS_CB) {
                ms_v16 i0 = ms_ld(row + kx);
                ms_v16 i1 = NV > 1 ? ms_ld(row + kx + MS_VL) : (ms_v16){0};
                for (k = 0; k < MS_CB; k++) {
                    a0[k] += i0 * w8[k];
                    if (NV > 1) a1[k] += i1 * w8[k];
                }
            }
        }
    }
    for (k = 0; k < MS_CB && co0 + k < CO; k++) {
        float* o = out + ((co0 + k) * OH + y) * OW + x0;
        for (v = 0; v < NV; v++) {
            ms_v16 a = v ? a1[k] : a0[k];
            n = OW - x0 - v * MS_VL;
            if (n >= MS_VL) ms_st(o + v * MS_VL, a);
            else if (n > 0) memcpy(o + v * MS_VL, &a, n * sizeof(float));
        }
    }
}

/* out (CO, OH, OW) = valid correlation of the padded image in (C, Hp, Wp) with the packed
 * weights wp (ceil(CO/8), C, KH, KW, 8). Needs Hp >= OH + KH - 1 and
 * Wp >= round_up(OW, 16) + KW - 1 (the padding columns are read, never stored). */
MS_TARGET
static void MS_NAME(ms_conv_image)(const float* in, long C, long Hp, long Wp, const float* wp,
                          long KH, long KW, float* out, long CO, long OH, long OW)
{
    long y, x0, cb, ncb = (CO + MS_CB - 1) / MS_CB;
    long wstride = C * KH * KW * MS_CB;
    for (y = 0; y < OH; y++) {
        for (x0 = 0; x0 < OW; x0 += 2 * MS_VL) {
            for (cb = 0; cb < ncb; cb++) {
                if (OW - x0 > MS_VL)
                    MS_NAME(ms_fwd_block)(in, C, Hp, Wp, wp + cb * wstride, KH, KW, y, x0, 2,
                                 out, CO, cb * MS_CB, OH, OW);
                else
                    MS_NAME(ms_fwd_block)(in, C, Hp, Wp, wp + cb * wstride, KH, KW, y, x0, 1,
                                 out, CO, cb * MS_CB, OH, OW);
            }
        }
    }
}

/* Filter-gradient partial sums of NK (<= 3) kernel columns kx0.. for 8 output channels. */
MS_INLINE void MS_NAME(ms_dw_block)(const float* in, long Hp, long Wp, const float* d, long OH,
                           long ldd, long c, long ky, long kx0, const int NK, float* acc)
{
    ms_v16 a[MS_CB][3];
    long y, x, k, j;
    for (k = 0; k < MS_CB; k++)
        for (j = 0; j < 3; j++) a[k][j] = (ms_v16){0};
    for (y = 0; y < OH; y++) {
        const float* row = in + (c * Hp + y + ky) * Wp + kx0;
        const float* drow = d + y * ldd;
        for (x = 0; x < ldd; x += MS_VL) {
            ms_v16 i0 = ms_ld(row + x);
            ms_v16 i1 = NK > 1 ? ms_ld(row + x + 1) : (ms_v16){0};
            ms_v16 i2 = NK > 2 ? ms_ld(row + x + 2) : (ms_v16){0};
            for (k = 0; k < MS_CB; k++) {
                ms_v16 g = ms_ld(drow + k * OH * ldd + x);
                MS_PIN(g);
                a[k][0] += g * i0;
                if (NK > 1) a[k][1] += g * i1;
                if (NK > 2) a[k][2] += g * i2;
            }
        }
    }
    for (j = 0; j < NK; j++)
        for (k = 0; k < MS_CB; k++) {
            float* p = acc + (j * MS_CB + k) * MS_VL;
            ms_st(p, ms_ld(p) + a[k][j]);
        }
}

/* acc (ceil(CO/8), C, KH, KW, 8) vectors += the filter gradient of one image: in is the
 * padded input (as for ms_conv_image), d the output gradient (ceil(CO/8)*8, OH, ldd) with
 * ldd a multiple of 16 and zeros past OW and past CO. */
MS_TARGET
static void MS_NAME(ms_dw_image)(const float* in, long C, long Hp, long Wp, const float* d, long CO,
                        long OH, long ldd, long KH, long KW, float* acc)
{
    long cb, c, ky, kx, ncb = (CO + MS_CB - 1) / MS_CB;
    for (cb = 0; cb < ncb; cb++) {
        const float* dc = d + cb * MS_CB * OH * ldd;
        for (c = 0; c < C; c++) {
            for (ky = 0; ky < KH; ky++) {
                for (kx = 0; kx < KW; kx += 3) {
                    float* a = acc + (((cb * C + c) * KH + ky) * KW + kx) * MS_CB * MS_VL;
                    if (KW - kx >= 3) MS_NAME(ms_dw_block)(in, Hp, Wp, dc, OH, ldd, c, ky, kx, 3, a);
                    else if (KW - kx == 2)
                        MS_NAME(ms_dw_block)(in, Hp, Wp, dc, OH, ldd, c, ky, kx, 2, a);
                    else MS_NAME(ms_dw_block)(in, Hp, Wp, dc, OH, ldd, c, ky, kx, 1, a);
                }
            }
        }
    }
}

