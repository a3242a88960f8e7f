"""Semi-auto parallel on 2 and 4 ranks through the launcher: the sharded training step gives
the single-process losses and Parameters (train_sharded.py asserts both on every rank), and
with optimizer parallel; random redistributions rebuild the right slices
(redistribute_ranks.py)."""

import pathlib
import re

import pytest

pytest.importorskip("mpi4py")
from ms_parallel.testing import run_ranks  # noqa: E402

SCRIPT = pathlib.Path(__file__).with_name("train_sharded.py")
pytestmark = pytest.mark.slow  # MPI jobs of 2 and 4 ranks


@pytest.mark.parametrize("ranks, model, extra", [
    (2, "mlp", ()), (4, "mlp", ()), (2, "block", ()), (4, "block", ()),
    # optimizer parallel (ZeRO-1) with Momentum: data-parallel replicas on 2 ranks, a 2 x 2
    # hybrid on 4, and the block's replicated LayerNorm parameters
    (2, "mlp", ("--optimizer", "parallel", "--hybrid")),
    (4, "mlp", ("--optimizer", "parallel", "--hybrid")),
    (4, "block", ("--optimizer", "parallel")),
])
def test_sharded_training_equals_one_process(ranks, model, extra):
    proc = run_ranks(ranks, SCRIPT, "--model", model, "--steps", 3, *extra, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    # ranks' lines may run together in the forwarded output: match the numbers, not lines
    lines = re.findall(r"step (\d) sharded (-?\d+\.\d{12}) single (-?\d+\.\d{12})",
                       proc.stdout)
    assert sorted(k for k, _, _ in lines) == ["0", "1", "2"], proc.stdout
    for _, sharded, single in lines:
        assert sharded == single
    assert sum(f"rank {r} ok" in proc.stdout for r in range(ranks)) == ranks


@pytest.mark.parametrize("ranks, extra", [
    (2, ("--optimizer", "momentum")),
    (2, ("--optimizer", "adam", "--parallel-optimizer")),
    (4, ("--optimizer", "adamw", "--parallel-optimizer")),
    # GRAPH_MODE: one compiled sharded step, optimizer parallel's collectives included
    (2, ("--optimizer", "adam", "--graph", "--parallel-optimizer")),
    (2, ("--optimizer", "momentum", "--auto", "--parallel-optimizer")),  # AUTO_PARALLEL
    # then Model.eval / predict / a call of the network on the sliced Parameters
    (2, ("--optimizer", "adam", "--parallel-optimizer", "--graph", "--eval")),
    # TrainOneStepWithLossScaleCell (Model's loss_scale_manager), an overflowing step
    (2, ("--optimizer", "adam", "--graph", "--loss-scale", "fixed")),
    (4, ("--optimizer", "adamw", "--parallel-optimizer", "--auto", "--loss-scale", "dynamic",
         "--eval")),
    # the strategy file and the ranks' checkpoints (optimizer parts included) re-cut for one
    # device by transform_checkpoints, and read back as slices by load_distributed_checkpoint
    (4, ("--optimizer", "adam", "--parallel-optimizer", "--ckpt", "CKPT")),
    (4, ("--optimizer", "momentum", "--ckpt", "CKPT")),  # replicas: restore_group_info_list
    # the same from MindSpore's protobuf strategy file (a save_file not ending in .json)
    (2, ("--optimizer", "adam", "--parallel-optimizer", "--ckpt", "CKPT", "--strategy-file",
         "strategy.ckpt")),
])
def test_model_train_in_semi_auto_parallel_equals_one_process(ranks, extra, tmp_path):
    """A user script: set_auto_parallel_context(SEMI_AUTO_PARALLEL,
    enable_parallel_optimizer=...) and Model.train, each rank on its dataset shard."""
    script = SCRIPT.with_name("train_model.py")
    extra = tuple(tmp_path if a == "CKPT" else a for a in extra)
    proc = run_ranks(ranks, script, "--steps", 3, *extra, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert ("eval sharded" in proc.stdout) == ("--eval" in extra)
    if "--loss-scale" in extra:
        assert "step 1 sharded nan single nan" in proc.stdout
    assert ("distributed checkpoints ok" in proc.stdout) == ("--ckpt" in extra)
    # ranks' lines may run together in the forwarded output
    assert sorted(re.findall(r"step (\d) sharded", proc.stdout)) == ["0", "1", "2"]
    assert sum(f"rank {r} ok" in proc.stdout for r in range(ranks)) == ranks


@pytest.mark.parametrize("ranks, micro, stages, ext, custom", [
    (2, 2, 2, ".json", False), (4, 4, 4, ".json", False), (4, 4, 2, ".json", False),
    (4, 4, 2, ".ckpt", False),  # the stages' strategy files in MindSpore's protobuf
    (2, 2, 2, ".json", True),  # the backbone a Cell calling its layers in turn
])
def test_model_train_with_pipeline_stages_equals_one_process(ranks, micro, stages, ext,
                                                             custom, tmp_path):
    """Model.train on nn.PipelineCell(WithLossCell(backbone, loss), micro) (a SequentialCell,
    or a Cell whose construct calls its layers in turn) with
    pipeline_stages: 1F1B stages, losses of the one-process PipelineCell; with 2 stages on
    4 ranks each stage's MatMuls are also sharded 2 ways (column then row parallel), and the
    stages' strategy files merged re-cut the ranks' checkpoints into the single run's."""
    script = SCRIPT.with_name("train_model_pipeline.py")
    extra = ("--ckpt", tmp_path, "--strategy-ext", ext) if stages < ranks else ()
    extra += ("--custom",) if custom else ()
    proc = run_ranks(ranks, script, "--micro", micro, "--steps", 3, "--stages", stages,
                     *extra, timeout=240)
    assert ("pipeline checkpoints ok" in proc.stdout) == (stages < ranks), proc.stdout
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(re.findall(r"step (\d) pipeline", proc.stdout)) == ["0", "1", "2"]
    assert sum(f"rank {r} ok" in proc.stdout for r in range(ranks)) == ranks


def test_parallel_optimizer_in_sharded_pipeline_stages_equals_one_process(tmp_path):
    """enable_parallel_optimizer with 2 data-parallel stages x 2 ranks: each rank keeps a half
    of its stage's Parameters and Momentum state (the script checks), the losses and then
    predict equal the one-process PipelineCell's, and the checkpoints (flat parts, recorded
    with opt_weight_shard_size/step in the stages' strategy files) re-cut to one device."""
    script = SCRIPT.with_name("train_model_pipeline.py")
    proc = run_ranks(4, script, "--micro", 2, "--steps", 3, "--stages", 2,
                     "--parallel-optimizer", "--ckpt", tmp_path, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "pipeline checkpoints ok" in proc.stdout, proc.stdout
    assert sorted(re.findall(r"step (\d) pipeline", proc.stdout)) == ["0", "1", "2"]
    assert sum(f"rank {r} ok" in proc.stdout for r in range(4)) == 4


def test_compiled_sharded_step_equals_the_eager_one():
    """ms_graph.jit captures forward, backward, reductions and update as one graph whose
    collectives are nodes; run again on new data it equals the eager step (2 x 2 hybrid)."""
    script = SCRIPT.with_name("train_compiled.py")
    proc = run_ranks(4, script, "--steps", 3, "--hybrid", timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(re.findall(r"step (\d) eager", proc.stdout)) == ["0", "1", "2"]
    assert sum(f"rank {r} ok" in proc.stdout for r in range(4)) == 4


@pytest.mark.parametrize("ranks, seed", [(2, 1), (4, 2)])
def test_random_redistributions_on_real_ranks(ranks, seed):
    script = SCRIPT.with_name("redistribute_ranks.py")
    proc = run_ranks(ranks, script, "--cases", 40, "--seed", seed, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "checked 40" in proc.stdout


@pytest.mark.parametrize("ranks", [2, 4])
def test_sharded_checkpoints_merge_into_one_and_load_back(ranks, tmp_path):
    proc = run_ranks(ranks, SCRIPT, "--model", "mlp", "--hybrid", "--steps", 1, "--ckpt",
                     tmp_path, timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "merged ok" in proc.stdout
    assert sum(f"rank {r} loaded ok" in proc.stdout for r in range(ranks)) == ranks
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("rank_")) == \
        [f"rank_{r}.ckpt" for r in range(ranks)]


# 16384 rows: 128 KB activations per micro-batch, past MPICH's eager limit, so a send
# order in which two stages wait on each other's sends would hang (and time out) here.
@pytest.mark.parametrize("ranks, micro, rows, extra", [
    (2, 2, 8, ()), (4, 4, 16384, ()), (2, 2, 8, ("--recompute",)),
    (2, 2, 8, ("--recompute-dense",))])  # Cell.recompute() on single cells of the stages
def test_pipeline_1f1b_equals_one_process(ranks, micro, rows, extra):
    script = SCRIPT.with_name("train_pipeline.py")
    proc = run_ranks(ranks, script, "--micro", micro, "--steps", 3, "--rows", rows, *extra,
                     timeout=240)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(re.findall(r"step (\d) pipeline", proc.stdout)) == ["0", "1", "2"]
    assert sum(f"rank {r} ok (4 parameters)" in proc.stdout for r in range(ranks)) == ranks
