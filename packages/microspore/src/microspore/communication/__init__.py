"""``mindspore.communication``: ``init``, ranks and groups, run on MPI by ms-parallel.

``from microspore.communication import init, get_rank, get_group_size`` works as in
MindSpore; a script started without a launcher is rank 0 of 1.
"""

from microspore._lazy import forward

_MANAGEMENT = "ms_parallel.management"
_NAMES = dict.fromkeys((
    "init", "release", "get_rank", "get_group_size", "get_local_rank", "get_local_rank_size",
    "create_group", "destroy_group", "get_world_rank_from_group_rank",
    "get_group_rank_from_world_rank", "get_process_group_ranks", "get_comm_name",
    "GlobalComm", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP",
    "MCCL_WORLD_COMM_GROUP"), _MANAGEMENT)
_SUBMODULES = ("management", "comm_func")

__getattr__, __dir__ = forward(__name__, globals(), (), _NAMES, _SUBMODULES)

__all__ = [*_NAMES, *_SUBMODULES]
