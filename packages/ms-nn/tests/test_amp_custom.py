"""custom_mixed_precision: the caller's white or black list of cells."""

import numpy as np
import pytest

from ms_nn import Cell, SequentialCell
from ms_nn.amp import custom_mixed_precision, get_black_list
from ms_nn.layers import BatchNorm1d, Dense, ReLU
from ms_ops import MatMul
from ms_tensor import Tensor, bfloat16, float32

pytestmark = pytest.mark.usefixtures("mode")

X = np.linspace(-1, 1, 12, dtype=np.float32).reshape(4, 3)


class Probe(Cell):
    """Records the dtype its input arrives in."""

    def __init__(self):
        super().__init__()
        self.seen = None

    def construct(self, x):
        self.seen = x.dtype
        return x


def test_white_list_runs_only_the_listed_cells_in_float16():
    dense, probe = Dense(3, 4), Probe()
    w, b = dense.weight.asnumpy(), dense.bias.asnumpy()
    out = custom_mixed_precision(SequentialCell([dense, probe]), white_list=[Dense])(Tensor(X))
    assert probe.seen == float32 and out.dtype == float32
    want = (X.astype(np.float16) @ w.astype(np.float16).T + b.astype(np.float16))
    np.testing.assert_allclose(out.asnumpy(), want.astype(np.float32), rtol=2e-3, atol=2e-3)
    assert not np.allclose(out.asnumpy(), X @ w.T + b, rtol=0, atol=1e-7)


def test_black_list_keeps_the_listed_cells_in_float32():
    probe_in, probe_bn = Probe(), Probe()
    net = SequentialCell([Dense(3, 4), probe_in, BatchNorm1d(4), ReLU()])
    out = custom_mixed_precision(net, black_list=get_black_list(), dtype=bfloat16)(Tensor(X))
    assert probe_in.seen == bfloat16 and out.dtype == float32
    net = SequentialCell([Dense(3, 4), probe_bn])
    custom_mixed_precision(net, black_list=[Probe])(Tensor(X))
    assert probe_bn.seen == float32
    assert all(p.dtype == float32 for p in net.trainable_params())


def test_bad_arguments_are_named():
    net = SequentialCell([Dense(3, 4)])
    with pytest.raises(ValueError, match="exactly one of white_list and black_list"):
        custom_mixed_precision(net)
    with pytest.raises(ValueError, match="exactly one of"):
        custom_mixed_precision(net, white_list=[Dense], black_list=[ReLU])
    with pytest.raises(ValueError, match="float16 or bfloat16"):
        custom_mixed_precision(net, white_list=[Dense], dtype=float32)
    with pytest.raises(TypeError, match="network must be a Cell"):
        custom_mixed_precision(lambda x: x, white_list=[Dense])
    with pytest.raises(TypeError, match="lists hold Cell classes"):
        custom_mixed_precision(net, white_list=[MatMul])
