"""``reshard`` on 2 and 4 ranks through the launcher: a network with reshard between two
MatMuls trains to the single-process losses step for step, the pinned tensor has exactly the
given layout (the plan and the saved strategy file say so), the redistribution into it is
the expected collectives, in SEMI_AUTO_PARALLEL and AUTO_PARALLEL (sharding propagation),
eager and compiled (train_reshard.py asserts all of it on every rank); microspore's names
for it are ms-parallel's function."""

import pathlib
import re

import pytest

pytest.importorskip("mpi4py")
from ms_parallel.testing import run_ranks  # noqa: E402

SCRIPT = pathlib.Path(__file__).with_name("train_reshard.py")


def test_microspore_names_are_ms_parallels_reshard():
    import microspore as ms
    from microspore.parallel.function import reshard
    from ms_parallel.auto.layout import Layout
    from ms_parallel.auto.reshard import reshard as own

    assert ms.reshard is reshard is ms.ops.reshard is ms.parallel.function.reshard is own
    assert ms.parallel.Layout is ms.Layout is Layout


@pytest.mark.slow  # MPI jobs of 2 and 4 ranks
@pytest.mark.parametrize("ranks, extra", [
    (2, ("--layout", "1d")),
    (4, ("--layout", "1d", "--auto")),
    (4, ("--layout", "2d")),  # the device axes swapped: gather, trade, cut
    (2, ("--layout", "1d", "--graph")),  # one compiled step
    (4, ("--layout", "2d", "--graph", "--auto")),
])
def test_reshard_between_two_matmuls_equals_one_process(ranks, extra, tmp_path):
    proc = run_ranks(ranks, SCRIPT, "--steps", 3, "--save", tmp_path / "strategy.json",
                     *extra, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # ranks' lines may run together in the forwarded output: match the numbers, not lines
    steps = re.findall(r"step (\d) sharded", proc.stdout)
    assert sorted(steps) == ["0", "1", "2"], proc.stdout
    assert sum(f"rank {r} ok" in proc.stdout for r in range(ranks)) == ranks


@pytest.mark.slow
def test_reshard_inside_sharded_pipeline_stages(tmp_path):
    """2 stages x 2 ranks: each stage's reshard pins its layout (pipeline_reshard.py)."""
    proc = run_ranks(4, SCRIPT.with_name("pipeline_reshard.py"), "--steps", 3, "--save",
                     tmp_path, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(re.findall(r"step (\d) pipeline", proc.stdout)) == ["0", "1", "2"]
    assert sum(f"rank {r} ok" in proc.stdout for r in range(4)) == 4
