"""ms-parallel's hookimpls: the collectives join the registry (``ops.AllReduce`` and the
rest), ``microspore run`` joins the CLI, and ms-nn finds the data-parallel gradient
reducer here (``"train_hook"`` entries) without importing ms-parallel.
"""

from __future__ import annotations

from ms_tensor.hookspecs import hookimpl
from ms_tensor.registry import RegistryView


@hookimpl
def ms_register_ops(registry: RegistryView) -> None:
    from ms_parallel.neighbor import BatchISendIRecv, NeighborExchange
    from ms_parallel.p2p_ops import AlltoAll, AlltoAllV, Receive, Send
    from ms_parallel.reduce_ops import AllGather, AllReduce, Broadcast, ReduceOp, ReduceScatter
    from ms_parallel.rooted_ops import Barrier, CollectiveGather, CollectiveScatter, Reduce
    from ms_parallel.uneven_ops import AllGatherV, AlltoAllVC, ReduceScatterV

    registry.add_ops(AllReduce, AllGather, ReduceScatter, Broadcast, AlltoAll, AlltoAllV,
                     Send, Receive, Reduce, CollectiveGather, CollectiveScatter, Barrier,
                     AllGatherV, ReduceScatterV, AlltoAllVC)
    from ms_parallel.overlap_ops import AllReduceStart, AllReduceWait

    registry.add_ops(AllReduceStart, AllReduceWait)
    registry.add_function("ReduceOp", ReduceOp)
    registry.add_function("NeighborExchange", NeighborExchange)
    registry.add_function("BatchISendIRecv", BatchISendIRecv)
    # ms-nn's TrainOneStepCell asks for this; imported only when a training step is built
    registry.add("train_hook", "grad_reducer", "ms_parallel.data_parallel:grad_reducer_for")


@hookimpl
def ms_register_passes(registry: RegistryView) -> None:
    # the schedule stage runs after every optimize pass (fusion, dead-code removal)
    registry.add_pass("overlap_collectives", "ms_parallel.overlap_pass:run", stage="schedule")


@hookimpl
def ms_register_cli_commands(registry: RegistryView) -> None:
    registry.add_cli_command("run", "ms_parallel.run:main",
                             help="launch a training script on N ranks over mpiexec "
                                  "(msrun's role)")
