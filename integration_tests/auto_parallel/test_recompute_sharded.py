"""``Cell.recompute()`` in sharded runs on 2 ranks: a ShardedNet whose marked Cell's
operators are one recomputed region, and a pipeline stage sharded over both ranks with one
marked cell, each equal to one process without the mark (``train_recompute.py``)."""

import pathlib

import pytest

pytest.importorskip("mpi4py")
from ms_parallel.testing import run_ranks  # noqa: E402

SCRIPT = pathlib.Path(__file__).with_name("train_recompute.py")


@pytest.mark.parametrize("case", ["sharded", "pipeline"])
def test_recompute_on_two_ranks_equals_one_process(case):
    proc = run_ranks(2, SCRIPT, case, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sum(f"rank {r} ok" in proc.stdout for r in range(2)) == 2, proc.stdout
