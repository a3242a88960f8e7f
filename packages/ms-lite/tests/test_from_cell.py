import numpy as np
import pytest

pytest.importorskip("ms_nn")
pytest.importorskip("ms_graph")

import ms_nn as nn  # noqa: E402
from ms_lite.ir import from_cell  # noqa: E402


class _ConvBN(nn.Cell):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 4, 3, has_bias=True)
        self.bn = nn.BatchNorm2d(4)
        self.drop = nn.Dropout(p=0.5)

    def construct(self, x):
        return self.drop(self.bn(self.conv(x))) * 2


def test_from_cell_folds_parameters_into_constants_and_names_inputs():
    net = _ConvBN()
    net.set_train(True)
    g = from_cell(net, np.ones((1, 3, 8, 8), np.float32))
    assert [v.name for v in g.inputs] == ["x"]
    assert {"conv.weight", "conv.bias", "bn.moving_mean"} <= set(g.constants)
    np.testing.assert_array_equal(g.constants["conv.weight"], net.conv.weight.asnumpy())
    ops = [n.op for n in g.nodes]
    assert "Dropout" not in ops and ops[-1] == "Mul"  # captured in inference mode
    assert net.training  # and put back in training mode
    scalar = g.constants[g.nodes[-1].inputs[1]]
    assert scalar.shape == () and scalar.dtype == np.float32 and scalar == 2


def test_from_cell_keeps_static_inputs_as_attrs():
    g = from_cell(lambda x: x.reshape((3, 2)), np.ones((2, 3), np.float32))
    (node,) = g.nodes
    assert node.op == "Reshape" and node.attrs["input_shape"] == (3, 2)
    assert g.outputs[0].shape == (3, 2)
