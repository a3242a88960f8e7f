"""``nn.TransformerDecoderLayer``, ``nn.TransformerEncoder``, ``nn.TransformerDecoder`` and
``nn.Transformer`` (MindSpore 2.x / PyTorch semantics and Parameter names: ``layers.<i>``
copies of the given layer, then the optional final ``norm``)."""

from __future__ import annotations

import copy

import ms_ops as ops
from ms_nn.cell import Cell
from ms_nn.containers import CellList
from ms_nn.initializer import XavierUniform, initializer
from ms_nn.layers._check import positive_int
from ms_nn.layers.basic import Dense, Dropout
from ms_nn.layers.normalization import LayerNorm
from ms_nn.layers.transformer import MultiheadAttention, TransformerEncoderLayer, _activation
from ms_tensor import dtype as mstype

__all__ = ["TransformerDecoderLayer", "TransformerEncoder", "TransformerDecoder", "Transformer"]


class TransformerDecoderLayer(Cell):
    """Self-attention, attention over ``memory``, then a feed-forward block, each with a
    residual connection and LayerNorm (after, or before with ``norm_first``).

    >>> TransformerDecoderLayer(8, 2, 16)(ops.ones((5, 3, 8)), ops.ones((4, 3, 8))).shape
    (5, 3, 8)
    """

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 dtype=mstype.float32):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                            batch_first=batch_first, dtype=dtype)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, dtype=dtype)
        self.dense1 = Dense(d_model, dim_feedforward, dtype=dtype)
        self.dropout = Dropout(p=dropout)
        self.dense2 = Dense(dim_feedforward, d_model, dtype=dtype)
        self.norm_first = bool(norm_first)
        self.norm1 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm2 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.norm3 = LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype)
        self.dropout1, self.dropout2, self.dropout3 = (Dropout(p=dropout) for _ in range(3))
        self.activation = _activation(activation)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, bool(batch_first)

    def _sa_block(self, x, mask, padding):
        return self.dropout1(self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=padding,
                                            need_weights=False)[0])

    def _mha_block(self, x, memory, mask, padding):
        return self.dropout2(self.multihead_attn(x, memory, memory, attn_mask=mask,
                                                 key_padding_mask=padding,
                                                 need_weights=False)[0])

    def _ff_block(self, x):
        return self.dropout3(self.dense2(self.dropout(self.activation(self.dense1(x)))))

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        x = tgt
        if self.norm_first:
            x = ops.add(x, self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask))
            x = ops.add(x, self._mha_block(self.norm2(x), memory, memory_mask,
                                           memory_key_padding_mask))
            return ops.add(x, self._ff_block(self.norm3(x)))
        x = self.norm1(ops.add(x, self._sa_block(x, tgt_mask, tgt_key_padding_mask)))
        x = self.norm2(ops.add(x, self._mha_block(x, memory, memory_mask,
                                                  memory_key_padding_mask)))
        return self.norm3(ops.add(x, self._ff_block(x)))


class _Stack(Cell):
    def __init__(self, layer, num_layers, norm=None):
        super().__init__()
        positive_int(type(self).__name__, "num_layers", num_layers)
        self.layers = CellList([copy.deepcopy(layer) for _ in range(num_layers)])
        self.num_layers = num_layers
        self.norm = norm


class TransformerEncoder(_Stack):
    """``num_layers`` copies of ``encoder_layer`` applied in turn, then ``norm``.

    >>> TransformerEncoder(TransformerEncoderLayer(8, 2, 16), 2)(ops.ones((5, 3, 8))).shape
    (5, 3, 8)
    """

    def __init__(self, encoder_layer, num_layers, norm=None):
        super().__init__(encoder_layer, num_layers, norm)

    def construct(self, src, src_mask=None, src_key_padding_mask=None):
        out = src
        for layer in self.layers:
            out = layer(out, src_mask, src_key_padding_mask)
        return out if self.norm is None else self.norm(out)


class TransformerDecoder(_Stack):
    """``num_layers`` copies of ``decoder_layer`` applied in turn over ``memory``, then
    ``norm``.

    >>> layer = TransformerDecoderLayer(8, 2, 16)
    >>> TransformerDecoder(layer, 2)(ops.ones((5, 3, 8)), ops.ones((4, 3, 8))).shape
    (5, 3, 8)
    """

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__(decoder_layer, num_layers, norm)

    def construct(self, tgt, memory, tgt_mask=None, memory_mask=None,
                  tgt_key_padding_mask=None, memory_key_padding_mask=None):
        out = tgt
        for layer in self.layers:
            out = layer(out, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                        memory_key_padding_mask)
        return out if self.norm is None else self.norm(out)


class Transformer(Cell):
    """Encoder-decoder Transformer (Vaswani et al.); every weight of 2 or more axes starts
    Xavier-uniform, as in MindSpore.

    >>> Transformer(8, 2, 1, 1, 16)(ops.ones((5, 3, 8)), ops.ones((4, 3, 8))).shape
    (4, 3, 8)
    """

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False,
                 norm_first=False, dtype=mstype.float32):
        super().__init__()
        args = (d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                batch_first, norm_first)
        self.encoder = custom_encoder or TransformerEncoder(
            TransformerEncoderLayer(*args, dtype=dtype), num_encoder_layers,
            LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        self.decoder = custom_decoder or TransformerDecoder(
            TransformerDecoderLayer(*args, dtype=dtype), num_decoder_layers,
            LayerNorm((d_model,), epsilon=layer_norm_eps, dtype=dtype))
        for _, p in self.parameters_and_names():
            if p.ndim > 1:
                p.set_data(initializer(XavierUniform(), p.shape, p.dtype))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, bool(batch_first)

    def construct(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                  src_key_padding_mask=None, tgt_key_padding_mask=None,
                  memory_key_padding_mask=None):
        axis = 0 if self.batch_first else 1
        if src.ndim == 3 and src.shape[axis] != tgt.shape[axis]:
            raise ValueError(f"Transformer: src shape {tuple(src.shape)} and tgt shape "
                             f"{tuple(tgt.shape)} must have the same batch size")
        if src.shape[-1] != self.d_model or tgt.shape[-1] != self.d_model:
            raise ValueError(f"Transformer: src and tgt must end in d_model={self.d_model}, "
                             f"got {tuple(src.shape)} and {tuple(tgt.shape)}")
        memory = self.encoder(src, src_mask, src_key_padding_mask)
        return self.decoder(tgt, memory, tgt_mask, memory_mask, tgt_key_padding_mask,
                            memory_key_padding_mask)
