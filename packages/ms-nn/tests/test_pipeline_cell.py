"""nn.PipelineCell in one process: MindSpore's sum of the micro-batches' outputs."""

import numpy as np
import pytest

from ms_nn import Cell, PipelineCell, SequentialCell, WithLossCell
from ms_nn.loss import MSELoss
from ms_ops import MatMul
from ms_tensor import Parameter, Tensor


class Linear(Cell):
    def __init__(self):
        super().__init__()
        self.w = Parameter(Tensor(np.linspace(-1, 1, 8).reshape(4, 2)), name="w")
        self.mm = MatMul()

    def construct(self, x):
        return self.mm(x, self.w)


def test_the_output_is_the_sum_over_micro_batches():
    net = WithLossCell(Linear(), MSELoss())
    x, y = Tensor(np.arange(24.0).reshape(6, 4) / 10), Tensor(np.ones((6, 2)))
    whole = PipelineCell(net, 3)(x, y).asnumpy()
    parts = sum(net(x[2 * i:2 * i + 2], y[2 * i:2 * i + 2]).asnumpy() for i in range(3))
    np.testing.assert_allclose(whole, parts, rtol=1e-12)
    assert not np.isclose(whole, net(x, y).asnumpy())  # a sum, not the whole batch's mean


def test_stage_config_marks_cells_and_bad_arguments_are_refused():
    seq = SequentialCell([Linear()])
    PipelineCell(WithLossCell(seq, MSELoss()), 2, stage_config={"_backbone.0": 1})
    assert seq[0].pipeline_stage == 1
    net = WithLossCell(Linear(), MSELoss())
    with pytest.raises(ValueError, match="cannot be cut into micro_size=4"):
        PipelineCell(net, 4)(Tensor(np.ones((6, 4))), Tensor(np.ones((6, 2))))
    with pytest.raises(KeyError, match="'nope'"):
        PipelineCell(net, 2, stage_config={"nope": 1})
    with pytest.raises(ValueError, match="micro_size must be a positive int"):
        PipelineCell(net, 0)
