"""The compiled data-parallel step with its bucket reductions overlapping the backward
pass (AllReduceStart/AllReduceWait moved by the schedule pass) equals, at every step on
2 and 4 ranks, the same step in PyNative, compiled without overlap, and one process on the
whole batch (overlap_step.py asserts each; it prints ``ok K`` per step)."""

from pathlib import Path

import pytest

from ms_parallel.testing import run_ranks

SCRIPT = Path(__file__).parent / "overlap_step.py"


@pytest.mark.parametrize("n", [2, 4])
def test_overlapped_compiled_step_equals_pynative_and_one_process(n):
    done = run_ranks(n, SCRIPT, "--steps", 4, timeout=240)
    assert done.returncode == 0, done.stdout + done.stderr
    assert [line for line in done.stdout.splitlines() if line.startswith("ok ")] == \
        [f"ok {k}" for k in range(4)], done.stdout
