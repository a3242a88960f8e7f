"""int8 C templates of ms-lite's quantized operators, in the style of CMSIS-NN.

The requantization is CMSIS-NN's / TFLite's, in integers only (``arm_nn_requantize``:
a saturating left shift, SaturatingRoundingDoublingHighMul by a Q31 multiplier, then
RoundingDivideByPOT), with per-output-channel multipliers and shifts, an input offset
(``-input_zero_point``), an output offset and an activation range, exactly as
``ms_lite.quant.scheme`` computes them, so the C output equals the Python runtime bit for
bit. The convolution is direct (no im2col scratch buffer: the arena holds only tensors);
padding taps are skipped, which is what the reference's zero-point padding contributes.
"""

from __future__ import annotations

import numpy as np

from ms_lite.codegen.kernels.fp32 import COPY
from ms_lite.codegen.kernels.geometry import conv_geometry, pool_geometry
from ms_lite.codegen.templates import CTemplate

__all__ = ["TEMPLATES", "REQUANT", "CAST", "conv_params"]

REQUANT = r"""
/* CMSIS-NN's arm_nn_requantize with a saturating left shift (ms_lite.quant.scheme) */
static int32_t ms_srdhm(int32_t a, int32_t b)
{
    if (a == INT32_MIN && b == INT32_MIN) return INT32_MAX;
    const int64_t ab = (int64_t)a * (int64_t)b;
    const int64_t nudge = ab >= 0 ? ((int64_t)1 << 30) : (1 - ((int64_t)1 << 30));
    return (int32_t)((ab + nudge) / ((int64_t)1 << 31));  /* C division truncates */
}

static int32_t ms_rdbpot(int32_t x, int32_t exponent)
{
    const int32_t mask = (int32_t)(((int64_t)1 << exponent) - 1);
    const int32_t remainder = x & mask;
    const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
    return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

static int32_t ms_requantize(int32_t acc, int32_t mult, int32_t shift)
{
    int64_t v = (int64_t)acc * ((int64_t)1 << (shift > 0 ? shift : 0));
    if (v > INT32_MAX) v = INT32_MAX;
    if (v < INT32_MIN) v = INT32_MIN;
    return ms_rdbpot(ms_srdhm((int32_t)v, mult), shift < 0 ? -shift : 0);
}

static int8_t ms_clamp_s8(int32_t v, int32_t lo, int32_t hi)
{
    return (int8_t)(v < lo ? lo : (v > hi ? hi : v));
}
"""

_CONV = r"""
static int32_t ms_ceil_div_s(int32_t a, int32_t b)  /* b > 0 */
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/* arm_convolve_s8's arithmetic (arm_depthwise_conv_s8's for groups), NCHW:
   y = clamp(requant(bias + sum (x + in_off) * w) + out_off) per output channel in
   [o_begin, o_end). Each output pixel's valid taps are found once; a window with no
   padding starts from kbias = bias + in_off * sum(w) (CMSIS-NN's kernel sum, when
   given) so its inner loop is a plain multiply-accumulate. */
static void conv2d_s8(const int8_t *restrict x, const int8_t *restrict w, const int32_t *bias,
                      const int32_t *kbias, const int32_t *mult, const int32_t *shift,
                      int8_t *restrict y,
                      int32_t n, int32_t c, int32_t h, int32_t wd, int32_t oc,
                      int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                      int32_t sw, int32_t dh, int32_t dw, int32_t pt, int32_t pl,
                      int32_t in_off, int32_t out_off, int32_t act_min, int32_t act_max,
                      int32_t group, int32_t o_begin, int32_t o_end)
{
    const int32_t cg = c / group, ocg = oc / group;
    for (int32_t b = 0; b < n; ++b) {
        for (int32_t o = o_begin; o < o_end; ++o) {
            const int8_t *wo = w + (size_t)o * cg * kh * kw;
            const int8_t *xg = x + ((size_t)b * c + (size_t)(o / ocg) * cg) * h * wd;
            int8_t *yo = y + ((size_t)b * oc + o) * oh * ow;
            for (int32_t i = 0; i < oh; ++i) {
                const int32_t y0 = i * sh - pt;
                const int32_t p0 = y0 < 0 ? ms_ceil_div_s(-y0, dh) : 0;
                int32_t p1 = ms_ceil_div_s(h - y0, dh);
                if (p1 > kh) p1 = kh;
                for (int32_t j = 0; j < ow; ++j) {
                    const int32_t x0 = j * sw - pl;
                    const int32_t q0 = x0 < 0 ? ms_ceil_div_s(-x0, dw) : 0;
                    int32_t q1 = ms_ceil_div_s(wd - x0, dw);
                    if (q1 > kw) q1 = kw;
                    const int32_t off = (kbias && p0 == 0 && p1 == kh && q0 == 0 &&
                                         q1 == kw) ? 0 : in_off;
                    int32_t acc = off == in_off ? (bias ? bias[o] : 0) : kbias[o];
                    for (int32_t ci = 0; ci < cg; ++ci) {
                        const int8_t *xc = xg + (size_t)ci * h * wd;
                        const int8_t *wc = wo + (size_t)ci * kh * kw;
                        for (int32_t p = p0; p < p1; ++p) {
                            const int8_t *xr = xc + (size_t)(y0 + p * dh) * wd;
                            const int8_t *wr = wc + p * kw;
                            if (off == 0) {
                                for (int32_t q = q0; q < q1; ++q)
                                    acc += (int32_t)xr[x0 + q * dw] * wr[q];
                            } else {
                                for (int32_t q = q0; q < q1; ++q)
                                    acc += ((int32_t)xr[x0 + q * dw] + off) * wr[q];
                            }
                        }
                    }
                    yo[i * ow + j] = ms_clamp_s8(
                        ms_requantize(acc, mult[o], shift[o]) + out_off, act_min, act_max);
                }
            }
        }
    }
}
"""

_QUANT_ARGS = "${in_off}, ${out_off}, ${act_min}, ${act_max}"


def _quant_fields(ctx) -> dict:
    a = ctx.attrs
    return {"in_off": -int(a["input_zero_point"]), "out_off": int(a["output_zero_point"]),
            "act_min": int(a.get("act_min", -128)), "act_max": int(a.get("act_max", 127))}


def _kernel_sum_bias(ctx, in_off: int) -> str:
    """``bias + in_off * sum(w)`` per output channel as a const array (CMSIS-NN's kernel
    sum), or ``0`` when the weights are not constant or it would not fit in int32."""
    w, b = ctx.const(1), ctx.const(2)
    if w is None or in_off == 0:
        return "0"
    b = np.zeros(w.shape[0], np.int64) if b is None else b.astype(np.int64)
    folded = b + in_off * w.reshape(w.shape[0], -1).astype(np.int64).sum(axis=1)
    if np.abs(folded).max(initial=0) >= 2 ** 31:
        return "0"
    return ctx.add_const("kernel_sum_bias", folded.astype(np.int32))


def conv_params(ctx):
    g = conv_geometry(ctx.inputs[0].shape, ctx.inputs[1].shape, ctx.attrs)
    q = _quant_fields(ctx)
    return {**g, **q, "KBIAS": _kernel_sum_bias(ctx, q["in_off"])}


_FC = r"""
/* arm_fully_connected_s8's arithmetic: y[r, o] = requant(bias[o] + sum (x + in_off) * w[o])
   for o in [o_begin, o_end) */
static void fully_connected_s8(const int8_t *restrict x, const int8_t *restrict w,
                               const int32_t *bias, const int32_t *mult,
                               const int32_t *shift, int8_t *restrict y,
                               int32_t rows, int32_t k, int32_t m, int32_t in_off,
                               int32_t out_off, int32_t act_min, int32_t act_max,
                               int32_t o_begin, int32_t o_end)
{
    for (int32_t r = 0; r < rows; ++r) {
        const int8_t *xr = x + (size_t)r * k;
        for (int32_t o = o_begin; o < o_end; ++o) {
            const int8_t *wo = w + (size_t)o * k;
            int32_t acc = bias ? bias[o] : 0;
            if (in_off == 0) {
                for (int32_t i = 0; i < k; ++i) acc += (int32_t)xr[i] * wo[i];
            } else {
                for (int32_t i = 0; i < k; ++i) acc += ((int32_t)xr[i] + in_off) * wo[i];
            }
            y[(size_t)r * m + o] = ms_clamp_s8(
                ms_requantize(acc, mult[o], shift[o]) + out_off, act_min, act_max);
        }
    }
}
"""


def _fc_params(ctx):
    k = ctx.inputs[1].shape[1]
    fields = {"ROWS": ctx.numel(0, "inputs") // k, "K": k, "M": ctx.inputs[1].shape[0],
              "BIAS": ctx.ptr(2), **_quant_fields(ctx)}
    # sum((x + off) * w) + b = sum(x * w) + (b + off * sum(w)): the same integers with
    # one addition fewer per multiply-accumulate
    folded = _kernel_sum_bias(ctx, fields["in_off"])
    if folded != "0":
        fields["BIAS"], fields["in_off"] = folded, 0
    return fields


_MAXPOOL = r"""
static void maxpool_s8(const int8_t *restrict x, int8_t *restrict y, int32_t nc,
                       int32_t h, int32_t w, int32_t oh, int32_t ow, int32_t kh,
                       int32_t kw, int32_t sh, int32_t sw, int32_t pt, int32_t pl)
{
    for (int32_t p = 0; p < nc; ++p) {
        const int8_t *xp = x + (size_t)p * h * w;
        for (int32_t i = 0; i < oh; ++i) {
            for (int32_t j = 0; j < ow; ++j) {
                int32_t m = -128;
                for (int32_t a = 0; a < kh; ++a) {
                    const int32_t yy = i * sh - pt + a;
                    if (yy < 0 || yy >= h) continue;
                    for (int32_t b = 0; b < kw; ++b) {
                        const int32_t xx = j * sw - pl + b;
                        if (xx >= 0 && xx < w && xp[yy * w + xx] > m) m = xp[yy * w + xx];
                    }
                }
                y[((size_t)p * oh + i) * ow + j] = (int8_t)m;
            }
        }
    }
}
"""


def _pool_params(ctx):
    g = pool_geometry(ctx.inputs[0].shape, ctx.outputs[0].shape, ctx.attrs)
    g["NC"] = g["N"] * g["C"]
    return g


_RELU = r"""
static void relu_s8(const int8_t *x, int8_t *y, int32_t n, int32_t zp)
{
    for (int32_t i = 0; i < n; ++i) y[i] = x[i] > zp ? x[i] : (int8_t)zp;
}
"""

CAST = r"""
/* float -> int8: clamp(rint(x / scale) + zp), in double as the reference does */
static void quantize_f32_s8(const float *x, int8_t *y, int32_t n, double scale, int32_t zp)
{
    for (int32_t i = 0; i < n; ++i) {
        double v = rint((double)x[i] / scale) + zp;
        y[i] = (int8_t)(v < -128.0 ? -128 : (v > 127.0 ? 127 : (int32_t)v));
    }
}

/* int8 -> float: (q - zp) * scale in double, rounded once to float */
static void dequantize_s8_f32(const int8_t *x, float *y, int32_t n, double scale, int32_t zp)
{
    for (int32_t i = 0; i < n; ++i) y[i] = (float)((double)((int32_t)x[i] - zp) * scale);
}
"""

_CAST_PER_CHANNEL = r"""
/* per-channel casts: x seen as (outer, dim, inner), channel d with scale[d] and zp[d] */
static void quantize_f32_s8_pc(const float *x, int8_t *y, int32_t outer, int32_t dim,
                               int32_t inner, const double *scale, const int32_t *zp)
{
    for (int32_t o = 0; o < outer; ++o)
        for (int32_t d = 0; d < dim; ++d) {
            const size_t at = ((size_t)o * dim + d) * inner;
            quantize_f32_s8(x + at, y + at, inner, scale[d], zp[d]);
        }
}

static void dequantize_s8_f32_pc(const int8_t *x, float *y, int32_t outer, int32_t dim,
                                 int32_t inner, const double *scale, const int32_t *zp)
{
    for (int32_t o = 0; o < outer; ++o)
        for (int32_t d = 0; d < dim; ++d) {
            const size_t at = ((size_t)o * dim + d) * inner;
            dequantize_s8_f32(x + at, y + at, inner, scale[d], zp[d]);
        }
}
"""


def _per_channel(ctx, fn: str, scale, zp) -> dict:
    """The (outer, dim, inner) view and const arrays of a cast along ``axis``."""
    shape = ctx.inputs[0].shape
    axis = int(ctx.attrs.get("axis", -1)) % max(len(shape), 1)
    dim = shape[axis] if shape else 1
    if {scale.size, zp.size} - {1, dim}:
        raise ValueError(f"QuantDTypeCast (node {ctx.node.name!r}): {scale.size} scales and "
                         f"{zp.size} zero points for axis {axis} of {dim} channels (shape "
                         f"{shape})")
    outer = int(np.prod(shape[:axis], dtype=np.int64))
    inner = int(np.prod(shape[axis + 1:], dtype=np.int64))
    scales = ctx.add_const("scales", np.broadcast_to(scale.astype(np.float64), dim))
    zps = ctx.add_const("zero_points", np.broadcast_to(zp.astype(np.int32), dim))
    return {"FN": fn + "_pc", "ARGS": f"{outer}, {dim}, {inner}, {scales}, {zps}"}


def _cast_params(ctx):
    a = ctx.attrs
    scale, zp = np.atleast_1d(a["scale"]), np.atleast_1d(a["zero_point"])
    src, dst = ctx.inputs[0].dtype, ctx.outputs[0].dtype
    if (src, dst) == ("float32", "int8"):
        fn = "quantize_f32_s8"
    elif (src, dst) == ("int8", "float32"):
        fn = "dequantize_s8_f32"
    else:
        raise ValueError(f"QuantDTypeCast (node {ctx.node.name!r}): {src} -> {dst} has no C "
                         "kernel (float32 <-> int8 only)")
    if scale.size != 1 or zp.size != 1:
        return _per_channel(ctx, fn, scale, zp)
    return {"FN": fn, "ARGS": f"{ctx.numel(0)}, {float(scale[0])!r}, {int(zp[0])}"}


_CAST_T = CTemplate((CAST, _CAST_PER_CHANNEL), "${FN}(${in0}, ${out}, ${ARGS});",
                    params=_cast_params)

TEMPLATES = {
    ("QuantConv2D", "int8"): CTemplate(
        (REQUANT, _CONV),
        "conv2d_s8(${in0}, ${in1}, ${in2}, ${KBIAS}, ${in3}, ${in4}, ${out}, ${N}, ${C}, ${H}, "
        "${W}, "
        "${OC}, ${OH}, ${OW}, ${KH}, ${KW}, ${SH}, ${SW}, ${DH}, ${DW}, ${PT}, ${PL}, "
        + _QUANT_ARGS + ", ${G}, ${O0}, ${O1});", params=conv_params, split="OC"),
    ("QuantFullConnection", "int8"): CTemplate(
        (REQUANT, _FC),
        "fully_connected_s8(${in0}, ${in1}, ${BIAS}, ${in3}, ${in4}, ${out}, ${ROWS}, ${K}, "
        "${M}, " + _QUANT_ARGS + ", ${O0}, ${O1});", params=_fc_params, split="M"),
    ("QuantMaxPool", "int8"): CTemplate(
        _MAXPOOL, "maxpool_s8(${in0}, ${out}, ${NC}, ${H}, ${W}, ${OH}, ${OW}, ${KH}, ${KW}, "
                  "${SH}, ${SW}, ${PT}, ${PL});", params=_pool_params),
    ("QuantReLU", "int8"): CTemplate(_RELU, "relu_s8(${in0}, ${out}, ${n}, ${ZP});",
                                     params=lambda ctx: {"ZP": int(ctx.attrs.get("zero_point", 0))},
                                     inplace=True),
    ("QuantDTypeCast", "float32"): _CAST_T,
    ("QuantDTypeCast", "int8"): _CAST_T,
    ("Reshape", "int8"): COPY,
    ("Flatten", "int8"): COPY,
    ("QuantReshape", "int8"): COPY,
    ("ExpandDims", "int8"): COPY,
    ("Squeeze", "int8"): COPY,
}
