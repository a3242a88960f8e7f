"""A training loop that fails on purpose, run by test_failures.py through the launcher.

usage: failing.py raise RANK | wait RANK | late RANK
  raise: RANK raises ValueError at step 3 while the others wait in an allreduce;
  wait:  every rank trains until killed from outside (the test kills RANK);
  late:  RANK sleeps before init(), so it never arrives within the launcher's timeout.
Each rank prints ``rank R pid P`` first.
"""

import os
import sys
import time

import numpy as np

import microspore as ms
import microspore.nn as nn
from microspore.communication import get_rank, init

how, who = sys.argv[1], int(sys.argv[2])
print(f"rank {os.environ.get('PMI_RANK')} pid {os.getpid()}", flush=True)
if how == "late" and int(os.environ["PMI_RANK"]) == who:
    time.sleep(600)
init()
ms.context.set_auto_parallel_context(parallel_mode=ms.context.ParallelMode.DATA_PARALLEL,
                                     gradients_mean=True)
net = nn.Dense(8, 2)
step = nn.TrainOneStepCell(nn.WithLossCell(net, nn.MSELoss()), nn.SGD(net.trainable_params()))
x, y = ms.Tensor(np.ones((4, 8), np.float32)), ms.Tensor(np.zeros((4, 2), np.float32))
for k in range(1_000_000):
    if how == "raise" and k == 3 and get_rank() == who:
        raise ValueError(f"bad batch at step {k}")
    step(x, y)
    if k == 2:
        print(f"rank {get_rank()} training", flush=True)
