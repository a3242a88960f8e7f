"""init, ranks, groups and release, without a launcher and on 3 ranks (a subprocess each:
MPI starts once per process)."""

import subprocess
import sys
from pathlib import Path

import pytest

from ms_parallel import management as m
from ms_parallel.testing import run_ranks

SCRIPT = Path(__file__).parent / "scripts" / "management.py"


def test_without_a_launcher_one_process_world():
    done = subprocess.run([sys.executable, str(SCRIPT), "plain"], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "rank 0 of 1: management ok" in done.stdout


@pytest.mark.parametrize("n", [1, 3])
def test_under_the_launcher(n):
    done = run_ranks(n, SCRIPT, "launched")
    assert done.returncode == 0, done.stdout + done.stderr
    for r in range(n):
        assert f"rank {r} of {n}: management ok" in done.stdout


def test_rank_zero_of_one_before_init():
    assert (m.get_rank(), m.get_group_size(), m.get_local_rank()) == (0, 0 + 1, 0)
    with pytest.raises(TypeError, match="group must be a str"):
        m.get_rank(3)
    with pytest.raises(ValueError, match="the world group cannot be destroyed"):
        m.destroy_group("hccl_world_group")
    with pytest.raises(ValueError, match="no group named 'nope'"):
        m.destroy_group("nope")
