"""An int8 convolution fused with the max pooling that reads it (``fusion.py`` makes the
node): each pooled output takes the maximum of the convolution outputs under its window,
computed when needed, so the convolution's whole output is never in RAM. The pooled
values are the same int8 numbers as conv2d_s8 then maxpool_s8 give (the maximum of
the same integers), so the C stays bit-exact with the Python runtime."""

from __future__ import annotations

import numpy as np

from ms_lite.codegen.kernels.geometry import pool_geometry
from ms_lite.codegen.kernels.int8 import REQUANT, conv_params
from ms_lite.codegen.templates import CTemplate

__all__ = ["FUSED_OP", "TEMPLATES"]

FUSED_OP = "QuantConv2D+QuantMaxPool"

_GEOMETRY = ("C", "H", "W", "OC", "OH", "OW", "KH", "KW", "SH", "SW", "DH", "DW", "PT", "PL",
             "G", "in_off", "out_off", "act_min", "act_max")

_FUSED = r"""
enum { MS_G_C, MS_G_H, MS_G_W, MS_G_OC, MS_G_OH, MS_G_OW, MS_G_KH, MS_G_KW, MS_G_SH,
       MS_G_SW, MS_G_DH, MS_G_DW, MS_G_PT, MS_G_PL, MS_G_GROUP, MS_G_IN_OFF, MS_G_OUT_OFF,
       MS_G_ACT_MIN, MS_G_ACT_MAX };

static int32_t ms_ceil_div_px(int32_t a, int32_t b)  /* b > 0 */
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/* Output pixel (i, j) of channel o of conv2d_s8, with its arithmetic: the taps inside the
   input, from kbias (bias + in_off * sum(w)) when the whole window is inside. */
static int8_t conv2d_s8_pixel(const int8_t *xb, const int8_t *w, const int32_t *bias,
                              const int32_t *kbias, const int32_t *mult,
                              const int32_t *shift, const int32_t *g, int32_t o, int32_t i,
                              int32_t j)
{
    const int32_t c = g[MS_G_C], h = g[MS_G_H], wd = g[MS_G_W], kh = g[MS_G_KH];
    const int32_t kw = g[MS_G_KW], dh = g[MS_G_DH], dw = g[MS_G_DW];
    const int32_t cg = c / g[MS_G_GROUP], ocg = g[MS_G_OC] / g[MS_G_GROUP];
    const int32_t in_off = g[MS_G_IN_OFF];
    const int32_t y0 = i * g[MS_G_SH] - g[MS_G_PT], x0 = j * g[MS_G_SW] - g[MS_G_PL];
    const int32_t p0 = y0 < 0 ? ms_ceil_div_px(-y0, dh) : 0;
    const int32_t q0 = x0 < 0 ? ms_ceil_div_px(-x0, dw) : 0;
    int32_t p1 = ms_ceil_div_px(h - y0, dh), q1 = ms_ceil_div_px(wd - x0, dw);
    if (p1 > kh) p1 = kh;
    if (q1 > kw) q1 = kw;
    const int32_t off = (kbias && p0 == 0 && p1 == kh && q0 == 0 && q1 == kw) ? 0 : in_off;
    int32_t acc = off == in_off ? (bias ? bias[o] : 0) : kbias[o];
    const int8_t *wo = w + (size_t)o * cg * kh * kw;
    const int8_t *xg = xb + (size_t)(o / ocg) * cg * h * wd;
    for (int32_t ci = 0; ci < cg; ++ci) {
        const int8_t *xc = xg + (size_t)ci * h * wd;
        const int8_t *wc = wo + (size_t)ci * kh * kw;
        for (int32_t p = p0; p < p1; ++p) {
            const int8_t *xr = xc + (size_t)(y0 + p * dh) * wd;
            const int8_t *wr = wc + p * kw;
            for (int32_t q = q0; q < q1; ++q) acc += ((int32_t)xr[x0 + q * dw] + off) * wr[q];
        }
    }
    return ms_clamp_s8(ms_requantize(acc, mult[o], shift[o]) + g[MS_G_OUT_OFF],
                       g[MS_G_ACT_MIN], g[MS_G_ACT_MAX]);
}

/* maxpool_s8(conv2d_s8(x)) without the convolution's output: pooled pixel (pi, pj) is the
   maximum of the convolution pixels under its window (those inside the output). */
static void conv2d_maxpool_s8(const int8_t *restrict x, const int8_t *restrict w,
                              const int32_t *bias, const int32_t *kbias,
                              const int32_t *mult, const int32_t *shift,
                              int8_t *restrict y, const int32_t *g, int32_t n, int32_t poh,
                              int32_t pow_, int32_t pkh, int32_t pkw, int32_t psh,
                              int32_t psw, int32_t ppt, int32_t ppl, int32_t o_begin,
                              int32_t o_end)
{
    const int32_t oh = g[MS_G_OH], ow = g[MS_G_OW], oc = g[MS_G_OC];
    for (int32_t b = 0; b < n; ++b) {
        const int8_t *xb = x + (size_t)b * g[MS_G_C] * g[MS_G_H] * g[MS_G_W];
        for (int32_t o = o_begin; o < o_end; ++o) {
            int8_t *yo = y + ((size_t)b * oc + o) * poh * pow_;
            for (int32_t pi = 0; pi < poh; ++pi) {
                for (int32_t pj = 0; pj < pow_; ++pj) {
                    int32_t m = -128;
                    for (int32_t a = 0; a < pkh; ++a) {
                        const int32_t i = pi * psh - ppt + a;
                        if (i < 0 || i >= oh) continue;
                        for (int32_t e = 0; e < pkw; ++e) {
                            const int32_t j = pj * psw - ppl + e;
                            if (j < 0 || j >= ow) continue;
                            const int32_t v = conv2d_s8_pixel(xb, w, bias, kbias, mult,
                                                              shift, g, o, i, j);
                            if (v > m) m = v;
                        }
                    }
                    yo[pi * pow_ + pj] = (int8_t)m;
                }
            }
        }
    }
}
"""


def _params(ctx):
    conv = conv_params(ctx)
    conv_shape = ctx.attrs["conv_shape"]
    pool = pool_geometry(conv_shape, ctx.outputs[0].shape, ctx.attrs["pool"])
    geometry = ctx.add_const("geometry", np.array([conv[k] for k in _GEOMETRY], np.int32))
    return {**conv, "GEOM": geometry, "POH": pool["OH"], "POW": pool["OW"],
            "PKH": pool["KH"], "PKW": pool["KW"], "PSH": pool["SH"], "PSW": pool["SW"],
            "PPT": pool["PT"], "PPL": pool["PL"]}


TEMPLATES = {
    (FUSED_OP, "int8"): CTemplate(
        (REQUANT, _FUSED),
        "conv2d_maxpool_s8(${in0}, ${in1}, ${in2}, ${KBIAS}, ${in3}, ${in4}, ${out}, ${GEOM}, "
        "${N}, ${POH}, ${POW}, ${PKH}, ${PKW}, ${PSH}, ${PSW}, ${PPT}, ${PPL}, ${O0}, ${O1});",
        params=_params, split="OC"),
}
