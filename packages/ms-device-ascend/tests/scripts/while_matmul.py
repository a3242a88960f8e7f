"""A float64 MatMul that runs only inside a tensor-dependent ``while`` of a GRAPH_MODE
Cell (its body is captured by a sub-trace; ``microspore ascend check`` must report it at
its line inside the loop)."""

import numpy as np

from ms_nn.cell import Cell
from ms_ops import functional as ops
from ms_tensor import Parameter, Tensor, context


class Net(Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.eye(3) * 0.5), name="w")

    def construct(self, x):
        while x.sum() > 1:
            x = ops.matmul(x, self.w)
        return x


context.set_context(mode=context.GRAPH_MODE)
Net()(Tensor(np.ones((2, 3))))
