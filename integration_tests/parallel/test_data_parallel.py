"""Data parallel through the launcher: the same script with 1, 2 and 4 ranks gives the
single-process run's loss at every step (a fixed global batch split over the ranks) and
all ranks end with identical parameters (train_dp.py asserts that, bit for bit)."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ms_parallel.testing import run_ranks

SCRIPT = Path(__file__).parent / "train_dp.py"


def _single(tmp_path_factory, model):
    out = tmp_path_factory.mktemp(f"single_{model}") / "params.npz"
    done = subprocess.run([sys.executable, str(SCRIPT), "--model", model, "--out", str(out)],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return np.load(out)


@pytest.fixture(scope="module")
def single(tmp_path_factory):
    """The single-process runs (no launcher, no MPI): the reference."""
    return {m: _single(tmp_path_factory, m) for m in ("mlp", "lenet")}


@pytest.mark.parametrize("model, n, extra", [
    ("mlp", 1, []),
    ("mlp", 2, []),
    ("mlp", 4, []),
    ("mlp", 2, ["--graph"]),
    ("lenet", 2, ["--model_train"]),
    ("lenet", 4, ["--model_train", "--sampler"]),
])
def test_ranks_reproduce_the_single_process_run(single, tmp_path, model, n, extra):
    out = tmp_path / "params.npz"
    done = run_ranks(n, SCRIPT, "--model", model, "--out", out, *extra, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    got, want = np.load(out), single[model]
    np.testing.assert_allclose(got["losses"], want["losses"], rtol=1e-5,
                               err_msg="per-step losses differ from the single-process run")
    assert set(got.files) == set(want.files)
    for name in want.files:
        np.testing.assert_allclose(got[name], want[name], rtol=1e-4, atol=1e-6, err_msg=name)
    ckpts = sorted(p.name for p in tmp_path.glob("*.ckpt"))
    assert len(ckpts) == n and all(f"rank_{r}" in c for r, c in zip(range(n), ckpts)), ckpts
