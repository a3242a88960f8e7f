"""MultiheadAttention and TransformerEncoderLayer (MindSpore 2.x / PyTorch semantics)."""

from __future__ import annotations

import math

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.initializer import HeUniform, Uniform, XavierNormal, XavierUniform, initializer
from ms_nn.layers._check import positive_int
from ms_nn.layers.activation import GELU, ReLU
from ms_nn.layers.basic import Dense, Dropout
from ms_nn.layers.normalization import LayerNorm
from ms_tensor import Parameter, Tensor
from ms_tensor import dtype as mstype

__all__ = ["MultiheadAttention", "TransformerEncoderLayer"]


def _float_mask(mask, like, name, layer):
    """A bool mask (True = not attended) as 0 / -inf in ``like``'s dtype; a float mask as is."""
    if mask.dtype == mstype.bool_:
        return ops.where(mask, Tensor(float("-inf"), like.dtype), Tensor(0.0, like.dtype))
    if mask.dtype not in (mstype.float16, mstype.float32, mstype.float64, mstype.bfloat16):
        raise TypeError(f"{layer}: {name} must be bool or float, got {mask.dtype}")
    return ops.cast(mask, like.dtype)


class MultiheadAttention(Cell):
    """Attention of ``num_heads`` heads over ``embed_dim / num_heads`` features each.

    Inputs are (L, N, E) (or (N, L, E) with ``batch_first``, or unbatched (L, E)).
    ``key_padding_mask`` (N, S) and ``attn_mask`` (L, S) or (N * num_heads, L, S) are bool
    (True: not attended) or float (added to the scores). Returns ``(output, weights)``,
    weights averaged over heads unless ``average_attn_weights=False``; with
    ``need_weights=False`` a 1-tuple ``(output,)``, as MindSpore returns.

    >>> q = ops.ones((5, 3, 8))
    >>> out, w = MultiheadAttention(8, 2)(q, q, q)
    >>> out.shape, w.shape
    ((5, 3, 8), (3, 5, 5))
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, has_bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False,
                 dtype=mstype.float32):
        super().__init__()
        layer = "MultiheadAttention"
        self.embed_dim = positive_int(layer, "embed_dim", embed_dim)
        self.num_heads = positive_int(layer, "num_heads", num_heads)
        if embed_dim % num_heads:
            raise ValueError(f"{layer}: embed_dim {embed_dim} must be divisible by num_heads "
                             f"{num_heads}")
        if not isinstance(dropout, (int, float)) or not 0 <= dropout < 1:
            raise ValueError(f"{layer}: dropout must be a number in [0, 1), got {dropout!r}")
        self.head_dim = embed_dim // num_heads
        self.kdim = embed_dim if kdim is None else positive_int(layer, "kdim", kdim)
        self.vdim = embed_dim if vdim is None else positive_int(layer, "vdim", vdim)
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.dropout = float(dropout)
        self.batch_first = bool(batch_first)
        self.add_zero_attn = bool(add_zero_attn)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(
                initializer(XavierUniform(), (3 * embed_dim, embed_dim), dtype),
                name="in_proj_weight")
        else:
            self.q_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, embed_dim), dtype), name="q_proj_weight")
            self.k_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, self.kdim), dtype), name="k_proj_weight")
            self.v_proj_weight = Parameter(
                initializer(XavierUniform(), (embed_dim, self.vdim), dtype), name="v_proj_weight")
        self.has_bias = bool(has_bias)
        if self.has_bias:
            self.in_proj_bias = Parameter(initializer("zeros", (3 * embed_dim,), dtype),
                                          name="in_proj_bias")
        self.out_proj = Dense(embed_dim, embed_dim, weight_init=HeUniform(math.sqrt(5)),
                              bias_init=Uniform(1 / math.sqrt(embed_dim)), has_bias=has_bias,
                              dtype=dtype)
        self.add_bias_kv = bool(add_bias_kv)
        if self.add_bias_kv:
            self.bias_k = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype),
                                    name="bias_k")
            self.bias_v = Parameter(initializer(XavierNormal(), (1, 1, embed_dim), dtype),
                                    name="bias_v")

    def _project(self, x, index, weight):
        """Rows ``index`` of the packed projection (q, k or v) applied to ``x`` (S, N, d)."""
        e = self.embed_dim
        if weight is None:
            weight = self.in_proj_weight[index * e:(index + 1) * e]
        s, n, d = x.shape
        y = ops.matmul(ops.reshape(x, (s * n, d)), ops.transpose(weight, (1, 0)))
        if self.has_bias:
            y = ops.add(y, self.in_proj_bias[index * e:(index + 1) * e])
        return ops.reshape(y, (s, n, e))

    def _heads(self, x):
        """(S, N, E) -> (N * heads, S, head_dim)."""
        s, n, _ = x.shape
        return ops.transpose(ops.reshape(x, (s, n * self.num_heads, self.head_dim)), (1, 0, 2))

    def _check(self, query, key, value):
        layer = "MultiheadAttention"
        if query.ndim not in (2, 3) or key.ndim != query.ndim or value.ndim != query.ndim:
            raise ValueError(f"{layer}: query, key and value must all be 3-d (or all 2-d, "
                             f"unbatched), got shapes {tuple(query.shape)}, "
                             f"{tuple(key.shape)}, {tuple(value.shape)}")
        dims = (self.embed_dim, self.kdim, self.vdim)
        if (query.shape[-1], key.shape[-1], value.shape[-1]) != dims:
            raise ValueError(f"{layer}: the last dimensions of query {tuple(query.shape)}, key "
                             f"{tuple(key.shape)} and value {tuple(value.shape)} must be "
                             f"embed_dim, kdim, vdim = {dims}")
        if key.shape[:-1] != value.shape[:-1]:
            raise ValueError(f"{layer}: key shape {tuple(key.shape)} and value shape "
                             f"{tuple(value.shape)} must agree except in the last dimension")

    def construct(self, query, key, value, key_padding_mask=None, need_weights=True,
                  attn_mask=None, average_attn_weights=True):
        layer = "MultiheadAttention"
        self._check(query, key, value)
        batched = query.ndim == 3
        if not batched:
            query, key, value = (ops.expand_dims(t, 1) for t in (query, key, value))
            if key_padding_mask is not None:
                key_padding_mask = ops.expand_dims(key_padding_mask, 0)
        elif self.batch_first:
            query, key, value = (ops.transpose(t, (1, 0, 2)) for t in (query, key, value))
        tgt, n, e = query.shape
        q = self._project(query, 0, None if self._qkv_same_embed_dim else self.q_proj_weight)
        k = self._project(key, 1, None if self._qkv_same_embed_dim else self.k_proj_weight)
        v = self._project(value, 2, None if self._qkv_same_embed_dim else self.v_proj_weight)
        if attn_mask is not None:
            attn_mask = _float_mask(attn_mask, q, "attn_mask", layer)
            if attn_mask.ndim == 2:
                attn_mask = ops.expand_dims(attn_mask, 0)
        if key_padding_mask is not None:
            key_padding_mask = _float_mask(key_padding_mask, q, "key_padding_mask", layer)
        if self.add_bias_kv:
            k = ops.concat([k, ops.tile(self.bias_k, (1, n, 1))], 0)
            v = ops.concat([v, ops.tile(self.bias_v, (1, n, 1))], 0)
            attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
        q, k, v = self._heads(q), self._heads(k), self._heads(v)
        if self.add_zero_attn:
            zeros = ops.zeros((k.shape[0], 1, self.head_dim), k.dtype)
            k, v = ops.concat([k, zeros], 1), ops.concat([v, zeros], 1)
            attn_mask, key_padding_mask = _pad_masks(attn_mask, key_padding_mask)
        src = k.shape[1]
        if key_padding_mask is not None and tuple(key_padding_mask.shape) != (n, src):
            raise ValueError(f"{layer}: key_padding_mask shape {tuple(key_padding_mask.shape)} "
                             f"must be (batch, source length) = {(n, src)}")
        scores = ops.bmm(ops.mul(q, 1.0 / math.sqrt(self.head_dim)), ops.transpose(k, (0, 2, 1)))
        if attn_mask is not None:
            heads = n * self.num_heads
            if attn_mask.shape[1:] != (tgt, src) or attn_mask.shape[0] not in (1, heads):
                raise ValueError(f"{layer}: attn_mask shape {tuple(attn_mask.shape)} must be "
                                 f"{(tgt, src)} or {(n * self.num_heads, tgt, src)}")
            scores = ops.add(scores, attn_mask)
        if key_padding_mask is not None:
            scores = ops.reshape(scores, (n, self.num_heads, tgt, src))
            scores = ops.add(scores, ops.reshape(key_padding_mask, (n, 1, 1, src)))
            scores = ops.reshape(scores, (n * self.num_heads, tgt, src))
        weights = ops.softmax(scores, -1)
        attended = weights
        if self.training and self.dropout > 0:
            attended = ops.dropout(weights, p=self.dropout)
        out = ops.bmm(attended, v)  # (N * heads, L, head_dim)
        out = ops.reshape(ops.transpose(out, (1, 0, 2)), (tgt * n, e))
        out = ops.reshape(self.out_proj(out), (tgt, n, e))
        if not batched:
            out = ops.squeeze(out, 1)
        elif self.batch_first:
            out = ops.transpose(out, (1, 0, 2))
        if not need_weights:
            return (out,)
        weights = ops.reshape(weights, (n, self.num_heads, tgt, src))
        if average_attn_weights:
            weights = ops.mean(weights, 1)
        if not batched:
            weights = ops.squeeze(weights, 0)
        return out, weights


def _pad_masks(attn_mask, key_padding_mask):
    """One more (attended) key column in each mask, for an appended key."""
    if attn_mask is not None:
        attn_mask = ops.pad(attn_mask, (0, 1))
    if key_padding_mask is not None:
        key_padding_mask = ops.pad(key_padding_mask, (0, 1))
    return attn_mask, key_padding_mask


def _activation(activation):
    if isinstance(activation, str):
        if activation == "relu":
            return ReLU()
        if activation == "gelu":
            return GELU(approximate=False)
        raise ValueError(f"TransformerEncoderLayer: activation must be 'relu' or 'gelu', got "
                         f"{activation!r}")
    if not callable(activation):
        raise ValueError(f"TransformerEncoderLayer: activation must be a str, a Cell or a "
                         f"callable, got {activation!r}")
    return activation


class TransformerEncoderLayer(Cell):
    """Self-attention then a feed-forward block (``dense1``, activation, ``dense2``), each
    with a residual connection and LayerNorm: after the block (default) or before it
    (``norm_first=True``). Dropout applies only in training.

    >>> TransformerEncoderLayer(8, 2, 16)(ops.ones((5, 3, 8))).shape
    (5, 3, 8)
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=mstype.float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm_first = bool(norm_first)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1 = Dropout(p=dropout)
        self.dropout2 = Dropout(p=dropout)
        self.activation = _activation(activation)
        self.d_model, self.nhead, self.dim_feedforward = d_model, nhead, dim_feedforward
        self.batch_first = bool(batch_first)

    def _sa_block(self, x, attn_mask, key_padding_mask):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        return self.dropout2(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        x = src
        if self.norm_first:
            x = ops.add(x, self._sa_block(self.norm1(x), src_mask, src_key_padding_mask))
            return ops.add(x, self._ff_block(self.norm2(x)))
        x = self.norm1(ops.add(x, self._sa_block(x, src_mask, src_key_padding_mask)))
        return self.norm2(ops.add(x, self._ff_block(x)))
