"""float32 C templates of ms-ops' operators used by LeNet5, MLPs and small CNNs (NCHW).

Plain loops in C99 that any compiler vectorizes; the order of accumulation is the
obvious one, so results match the numpy runtime to float32 rounding (tested to 1e-5).
"""

from __future__ import annotations

import numpy as np

from ms_lite.codegen.kernels.geometry import conv_geometry, pool_geometry
from ms_lite.codegen.templates import CTemplate

__all__ = ["TEMPLATES", "ACT", "activation_code", "broadcast_fields"]

ACT = r"""
/* fused activation: 0 none, 1 ReLU, 2 ReLU6 (MindSpore Lite's activation_type) */
static float ms_act_f32(float v, int32_t act)
{
    if (act >= 1 && v < 0.0f) v = 0.0f;
    if (act == 2 && v > 6.0f) v = 6.0f;
    return v;
}
"""

_CONV = r"""
static int32_t ms_ceil_div(int32_t a, int32_t b)  /* b > 0 */
{
    return a >= 0 ? (a + b - 1) / b : -((-a) / b);
}

/* Direct convolution of output channels [o_begin, o_end) (a parallel build gives each
   thread its own range) that accumulates whole output rows: for each weight tap, the
   output pixels whose window sees valid input form one range per row, so the inner loop
   has no bounds checks and vectorizes. Every output sums bias, then the taps in
   (channel, row, column) order, as a per-pixel loop would. */
static void conv2d_f32(const float *restrict x, const float *restrict w,
                       const float *restrict bias, float *restrict y,
                       int32_t n, int32_t c, int32_t h, int32_t wd, int32_t oc,
                       int32_t oh, int32_t ow, int32_t kh, int32_t kw, int32_t sh,
                       int32_t sw, int32_t dh, int32_t dw, int32_t pt, int32_t pl,
                       int32_t group, int32_t act, int32_t o_begin, int32_t o_end)
{
    const int32_t cg = c / group, ocg = oc / group;
    for (int32_t b = 0; b < n; ++b) {
        for (int32_t o = o_begin; o < o_end; ++o) {
            const int32_t g = o / ocg;
            const float *wo = w + (size_t)o * cg * kh * kw;
            float *yo = y + ((size_t)b * oc + o) * oh * ow;
            const float bv = bias ? bias[o] : 0.0f;
            for (int32_t t = 0; t < oh * ow; ++t) yo[t] = bv;
            for (int32_t ci = 0; ci < cg; ++ci) {
                const float *xc = x + ((size_t)b * c + g * cg + ci) * h * wd;
                const float *wc = wo + (size_t)ci * kh * kw;
                for (int32_t p = 0; p < kh; ++p) {
                    const int32_t i0 = ms_ceil_div(pt - p * dh, sh) > 0 ?
                                       ms_ceil_div(pt - p * dh, sh) : 0;
                    int32_t i1 = ms_ceil_div(h + pt - p * dh, sh);
                    if (i1 > oh) i1 = oh;
                    for (int32_t q = 0; q < kw; ++q) {
                        const float wv = wc[p * kw + q];
                        const int32_t j0 = ms_ceil_div(pl - q * dw, sw) > 0 ?
                                           ms_ceil_div(pl - q * dw, sw) : 0;
                        int32_t j1 = ms_ceil_div(wd + pl - q * dw, sw);
                        if (j1 > ow) j1 = ow;
                        for (int32_t i = i0; i < i1; ++i) {
                            /* xr[0] is the input under output column j0 */
                            const float *xr = xc + (size_t)(i * sh - pt + p * dh) * wd
                                              + (j0 * sw - pl + q * dw);
                            float *yr = yo + (size_t)i * ow + j0;
                            if (sw == 1) {
                                for (int32_t j = 0; j < j1 - j0; ++j) yr[j] += wv * xr[j];
                            } else {
                                for (int32_t j = 0; j < j1 - j0; ++j) yr[j] += wv * xr[j * sw];
                            }
                        }
                    }
                }
            }
            if (act)
                for (int32_t t = 0; t < oh * ow; ++t) yo[t] = ms_act_f32(yo[t], act);
        }
    }
}
"""

_CONV_CALL = ("conv2d_f32(${in0}, ${in1}, ${bias}, ${out}, ${N}, ${C}, ${H}, ${W}, ${OC}, "
              "${OH}, ${OW}, ${KH}, ${KW}, ${SH}, ${SW}, ${DH}, ${DW}, ${PT}, ${PL}, ${G}, "
              "${ACT}, ${O0}, ${O1});")

ACTIVATION_CODES = {"NO_ACTIVATION": 0, "RELU": 1, "RELU6": 2}


def activation_code(ctx) -> int:
    act = ctx.attrs.get("activation_type", "NO_ACTIVATION")
    if act not in ACTIVATION_CODES:
        raise ValueError(f"{ctx.node.op} (node {ctx.node.name!r}): activation_type {act!r} "
                         f"has no C form; expected one of {', '.join(ACTIVATION_CODES)}")
    return ACTIVATION_CODES[act]


def _conv_params(ctx):
    fields = conv_geometry(ctx.inputs[0].shape, ctx.inputs[1].shape, ctx.attrs)
    fields["bias"] = ctx.ptr(2) if len(ctx.inputs) > 2 else "0"
    fields["ACT"] = activation_code(ctx)
    return fields


_POOL = r"""
static void maxpool_f32(const float *restrict x, float *restrict y, int32_t nc,
                        int32_t h, int32_t w, int32_t oh, int32_t ow, int32_t kh,
                        int32_t kw, int32_t sh, int32_t sw, int32_t pt, int32_t pl)
{
    for (int32_t p = 0; p < nc; ++p) {
        const float *xp = x + (size_t)p * h * w;
        for (int32_t i = 0; i < oh; ++i) {
            for (int32_t j = 0; j < ow; ++j) {
                float m = -INFINITY;
                for (int32_t a = 0; a < kh; ++a) {
                    const int32_t yy = i * sh - pt + a;
                    if (yy < 0 || yy >= h) continue;
                    for (int32_t b = 0; b < kw; ++b) {
                        const int32_t xx = j * sw - pl + b;
                        if (xx >= 0 && xx < w && xp[yy * w + xx] > m) m = xp[yy * w + xx];
                    }
                }
                y[((size_t)p * oh + i) * ow + j] = m;
            }
        }
    }
}
"""

_AVGPOOL = r"""
static void avgpool_f32(const float *restrict x, float *restrict y, int32_t nc,
                        int32_t h, int32_t w, int32_t oh, int32_t ow, int32_t kh,
                        int32_t kw, int32_t sh, int32_t sw, int32_t pt, int32_t pl)
{
    for (int32_t p = 0; p < nc; ++p) {
        const float *xp = x + (size_t)p * h * w;
        for (int32_t i = 0; i < oh; ++i) {
            for (int32_t j = 0; j < ow; ++j) {
                float s = 0.0f;
                int32_t count = 0;
                for (int32_t a = 0; a < kh; ++a) {
                    const int32_t yy = i * sh - pt + a;
                    if (yy < 0 || yy >= h) continue;
                    for (int32_t b = 0; b < kw; ++b) {
                        const int32_t xx = j * sw - pl + b;
                        if (xx < 0 || xx >= w) continue;
                        s += xp[yy * w + xx];
                        ++count;
                    }
                }
                y[((size_t)p * oh + i) * ow + j] = s / (float)count;
            }
        }
    }
}
"""


def _pool_params(ctx):
    g = pool_geometry(ctx.inputs[0].shape, ctx.outputs[0].shape, ctx.attrs)
    g["NC"] = g["N"] * g["C"]
    return g


_POOL_ARGS = "${NC}, ${H}, ${W}, ${OH}, ${OW}, ${KH}, ${KW}, ${SH}, ${SW}, ${PT}, ${PL});"

_DENSE = r"""
/* y[r, m] = sum_k x[r, k] * w[m, k] + b[m] for m in [o_begin, o_end)  (MindSpore's
   Dense: weight is (out, in)) */
static void dense_f32(const float *restrict x, const float *restrict w,
                      const float *restrict b, float *restrict y,
                      int32_t rows, int32_t k, int32_t m, int32_t act,
                      int32_t o_begin, int32_t o_end)
{
    for (int32_t r = 0; r < rows; ++r) {
        const float *xr = x + (size_t)r * k;
        for (int32_t o = o_begin; o < o_end; ++o) {
            const float *wo = w + (size_t)o * k;
            float acc = b ? b[o] : 0.0f;
            for (int32_t i = 0; i < k; ++i) acc += xr[i] * wo[i];
            y[(size_t)r * m + o] = ms_act_f32(acc, act);
        }
    }
}
"""


def _dense_params(ctx):
    k = ctx.inputs[1].shape[-1]
    b = ctx.inputs[2] if len(ctx.inputs) > 2 else None
    return {"K": k, "M": ctx.inputs[1].shape[0], "ROWS": ctx.numel(0, "inputs") // k,
            "bias": ctx.ptr(2) if b is not None else "0", "ACT": activation_code(ctx)}


_MATMUL = r"""
/* batch of (n, k) @ (k, m), output columns [j_begin, j_end); ta/tb: the operand is
   stored transposed */
static void matmul_f32(const float *restrict a, const float *restrict b, float *restrict y,
                       int32_t batch,
                       int32_t n, int32_t k, int32_t m, int32_t ta, int32_t tb,
                       int32_t j_begin, int32_t j_end)
{
    for (int32_t s = 0; s < batch; ++s) {
        const float *as = a + (size_t)s * n * k, *bs = b + (size_t)s * k * m;
        float *ys = y + (size_t)s * n * m;
        for (int32_t i = 0; i < n; ++i) {
            for (int32_t j = j_begin; j < j_end; ++j) {
                float acc = 0.0f;
                for (int32_t p = 0; p < k; ++p)
                    acc += (ta ? as[p * n + i] : as[i * k + p]) *
                           (tb ? bs[j * k + p] : bs[p * m + j]);
                ys[i * m + j] = acc;
            }
        }
    }
}
"""


def _matmul_params(ctx):
    a, b = ctx.inputs[0].shape, ctx.inputs[1].shape
    ta, tb = bool(ctx.attrs.get("transpose_a")), bool(ctx.attrs.get("transpose_b"))
    if a[:-2] != b[:-2] and len(b) != 2:
        raise ValueError(f"MatMul (node {ctx.node.name!r}): the C kernel needs equal batch "
                         f"dimensions, got {a} and {b}")
    n, k = (a[-1], a[-2]) if ta else (a[-2], a[-1])
    m = b[-2] if tb else b[-1]
    batch = ctx.numel(0) // (n * m)
    if len(b) == 2 and batch > 1:  # (..., n, k) @ (k, m): one matrix product of rows
        n, batch = n * batch, 1
        if ta:
            raise ValueError(f"MatMul (node {ctx.node.name!r}): transpose_a with a batched "
                             f"left operand {a} and a 2-D right one is not supported in C")
    return {"BATCH": batch, "NN": n, "K": k, "M": m, "TA": int(ta), "TB": int(tb)}


_SOFTMAX = r"""
static void softmax_f32(const float *x, float *y, int32_t outer, int32_t dim, int32_t inner)
{
    for (int32_t o = 0; o < outer; ++o) {
        for (int32_t i = 0; i < inner; ++i) {
            const float *xo = x + (size_t)o * dim * inner + i;
            float *yo = y + (size_t)o * dim * inner + i;
            float m = xo[0], s = 0.0f;
            for (int32_t d = 1; d < dim; ++d) if (xo[d * inner] > m) m = xo[d * inner];
            for (int32_t d = 0; d < dim; ++d) {
                yo[d * inner] = expf(xo[d * inner] - m);
                s += yo[d * inner];
            }
            for (int32_t d = 0; d < dim; ++d) yo[d * inner] /= s;
        }
    }
}
"""


def _axis_params(ctx):
    shape = ctx.inputs[0].shape
    axis = ctx.attrs.get("axis", -1)
    if isinstance(axis, (tuple, list)):
        if len(axis) != 1:
            raise ValueError(f"{ctx.node.op} (node {ctx.node.name!r}): the C kernel takes one "
                             f"axis, got {axis}")
        axis = axis[0]
    axis %= len(shape)
    outer = 1
    for d in shape[:axis]:
        outer *= d
    inner = 1
    for d in shape[axis + 1:]:
        inner *= d
    return {"OUTER": outer, "DIM": shape[axis], "INNER": inner}


_UNARY = r"""
#define MS_UNARY_F32(NAME, EXPR) \
    static void NAME(const float *x, float *y, int32_t n) \
    { for (int32_t i = 0; i < n; ++i) { const float v = x[i]; y[i] = (EXPR); } }
"""

_BINARY = r"""
/* y = a OP b with numpy broadcasting over 4 collapsed dimensions: a stride of 0 repeats;
   a model may use only one of the two forms */
#if defined(__GNUC__)
#define MS_MAYBE_UNUSED __attribute__((unused))
#else
#define MS_MAYBE_UNUSED
#endif
#define MS_BINARY(NAME, T, EXPR) \
    MS_MAYBE_UNUSED static void NAME##_same(const T *a, const T *b, T *y, int32_t n) \
    { for (int32_t i = 0; i < n; ++i) { const T u = a[i], v = b[i]; y[i] = (EXPR); } } \
    MS_MAYBE_UNUSED static void NAME##_bcast(const T *a, const T *b, T *y, const int32_t *d, \
                             const int32_t *sa, const int32_t *sb) \
    { \
        size_t k = 0; \
        for (int32_t i0 = 0; i0 < d[0]; ++i0) \
        for (int32_t i1 = 0; i1 < d[1]; ++i1) \
        for (int32_t i2 = 0; i2 < d[2]; ++i2) \
        for (int32_t i3 = 0; i3 < d[3]; ++i3, ++k) { \
            const T u = a[i0 * sa[0] + i1 * sa[1] + i2 * sa[2] + i3 * sa[3]]; \
            const T v = b[i0 * sb[0] + i1 * sb[1] + i2 * sb[2] + i3 * sb[3]]; \
            y[k] = (EXPR); \
        } \
    }
"""


def broadcast_fields(ctx, a: int = 0, b: int = 1) -> dict:
    """``SAME`` (both inputs have the output's shape) or 4-d dims and element strides
    (0 where an input repeats), as const arrays."""
    out = ctx.outputs[0].shape
    sa, sb = ctx.inputs[a].shape, ctx.inputs[b].shape
    if sa == out and sb == out:
        return {"MODE": "same", "ARGS": str(ctx.numel(0))}
    dims = [1] * (len(out) - len(sa)) + list(sa), [1] * (len(out) - len(sb)) + list(sb)
    strides = []
    for shp in dims:
        st, acc = [0] * len(out), 1
        for i in range(len(out) - 1, -1, -1):
            st[i] = 0 if shp[i] == 1 and out[i] != 1 else acc
            acc *= shp[i]
        strides.append(st)
    # Merge a dimension into the one before it when both inputs step over it evenly
    # (contiguous, or repeated: a stride of 0 equals 0 * size).
    merged = [[out[0], strides[0][0], strides[1][0]]] if out else [[1, 0, 0]]
    for i in range(1, len(out)):
        last = merged[-1]
        if last[1] == strides[0][i] * out[i] and last[2] == strides[1][i] * out[i]:
            last[0] *= out[i]
            last[1], last[2] = strides[0][i], strides[1][i]
        else:
            merged.append([out[i], strides[0][i], strides[1][i]])
    if len(merged) > 4:
        raise ValueError(f"{ctx.node.op} (node {ctx.node.name!r}): broadcasting {sa} with {sb} "
                         f"to {out} needs {len(merged)} dimensions; the C kernel handles 4")
    merged = [[1, 0, 0]] * (4 - len(merged)) + merged
    names = [ctx.add_const(k, np.asarray([m[j] for m in merged], np.int32))
             for j, k in enumerate(("dims", "astrides", "bstrides"))]
    return {"MODE": "bcast", "ARGS": ", ".join(names)}


def _binary(fn: str, expr: str) -> CTemplate:
    return CTemplate((_BINARY, f"MS_BINARY({fn}, float, {expr})\n"),
                     f"{fn}_${{MODE}}(${{in0}}, ${{in1}}, ${{out}}, ${{ARGS}});",
                     params=broadcast_fields, inplace=True)


def _unary(fn: str, expr: str) -> CTemplate:
    return CTemplate((_UNARY, f"MS_UNARY_F32({fn}, {expr})\n"),
                     f"{fn}(${{in0}}, ${{out}}, ${{n}});", inplace=True)


def _copy_params(ctx):
    if ctx.shares_memory(0, 0):
        return {"COPY": "/* in place: the planner gave the output the input's bytes */"}
    return {"COPY": f"memmove({ctx.out_ptr(0)}, {ctx.ptr(0)}, {ctx.fields_nbytes()});"}


# Reshape-like operators move no data when the planner gave the output the input's bytes.
COPY = CTemplate("", "${COPY}", params=_copy_params, inplace=True)

_DENSE_T = CTemplate((ACT, _DENSE), "dense_f32(${in0}, ${in1}, ${bias}, ${out}, ${ROWS}, "
                                    "${K}, ${M}, ${ACT}, ${O0}, ${O1});",
                   params=_dense_params, split="M")

TEMPLATES = {
    "Conv2D": CTemplate((ACT, _CONV), _CONV_CALL, params=_conv_params, split="OC"),
    "Conv2DFusion": CTemplate((ACT, _CONV), _CONV_CALL, params=_conv_params, split="OC"),
    "MaxPool": CTemplate(_POOL, "maxpool_f32(${in0}, ${out}, " + _POOL_ARGS,
                         params=_pool_params),
    "AvgPool": CTemplate(_AVGPOOL, "avgpool_f32(${in0}, ${out}, " + _POOL_ARGS,
                         params=_pool_params),
    "Dense": _DENSE_T,
    "FullConnection": _DENSE_T,
    "MatMul": CTemplate(_MATMUL, "matmul_f32(${in0}, ${in1}, ${out}, ${BATCH}, ${NN}, ${K}, "
                                 "${M}, ${TA}, ${TB}, ${O0}, ${O1});",
                         params=_matmul_params, split="M"),
    "Softmax": CTemplate(_SOFTMAX, "softmax_f32(${in0}, ${out}, ${OUTER}, ${DIM}, ${INNER});",
                         params=_axis_params, inplace=True),
    "ReLU": _unary("relu_f32", "v > 0.0f ? v : 0.0f"),
    "ReLU6": _unary("relu6_f32", "v < 0.0f ? 0.0f : (v > 6.0f ? 6.0f : v)"),
    "Sigmoid": _unary("sigmoid_f32", "1.0f / (1.0f + expf(-v))"),
    "Tanh": _unary("tanh_f32", "tanhf(v)"),
    "Add": _binary("add_f32", "u + v"),
    "Sub": _binary("sub_f32", "u - v"),
    "Mul": _binary("mul_f32", "u * v"),
    "Div": _binary("div_f32", "u / v"),
    "Maximum": _binary("maximum_f32", "u > v ? u : v"),
    "Minimum": _binary("minimum_f32", "u < v ? u : v"),
    "Reshape": COPY,
    "Flatten": COPY,
    "ExpandDims": COPY,
    "Squeeze": COPY,
}
