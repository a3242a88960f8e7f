"""Operator graphs of common models, described by shapes only (no weights, nothing runs).

They let the searches be tested and benchmarked at sizes no test machine could trace: an
MLP, a stack of transformer layers (attention with heads, then the feed-forward block) and a
wide feed-forward model. Each ends in a mean, the scalar a training step differentiates.
"""

from __future__ import annotations

from ms_parallel.auto.graph import OpGraph

__all__ = ["mlp", "transformer", "wide_ffn"]


def _linear(g, x, shape_in, n_out, name, bias=True):
    rows, n_in = shape_in
    y = g.add("MatMul", [x, ("param", f"{name}.weight")], [shape_in, (n_in, n_out)],
              [(rows, n_out)])
    if bias:
        y = g.add("Add", [("op", y, 0), ("param", f"{name}.bias")], [(rows, n_out), (n_out,)],
                  [(rows, n_out)])
    return ("op", y, 0)


def _mean(g, x, shape):
    k = g.add("ReduceMean", [x, None], [shape, None], [()], attrs={"keep_dims": False},
              args=(None, ()))
    g.outputs.append((k, 0))
    return g


def mlp(batch: int, sizes=(784, 512, 512, 10)) -> OpGraph:
    """Dense -> ReLU layers, then softmax cross-entropy against one-hot labels, mean."""
    g = OpGraph()
    x = ("input", 0)
    for i, (a, b) in enumerate(zip(sizes, sizes[1:])):
        x = _linear(g, x, (batch, a), b, f"fc{i}")
        if i < len(sizes) - 2:
            x = ("op", g.add("ReLU", [x], [(batch, b)], [(batch, b)]), 0)
    n = sizes[-1]
    loss = g.add("SoftmaxCrossEntropyWithLogits", [x, ("input", 1)], [(batch, n), (batch, n)],
                 [(batch,), (batch, n)])
    return _mean(g, ("op", loss, 0), (batch,))


def _layer_norm(g, x, shape, name):
    k = g.add("LayerNorm", [x, ("param", f"{name}.gamma"), ("param", f"{name}.beta")],
              [shape, shape[-1:], shape[-1:]], [shape, shape[:-1] + (1,), shape[:-1] + (1,)],
              attrs={"begin_norm_axis": -1, "begin_params_axis": -1})
    return ("op", k, 0)


def _reshape(g, x, src, dst):
    return ("op", g.add("Reshape", [x, None], [src, None], [dst], args=(None, dst)), 0)


def _transpose(g, x, src, perm):
    dst = tuple(src[p] for p in perm)
    return ("op", g.add("Transpose", [x, None], [src, None], [dst], args=(None, perm)), 0), dst


def _attention(g, x, b, s, h, heads, name):
    d = h // heads
    rows = (b * s, h)
    q, k, v = (_linear(g, x, rows, h, f"{name}.{w}") for w in "qkv")
    q, qs = _transpose(g, _reshape(g, q, rows, (b, s, heads, d)), (b, s, heads, d), (0, 2, 1, 3))
    k, ks = _transpose(g, _reshape(g, k, rows, (b, s, heads, d)), (b, s, heads, d), (0, 2, 3, 1))
    v, vs = _transpose(g, _reshape(g, v, rows, (b, s, heads, d)), (b, s, heads, d), (0, 2, 1, 3))
    scores = g.add("BatchMatMul", [q, k], [qs, ks], [(b, heads, s, s)])
    probs = g.add("Softmax", [("op", scores, 0)], [(b, heads, s, s)], [(b, heads, s, s)],
                  attrs={"axis": -1})
    ctx = g.add("BatchMatMul", [("op", probs, 0), v], [(b, heads, s, s), vs], [(b, heads, s, d)])
    ctx, cs = _transpose(g, ("op", ctx, 0), (b, heads, s, d), (0, 2, 1, 3))
    ctx = _reshape(g, ctx, cs, rows)
    return _linear(g, ctx, rows, h, f"{name}.proj")


def _add(g, a, b, shape):
    return ("op", g.add("Add", [a, b], [shape, shape], [shape]), 0)


def transformer(batch: int, seq: int, hidden: int, heads: int, layers: int = 1,
                ffn: int | None = None) -> OpGraph:
    """Pre-norm transformer layers on ``(batch * seq, hidden)`` rows."""
    ffn = ffn or 4 * hidden
    g = OpGraph()
    rows = (batch * seq, hidden)
    x = ("input", 0)
    for i in range(layers):
        name = f"layer{i}"
        a = _attention(g, _layer_norm(g, x, rows, f"{name}.ln1"), batch, seq, hidden, heads, name)
        x = _add(g, x, a, rows)
        f = _linear(g, _layer_norm(g, x, rows, f"{name}.ln2"), rows, ffn, f"{name}.ffn1")
        f = ("op", g.add("GeLU", [f], [(rows[0], ffn)], [(rows[0], ffn)]), 0)
        x = _add(g, x, _linear(g, f, (rows[0], ffn), hidden, f"{name}.ffn2"), rows)
    return _mean(g, x, rows)


def wide_ffn(batch: int, hidden: int, width: int) -> OpGraph:
    """One very wide feed-forward block: MatMul to ``width``, GeLU, MatMul back."""
    g = OpGraph()
    f = _linear(g, ("input", 0), (batch, hidden), width, "up", bias=False)
    f = ("op", g.add("GeLU", [f], [(batch, width)], [(batch, width)]), 0)
    return _mean(g, _linear(g, f, (batch, width), hidden, "down", bias=False), (batch, hidden))
