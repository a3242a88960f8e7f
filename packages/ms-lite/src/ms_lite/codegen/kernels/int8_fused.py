"""An int8 convolution fused with the max pooling that reads it (``fusion.py`` makes the
node): each pooled output takes the maximum of the convolution outputs under its window,
computed when needed, so the convolution's whole output is never in RAM. The pooled
values are the same int8 numbers as conv2d_s8 then maxpool_s8 give (the maximum of
the same integers), so the C stays bit-exact with the Python runtime."""

from __future__ import annotations

import numpy as np

from ms_lite.codegen.kernels.geometry import pool_geometry
from ms_lite.codegen.kernels.int8 import CAST, REQUANT, conv_params
from ms_lite.codegen.templates import CTemplate

__all__ = ["FUSED_OP", "STREAM_OP", "TEMPLATES", "stream_rows"]

FUSED_OP = "QuantConv2D+QuantMaxPool"
STREAM_OP = "QuantDTypeCast+QuantConv2D+QuantMaxPool"

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
   input, from kbias (bias + in_off * sum(w)) when the whole window is inside. xb holds
   rows row0.. of each channel, cs bytes apart (the whole image: row0 0, cs h * w). */
static int8_t conv2d_s8_pixel(const int8_t *xb, int32_t cs, int32_t row0, const int8_t *w,
                              const int32_t *bias, const int32_t *kbias,
                              const int32_t *mult, const int32_t *shift, const int32_t *g,
                              int32_t o, int32_t i, int32_t j)
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
    const int8_t *xg = xb + (size_t)(o / ocg) * cg * cs;
    for (int32_t ci = 0; ci < cg; ++ci) {
        const int8_t *xc = xg + (size_t)ci * cs;
        const int8_t *wc = wo + (size_t)ci * kh * kw;
        for (int32_t p = p0; p < p1; ++p) {
            const int8_t *xr = xc + (size_t)(y0 + p * dh - row0) * wd;
            const int8_t *wr = wc + p * kw;
            for (int32_t q = q0; q < q1; ++q) acc += ((int32_t)xr[x0 + q * dw] + off) * wr[q];
        }
    }
    return ms_clamp_s8(ms_requantize(acc, mult[o], shift[o]) + g[MS_G_OUT_OFF],
                       g[MS_G_ACT_MIN], g[MS_G_ACT_MAX]);
}

/* The maximum of the convolution pixels under pooled pixel (pi, pj)'s window (those inside
   the output; -128 when none is, as maxpool_s8 gives). */
static int8_t ms_pooled_conv_s8(const int8_t *xb, int32_t cs, int32_t row0, const int8_t *w,
                                const int32_t *bias, const int32_t *kbias,
                                const int32_t *mult, const int32_t *shift, const int32_t *g,
                                int32_t o, int32_t i0, int32_t i1, int32_t j0, int32_t j1)
{
    int32_t m = -128;
    for (int32_t i = i0 > 0 ? i0 : 0; i < i1 && i < g[MS_G_OH]; ++i)
        for (int32_t j = j0 > 0 ? j0 : 0; j < j1 && j < g[MS_G_OW]; ++j) {
            const int32_t v = conv2d_s8_pixel(xb, cs, row0, w, bias, kbias, mult, shift, g,
                                              o, i, j);
            if (v > m) m = v;
        }
    return (int8_t)m;
}

/* maxpool_s8(conv2d_s8(x)) without the convolution's output: pooled pixel (pi, pj) is the
   maximum of the convolution pixels under its window. */
static void conv2d_maxpool_s8(const int8_t *restrict x, const int8_t *restrict w,
                              const int32_t *bias, const int32_t *kbias,
                              const int32_t *mult, const int32_t *shift,
                              int8_t *restrict y, const int32_t *g, int32_t n, int32_t poh,
                              int32_t pow_, int32_t pkh, int32_t pkw, int32_t psh,
                              int32_t psw, int32_t ppt, int32_t ppl, int32_t o_begin,
                              int32_t o_end)
{
    const int32_t cs = g[MS_G_H] * g[MS_G_W], oc = g[MS_G_OC];
    for (int32_t b = 0; b < n; ++b) {
        const int8_t *xb = x + (size_t)b * g[MS_G_C] * cs;
        for (int32_t o = o_begin; o < o_end; ++o) {
            int8_t *yo = y + ((size_t)b * oc + o) * poh * pow_;
            for (int32_t pi = 0; pi < poh; ++pi) {
                const int32_t i0 = pi * psh - ppt;
                for (int32_t pj = 0; pj < pow_; ++pj) {
                    const int32_t j0 = pj * psw - ppl;
                    yo[pi * pow_ + pj] = ms_pooled_conv_s8(xb, cs, 0, w, bias, kbias, mult,
                                                           shift, g, o, i0, i0 + pkh, j0,
                                                           j0 + pkw);
                }
            }
        }
    }
}
"""

_STREAM = r"""
/* quantize_f32_s8 -> conv2d_s8 -> maxpool_s8 from the caller's float input, row by row:
   for each pooled row, the input rows its convolution rows read are quantized into
   `scratch` (`rows` rows per channel), so neither the int8 image nor the convolution's
   output is ever whole in RAM. */
static void conv2d_maxpool_f32in_s8(const float *x, int8_t *scratch, int32_t rows,
                                    double scale, int32_t zp, const int8_t *w,
                                    const int32_t *bias, const int32_t *kbias,
                                    const int32_t *mult, const int32_t *shift, int8_t *y,
                                    const int32_t *g, int32_t n, int32_t poh, int32_t pow_,
                                    int32_t pkh, int32_t pkw, int32_t psh, int32_t psw,
                                    int32_t ppt, int32_t ppl)
{
    const int32_t c = g[MS_G_C], h = g[MS_G_H], wd = g[MS_G_W], oc = g[MS_G_OC];
    const int32_t oh = g[MS_G_OH];
    for (int32_t b = 0; b < n; ++b) {
        const float *xb = x + (size_t)b * c * h * wd;
        for (int32_t pi = 0; pi < poh; ++pi) {
            const int32_t i0 = pi * psh - ppt;
            const int32_t lo = i0 > 0 ? i0 : 0, hi = i0 + pkh < oh ? i0 + pkh : oh;
            int32_t r0 = lo * g[MS_G_SH] - g[MS_G_PT], r1 = (hi - 1) * g[MS_G_SH]
                         - g[MS_G_PT] + (g[MS_G_KH] - 1) * g[MS_G_DH] + 1;
            if (r0 < 0) r0 = 0;
            if (r1 > h) r1 = h;
            if (lo < hi && r0 < r1)
                for (int32_t ci = 0; ci < c; ++ci)
                    quantize_f32_s8(xb + ((size_t)ci * h + r0) * wd,
                                    scratch + (size_t)ci * rows * wd, (r1 - r0) * wd,
                                    scale, zp);
            for (int32_t o = 0; o < oc; ++o) {
                int8_t *yr = y + (((size_t)b * oc + o) * poh + pi) * pow_;
                for (int32_t pj = 0; pj < pow_; ++pj) {
                    const int32_t j0 = pj * psw - ppl;
                    yr[pj] = ms_pooled_conv_s8(scratch, rows * wd, r0, w, bias, kbias, mult,
                                               shift, g, o, i0, i0 + pkh, j0, j0 + pkw);
                }
            }
        }
    }
}
"""


def stream_rows(conv: dict, pool: dict) -> int:
    """Input rows per channel the streamed kernel quantizes at once (its scratch): the
    most any pooled row's convolution rows read, as the C computes them."""
    most = 0
    for pi in range(pool["OH"]):
        i0 = pi * pool["SH"] - pool["PT"]
        lo, hi = max(i0, 0), min(i0 + pool["KH"], conv["OH"])
        r0 = max(lo * conv["SH"] - conv["PT"], 0)
        r1 = min((hi - 1) * conv["SH"] - conv["PT"] + (conv["KH"] - 1) * conv["DH"] + 1,
                 conv["H"])
        if lo < hi:
            most = max(most, r1 - r0)
    return max(most, 1)


def _params(ctx):
    conv = conv_params(ctx)
    conv_shape = ctx.attrs["conv_shape"]
    pool = pool_geometry(conv_shape, ctx.outputs[0].shape, ctx.attrs["pool"])
    geometry = ctx.add_const("geometry", np.array([conv[k] for k in _GEOMETRY], np.int32))
    fields = {**conv, "GEOM": geometry, "POH": pool["OH"], "POW": pool["OW"],
              "PKH": pool["KH"], "PKW": pool["KW"], "PSH": pool["SH"], "PSW": pool["SW"],
              "PPT": pool["PT"], "PPL": pool["PL"]}
    if ctx.node.op == STREAM_OP:
        fields.update(ROWS=stream_rows(conv, pool), SCALE=repr(float(ctx.attrs["scale"])),
                      ZP=int(ctx.attrs["zero_point"]))
    return fields


_POOL_ARGS = "${N}, ${POH}, ${POW}, ${PKH}, ${PKW}, ${PSH}, ${PSW}, ${PPT}, ${PPL}"


TEMPLATES = {
    (FUSED_OP, "int8"): CTemplate(
        (REQUANT, _FUSED),
        "conv2d_maxpool_s8(${in0}, ${in1}, ${in2}, ${KBIAS}, ${in3}, ${in4}, ${out}, ${GEOM}, "
        + _POOL_ARGS + ", ${O0}, ${O1});", params=_params, split="OC"),
    # one scratch of rows for all channels: not split over threads
    (STREAM_OP, "float32"): CTemplate(
        (REQUANT, CAST, _FUSED, _STREAM),
        "conv2d_maxpool_f32in_s8(${in0}, ${out1}, ${ROWS}, ${SCALE}, ${ZP}, ${in1}, ${in2}, "
        "${KBIAS}, ${in3}, ${in4}, ${out0}, ${GEOM}, " + _POOL_ARGS + ");", params=_params),
}
