"""A forward hook registered (or removed) on a sub-cell after its parent was compiled
changes what GRAPH_MODE returns, exactly as in PyNative: hooks are part of the key of a
compiled construct, so no graph captured without (or with) them is reused."""

import numpy as np
import pytest

import ms_nn as nn
from ms_tensor import GRAPH_MODE, PYNATIVE_MODE, Tensor, set_context


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc = nn.Dense(3, 2, weight_init="ones", bias_init="zeros")

    def construct(self, x):
        return self.fc(x) * 2.0


@pytest.mark.parametrize("mode", [PYNATIVE_MODE, GRAPH_MODE])
def test_hooks_added_and_removed_after_compiling(mode):
    set_context(mode=mode)
    try:
        net, x = Net(), Tensor(np.ones((1, 3), np.float32))
        np.testing.assert_array_equal(net(x).asnumpy(), [[6.0, 6.0]])
        handle = net.fc.register_forward_hook(lambda cell, inputs, out: out + 1.0)
        np.testing.assert_array_equal(net(x).asnumpy(), [[8.0, 8.0]])
        pre = net.fc.register_forward_pre_hook(lambda cell, inputs: (inputs[0] * 0.0,))
        np.testing.assert_array_equal(net(x).asnumpy(), [[2.0, 2.0]])
        pre.remove()
        handle.remove()
        np.testing.assert_array_equal(net(x).asnumpy(), [[6.0, 6.0]])
    finally:
        set_context(mode=PYNATIVE_MODE)
