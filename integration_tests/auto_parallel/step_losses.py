"""``Losses``: a training callback the scripts here share, keeping each step's loss."""

import numpy as np

from ms_nn.train import Callback


class Losses(Callback):
    def __init__(self):
        self.values = []

    def step_end(self, run_context):
        out = run_context.original_args().net_outputs
        out = out[0] if isinstance(out, tuple) else out  # (loss, overflow, scale)
        self.values.append(float(np.asarray(out.asnumpy())))
