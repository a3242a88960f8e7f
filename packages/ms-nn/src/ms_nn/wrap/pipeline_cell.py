"""``nn.PipelineCell(network, micro_size)``: a batch as ``micro_size`` micro-batches.

In one process it is MindSpore's: each input is cut along its first dimension into
``micro_size`` equal parts, ``network`` (usually a ``WithLossCell``) runs on each, and the
outputs are summed. Under ``set_auto_parallel_context(pipeline_stages=S)`` a package above
ms-nn (ms-parallel) trains it as a pipeline: the cells of the network's ``SequentialCell``
marked ``cell.pipeline_stage = s`` run on rank ``s``, with the same sum.
"""

from __future__ import annotations

from ms_nn.cell import Cell
from ms_tensor import Tensor

__all__ = ["PipelineCell"]


class PipelineCell(Cell):
    """Args:
        network: the Cell to run per micro-batch (a network with its loss).
        micro_size: how many micro-batches a batch is cut into.
        stage_config: ``{cell name: stage}``, setting ``pipeline_stage`` on those cells.
        segment_config: MindSpore's virtual-pipeline segments; only None is accepted.
    """

    def __init__(self, network, micro_size: int, stage_config=None, segment_config=None):
        super().__init__(auto_prefix=False)
        if not isinstance(micro_size, int) or isinstance(micro_size, bool) or micro_size < 1:
            raise ValueError(f"PipelineCell: micro_size must be a positive int, got "
                             f"{micro_size!r}")
        if segment_config is not None:
            raise ValueError("PipelineCell: segment_config (virtual pipeline segments) is not "
                             "supported; pass None")
        self.network = network
        self.micro_size = micro_size
        if stage_config:
            cells = dict(network.cells_and_names())
            for name, stage in stage_config.items():
                if name not in cells:
                    raise KeyError(f"PipelineCell: stage_config names {name!r}, which is not "
                                   f"a cell of the network")
                cells[name].pipeline_stage = int(stage)

    def construct(self, *inputs):
        ret = None
        for i in range(self.micro_size):
            output = self.network(*(self._micro(x, i) for x in inputs))
            ret = output if ret is None else ret + output
        return ret

    def _micro(self, x, i):
        if not isinstance(x, Tensor) or not x.shape:
            return x
        if x.shape[0] % self.micro_size:
            raise ValueError(f"PipelineCell: an input of shape {x.shape} cannot be cut into "
                             f"micro_size={self.micro_size} equal micro-batches")
        rows = x.shape[0] // self.micro_size
        return x[i * rows:(i + 1) * rows]
