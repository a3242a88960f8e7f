"""One thread policy: set_context(runtime_num_threads) sizes every kernel family and MKL."""

import os
import subprocess
import sys

import numpy as np
import pytest

from ms_ops import blas
from ms_ops.kernels import threads
from ms_tensor import get_context, reset_context, set_context

HAVE_MKL = blas.backend().startswith("mkl")


@pytest.fixture(autouse=True)
def _fresh_context():
    reset_context()
    yield
    reset_context()


def _run(code: str, **env) -> str:
    full = {k: v for k, v in os.environ.items() if k not in ("OMP_NUM_THREADS", "MS_OPS_BLAS")}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", code], env=full, capture_output=True,
                         text=True, check=True, timeout=120)
    return out.stdout.strip()


def test_runtime_num_threads_sizes_the_kernels():
    set_context(runtime_num_threads=3)
    assert threads.num_threads() == 3
    assert threads.kernel_threads() == 3  # set explicitly: memory-bound kernels follow too
    assert get_context("runtime_num_threads") == 3
    reset_context()
    assert threads.num_threads() == threads._default_threads()


@pytest.mark.skipif(not HAVE_MKL, reason="the mkl package is not installed")
def test_mkl_follows_the_setting():
    blas.backend()  # MKL loaded and set up
    get = blas._state["lib"].MKL_Get_Max_Threads
    set_context(runtime_num_threads=1)
    assert get() == 1
    set_context(runtime_num_threads=2)
    assert get() == 2


def test_omp_num_threads_is_the_default_when_exported():
    code = "from ms_ops.kernels.threads import num_threads; print(num_threads())"
    assert _run(code, OMP_NUM_THREADS="3") == "3"
    assert int(_run(code)) == len(os.sched_getaffinity(0))


def test_one_memory_bound_thread_beside_numpys_openblas():
    code = ("from ms_ops.kernels.threads import kernel_threads; import ms_tensor as mt; "
            "print(kernel_threads()); mt.set_context(runtime_num_threads=2); "
            "print(kernel_threads())")
    assert _run(code, MS_OPS_BLAS="numpy", OMP_NUM_THREADS="2").split() == ["1", "2"]


@pytest.mark.skipif(not HAVE_MKL, reason="the mkl package is not installed")
def test_mkl_is_set_up_without_touching_the_environment():
    code = ("import os; before = dict(os.environ); from ms_ops import blas; "
            "print(blas.backend().startswith('mkl'), dict(os.environ) == before, "
            "blas._state['lib'].MKL_CBWR_Get(-1))")  # MKL_CBWR_ALL: branch | strict bit
    assert _run(code).split() == ["True", "True", str(2 | 0x10000)]  # AUTO | STRICT
    assert _run(code, MKL_CBWR="AUTO").split()[2] == "2"  # the user's setting wins


def test_deterministic_on_repeats_bit_for_bit():
    from ms_ops import functional as F
    from ms_tensor import Tensor

    set_context(deterministic="ON", runtime_num_threads=2)
    rng = np.random.default_rng(0)
    x = rng.standard_normal((8, 4, 32, 32), np.float32)
    w = rng.standard_normal((8, 4, 3, 3), np.float32)
    m = rng.standard_normal((256, 300), np.float32)

    def run():  # fresh arrays each time: other addresses, other alignment
        y = F.max_pool2d(F.conv2d(Tensor(x.copy()), Tensor(w.copy())), 2, 2)
        z = F.matmul(Tensor(m.copy()), Tensor(m.T.copy()))
        return y.asnumpy().tobytes() + z.asnumpy().tobytes()

    assert run() == run()
