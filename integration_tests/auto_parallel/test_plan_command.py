"""``microspore parallel plan``: the meta-package's CLI finds the command ms-parallel
registers, traces the script's network and prints the plan."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow  # starts a process

SCRIPT = """
import numpy as np
from ms_nn import Cell
from ms_ops import MatMul, ReduceMean, ReLU
from ms_tensor import Parameter, Tensor


class Net(Cell):
    def __init__(self):
        super().__init__()
        rng = np.random.default_rng(0)
        self.w1 = Parameter(Tensor(rng.standard_normal((16, 32)).astype(np.float32)), name="w1")
        self.w2 = Parameter(Tensor(rng.standard_normal((32, 8)).astype(np.float32)), name="w2")
        self.mm1 = MatMul().shard(((2, 1), (1, 2)))
        self.relu = ReLU()
        self.mm2 = MatMul()
        self.mean = ReduceMean()

    def construct(self, x):
        return self.mean(self.mm2(self.relu(self.mm1(x, self.w1)), self.w2))


net = Net()
inputs = (Tensor(np.ones((64, 16), np.float32)),)
"""


def test_microspore_parallel_plan_command(tmp_path):
    script = tmp_path / "train.py"
    script.write_text(SCRIPT)
    proc = subprocess.run([sys.executable, "-m", "microspore", "parallel", "plan", str(script),
                           "--devices", "4", "--search-mode", "dynamic_programming"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "MatMul-0" in proc.stdout and "[[2,1],[1,2]]" not in proc.stdout
    assert "((2,1),(1,2))" in proc.stdout
