"""The thread count of the memory-bound kernels follows the BLAS in use."""

import os
import subprocess
import sys

import pytest

CODE = "from ms_ops.kernels.threads import kernel_threads; print(kernel_threads())"


def _threads(**env) -> int:
    full = {k: v for k, v in os.environ.items() if k != "MS_OPS_NUM_THREADS"}
    full.update(env)
    out = subprocess.run([sys.executable, "-c", CODE], env=full, capture_output=True,
                         text=True, check=True)
    return int(out.stdout)


def test_the_user_setting_wins():
    assert _threads(MS_OPS_NUM_THREADS="3") == 3


def test_one_thread_beside_numpys_openblas():
    assert _threads(MS_OPS_BLAS="numpy") == 1


def test_every_openmp_thread_when_mkl_shares_the_team():
    from ms_ops import blas

    if not blas.backend().startswith("mkl"):
        pytest.skip("the mkl package is not installed")
    assert _threads(OMP_NUM_THREADS="2") == 2
