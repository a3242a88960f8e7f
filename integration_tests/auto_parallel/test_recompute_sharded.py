"""``Cell.recompute()`` in sharded runs: on 2 ranks a ShardedNet whose marked Cell's
operators are one recomputed region (eager and compiled) and a pipeline stage sharded over
both ranks with marked cells; on 4 ranks two such stages, and a batch- and model-cut pair
whose replicated slices are kept as parts (optimizer parallel) (``train_recompute.py``);
``Model.train`` in SEMI_AUTO_PARALLEL of a marked network, PyNative and GRAPH_MODE
(``train_model.py``). Each equals the same run without the marks."""

import pathlib

import pytest

pytest.importorskip("mpi4py")
from ms_parallel.testing import run_ranks  # noqa: E402

SCRIPT = pathlib.Path(__file__).with_name("train_recompute.py")


@pytest.mark.parametrize("case, ranks", [("sharded", 2), ("zero", 4), ("pipeline", 2),
                                         ("stages", 4)])
def test_recompute_on_sharded_ranks_equals_one_process(case, ranks):
    proc = run_ranks(ranks, SCRIPT, case, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sum(f"rank {r} ok" in proc.stdout for r in range(ranks)) == ranks, proc.stdout


@pytest.mark.parametrize("extra", [(), ("--graph",)])
def test_model_train_semi_auto_with_a_marked_network_equals_one_process(extra):
    script = SCRIPT.with_name("train_model.py")
    proc = run_ranks(2, script, "--optimizer", "momentum", "--recompute", *extra, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sum(f"rank {r} ok" in proc.stdout for r in range(2)) == 2, proc.stdout
