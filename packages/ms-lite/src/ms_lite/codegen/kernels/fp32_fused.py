"""A float32 convolution fused with the max pooling that reads it (``fusion.py`` makes
the node): each pooled output is the maximum of the convolution pixels under its window,
computed when needed, so the convolution's output is never in RAM. Each pixel sums the
bias, then the taps in (channel, row, column) order, as conv2d_f32 does, so the floats
are the same as the unfused kernels'."""

from __future__ import annotations

import numpy as np

from ms_lite.codegen.kernels.fp32 import ACT, activation_code
from ms_lite.codegen.kernels.geometry import conv_geometry, pool_geometry
from ms_lite.codegen.templates import CTemplate

__all__ = ["FUSED_F32_OP", "TEMPLATES"]

FUSED_F32_OP = "Conv2D+MaxPool"

_GEOMETRY = ("C", "H", "W", "OC", "OH", "OW", "KH", "KW", "SH", "SW", "DH", "DW", "PT", "PL",
             "G", "ACT")

_FUSED = r"""
enum { MS_F_C, MS_F_H, MS_F_W, MS_F_OC, MS_F_OH, MS_F_OW, MS_F_KH, MS_F_KW, MS_F_SH,
       MS_F_SW, MS_F_DH, MS_F_DW, MS_F_PT, MS_F_PL, MS_F_GROUP, MS_F_ACT };

static int32_t ms_ceil_div_pf(int32_t a, int32_t b)  /* b > 0 */
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/* Output pixel (i, j) of channel o of conv2d_f32: bias, then the taps inside the input. */
static float conv2d_f32_pixel(const float *xb, const float *w, const float *bias,
                              const int32_t *g, int32_t o, int32_t i, int32_t j)
{
    const int32_t h = g[MS_F_H], wd = g[MS_F_W], kh = g[MS_F_KH], kw = g[MS_F_KW];
    const int32_t dh = g[MS_F_DH], dw = g[MS_F_DW];
    const int32_t cg = g[MS_F_C] / g[MS_F_GROUP], ocg = g[MS_F_OC] / g[MS_F_GROUP];
    const int32_t y0 = i * g[MS_F_SH] - g[MS_F_PT], x0 = j * g[MS_F_SW] - g[MS_F_PL];
    const int32_t p0 = y0 < 0 ? ms_ceil_div_pf(-y0, dh) : 0;
    const int32_t q0 = x0 < 0 ? ms_ceil_div_pf(-x0, dw) : 0;
    int32_t p1 = ms_ceil_div_pf(h - y0, dh), q1 = ms_ceil_div_pf(wd - x0, dw);
    if (p1 > kh) p1 = kh;
    if (q1 > kw) q1 = kw;
    float acc = bias ? bias[o] : 0.0f;
    const float *wo = w + (size_t)o * cg * kh * kw;
    const float *xg = xb + (size_t)(o / ocg) * cg * h * wd;
    for (int32_t ci = 0; ci < cg; ++ci) {
        const float *xc = xg + (size_t)ci * h * wd;
        const float *wc = wo + (size_t)ci * kh * kw;
        for (int32_t p = p0; p < p1; ++p) {
            const float *xr = xc + (size_t)(y0 + p * dh) * wd;
            for (int32_t q = q0; q < q1; ++q) acc += wc[p * kw + q] * xr[x0 + q * dw];
        }
    }
    return ms_act_f32(acc, g[MS_F_ACT]);
}

/* maxpool_f32(conv2d_f32(x)) without the convolution's output. */
static void conv2d_maxpool_f32(const float *restrict x, const float *restrict w,
                               const float *restrict bias, float *restrict y,
                               const int32_t *g, int32_t n, int32_t poh, int32_t pow_,
                               int32_t pkh, int32_t pkw, int32_t psh, int32_t psw,
                               int32_t ppt, int32_t ppl, int32_t o_begin, int32_t o_end)
{
    const int32_t oh = g[MS_F_OH], ow = g[MS_F_OW], oc = g[MS_F_OC];
    for (int32_t b = 0; b < n; ++b) {
        const float *xb = x + (size_t)b * g[MS_F_C] * g[MS_F_H] * g[MS_F_W];
        for (int32_t o = o_begin; o < o_end; ++o) {
            float *yo = y + ((size_t)b * oc + o) * poh * pow_;
            for (int32_t pi = 0; pi < poh; ++pi) {
                for (int32_t pj = 0; pj < pow_; ++pj) {
                    float m = -INFINITY;
                    for (int32_t a = 0; a < pkh; ++a) {
                        const int32_t i = pi * psh - ppt + a;
                        if (i < 0 || i >= oh) continue;
                        for (int32_t e = 0; e < pkw; ++e) {
                            const int32_t j = pj * psw - ppl + e;
                            if (j < 0 || j >= ow) continue;
                            const float v = conv2d_f32_pixel(xb, w, bias, g, o, i, j);
                            if (v > m) m = v;
                        }
                    }
                    yo[pi * pow_ + pj] = m;
                }
            }
        }
    }
}
"""


def _params(ctx):
    conv = conv_geometry(ctx.inputs[0].shape, ctx.inputs[1].shape, ctx.attrs)
    conv["ACT"] = activation_code(ctx)
    pool = pool_geometry(ctx.attrs["conv_shape"], ctx.outputs[0].shape, ctx.attrs["pool"])
    geometry = ctx.add_const("geometry", np.array([conv[k] for k in _GEOMETRY], np.int32))
    return {**conv, "GEOM": geometry, "bias": ctx.ptr(2), "POH": pool["OH"],
            "POW": pool["OW"], "PKH": pool["KH"], "PKW": pool["KW"], "PSH": pool["SH"],
            "PSW": pool["SW"], "PPT": pool["PT"], "PPL": pool["PL"]}


TEMPLATES = {
    FUSED_F32_OP: CTemplate(
        (ACT, _FUSED),
        "conv2d_maxpool_f32(${in0}, ${in1}, ${bias}, ${out}, ${GEOM}, ${N}, ${POH}, ${POW}, "
        "${PKH}, ${PKW}, ${PSH}, ${PSW}, ${PPT}, ${PPL}, ${O0}, ${O1});",
        params=_params, split="OC"),
}
