"""DistributedGradReducer on 2 ranks (scripts/grad_reducer.py), and in one process."""

from pathlib import Path

import numpy as np

from ms_parallel.grad_reducer import DistributedGradReducer
from ms_parallel.testing import run_ranks
from ms_tensor import Parameter, Tensor


def test_on_two_ranks():
    done = run_ranks(2, Path(__file__).parent / "scripts" / "grad_reducer.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 1 of 2: reducer ok" in done.stdout
    assert "rank 1 of 2: overlap ok" in done.stdout
    assert "rank 1 of 2: order ok" in done.stdout


def test_one_rank_leaves_gradients_alone():
    p = Parameter(Tensor(np.zeros(3, np.float32)), name="p")
    g = (Tensor(np.arange(3, dtype=np.float32)),)
    out = DistributedGradReducer([p], mean=True)(g)
    assert out[0] is g[0]
    halved = DistributedGradReducer([p], mean=True, degree=2)(g)
    np.testing.assert_allclose(halved[0].asnumpy(), [0.0, 0.5, 1.0])
