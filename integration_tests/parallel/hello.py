"""The smallest distributed script: init, one AllReduce, a line per rank."""

import numpy as np

import microspore as ms
from microspore.communication import get_group_size, get_rank, init

init()
total = ms.ops.AllReduce()(ms.Tensor(np.array([get_rank() + 1.0], np.float32)))
print(f"rank {get_rank()} of {get_group_size()}: sum {total.asnumpy()[0]:g}", flush=True)
