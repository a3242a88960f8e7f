"""The hookimpls that add ``microspore parallel plan`` (imported lazily by the CLI) and the
sharded training step ms-nn's ``TrainOneStepCell`` asks for in SEMI_AUTO_PARALLEL and
AUTO_PARALLEL (``("train_hook", "parallel_step")``; ms-nn never imports ms-parallel)."""

from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView


@hookimpl
def ms_register_cli_commands(registry: RegistryView) -> None:
    registry.add_cli_command("parallel", "ms_parallel.auto.cli:main",
                             help="plan a parallel strategy on a simulated cluster")


@hookimpl
def ms_register_ops(registry: RegistryView) -> None:
    from ms_parallel.auto.reshard import Reshard, reshard

    registry.add("train_hook", "parallel_step", "ms_parallel.auto.train:parallel_step_for")
    registry.add_ops(Reshard)
    registry.add_function("reshard", reshard)  # ops.reshard, as MindSpore's ops has it
