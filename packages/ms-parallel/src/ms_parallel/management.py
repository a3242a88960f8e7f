"""MindSpore's ``mindspore.communication.management`` over MPI.

``init()`` accepts MindSpore's backend names (``"hccl"``, ``"nccl"``, ``"mccl"``) and
``"mpi"``: all of them run on MPI here (mpi4py). A process that no launcher started is
rank 0 of a world of 1, with or without ``init()``, so a single-process script runs
unchanged.

>>> from ms_parallel.management import get_rank, get_group_size
>>> get_rank(), get_group_size()
(0, 1)
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from ms_parallel import groups
from ms_parallel.groups import WORLD, CommError, group

__all__ = [
    "init", "release", "is_initialized", "get_rank", "get_group_size", "get_local_rank",
    "get_local_rank_size", "create_group", "destroy_group", "get_world_rank_from_group_rank",
    "get_group_rank_from_world_rank", "get_process_group_ranks", "get_comm_name",
    "GlobalComm", "HCCL_WORLD_COMM_GROUP", "NCCL_WORLD_COMM_GROUP", "MCCL_WORLD_COMM_GROUP",
    "CommError", "ARRIVAL_DIR_ENV",
]

HCCL_WORLD_COMM_GROUP = WORLD
NCCL_WORLD_COMM_GROUP = "nccl_world_group"
MCCL_WORLD_COMM_GROUP = "mccl_world_group"
_BACKENDS = {"hccl": "hccl", "nccl": "nccl", "mccl": "mccl", "mpi": "mpi"}

ARRIVAL_DIR_ENV = "MS_PARALLEL_ARRIVAL_DIR"
"""Set by ``microspore run`` for its ranks: ``init()`` writes ``rank.<n>`` there before
MPI starts, so the launcher can name a rank that never arrives (MPI's own start-up waits
for every rank without a timeout)."""


class GlobalComm:
    """The world's settings, as MindSpore exposes them."""

    BACKEND = "hccl"
    WORLD_COMM_GROUP = WORLD
    INITED = False
    CHECK_ENVS = True


_local = {"rank": 0, "size": 1}


def init(backend_name: str | None = None) -> None:
    """Join the job: start MPI and make the world group.

    Args:
        backend_name: ``"hccl"``, ``"nccl"``, ``"mccl"``, ``"mpi"`` or None (all MPI here).
    Raises:
        ValueError: an unknown backend name.
    """
    if backend_name is not None and str(backend_name).lower() not in _BACKENDS:
        raise ValueError(f"init: backend_name must be one of {', '.join(_BACKENDS)} or None, "
                         f"got {backend_name!r}")
    if GlobalComm.INITED:
        return
    _announce_arrival()
    from ms_parallel.mpi_group import MPIGroup, mpi

    MPI = mpi()
    world = MPI.COMM_WORLD
    groups.unregister(WORLD)  # the one-process world used before init
    groups.register(MPIGroup(WORLD, world, range(world.Get_size())))
    node = world.Split_type(MPI.COMM_TYPE_SHARED)
    _local.update(rank=node.Get_rank(), size=node.Get_size())
    node.Free()
    GlobalComm.BACKEND = (backend_name or "hccl").lower()
    GlobalComm.INITED = True


def _announce_arrival() -> None:
    where = os.environ.get(ARRIVAL_DIR_ENV)
    rank = os.environ.get("PMI_RANK")
    if where and rank is not None:
        Path(where, f"rank.{rank}").write_text(f"{os.getpid()} {time.time()}\n")


def is_initialized() -> bool:
    return GlobalComm.INITED


def release() -> None:
    """Leave the job: free every group. MPI itself ends when the process exits
    (mpi4py finalizes it), so ``init()`` may be called again."""
    for name in groups.names():
        g = groups.unregister(name)
        if g is not None and name != WORLD:
            g.free()
    _local.update(rank=0, size=1)
    GlobalComm.INITED = False


def get_rank(group: str = WORLD) -> int:
    """This process's rank in ``group``."""
    return _group(group).rank


def get_group_size(group: str = WORLD) -> int:
    """How many ranks ``group`` has."""
    return _group(group).size


def get_local_rank(group: str = WORLD) -> int:
    """This process's rank among the ranks of its machine."""
    _world_only("get_local_rank", group)
    return _local["rank"]


def get_local_rank_size(group: str = WORLD) -> int:
    """How many ranks run on this machine."""
    _world_only("get_local_rank_size", group)
    return _local["size"]


def _world_only(fn: str, name: str) -> None:
    _group(name)
    if name not in groups.WORLD_ALIASES:
        raise ValueError(f"{fn}: only the world group is supported, got {name!r}")


def _group(name):
    if not isinstance(name, str):
        raise TypeError(f"group must be a str, got {type(name).__name__}")
    return group(name)


def create_group(group: str, rank_ids) -> None:
    """Make a group of the world ranks ``rank_ids``; every rank in it must call this.

    Raises:
        ValueError: a bad name, fewer than one rank, repeated or out-of-range ranks, or
            a caller that is not in ``rank_ids``.
    """
    if not isinstance(group, str) or not group or group in groups.WORLD_ALIASES:
        raise ValueError(f"create_group: group must be a new, non-empty name other than the "
                         f"world's, got {group!r}")
    if group in groups.names():
        raise ValueError(f"create_group: group {group!r} already exists")
    ranks = list(rank_ids)
    world = _group(WORLD)
    if not ranks or len(set(ranks)) != len(ranks) or \
            any(not isinstance(r, int) or not 0 <= r < world.size for r in ranks):
        raise ValueError(f"create_group: rank_ids must be distinct ranks in [0, {world.size}), "
                         f"got {rank_ids!r}")
    if world.rank not in ranks:
        raise ValueError(f"create_group: rank {world.rank} calls it for group {group!r}, "
                         f"which has ranks {ranks}; only its members may")
    if world.size == 1:
        groups.register(groups.SelfGroup(group))
        return
    from ms_parallel.mpi_group import MPIGroup

    comm = world.comm.Create_group(world.comm.group.Incl(ranks), tag=0)
    groups.register(MPIGroup(group, comm, ranks))


def destroy_group(group: str) -> None:
    """Free a group made by ``create_group``."""
    if group in groups.WORLD_ALIASES:
        raise ValueError("destroy_group: the world group cannot be destroyed (use release())")
    g = groups.unregister(group)
    if g is None:
        raise ValueError(f"destroy_group: no group named {group!r}")
    g.free()


def get_process_group_ranks(group: str = WORLD) -> list[int]:
    """The world ranks of ``group``'s members, in group-rank order."""
    return list(_group(group).world_ranks)


def get_world_rank_from_group_rank(group: str, group_rank_id: int) -> int:
    ranks = _group(group).world_ranks
    if not isinstance(group_rank_id, int) or not 0 <= group_rank_id < len(ranks):
        raise ValueError(f"get_world_rank_from_group_rank: group {group!r} has ranks "
                         f"0..{len(ranks) - 1}, got {group_rank_id!r}")
    return ranks[group_rank_id]


def get_group_rank_from_world_rank(world_rank_id: int, group: str) -> int:
    ranks = _group(group).world_ranks
    if world_rank_id not in ranks:
        raise ValueError(f"get_group_rank_from_world_rank: world rank {world_rank_id!r} is "
                         f"not in group {group!r} (ranks {list(ranks)})")
    return ranks.index(world_rank_id)


def get_comm_name(group: str = WORLD) -> str:
    """The communicator's name (the group name here)."""
    return _group(group).name
