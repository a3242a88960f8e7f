"""Vocab-parallel lookups on 2 and 4 ranks through the launcher: Gather/Embedding with the
table's rows cut (and the batch on 4 ranks) give the single-process losses, table gradients
and Parameters step for step (``train_gather_rows.py`` asserts them on every rank), eager and
with the sharded step compiled; and ``Model.train`` in SEMI_AUTO_PARALLEL of such a network,
PyNative and GRAPH_MODE (``model_gather_rows.py``)."""

import pathlib
import re

import pytest

pytest.importorskip("mpi4py")
from ms_parallel.testing import run_ranks  # noqa: E402

SCRIPT = pathlib.Path(__file__).with_name("train_gather_rows.py")


@pytest.mark.parametrize("ranks, extra", [
    (2, ()), (4, ("--batch",)),
    (2, ("--op", "embedding", "--graph")),  # GRAPH_MODE: one compiled sharded step
    (4, ("--op", "embedding", "--batch")),
])
def test_vocab_parallel_lookup_trains_as_one_process(ranks, extra):
    proc = run_ranks(ranks, SCRIPT, "--steps", 3, *extra, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # ranks' lines may run together in the forwarded output: match the numbers, not lines
    lines = re.findall(r"step (\d) sharded (-?\d+\.\d{12}) single (-?\d+\.\d{12})",
                       proc.stdout)
    assert sorted(k for k, _, _ in lines) == ["0", "1", "2"], proc.stdout
    assert all(a == b for _, a, b in lines), proc.stdout
    assert sum(f"rank {r} ok" in proc.stdout for r in range(ranks)) == ranks, proc.stdout


@pytest.mark.parametrize("ranks, extra", [(2, ()), (4, ("--batch", "--graph"))])
def test_model_train_of_a_vocab_parallel_network_equals_one_process(ranks, extra):
    proc = run_ranks(ranks, SCRIPT.with_name("model_gather_rows.py"), "--steps", 3, *extra,
                     timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(re.findall(r"step (\d) sharded", proc.stdout)) == ["0", "1", "2"]
    assert sum(f"rank {r} ok" in proc.stdout for r in range(ranks)) == ranks, proc.stdout
