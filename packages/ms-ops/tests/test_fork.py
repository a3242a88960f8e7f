"""A forked child of a process that ran the OpenMP kernels (and MKL) runs them too."""

import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="fork and libgomp: Linux")

_SCRIPT = """
import os, sys
import numpy as np
import ms_tensor as mt
from ms_ops import functional as F
from ms_ops.kernels import threads

mt.set_context(runtime_num_threads=2)  # a real team even on a one-CPU machine
if {disable_release}:  # as where libgomp has no omp_pause_resource_all (before GCC 9)
    threads.openmp_runtime = lambda: object()

def work():
    x = mt.Tensor(np.random.default_rng(0).standard_normal((16, 8, 64, 64), np.float32))
    w = mt.Tensor(np.ones((16, 8, 3, 3), np.float32))
    y = F.conv2d(x, w)
    y = F.max_pool2d(y, 2, 2)
    m = mt.Tensor(np.ones((512, 1024), np.float32))
    z = F.matmul(m, m.T)
    return float(y.asnumpy().sum()) + float(z.asnumpy()[0, 0])

expected = work()
pid = os.fork()
if pid == 0:
    try:
        ok = abs(work() - expected) <= 1e-3 * abs(expected)
        print("child threads", threads.num_threads(), flush=True)
        os._exit(0 if ok else 3)
    except BaseException:
        os._exit(4)
_, status = os.waitpid(pid, 0)
assert work() == expected  # and the parent goes on with a fresh pool
sys.exit(os.waitstatus_to_exitcode(status))
"""


def _fork(disable_release: bool) -> str:
    out = subprocess.run([sys.executable, "-c", _SCRIPT.format(disable_release=disable_release)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


def test_forked_child_runs_the_kernels_with_a_fresh_pool():
    assert "child threads 2" in _fork(disable_release=False)


def test_forked_child_falls_back_to_one_thread():
    assert "child threads 1" in _fork(disable_release=True)
